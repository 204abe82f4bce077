package fs

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func TestUnifiedDiff(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, old, new, want string }{
		{"equal", "a\n", "a\n", ""},
		{"new file", "", "x\ny\n", "--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+x\n+y\n"},
		{"deleted content", "x\n", "", "--- a/f\n+++ b/f\n@@ -1 +0,0 @@\n-x\n"},
		{"one line", "a\n", "b\n", "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n"},
		{"middle change", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nV\n6\n7\n8\n9\n",
			"--- a/f\n+++ b/f\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+V\n 6\n 7\n 8\n"},
		{"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "X\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\nY\n",
			"--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n-1\n+X\n 2\n 3\n 4\n@@ -9,4 +9,4 @@\n 9\n 10\n 11\n-12\n+Y\n"},
		{"insertion", "1\n2\n3\n4\n5\n6\n", "1\n2\n3\nnew\n4\n5\n6\n",
			"--- a/f\n+++ b/f\n@@ -1,6 +1,7 @@\n 1\n 2\n 3\n+new\n 4\n 5\n 6\n"},
		{"no newline at end", "a", "b", "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n"},
		{"newline added at end", "a\nb", "a\nb\n", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"},
		{"not ASCII", "héllo\nwörld\n", "héllo\nwereld\n", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n héllo\n-wörld\n+wereld\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := UnifiedDiff("f", tc.old, tc.new)
			if got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
			if got != "" {
				if back := applyDiff(t, tc.old, got); back != tc.new {
					t.Errorf("the diff applied to old gives %q, want %q", back, tc.new)
				}
			}
		})
	}
}

// TestUnifiedDiffScatteredChanges: edits spread over a file give a correct
// diff whatever their number; up to forty of them (a Write that touched a
// file here and there) each shows as exactly its own lines, as the
// hand-written Myers diff showed them; past that, udiff's bounded search may
// merge neighbours into larger blocks.
func TestUnifiedDiffScatteredChanges(t *testing.T) {
	t.Parallel()
	for _, changes := range []int{1, 10, 40, 60, 200, 1500} {
		t.Run(strconv.Itoa(changes), func(t *testing.T) {
			t.Parallel()
			old, new := scattered(3000, changes)
			d := UnifiedDiff("f.go", old, new)
			if back := applyDiff(t, old, d); back != new {
				t.Fatalf("the diff does not turn old into new")
			}
			removed, added := countChanged(d)
			if changes <= 40 && (removed != changes || added != changes) {
				t.Errorf("%d scattered changes shown as -%d +%d lines, want exactly them", changes, removed, added)
			}
			if removed > 3000 || added > 3000 {
				t.Errorf("-%d +%d lines for a 3000-line file", removed, added)
			}
			if legacy := legacyUnifiedDiff("f.go", old, new); changes <= 40 && d != legacy {
				t.Errorf("differs from the former diff beyond the hunk header format:\n%s\nformer:\n%s", d, legacy)
			}
		})
	}
}

func TestUnifiedDiffLargeRewriteStaysBounded(t *testing.T) {
	t.Parallel()
	var a, b strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&a, "old %d\n", i)
		fmt.Fprintf(&b, "new %d\n", i)
	}
	d := UnifiedDiff("f", a.String(), b.String())
	if strings.Count(d, "\n-old") != 5000 || strings.Count(d, "\n+new") != 5000 {
		t.Errorf("a full rewrite should show every line removed and added")
	}
	if back := applyDiff(t, a.String(), d); back != b.String() {
		t.Errorf("the diff does not turn old into new")
	}
}

func TestUnifiedDiffTooLong(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("line\n", maxDiffLines+1)
	want := fmt.Sprintf("--- a/f\n+++ b/f\n@@ file too long to diff: %d lines before, 1 lines after @@\n", maxDiffLines+1)
	if got := UnifiedDiff("f", long, "x"); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// scattered returns a Go-like file of n lines and a copy with changes lines
// changed, evenly spread.
func scattered(n, changes int) (old, new string) {
	var a, b strings.Builder
	step := n / changes
	for i := range n {
		line := fmt.Sprintf("\tv%d := compute(%d, opts)\n", i, i)
		a.WriteString(line)
		if i%step == step/2 && i/step < changes {
			line = fmt.Sprintf("\tv%d := computeFast(%d, opts)\n", i, i)
		}
		b.WriteString(line)
	}
	return a.String(), b.String()
}

// countChanged counts a diff's removed and added lines.
func countChanged(d string) (removed, added int) {
	for _, l := range strings.Split(d, "\n") {
		switch {
		case strings.HasPrefix(l, "---") || strings.HasPrefix(l, "+++"):
		case strings.HasPrefix(l, "-"):
			removed++
		case strings.HasPrefix(l, "+"):
			added++
		}
	}
	return removed, added
}

var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$`)

// applyDiff applies a unified diff to old the way a reader of DiffView
// takes it: every hunk header must name the lines its context and removals
// are at in old (and its additions in the result), and the counts must
// match the hunk's lines. It fails the test on any mismatch.
func applyDiff(t *testing.T, old, diff string) string {
	t.Helper()
	src := strings.SplitAfter(old, "\n")
	if src[len(src)-1] == "" {
		src = src[:len(src)-1]
	}
	lines := strings.SplitAfter(diff, "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "--- a/") || !strings.HasPrefix(lines[1], "+++ b/") {
		t.Fatalf("no file header in\n%s", diff)
	}
	var out []string
	next := 0 // the next line of src to copy
	for i := 2; i < len(lines) && lines[i] != ""; {
		m := hunkHeader.FindStringSubmatch(strings.TrimSuffix(lines[i], "\n"))
		if m == nil {
			t.Fatalf("bad hunk header %q", lines[i])
		}
		num := func(s string, dflt int) int {
			if s == "" {
				return dflt
			}
			n, _ := strconv.Atoi(s)
			return n
		}
		fromStart, fromCount := num(m[1], 0), num(m[2], 1)
		toStart, toCount := num(m[3], 0), num(m[4], 1)
		at := fromStart - 1
		if fromCount == 0 {
			at = fromStart // an empty side names the line before it
		}
		if at < next || at > len(src) {
			t.Fatalf("hunk %q starts at line %d of %d, after line %d", lines[i], at+1, len(src), next)
		}
		out = append(out, src[next:at]...)
		next = at
		if toCount > 0 && len(out) != toStart-1 || toCount == 0 && len(out) != toStart {
			t.Fatalf("hunk %q: the new side starts at line %d, not %d", lines[i], len(out)+1, toStart)
		}
		i++
		from, to := 0, 0
		for ; i < len(lines) && lines[i] != "" && !strings.HasPrefix(lines[i], "@@"); i++ {
			kind, text := lines[i][0], lines[i][1:]
			if i+1 < len(lines) && strings.HasPrefix(lines[i+1], `\ No newline at end of file`) {
				text = strings.TrimSuffix(text, "\n")
				i++
			}
			switch kind {
			case ' ', '-':
				if next >= len(src) || src[next] != text {
					t.Fatalf("hunk line %q does not match old line %d", lines[i], next+1)
				}
				next++
				from++
				if kind == ' ' {
					out = append(out, text)
					to++
				}
			case '+':
				out = append(out, text)
				to++
			default:
				t.Fatalf("bad diff line %q", lines[i])
			}
		}
		if from != fromCount || to != toCount {
			t.Fatalf("hunk %s: header counts -%d +%d, lines -%d +%d", m[0], fromCount, toCount, from, to)
		}
	}
	return strings.Join(append(out, src[next:]...), "")
}

// BenchmarkUnifiedDiff compares go-udiff with the hand-written Myers diff it
// replaced, on the edits Write and Edit make to a real source file
// ($(go env GOROOT)/src/strings/strings.go, 1,300 lines). lines-shown is how
// many removed and added lines the diff shows.
func BenchmarkUnifiedDiff(b *testing.B) {
	src := goRootFile(b, "src", "strings", "strings.go")
	lines := strings.SplitAfter(src, "\n")
	mid := len(lines) / 2
	edited := strings.Join(lines[:mid], "") + "\t// a new comment\n\tx := 1\n\t_ = x\n" +
		strings.Join(lines[mid+5:], "")
	var ten strings.Builder
	for i, l := range lines {
		if i%(len(lines)/10) == 5 {
			l = strings.TrimSuffix(l, "\n") + " // changed\n"
		}
		ten.WriteString(l)
	}
	cases := []struct{ name, old, new string }{
		{"edit-one-block", src, edited},
		{"write-ten-changes", src, ten.String()},
		{"rename-sep-everywhere", src, regexp.MustCompile(`\bsep\b`).ReplaceAllString(src, "separator")},
		{"new-file", "", src},
	}
	for _, c := range cases {
		for _, impl := range []struct {
			name string
			diff func(name, old, new string) string
		}{{"udiff", UnifiedDiff}, {"myers", legacyUnifiedDiff}} {
			b.Run(c.name+"/"+impl.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					impl.diff("f.go", c.old, c.new)
				}
				removed, added := countChanged(impl.diff("f.go", c.old, c.new))
				b.ReportMetric(float64(removed+added), "lines-shown")
			})
		}
	}
}

// goRootFile reads a file of the Go distribution, skipping the benchmark
// when there is none.
func goRootFile(b *testing.B, elem ...string) string {
	b.Helper()
	root := runtime.GOROOT() //nolint:staticcheck // fallback when the go command is missing
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		root = strings.TrimSpace(string(out))
	}
	data, err := os.ReadFile(filepath.Join(append([]string{root}, elem...)...))
	if err != nil {
		b.Skipf("no Go source to diff: %v", err)
	}
	return string(data)
}
