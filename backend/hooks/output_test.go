package hooks

import (
	"reflect"
	"strings"
	"testing"
)

func TestJudge(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		ev      Event
		code    int
		stdout  string
		stderr  string
		want    Verdict
		problem string // a substring of want.Problem, which is then not compared whole
	}{
		{name: "silent success", ev: PreToolUse},
		{name: "plain stdout is only shown", ev: PreToolUse, stdout: "checked\n"},
		{name: "plain stdout is a prompt's context", ev: UserPromptSubmit, stdout: "Today is a holiday.\n", want: Verdict{Context: "Today is a holiday."}},
		{name: "plain stdout is a session's context", ev: SessionStart, stdout: "branch: main", want: Verdict{Context: "branch: main"}},
		{name: "exit 2 denies a tool call", ev: PreToolUse, code: 2, stderr: "rm -rf is not allowed\n", want: Verdict{Decision: Deny, Reason: "rm -rf is not allowed"}},
		{name: "exit 2 ignores JSON on stdout", ev: PreToolUse, code: 2, stdout: `{"hookSpecificOutput":{"permissionDecision":"allow"}}`, stderr: "no", want: Verdict{Decision: Deny, Reason: "no"}},
		{name: "exit 2 blocks a stop", ev: Stop, code: 2, stderr: "tests fail", want: Verdict{Decision: Block, Reason: "tests fail"}},
		{name: "exit 2 refuses a prompt", ev: UserPromptSubmit, code: 2, stderr: "no secrets in prompts", want: Verdict{Decision: Block, Reason: "no secrets in prompts"}},
		{name: "exit 2 feeds back after a call", ev: PostToolUse, code: 2, stderr: "lint failed", want: Verdict{Decision: Block, Reason: "lint failed"}},
		{name: "exit 2 cannot block a notification", ev: Notification, code: 2, stderr: "oops", want: Verdict{SystemMessage: "oops"}},
		{name: "exit 2 without stderr", ev: PreToolUse, code: 2, want: Verdict{Decision: Deny, Reason: "a hook blocked this (exit status 2) without saying why"}},
		{name: "other exit codes are non-blocking errors", ev: PreToolUse, code: 1, stderr: "jq: not found", problem: "exited with status 1 (a non-blocking error): jq: not found"},
		{name: "JSON deny", ev: PreToolUse, stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"protected file"}}`,
			want: Verdict{Decision: Deny, Reason: "protected file"}},
		{name: "JSON allow with updated input", ev: PreToolUse, stdout: `{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"ls -la"}}}`,
			want: Verdict{Decision: Allow, UpdatedInput: map[string]any{"command": "ls -la"}}},
		{name: "JSON ask", ev: PreToolUse, stdout: `{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"touches prod"}}`,
			want: Verdict{Decision: Ask, Reason: "touches prod"}},
		{name: "legacy block on PreToolUse is a deny", ev: PreToolUse, stdout: `{"decision":"block","reason":"nope"}`, want: Verdict{Decision: Deny, Reason: "nope"}},
		{name: "legacy approve", ev: PreToolUse, stdout: `{"decision":"approve","reason":"fine"}`, want: Verdict{Decision: Allow, Reason: "fine"}},
		{name: "continue false", ev: PostToolUse, stdout: `{"continue":false,"stopReason":"build broke","systemMessage":"stopping"}`,
			want: Verdict{Stop: true, StopReason: "build broke", SystemMessage: "stopping"}},
		{name: "stop block", ev: Stop, stdout: `{"decision":"block","reason":"run the tests first"}`, want: Verdict{Decision: Block, Reason: "run the tests first"}},
		{name: "stop block without a reason", ev: SubagentStop, stdout: `{"decision":"block"}`, want: Verdict{Decision: Block, Reason: "a hook blocked this without saying why"}},
		{name: "prompt context in JSON", ev: UserPromptSubmit, stdout: `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"use tabs"}}`, want: Verdict{Context: "use tabs"}},
		{name: "post tool use context", ev: PostToolUse, stdout: `{"decision":"block","reason":"formatting changed the file","hookSpecificOutput":{"additionalContext":"re-read it"}}`,
			want: Verdict{Decision: Block, Reason: "formatting changed the file", Context: "re-read it"}},
		{name: "permission request allow", ev: PermissionRequest, stdout: `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"command":"ls"}}}}`,
			want: Verdict{Decision: Allow, UpdatedInput: map[string]any{"command": "ls"}}},
		{name: "permission request deny", ev: PermissionRequest, stdout: `{"hookSpecificOutput":{"decision":{"behavior":"deny","message":"not at night","interrupt":true}}}`,
			want: Verdict{Decision: Deny, Reason: "not at night", Interrupt: true}},
		{name: "suppress output", ev: PostToolUse, stdout: `{"suppressOutput":true}`, want: Verdict{SuppressOutput: true}},
		// Garbage is reported and never obeyed.
		{name: "broken JSON", ev: PreToolUse, stdout: `{"hookSpecificOutput": {"permissionDecision": "deny"`, problem: "looks like JSON but is not valid"},
		{name: "wrong types", ev: PreToolUse, stdout: `{"continue": "no"}`, problem: "not valid"},
		{name: "unknown permission decision", ev: PreToolUse, stdout: `{"hookSpecificOutput":{"permissionDecision":"maybe"}}`, problem: `unknown permissionDecision "maybe"`},
		{name: "unknown decision", ev: Stop, stdout: `{"decision":"halt"}`, problem: `unknown "decision" "halt"`},
		{name: "updatedInput not an object", ev: PreToolUse, stdout: `{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":"rm -rf /"}}`, problem: "updatedInput must be a JSON object"},
		{name: "output for another event", ev: PreToolUse, stdout: `{"hookSpecificOutput":{"hookEventName":"PostToolUse","permissionDecision":"deny"}}`, problem: `is for "PostToolUse"`},
		{name: "two JSON values", ev: PreToolUse, stdout: `{"decision":"approve"} {"decision":"block"}`, problem: "more than one JSON value"},
		{name: "context where it means nothing", ev: Stop, stdout: `{"hookSpecificOutput":{"additionalContext":"x"}}`, problem: "additionalContext means nothing for Stop"},
	}
	for _, c := range cases {
		got := Judge(c.ev, c.code, c.stdout, c.stderr)
		if c.problem != "" {
			if !strings.Contains(got.Problem, c.problem) {
				t.Errorf("%s: problem %q lacks %q", c.name, got.Problem, c.problem)
			}
			if got.Decision != "" || got.UpdatedInput != nil || got.Context != "" {
				t.Errorf("%s: garbage was obeyed: %+v", c.name, got)
			}
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got  %+v\n want %+v", c.name, got, c.want)
		}
	}
}

func TestCombinePrecedence(t *testing.T) {
	t.Parallel()
	run := func(v Verdict) Run { return Run{Verdict: v} }
	cases := []struct {
		name string
		runs []Run
		want string
	}{
		{"deny beats allow", []Run{run(Verdict{Decision: Allow}), run(Verdict{Decision: Deny, Reason: "no"})}, Deny},
		{"deny beats ask", []Run{run(Verdict{Decision: Ask}), run(Verdict{Decision: Deny})}, Deny},
		{"ask beats allow", []Run{run(Verdict{Decision: Allow}), run(Verdict{Decision: Ask})}, Ask},
		{"allow alone", []Run{run(Verdict{Decision: Allow}), run(Verdict{})}, Allow},
		{"a failed hook decides nothing", []Run{run(Verdict{Problem: "timed out"}), run(Verdict{})}, ""},
	}
	for _, c := range cases {
		if got := Combine(c.runs).Decision; got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	o := Combine([]Run{
		run(Verdict{Decision: Deny, Reason: "first"}),
		run(Verdict{Decision: Allow, Reason: "ignored", UpdatedInput: map[string]any{"a": 1.0}}),
		run(Verdict{Decision: Deny, Reason: "second", SystemMessage: "told the user"}),
		run(Verdict{Context: "ctx", Stop: true, StopReason: "enough"}),
	})
	if o.Reason != "first\nsecond" || o.UpdatedInput != nil || len(o.Context) != 1 || !o.Stop || o.StopReason != "enough" || len(o.Messages) != 1 {
		t.Errorf("combined %+v", o)
	}
	o = Combine([]Run{
		run(Verdict{Decision: Allow, UpdatedInput: map[string]any{"command": "a"}}),
		run(Verdict{UpdatedInput: map[string]any{"command": "b"}}),
	})
	if o.UpdatedInput["command"] != "a" || !o.Conflict {
		t.Errorf("conflicting inputs: %+v", o)
	}
}
