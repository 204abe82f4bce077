package tools

import (
	"fmt"
	"strings"
)

// maxDiffLines bounds the work UnifiedDiff does: files longer than this get
// a summary instead of a line diff.
const maxDiffLines = 20000

// maxEditDistance bounds the Myers search (its memory grows with the square
// of the distance); past it the changed middle is shown as one replacement.
const maxEditDistance = 1000

// UnifiedDiff returns a unified diff (3 lines of context) from old to new,
// labelled with name. It returns "" when the texts are equal. It is meant for
// people reading a Write or Edit in the UI, not for patch(1).
func UnifiedDiff(name, old, new string) string {
	if old == new {
		return ""
	}
	a, b := splitLines(old), splitLines(new)
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- a/%s\n+++ b/%s\n", name, name)
	if len(a) > maxDiffLines || len(b) > maxDiffLines {
		fmt.Fprintf(&sb, "@@ file too long to diff: %d lines before, %d lines after @@\n", len(a), len(b))
		return sb.String()
	}
	ops := diffLines(a, b)
	writeHunks(&sb, ops, 3)
	return sb.String()
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

type diffOp struct {
	kind byte // ' ', '-', '+'
	line string
	a, b int // 0-based line indexes in old and new at this op
}

// diffLines computes an edit script with the Myers O(ND) algorithm after
// trimming the common prefix and suffix.
func diffLines(a, b []string) []diffOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []diffOp
	for i := 0; i < pre; i++ {
		ops = append(ops, diffOp{' ', a[i], i, i})
	}
	ops = append(ops, myers(a[pre:len(a)-suf], b[pre:len(b)-suf], pre, pre)...)
	for i := 0; i < suf; i++ {
		ai, bi := len(a)-suf+i, len(b)-suf+i
		ops = append(ops, diffOp{' ', a[ai], ai, bi})
	}
	return ops
}

func myers(a, b []string, aOff, bOff int) []diffOp {
	n, m := len(a), len(b)
	max := n + m
	if max == 0 {
		return nil
	}
	v := make([]int, 2*max+2)
	var trace [][]int
	for d := 0; d <= max; d++ {
		if d > maxEditDistance {
			return replaceAll(a, b, aOff, bOff)
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
				return backtrack(trace, a, b, aOff, bOff, d, max)
			}
		}
	}
	return nil
}

func replaceAll(a, b []string, aOff, bOff int) []diffOp {
	ops := make([]diffOp, 0, len(a)+len(b))
	for i, l := range a {
		ops = append(ops, diffOp{'-', l, aOff + i, bOff})
	}
	for j, l := range b {
		ops = append(ops, diffOp{'+', l, aOff + len(a), bOff + j})
	}
	return ops
}

func backtrack(trace [][]int, a, b []string, aOff, bOff, d, max int) []diffOp {
	x, y := len(a), len(b)
	var rev []diffOp
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
			rev = append(rev, diffOp{' ', a[x], aOff + x, bOff + y})
		}
		if x == prevX {
			y--
			rev = append(rev, diffOp{'+', b[y], aOff + x, bOff + y})
		} else {
			x--
			rev = append(rev, diffOp{'-', a[x], aOff + x, bOff + y})
		}
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, diffOp{' ', a[x], aOff + x, bOff + y})
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

func writeHunks(sb *strings.Builder, ops []diffOp, ctx int) {
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
