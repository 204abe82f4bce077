package skills

import (
	"context"
	"errors"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"tinyelf/internal/testutil"
)

func TestSplitArgs(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		err  bool
	}{
		{"", nil, false},
		{"  one two\tthree ", []string{"one", "two", "three"}, false},
		{`"hello world" second`, []string{"hello world", "second"}, false},
		{`'it''s' x`, []string{"its", "x"}, false},
		{`'a "b" c'`, []string{`a "b" c`}, false},
		{`"say \"hi\"" \$HOME`, []string{`say "hi"`, "$HOME"}, false},
		{`"keep \n"`, []string{`keep \n`}, false},
		{`a\ b c`, []string{"a b", "c"}, false},
		{`pre"fix"post`, []string{"prefixpost"}, false},
		{`""`, []string{""}, false},
		{`"unclosed`, nil, true},
		{`'unclosed`, nil, true},
	}
	for _, c := range cases {
		got, err := SplitArgs(c.in)
		if (err != nil) != c.err || !slices.Equal(got, c.want) {
			t.Errorf("SplitArgs(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func TestTemplateRender(t *testing.T) {
	cases := []struct {
		name string
		t    Template
		args string
		want string
	}{
		{"arguments", Template{Body: "Fix issue $ARGUMENTS now.", Positional: OneBased}, " 42 high ", "Fix issue 42 high now."},
		{"one-based", Template{Body: "PR #$1 priority $2 to $3; $0 stays", Positional: OneBased}, `456 "very high" alice`, "PR #456 priority very high to alice; $0 stays"},
		{"zero-based", Template{Body: "Migrate $0 from $1 to $2 ($ARGUMENTS[1])", Positional: ZeroBased}, `"Search Bar" React Vue`, "Migrate Search Bar from React to Vue (React)"},
		{"missing", Template{Body: "[$1][$2]", Positional: OneBased}, "only", "[only][]"},
		{"named", Template{Body: "Rename $old-name to $new-name in $scope; keep $HOME and ${PATH}", Positional: ZeroBased, Names: []string{"old-name", "new-name", "scope"}}, "Foo Bar", "Rename Foo to Bar in ; keep $HOME and ${PATH}"},
		{"appended", Template{Body: "Review the code.\n"}, "src/main.go", "Review the code.\n\nARGUMENTS: src/main.go"},
		{"no args", Template{Body: "Review $ARGUMENTS."}, "", "Review ."},
		{"dirs", Template{Body: "Run ${CLAUDE_SKILL_DIR}/x.sh for ${CLAUDE_SESSION_ID} ${TINYELF_SKILL_DIR}", SkillDir: "/s", SessionID: "abc"}, "", "Run /s/x.sh for abc /s"},
		{"no dir", Template{Body: "${CLAUDE_SKILL_DIR}"}, "", "${CLAUDE_SKILL_DIR}"},
		{"dynamic context stays text", Template{Body: "Status: !`git status`"}, "", "Status: !`git status`"},
		{"multi-digit", Template{Body: "$10", Positional: OneBased}, "1 2 3 4 5 6 7 8 9 ten", "ten"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.t.Render(c.args)
			if err != nil || got != c.want {
				t.Errorf("Render(%q) = %q, %v; want %q", c.args, got, err, c.want)
			}
		})
	}
	if _, err := (Template{Body: "$1"}).Render(`"open`); err == nil {
		t.Error("an unclosed quote renders")
	}
}

// fakePrompts is an MCP prompt source that records what it was asked.
type fakePrompts struct {
	asked map[string]string
}

func (f *fakePrompts) Prompts() []Prompt {
	return []Prompt{{Name: "mcp__srv__greet", Description: "Greets", Arguments: []PromptArgument{{Name: "who", Required: true}, {Name: "tone"}}}}
}

func (f *fakePrompts) RunPrompt(ctx context.Context, name string, args map[string]string) (string, error) {
	f.asked = maps.Clone(args)
	if args["who"] == "" {
		return "", errors.New("missing required argument who")
	}
	return "Hello " + args["who"] + " (" + args["tone"] + ")", nil
}

func TestCommands(t *testing.T) {
	e := newEnv(t)
	testutil.WriteFile(t, filepath.Join(e.data, "commands/review-pr.md"), "---\ndescription: Review a pull request\nargument-hint: [pr-number] [priority]\nallowed-tools: Bash(gh pr view:*), Read\nmodel: opus\n---\nReview PR #$1 with priority $2.\n", 0)
	testutil.WriteFile(t, filepath.Join(e.data, "commands/frontend/component.md"), "# Make a component\n\nCreate the component $ARGUMENTS.\n", 0)
	testutil.WriteFile(t, filepath.Join(e.ws, ".claude/commands/review-pr.md"), "---\ndescription: project copy\n---\nproject\n", 0)
	testutil.WriteFile(t, filepath.Join(e.ws, ".claude/commands/deploy.md"), "---\ndescription: Deploy\nallowed-tools: Bash(./deploy.sh:*)\n---\nDeploy to $1.\n", 0)
	testutil.WriteFile(t, filepath.Join(e.ws, ".tinyelf/commands/broken.md"), "---\ndescription: \"unterminated\n---\nx\n", 0)
	testutil.WriteFile(t, filepath.Join(e.ws, ".tinyelf/commands/test-fix.md"), "---\ndescription: loses to the skill\n---\nx\n", 0)
	testutil.WriteFile(t, filepath.Join(e.data, "skills/greet/SKILL.md"), "---\nname: greet\ndescription: Greet someone\narguments: [who]\nargument-hint: \"<who>\"\nallowed-tools: Bash(echo:*)\ncontext: fork\nagent: Explore\n---\nSay hello to $who from ${CLAUDE_SKILL_DIR}.\n", 0)
	testutil.WriteFile(t, filepath.Join(e.data, "skills/hidden/SKILL.md"), "---\nname: hidden\ndescription: not a command\nuser-invocable: false\n---\nx\n", 0)
	testutil.WriteFile(t, filepath.Join(e.ws, ".claude/skills/proj/SKILL.md"), "---\nname: proj\ndescription: project skill\n---\nProject $0.\n", 0)

	lib := NewLibrary(e.opts(), nil)
	prompts := &fakePrompts{}
	cmds, invalid := lib.Commands(prompts)
	byName := map[string]*Command{}
	for _, c := range cmds {
		byName[c.Name] = c
	}
	for name, want := range map[string]struct {
		kind CommandKind
		src  Source
		desc string
	}{
		"review-pr":          {CommandMarkdown, SourceUser, "Review a pull request"},
		"frontend:component": {CommandMarkdown, SourceUser, "Make a component"},
		"deploy":             {CommandMarkdown, SourceProject, "Deploy"},
		"greet":              {CommandSkill, SourceUser, "Greet someone"},
		"test-fix":           {CommandSkill, SourceBuiltin, mustBuiltin(t, "test-fix").Description},
		"proj":               {CommandSkill, SourceProject, "project skill"},
		"mcp__srv__greet":    {CommandPrompt, SourceMCP, "Greets"},
	} {
		c, ok := byName[name]
		if !ok {
			t.Errorf("command %s missing", name)
			continue
		}
		if c.Kind != want.kind || c.Source != want.src || c.Description != want.desc {
			t.Errorf("%s = %+v", name, c)
		}
	}
	if _, ok := byName["hidden"]; ok {
		t.Error("a skill with user-invocable: false is a command")
	}
	if c := byName["review-pr"]; c.ArgumentHint != "[pr-number] [priority]" || c.Model != "opus" || c.AllowedTools.String() != "Bash(gh pr view:*) Read" {
		t.Errorf("review-pr = %+v", c)
	}
	if len(invalid) != 1 || invalid[0].Name != "broken" || invalid[0].Problem.Rule != "yaml" {
		t.Errorf("invalid = %+v", invalid)
	}

	ctx := context.Background()
	run := func(call CommandCall) Rendered {
		t.Helper()
		r, err := lib.RunCommand(ctx, call, prompts)
		if err != nil {
			t.Fatalf("%s: %v", call.Name, err)
		}
		return r
	}
	r := run(CommandCall{Name: "/review-pr", Args: `128 "very high"`})
	if r.Text != "Review PR #128 with priority very high." || r.Model != "opus" || r.AllowedTools.String() != "Bash(gh pr view:*) Read" || r.Skill != nil {
		t.Errorf("review-pr rendered %+v", r)
	}
	if r := run(CommandCall{Name: "frontend:component", Args: "Button"}); r.Text != "# Make a component\n\nCreate the component Button." {
		t.Errorf("component rendered %q", r.Text)
	}
	// A project command's allowed-tools count only when the user typed it.
	if r := run(CommandCall{Name: "deploy", Args: "staging"}); r.Text != "Deploy to staging." || len(r.AllowedTools) != 0 {
		t.Errorf("deploy by the model: %+v", r)
	}
	if r := run(CommandCall{Name: "deploy", Args: "staging", ByUser: true}); len(r.AllowedTools) != 1 {
		t.Errorf("deploy by the user: %+v", r)
	}
	g := run(CommandCall{Name: "greet", Args: "Ada"})
	if g.Text != "Say hello to Ada from "+byName["greet"].skill.Dir+"." || !g.Fork || g.Agent != "Explore" || g.Skill == nil || g.AllowedTools.String() != "Bash(echo:*)" {
		t.Errorf("greet rendered %+v", g)
	}
	// An untrusted project skill: refused for the model, run for the user.
	if _, err := lib.RunCommand(ctx, CommandCall{Name: "proj", Args: "x"}, prompts); !errors.Is(err, ErrNeedsTrust) || !strings.Contains(err.Error(), "tinyelf skills trust proj") {
		t.Errorf("untrusted project skill: %v", err)
	}
	if r := run(CommandCall{Name: "proj", Args: "x", ByUser: true}); r.Text != "Project x." {
		t.Errorf("proj by the user: %q", r.Text)
	}
	p := run(CommandCall{Name: "mcp__srv__greet", Args: `tone=warm "Grace Hopper"`})
	if p.Text != "Hello Grace Hopper (warm)" || prompts.asked["who"] != "Grace Hopper" {
		t.Errorf("prompt rendered %q asked %v", p.Text, prompts.asked)
	}
	if _, err := lib.RunCommand(ctx, CommandCall{Name: "mcp__srv__greet"}, prompts); err == nil || !strings.Contains(err.Error(), "missing required argument") {
		t.Errorf("prompt without its argument: %v", err)
	}
	if _, err := lib.RunCommand(ctx, CommandCall{Name: "nope"}, prompts); !errors.Is(err, ErrUnknownCommand) {
		t.Errorf("unknown: %v", err)
	}
	if _, err := lib.RunCommand(ctx, CommandCall{Name: "mcp__srv__greet"}, nil); !errors.Is(err, ErrUnknownCommand) {
		t.Errorf("prompt without a source: %v", err)
	}
}

func TestPromptArgs(t *testing.T) {
	decl := []PromptArgument{{Name: "a"}, {Name: "b"}}
	cases := []struct {
		words []string
		want  map[string]string
	}{
		{nil, map[string]string{}},
		{[]string{"1"}, map[string]string{"a": "1"}},
		{[]string{"b=2", "1"}, map[string]string{"a": "1", "b": "2"}},
		{[]string{"1", "2", "3"}, map[string]string{"a": "1", "b": "2 3"}},
		{[]string{"c=3"}, map[string]string{"a": "c=3"}},
	}
	for _, c := range cases {
		if got := promptArgs(decl, c.words); !maps.Equal(got, c.want) {
			t.Errorf("promptArgs(%q) = %v, want %v", c.words, got, c.want)
		}
	}
}
