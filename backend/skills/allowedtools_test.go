package skills

import (
	"slices"
	"testing"

	"tinyelf/backend/config"
)

func TestParseAllowedTools(t *testing.T) {
	cases := []struct {
		in   string
		want []AllowedTool // Raw, Tool, Kind, Command, Specifier
		errs int
	}{
		{"Read", []AllowedTool{{Raw: "Read", Tool: "Read", Kind: AllowWholeTool}}, 0},
		{"Bash(git:*) Read", []AllowedTool{
			{Raw: "Bash(git:*)", Tool: "Bash", Specifier: "git:*", Kind: AllowCommandPrefix, Command: "git"},
			{Raw: "Read", Tool: "Read", Kind: AllowWholeTool}}, 0},
		{"Read, Grep,Glob", []AllowedTool{
			{Raw: "Read", Tool: "Read", Kind: AllowWholeTool}, {Raw: "Grep", Tool: "Grep", Kind: AllowWholeTool},
			{Raw: "Glob", Tool: "Glob", Kind: AllowWholeTool}}, 0},
		{"Bash(git  diff *)", []AllowedTool{{Raw: "Bash(git  diff *)", Tool: "Bash", Specifier: "git  diff *", Kind: AllowCommandPrefix, Command: "git diff"}}, 0},
		{"Bash(git diff:*)", []AllowedTool{{Raw: "Bash(git diff:*)", Tool: "Bash", Specifier: "git diff:*", Kind: AllowCommandPrefix, Command: "git diff"}}, 0},
		{"Bash(npm test)", []AllowedTool{{Raw: "Bash(npm test)", Tool: "Bash", Specifier: "npm test", Kind: AllowCommandExact, Command: "npm test"}}, 0},
		{"Bash(git * main)", []AllowedTool{{Raw: "Bash(git * main)", Tool: "Bash", Specifier: "git * main", Kind: AllowCommandPattern, Command: "git * main"}}, 0},
		{"Bash(npm*)", []AllowedTool{{Raw: "Bash(npm*)", Tool: "Bash", Specifier: "npm*", Kind: AllowCommandPattern, Command: "npm*"}}, 0},
		{"Bash(*) Bash", []AllowedTool{{Raw: "Bash(*)", Tool: "Bash", Kind: AllowWholeTool}}, 0},
		{"mcp__github__*", []AllowedTool{{Raw: "mcp__github__*", Tool: "mcp__github__*", Kind: AllowWholeTool}}, 0},
		{"LS MultiEdit Task", []AllowedTool{
			{Raw: "LS", Tool: "ListDir", Kind: AllowWholeTool}, {Raw: "MultiEdit", Tool: "Edit", Kind: AllowWholeTool},
			{Raw: "Task", Tool: "spawn_agent", Kind: AllowWholeTool}}, 0},
		{"Read(./src/**) WebFetch(domain:example.com)", []AllowedTool{
			{Raw: "Read(./src/**)", Tool: "Read", Specifier: "./src/**", Kind: AllowScoped},
			{Raw: "WebFetch(domain:example.com)", Tool: "WebFetch", Specifier: "domain:example.com", Kind: AllowScoped}}, 0},
		{"Read Bash(git:* Grep", nil, 1},
		{"Bash() Read) ok$", []AllowedTool{}, 3},
		{"Bash(:*)", nil, 1},
		{"Bash(git status; rm:*)", nil, 1},
		{"Bash($X:*)", nil, 1},
		{"", nil, 0},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, errs := ParseAllowedTools(c.in)
			if len(errs) != c.errs {
				t.Errorf("errors = %v, want %d", errs, c.errs)
			}
			if c.want == nil && c.errs > 0 {
				return
			}
			if len(got) != len(c.want) {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("entry %d = %+v, want %+v", i, got[i], c.want[i])
				}
			}
		})
	}
}

func TestAllowedToolsRules(t *testing.T) {
	ts, errs := ParseAllowedTools("Bash(git:*) Read mcp__github__* Bash(npm test) Read(./x) Grep")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	available := []string{"Read", "Write", "Bash", "Grep", "mcp__github__get_pr", "mcp__github__list", "mcp__gitlab__x"}
	var got []string
	for _, r := range ts.Rules(available) {
		if r.Action != config.RuleAllow {
			t.Errorf("action %q", r.Action)
		}
		got = append(got, r.Tool+"("+r.Pattern+")")
	}
	want := []string{"Bash(git:*)", "Read()", "mcp__github__get_pr()", "mcp__github__list()", "Bash(npm test)", "Grep()"}
	if !slices.Equal(got, want) {
		t.Errorf("rules = %v, want %v", got, want)
	}
	if names := ts.Names(available); !slices.Equal(names, []string{"Read", "Bash", "Grep", "mcp__github__get_pr", "mcp__github__list"}) {
		t.Errorf("names = %v", names)
	}
}

func TestAllowedToolsAllows(t *testing.T) {
	ts, _ := ParseAllowedTools("Bash(git:*) Bash(npm test) Bash(* --version) Bash(go * ./...) Read mcp__x__*")
	cases := []struct {
		tool, command string
		want          bool
	}{
		{"Read", "", true},
		{"Write", "", false},
		{"mcp__x__do", "", true},
		{"mcp__y__do", "", false},
		{"Bash", "git status", true},
		{"Bash", "git", true},
		{"Bash", "gitk", false},
		{"Bash", "git log -p && git diff", true},
		{"Bash", "git status; rm -rf x", false},
		{"Bash", "git log $(rm -rf x)", false},
		{"Bash", "npm test", true},
		{"Bash", "npm test --watch", false},
		{"Bash", "node --version", true},
		{"Bash", "$CMD --version", false},
		{"Bash", "go test ./...", true},
		{"Bash", "go test ./pkg", false},
		{"Bash", "echo 'unclosed", false},
		// The shell guard's rule matching (guard.BashRule.Covers).
		{"Bash", "git -c core.pager=evil log", false},
		{"Bash", "git log > /etc/passwd", false},
		{"Bash", "FOO=1 git status", false},
		{"Bash", "PATH=/tmp/x; git status", false},
		{"Bash", "git config --global core.editor evil", false},
		{"Bash", "'git' status", true},
		{"Bash", "go test -exec evil ./...", false},
		{"Bash", "go test ./... > out.txt", false},
		{"Bash", "", false},
	}
	for _, c := range cases {
		params := map[string]any{}
		if c.tool == "Bash" {
			params["command"] = c.command
		}
		if got := ts.Allows(c.tool, params, ""); got != c.want {
			t.Errorf("Allows(%s %q) = %v, want %v", c.tool, c.command, got, c.want)
		}
	}
	whole, _ := ParseAllowedTools("Bash")
	if !whole.Allows("Bash", map[string]any{"command": "anything at all"}, "") {
		t.Error("Bash alone allows every command")
	}
	if AllowedTools(nil).Allows("Read", nil, "") {
		t.Error("nothing allows nothing")
	}
}

func TestGlobMatch(t *testing.T) {
	cases := []struct {
		p, s string
		want bool
	}{
		{"a*", "abc", true}, {"a*", "a", true}, {"*c", "abc", true}, {"a*c", "ac", true},
		{"a*b*c", "a1b2c", true}, {"a*b*c", "a1c", false}, {"abc", "abc", true}, {"abc", "abcd", false},
		{"*", "", true}, {"a*a", "a", false},
	}
	for _, c := range cases {
		if got := globMatch(c.p, c.s); got != c.want {
			t.Errorf("globMatch(%q, %q) = %v", c.p, c.s, got)
		}
	}
}
