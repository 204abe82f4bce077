package fs

import (
	"fmt"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// maxDiffLines bounds the diffs UnifiedDiff shows: files longer than this
// get a one-line summary instead of a line diff, so that a tool result never
// carries a diff of hundreds of thousands of lines to the UI.
const maxDiffLines = 20000

// UnifiedDiff returns a unified diff (3 lines of context) from old to new,
// labelled a/name and b/name, in the format of GNU diff -u: a hunk side of
// one line leaves out its count ("@@ -4 +4 @@"), an empty side is ",0", and
// a last line without a newline is followed by "\ No newline at end of
// file". It returns "" when the texts are equal. It is meant for people
// reading a Write or Edit in the UI (DiffView), not for patch(1).
//
// The lines are diffed by go-udiff, a maintained copy of the Go team's
// internal/diff (gopls). Its search is bounded, so a diff never takes long:
// past about fifty changes scattered between unchanged lines, neighbouring
// changes are shown merged into larger replaced blocks, which is still a
// correct diff of the two texts.
func UnifiedDiff(name, old, new string) string {
	if old == new {
		return ""
	}
	from, to := "a/"+name, "b/"+name
	if a, b := lineCount(old), lineCount(new); a > maxDiffLines || b > maxDiffLines {
		return fmt.Sprintf("--- %s\n+++ %s\n@@ file too long to diff: %d lines before, %d lines after @@\n", from, to, a, b)
	}
	d, err := udiff.ToUnified(from, to, old, udiff.Lines(old, new), udiff.DefaultContextLines)
	if err != nil {
		// Cannot happen: the edits udiff.Lines computes apply to old. Say so
		// in the diff rather than fail the tool call that changed the file.
		return fmt.Sprintf("--- %s\n+++ %s\n@@ no diff: %v @@\n", from, to, err)
	}
	return d
}

// lineCount is how many lines s has, a last one without a newline included.
func lineCount(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}
