package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tinyelf/backend/config"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
	"tinyelf/backend/tools"
)

func TestDecide(t *testing.T) {
	t.Parallel()
	bash := tools.Info{Name: "Bash"}
	read := tools.Info{Name: "Read", ReadOnly: true, Safe: true}
	bashCmd := func(c string) map[string]any { return map[string]any{"command": c} }
	allowEcho := []config.Rule{{Tool: "Bash", Pattern: "echo:*", Action: config.RuleAllow}}
	for _, tc := range []struct {
		name   string
		mode   Mode
		info   tools.Info
		params map[string]any
		rules  []config.Rule
		as     tools.Assessment
		want   string // "allow", "deny", "ask"
		by     string
	}{
		{"auto runs", ModeAuto, bash, bashCmd("ls"), nil, tools.Assessment{}, "allow", "mode"},
		{"auto asks when held", ModeAuto, bash, bashCmd("x"), nil, tools.Assessment{Hold: "cannot check"}, "ask", "guard"},
		{"auto refuses the deny list", ModeAuto, bash, bashCmd("x"), nil, tools.Assessment{Deny: "Refused"}, "deny", "guard"},
		{"a rule does not cover a held call", ModeDefault, bash, bashCmd("echo x"), allowEcho, tools.Assessment{Hold: "cannot check"}, "ask", "guard"},
		{"a rule covers", ModeDefault, bash, bashCmd("echo x"), allowEcho, tools.Assessment{}, "allow", "rule"},
		{"default asks", ModeDefault, bash, bashCmd("ls"), allowEcho, tools.Assessment{}, "ask", ""},
		{"safe tools run", ModeDefault, read, nil, nil, tools.Assessment{}, "allow", "safe"},
		{"plan refuses writes", ModePlan, bash, bashCmd("ls"), nil, tools.Assessment{}, "deny", "mode"},
		{"deny rules win", ModeAuto, bash, bashCmd("sudo rm -rf build"), []config.Rule{{Tool: "Bash", Pattern: "rm:*", Action: config.RuleDeny}}, tools.Assessment{}, "deny", "rule"},
		{"a deny rule without :* refuses any arguments", ModeAuto, bash, bashCmd("echo x && curl example.com"), []config.Rule{{Tool: "Bash", Pattern: "curl", Action: config.RuleDeny}}, tools.Assessment{}, "deny", "rule"},
		{"deny rules see through bash -c", ModeAuto, bash, bashCmd("bash -c 'git push -f'"), []config.Rule{{Tool: "Bash", Pattern: "git push:*", Action: config.RuleDeny}}, tools.Assessment{}, "deny", "rule"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := decide(tc.mode, tc.info, tc.params, tc.rules, tc.as, "/home/u/proj")
			got := "ask"
			if v.allow {
				got = "allow"
			} else if v.deny {
				got = "deny"
			}
			if got != tc.want || v.by != tc.by {
				t.Errorf("decide = %s by %q, want %s by %q (%+v)", got, v.by, tc.want, tc.by, v)
			}
		})
	}
}

// TestBashRuleBypasses checks that each bypass of issue 9 is refused by
// the saved rule it used to slip through, while the command the rule names
// is still allowed.
func TestBashRuleBypasses(t *testing.T) {
	t.Parallel()
	const ws = "/home/u/proj"
	for _, tc := range []struct {
		rule, allowed, bypass string
	}{
		{"echo", "echo", "echo x >> ~/.bashrc"},
		{"echo:*", "echo x", "echo x >> ~/.bashrc"},
		{"git status", "git status", "LD_PRELOAD=./evil.so git status"},
		{"git status:*", "git status -s", "LD_PRELOAD=./evil.so git status"},
		{"go test:*", "go test ./...", "go test -exec ./evil ./..."},
		{"git status:*", "git status", "PATH=/tmp/evil:$PATH; git status"},
		{"git status:*", "git status", "git() { rm -rf ~; }; git status"},
		{"git status:*", "git status", "git status; rm -rf build"},
		{"git status:*", "git status", "git status $(rm -rf build)"},
		{"git status:*", "git status", "git -c core.fsmonitor='rm -rf ~' status"},
		{"npm test:*", "npm test", "npm test --script-shell=./evil.sh"},
		{"find:*", "find . -name '*.go'", "find . -name '*.go' -delete"},
	} {
		t.Run(tc.rule+" vs "+tc.bypass, func(t *testing.T) {
			t.Parallel()
			rules := []config.Rule{{Tool: "Bash", Pattern: tc.rule, Action: config.RuleAllow}}
			if _, ok := matchAllow(rules, "Bash", map[string]any{"command": tc.allowed}, ws); !ok {
				t.Errorf("Bash(%s) does not allow %q", tc.rule, tc.allowed)
			}
			if used, ok := matchAllow(rules, "Bash", map[string]any{"command": tc.bypass}, ws); ok {
				t.Errorf("Bash(%s) allows %q (by %s)", tc.rule, tc.bypass, used)
			}
			v := decide(ModeDefault, tools.Info{Name: "Bash"}, map[string]any{"command": tc.bypass}, rules, tools.Assessment{}, ws)
			if v.allow {
				t.Errorf("the gate lets %q run by %s", tc.bypass, v.by)
			}
		})
	}
	// A compound command is allowed when each of its commands is.
	rules := []config.Rule{
		{Tool: "Bash", Pattern: "git status:*", Action: config.RuleAllow},
		{Tool: "Bash", Pattern: "npm test:*", Action: config.RuleAllow},
	}
	if used, ok := matchAllow(rules, "Bash", map[string]any{"command": "git status -s && npm test"}, ws); !ok || used != "Bash(git status:*), Bash(npm test:*)" {
		t.Errorf("a compound command of allowed commands: %q, %v", used, ok)
	}
}

func TestNormalizeRule(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   config.Rule
		want string
		bad  bool
	}{
		{in: config.Rule{Tool: "Bash(git status:*)"}, want: "Bash(git status:*)"},
		{in: config.Rule{Tool: "Bash", Pattern: "npm test"}, want: "Bash(npm test)"},
		{in: config.Rule{Tool: "Bash", Pattern: "  ls * "}, want: "Bash(ls:*)"},
		{in: config.Rule{Tool: "Write"}, want: "Write"},
		{in: config.Rule{Tool: "Bash", Pattern: "git status && rm x"}, bad: true},
	} {
		r, err := NormalizeRule(tc.in)
		if tc.bad != (err != nil) || (!tc.bad && describeRule(r) != tc.want) {
			t.Errorf("NormalizeRule(%+v) = %s, %v; want %s", tc.in, describeRule(r), err, tc.want)
		}
	}
}

// TestAutoModeAsksWhenTargetsCannotBeKnown runs the agent in auto mode: a
// command whose targets come from a pipe is held for approval, and a
// non-interactive denial (as `tinyelf run` without --yes gives) reaches the
// model with the guard's explanation; the command never runs.
func TestAutoModeAsksWhenTargetsCannotBeKnown(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		h := newHarness(t, kind, []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{
				call("held", "Bash", `{"command":"find . -name victim | xargs rm -rf"}`),
				call("refused", "Bash", `{"command":"echo / | xargs rm -rf"}`),
				call("free", "Bash", `{"command":"echo hello > out.txt"}`),
			}},
			{Text: "ok"},
		}, withApprover(func(req ApprovalRequest) ApprovalAnswer {
			return ApprovalAnswer{Decision: Deny, Reason: "this is a non-interactive run and the call was not pre-approved (no --yes flag or allow rule); do without it or explain what you would need"}
		}))
		victim := filepath.Join(h.workspace, "victim")
		if err := os.MkdirAll(victim, 0o755); err != nil {
			t.Fatal(err)
		}
		id := h.session(ModeAuto)
		h.run(id, "clean up")
		if len(h.asked) != 1 || h.asked[0].CallID != "held" {
			t.Fatalf("asked %+v; want only the held call", h.asked)
		}
		want := "The folders `rm -rf` gets come from `xargs` and cannot be checked before it runs."
		if h.asked[0].Hold != want || len(h.asked[0].Warnings) == 0 || h.asked[0].Warnings[0] != want || h.asked[0].Suggestion != "" {
			t.Errorf("the held request: %+v", h.asked[0])
		}
		if _, err := os.Stat(victim); err != nil {
			t.Errorf("the held command ran: %v", err)
		}
		results := logged[sessions.ToolResult](h, id, sessions.EventToolResult)
		if len(results) != 3 {
			t.Fatalf("results %+v", results)
		}
		mustContain(t, "the held call's result", results[0].Content, "denied", "non-interactive", want)
		mustContain(t, "the refused call's result", results[1].Content, "Refused", "the root folder /")
		if results[2].IsError {
			t.Errorf("a harmless command did not run in auto mode: %+v", results[2])
		}
		asked := logged[sessions.ApprovalAsked](h, id, sessions.EventApprovalAsked)
		if len(asked) != 1 || !asked[0].Held {
			t.Errorf("approval.asked %+v", asked)
		}
		answers := logged[sessions.ApprovalAnswered](h, id, sessions.EventApprovalAnswered)
		if len(answers) != 2 || answers[0].By != "cli" || answers[1].By != "guard" || answers[0].Decision != string(Deny) || answers[1].Decision != string(Deny) {
			t.Errorf("approval.answered %+v", answers)
		}
	})
}

// TestHeldCallSavesNoRule: "allow always" on a held call allows it once.
func TestHeldCallSavesNoRule(t *testing.T) {
	h := newHarness(t, "openai", []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{call("held", "Bash", `{"command":"rm -rf \"$UNSET_DIR_X\"/sub"}`)}},
		{Text: "ok"},
	}, withApprover(func(ApprovalRequest) ApprovalAnswer { return ApprovalAnswer{Decision: AllowAlways} }))
	id := h.session(ModeAuto)
	h.run(id, "go")
	if len(h.asked) != 1 || !strings.Contains(h.asked[0].Hold, "$UNSET_DIR_X") || !strings.Contains(h.asked[0].OnceOnly, "every time") {
		t.Fatalf("asked %+v", h.asked)
	}
	if rules := h.settings.Rules(); len(rules) != 0 {
		t.Errorf("a held call saved rules: %+v", rules)
	}
}

// TestOldRulesKeepWorking: a rule saved by a version-1 settings file (a
// bare prefix) is migrated to Claude Code's notation and still allows what
// it allowed.
func TestOldRulesKeepWorking(t *testing.T) {
	h := newHarness(t, "openai", []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{call("b", "Bash", `{"command":"git status --short"}`)}},
		{Text: "ok"},
	})
	path := filepath.Join(h.dir, config.SettingsFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	old := strings.Replace(string(b), `"version": 2`, `"version": 1`, 1)
	old = strings.Replace(old, `"permissions": {}`, `"permissions": {"rules": [{"id": "r1", "tool": "Bash", "pattern": "git status", "action": "allow", "createdAt": "2026-01-01T00:00:00Z"}]}`, 1)
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	h.restart([]llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{call("b", "Bash", `{"command":"git status --short"}`)}},
		{Text: "ok"},
	})
	if rules := h.settings.Rules(); len(rules) != 1 || rules[0].Pattern != "git status:*" {
		t.Fatalf("rules after migration: %+v (file %s)", rules, old)
	}
	h.approver = func(ApprovalRequest) ApprovalAnswer { return ApprovalAnswer{Decision: Deny} }
	id := h.session(ModeDefault)
	h.run(id, "status")
	if len(h.asked) != 0 {
		t.Errorf("the migrated rule did not allow git status: asked %+v", h.asked)
	}
}
