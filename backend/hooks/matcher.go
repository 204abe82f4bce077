package hooks

import (
	"fmt"
	"regexp"
	"strings"
)

// Matcher tests the value an event matches on (a tool name, a
// SessionStart source...) the way Claude Code does:
//
//   - "" and "*" match everything;
//   - a matcher of letters, digits, "_" and "|" only is a list of exact
//     names: "Write|Edit" matches Write and Edit, "Writ" matches nothing;
//   - anything else is a regular expression searched in the value, not
//     anchored: "mcp__github__.*" matches that server's tools, "Notebook.*"
//     matches NotebookEdit, "^Bash$" only Bash.
//
// A Matcher is immutable and safe for concurrent use.
type Matcher struct {
	all   bool
	names []string
	re    *regexp.Regexp
}

// CompileMatcher reads a matcher. Only a regular expression that does not
// compile is an error.
func CompileMatcher(s string) (Matcher, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "*" {
		return Matcher{all: true}, nil
	}
	if isNameList(s) {
		var names []string
		for n := range strings.SplitSeq(s, "|") {
			if n != "" {
				names = append(names, n)
			}
		}
		return Matcher{names: names}, nil
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return Matcher{}, fmt.Errorf("matcher %q is not a valid regular expression: %v", s, err)
	}
	return Matcher{re: re}, nil
}

func isNameList(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '|') {
			return false
		}
	}
	return true
}

// Match reports whether the matcher selects value.
func (m Matcher) Match(value string) bool {
	switch {
	case m.all:
		return true
	case m.re != nil:
		return m.re.MatchString(value)
	}
	for _, n := range m.names {
		if n == value {
			return true
		}
	}
	return false
}
