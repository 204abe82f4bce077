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

// HumanBytes spells a size for the model: "512 bytes", "1.5 KB", "12.0 MB".
func HumanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
