package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Everything the CLI prints that it did not write itself — a model's
// answer, a tool's output, a tool name the model chose, an MCP server's
// name, errors and stderr, a session title — goes through oneLine or text
// first (and JSON through writeJSON), so that no control character reaches
// the terminal as itself: an ESC could start an escape sequence that
// rewrites the screen, retitles the window or hides what follows, and a
// newline or carriage return in a name could forge a line of output.

// oneLine escapes every control character, newlines and tabs included, for
// a field that must stay on its line.
func oneLine(s string) string { return escapeControls(s, false) }

// text escapes control characters but keeps newlines and tabs (and the CR
// of a CRLF), which are content in multi-line text.
func text(s string) string { return escapeControls(s, true) }

// escapeControls writes C0 and C1 controls, DEL, the bidirectional
// overrides and bytes that are not UTF-8 as visible escapes (\x1b, \r,
// \u009b, \u202e, \xff). With multiline, \n, \t and a \r before \n stay.
func escapeControls(s string, multiline bool) string {
	if !needsEscape(s, multiline) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case multiline && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case multiline && r == '\r' && i+1 < len(s) && s[i+1] == '\n':
			b.WriteByte('\r')
		case r < 0x20 || r == 0x7f:
			switch r {
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case '\t':
				b.WriteString(`\t`)
			default:
				fmt.Fprintf(&b, `\x%02x`, r)
			}
		case isC1(r) || isBidi(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func needsEscape(s string, multiline bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 0x80:
			return !utf8.ValidString(s[i:]) || strings.ContainsFunc(s[i:], func(r rune) bool { return isC1(r) || isBidi(r) })
		case c == 0x7f:
			return true
		case c < 0x20 && !(multiline && (c == '\n' || c == '\t' || c == '\r')):
			return true
		case c == '\r' && (i+1 >= len(s) || s[i+1] != '\n'):
			return true
		}
	}
	return false
}

func isC1(r rune) bool { return r >= 0x80 && r <= 0x9f }

// isBidi reports the embedding, override and isolate controls, which can
// make text read in another order than it runs ("Trojan Source").
func isBidi(r rune) bool { return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 }

// writeJSON writes v as indented JSON. encoding/json already escapes the C0
// controls inside strings; DEL, the C1 controls and the bidirectional
// controls are escaped here too (\u009b), which leaves the JSON equal.
func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(jsonSafe(b), '\n'))
	return err
}

// jsonLine writes v as one line of JSON, escaped like writeJSON.
func jsonLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(jsonSafe(b), '\n'))
	return err
}

// jsonSafe escapes DEL, C1 and bidirectional controls in marshalled JSON;
// they can only stand inside strings, where \uXXXX means the same.
func jsonSafe(b []byte) []byte {
	if !bytes.ContainsFunc(b, func(r rune) bool { return r == 0x7f || isC1(r) || isBidi(r) }) {
		return b
	}
	var out bytes.Buffer
	out.Grow(len(b) + 16)
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == 0x7f || isC1(r) || isBidi(r) {
			fmt.Fprintf(&out, `\u%04x`, r)
		} else {
			out.Write(b[:size])
		}
		b = b[size:]
	}
	return out.Bytes()
}

// cut shortens s to at most n bytes at a character boundary, marking the
// cut with "...".
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n -= 3
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
