package skills

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// SplitArgs splits a command's argument string the way a shell splits
// words: on unquoted blanks, with '…' taken literally, "…" allowing \" \\
// \$ and \` escapes, and a backslash outside quotes escaping the next
// character. Nothing is expanded. An unclosed quote is an error.
func SplitArgs(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unclosed ' in the arguments %q", s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			closed := false
			for ; i < len(s); i++ {
				if s[i] == '"' {
					closed = true
					break
				}
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if !closed {
				return nil, fmt.Errorf("unclosed \" in the arguments %q", s)
			}
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			if s[i] != '\n' { // a backslash-newline joins lines
				cur.WriteByte(s[i])
			}
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}

// Positional says how $N counts in a template.
type Positional int

// The two conventions for $N.
const (
	// OneBased is the Markdown command convention (Claude Code's classic
	// commands): $1 is the first argument.
	OneBased Positional = 1
	// ZeroBased is the skill convention (Claude Code skills): $0 is the
	// first argument, $1 the second.
	ZeroBased Positional = 0
)

// Template is a command or skill body with its argument conventions.
type Template struct {
	Body string
	// Positional sets what $N means; $ARGUMENTS[N] is always 0-based.
	Positional Positional
	// Names are named arguments ($name), mapped onto the positions in
	// order (a skill's arguments field).
	Names []string
	// SkillDir replaces ${CLAUDE_SKILL_DIR} and ${TINYELF_SKILL_DIR}.
	SkillDir string
	// SessionID replaces ${CLAUDE_SESSION_ID} and ${TINYELF_SESSION_ID}.
	SessionID string
}

var placeholderRE = regexp.MustCompile(`\$(?:ARGUMENTS\[(\d+)\]|ARGUMENTS|\{([A-Z_]+)\}|(\d+)|([A-Za-z_][A-Za-z0-9_-]*))`)

// Render substitutes args into the template: $ARGUMENTS is the whole
// argument string, $ARGUMENTS[N] and $N single arguments split as SplitArgs
// does (missing ones are empty), $name a named argument. Other $words (a
// shell variable in a code sample) are left alone, and Claude Code's
// !`command` lines are not run: they stay text. When args are given but the
// body uses none of them, they are appended as "ARGUMENTS: …", so they are
// never lost.
func (t Template) Render(args string) (string, error) {
	args = strings.TrimSpace(args)
	words, err := SplitArgs(args)
	if err != nil {
		return "", err
	}
	at := func(i int) string {
		if i >= 0 && i < len(words) {
			return words[i]
		}
		return ""
	}
	used := false
	out := placeholderRE.ReplaceAllStringFunc(t.Body, func(m string) string {
		sub := placeholderRE.FindStringSubmatch(m)
		switch {
		case sub[1] != "":
			n, _ := strconv.Atoi(sub[1])
			used = true
			return at(n)
		case m == "$ARGUMENTS":
			used = true
			return args
		case sub[2] != "":
			switch sub[2] {
			case "CLAUDE_SKILL_DIR", "TINYELF_SKILL_DIR":
				if t.SkillDir != "" {
					return t.SkillDir
				}
			case "CLAUDE_SESSION_ID", "TINYELF_SESSION_ID":
				if t.SessionID != "" {
					return t.SessionID
				}
			}
			return m
		case sub[3] != "":
			n, err := strconv.Atoi(sub[3])
			if err != nil {
				return m
			}
			used = true
			if t.Positional == OneBased {
				if n == 0 {
					return m // $0 is not an argument in a command
				}
				return at(n - 1)
			}
			return at(n)
		case sub[4] != "":
			for i, name := range t.Names {
				if name == sub[4] {
					used = true
					return at(i)
				}
			}
		}
		return m
	})
	if !used && args != "" {
		out = strings.TrimRight(out, "\n") + "\n\nARGUMENTS: " + args
	}
	return out, nil
}
