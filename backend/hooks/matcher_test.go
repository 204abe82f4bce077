package hooks

import "testing"

func TestMatcher(t *testing.T) {
	t.Parallel()
	cases := []struct {
		matcher string
		value   string
		want    bool
	}{
		{"", "Bash", true},
		{"*", "mcp__github__create_issue", true},
		{"Bash", "Bash", true},
		{"Bash", "bash", false}, // case-sensitive, as Claude Code
		{"Write", "Writer", false},
		{"Writ", "Write", false}, // a plain name is exact, never a prefix
		{"Write|Edit", "Edit", true},
		{"Write|Edit", "MultiEdit", false},
		{"Edit|", "Edit", true},
		{"rit.", "Write", true}, // anything else is a regular expression, unanchored
		{"Notebook.*", "NotebookEdit", true},
		{"mcp__github__.*", "mcp__github__create_issue", true},
		{"mcp__github__.*", "mcp__gitlab__create_issue", false},
		{"mcp__.*", "notmcp__x__y", true}, // unanchored: Claude Code's behaviour
		{"^Bash$", "Bash", true},
		{"^Bash$", "BashOutput", false},
		{" Bash ", "Bash", true},
		{"startup|resume", "resume", true},
	}
	for _, c := range cases {
		m, err := CompileMatcher(c.matcher)
		if err != nil {
			t.Fatalf("%q: %v", c.matcher, err)
		}
		if got := m.Match(c.value); got != c.want {
			t.Errorf("matcher %q on %q = %v, want %v", c.matcher, c.value, got, c.want)
		}
	}
	if _, err := CompileMatcher("Bash("); err == nil {
		t.Error("an invalid regular expression compiled")
	}
}
