package fs

// The hand-written Myers diff that UnifiedDiff used before go-udiff, kept
// only as the baseline of BenchmarkUnifiedDiff and of the tests that compare
// the two. Nothing outside the tests calls it.

import (
	"fmt"
	"strings"
)

// legacyMaxDiffLines bounds the work legacyUnifiedDiff does: files longer than this get
// a summary instead of a line diff.
const legacyMaxDiffLines = 20000

// legacyMaxEditDistance bounds the Myers search (its memory grows with the square
// of the distance); past it the changed middle is shown as one replacement.
const legacyMaxEditDistance = 1000

// legacyUnifiedDiff returns a unified diff (3 lines of context) from old to new,
// labelled with name. It returns "" when the texts are equal. It is meant for
// people reading a Write or Edit in the UI, not for patch(1).
func legacyUnifiedDiff(name, old, new string) string {
	if old == new {
		return ""
	}
	a, b := legacySplitLines(old), legacySplitLines(new)
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- a/%s\n+++ b/%s\n", name, name)
	if len(a) > legacyMaxDiffLines || len(b) > legacyMaxDiffLines {
		fmt.Fprintf(&sb, "@@ file too long to diff: %d lines before, %d lines after @@\n", len(a), len(b))
		return sb.String()
	}
	ops := legacyDiffLines(a, b)
	legacyWriteHunks(&sb, ops, 3)
	return sb.String()
}

func legacySplitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

type legacyDiffOp struct {
	kind byte // ' ', '-', '+'
	line string
	a, b int // 0-based line indexes in old and new at this op
}

// legacyDiffLines computes an edit script with the Myers O(ND) algorithm after
// trimming the common prefix and suffix.
func legacyDiffLines(a, b []string) []legacyDiffOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []legacyDiffOp
	for i := 0; i < pre; i++ {
		ops = append(ops, legacyDiffOp{' ', a[i], i, i})
	}
	ops = append(ops, legacyMyers(a[pre:len(a)-suf], b[pre:len(b)-suf], pre, pre)...)
	for i := 0; i < suf; i++ {
		ai, bi := len(a)-suf+i, len(b)-suf+i
		ops = append(ops, legacyDiffOp{' ', a[ai], ai, bi})
	}
	return ops
}

func legacyMyers(a, b []string, aOff, bOff int) []legacyDiffOp {
	n, m := len(a), len(b)
	max := n + m
	if max == 0 {
		return nil
	}
	v := make([]int, 2*max+2)
	var trace [][]int
	for d := 0; d <= max; d++ {
		if d > legacyMaxEditDistance {
			return legacyReplaceAll(a, b, aOff, bOff)
		}
		// Keep only the diagonals reachable at this depth: -d..d.
		trace = append(trace, append([]int(nil), v[max-d:max+d+1]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[max+k-1] < v[max+k+1]) {
				x = v[max+k+1]
			} else {
				x = v[max+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[max+k] = x
			if x >= n && y >= m {
				return legacyBacktrack(trace, a, b, aOff, bOff, d, max)
			}
		}
	}
	return nil
}

func legacyReplaceAll(a, b []string, aOff, bOff int) []legacyDiffOp {
	ops := make([]legacyDiffOp, 0, len(a)+len(b))
	for i, l := range a {
		ops = append(ops, legacyDiffOp{'-', l, aOff + i, bOff})
	}
	for j, l := range b {
		ops = append(ops, legacyDiffOp{'+', l, aOff + len(a), bOff + j})
	}
	return ops
}

func legacyBacktrack(trace [][]int, a, b []string, aOff, bOff, d, max int) []legacyDiffOp {
	x, y := len(a), len(b)
	var rev []legacyDiffOp
	for ; d > 0; d-- {
		// trace[d] holds v as it was before step d, for diagonals -d..d.
		v := func(k int) int { return trace[d][k+d] }
		k := x - y
		var prevK int
		if k == -d || (k != d && v(k-1) < v(k+1)) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := v(prevK)
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x--
			y--
			rev = append(rev, legacyDiffOp{' ', a[x], aOff + x, bOff + y})
		}
		if x == prevX {
			y--
			rev = append(rev, legacyDiffOp{'+', b[y], aOff + x, bOff + y})
		} else {
			x--
			rev = append(rev, legacyDiffOp{'-', a[x], aOff + x, bOff + y})
		}
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, legacyDiffOp{' ', a[x], aOff + x, bOff + y})
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

func legacyWriteHunks(sb *strings.Builder, ops []legacyDiffOp, ctx int) {
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(0, i-ctx)
		end := i
		// Extend the hunk while changes are within 2*ctx of each other.
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*ctx {
				end = min(len(ops), end+ctx)
				break
			}
			end = run
		}
		var aLen, bLen int
		for _, op := range ops[start:end] {
			if op.kind != '+' {
				aLen++
			}
			if op.kind != '-' {
				bLen++
			}
		}
		aStart, bStart := ops[start].a+1, ops[start].b+1
		if aLen == 0 {
			aStart--
		}
		if bLen == 0 {
			bStart--
		}
		fmt.Fprintf(sb, "@@ -%d,%d +%d,%d @@\n", aStart, aLen, bStart, bLen)
		for _, op := range ops[start:end] {
			sb.WriteByte(op.kind)
			sb.WriteString(op.line)
			if !strings.HasSuffix(op.line, "\n") {
				sb.WriteString("\n\\ No newline at end of file\n")
			}
		}
		i = end
	}
}
