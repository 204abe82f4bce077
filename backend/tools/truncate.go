package tools

import (
	"fmt"
	"unicode/utf8"
)

// CutUTF8 returns the longest prefix of s that is at most max bytes and does
// not split a UTF-8 encoded rune.
func CutUTF8(s string, max int) string {
	if len(s) <= max {
		return s
	}
	if max <= 0 {
		return ""
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// Truncate shortens s to at most max bytes (never splitting a rune) and, when
// it did, appends a note carrying TruncatedMark. It reports whether it cut.
func Truncate(s string, max int) (string, bool) {
	if max <= 0 || len(s) <= max {
		return s, false
	}
	kept := CutUTF8(s, max)
	return kept + fmt.Sprintf("\n\n... %s: showing the first %d of %d bytes.", TruncatedMark, len(kept), len(s)), true
}
