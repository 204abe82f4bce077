package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"tinyelf/backend/config"
	"tinyelf/backend/hooks"
	"tinyelf/backend/llm"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
	"tinyelf/internal/testutil"
)

// lastRequest returns the text of the last request the fake model got.
func (h *harness) lastRequest() string {
	reqs := h.srv.ChatRequests()
	return requestText(reqs[len(reqs)-1])
}

// TestExitTwoBlocksBashAndTheModelSeesStderr: a PreToolUse hook exiting 2
// keeps the Bash call from running, nobody is asked, and what the hook
// wrote on stderr is what the model reads next.
func TestExitTwoBlocksBashAndTheModelSeesStderr(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		h := newHarness(t, kind, []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("c1", "Bash", `{"command":"rm -rf build"}`)}},
			{Text: "I will not delete it."},
		}, withHooks(hooksJSON(hookSpec{event: hooks.PreToolUse, matcher: "Bash",
			command: `grep -q 'rm -rf' && { echo "Blocked by policy: no rm -rf in this repo" >&2; exit 2; }; exit 0`})))
		h.writeFile("build/keep.txt", "precious")
		id := h.session(ModeDefault)
		if res := h.run(id, "clean up"); res.Reason != EndDone {
			t.Fatalf("result %+v", res)
		}
		if _, err := os.Stat(filepath.Join(h.workspace, "build", "keep.txt")); err != nil {
			t.Fatalf("the blocked command ran: %v", err)
		}
		if asked := h.askedTools(); len(asked) != 0 {
			t.Errorf("the user was asked about a blocked call: %v", asked)
		}
		mustContain(t, "what the model read next", h.lastRequest(), "Blocked by policy: no rm -rf in this repo")
		runs := hookRuns(h, id)
		if len(runs) != 1 || runs[0].ExitCode != 2 || runs[0].Decision != hooks.Deny || runs[0].CallID != "c1" || !strings.Contains(runs[0].Output, "Blocked by policy") {
			t.Errorf("runs %+v", runs)
		}
		ans := logged[sessions.ApprovalAnswered](h, id, sessions.EventApprovalAnswered)
		if len(ans) != 1 || ans[0].Decision != string(Deny) || ans[0].By != "hook" {
			t.Errorf("the audit trail: %+v", ans)
		}
	})
}

// TestJSONDenyBlocks: permissionDecision "deny" refuses the call with its
// reason, even in auto mode.
func TestJSONDenyBlocks(t *testing.T) {
	t.Parallel()
	h := newHarness(t, llm.KindOpenAI, []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{call("c1", "Write", `{"path":"notes.txt","content":"x"}`)}},
		{Text: "ok"},
	}, withHooks(hooksJSON(hookSpec{event: hooks.PreToolUse, matcher: "Write|Edit",
		command: `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"writes are frozen today"}}'`})))
	id := h.session(ModeAuto)
	h.run(id, "write notes")
	if _, err := os.Stat(filepath.Join(h.workspace, "notes.txt")); err == nil {
		t.Fatal("the denied write happened")
	}
	mustContain(t, "what the model read next", h.lastRequest(), "writes are frozen today")
}

// TestHookAllowSkipsThePromptButNotDenials: allow runs a call the user
// would be asked about, without asking; it never beats plan mode, a deny
// rule or the shell guard's refusal, nor a call the guard holds for a
// person.
func TestHookAllowSkipsThePromptButNotDenials(t *testing.T) {
	t.Parallel()
	allow := hooksJSON(hookSpec{event: hooks.PreToolUse, command: `echo '{"hookSpecificOutput":{"permissionDecision":"allow","permissionDecisionReason":"trusted"}}'`})
	cases := []struct {
		name    string
		mode    Mode
		command string
		deny    string // a deny rule's pattern
		ran     bool
		asked   bool
	}{
		{name: "default mode", mode: ModeDefault, command: "echo ran > out.txt", ran: true},
		{name: "plan mode", mode: ModePlan, command: "echo ran > out.txt"},
		{name: "deny rule", mode: ModeDefault, command: "touch out.txt", deny: "touch:*"},
		{name: "shell guard", mode: ModeDefault, command: "touch out.txt; rm -rf /"},
		{name: "held by the guard", mode: ModeDefault, command: `touch out.txt; rm -rf "$(cat list)"`, asked: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			args, _ := json.Marshal(map[string]string{"command": c.command})
			h := newHarness(t, llm.KindOpenAI, []llmtest.Turn{
				{ToolCalls: []llmtest.ToolCall{call("c1", "Bash", string(args))}},
				{Text: "ok"},
			}, withHooks(allow), withApprover(func(ApprovalRequest) ApprovalAnswer { return ApprovalAnswer{Decision: Deny, Reason: "no"} }))
			if c.deny != "" {
				if _, err := h.settings.AddRule(config.Rule{Tool: "Bash", Pattern: c.deny, Action: config.RuleDeny}); err != nil {
					t.Fatal(err)
				}
			}
			id := h.session(c.mode)
			h.run(id, "go")
			_, err := os.Stat(filepath.Join(h.workspace, "out.txt"))
			if ran := err == nil; ran != c.ran {
				t.Errorf("ran = %v, want %v", ran, c.ran)
			}
			if asked := len(h.askedTools()) > 0; asked != c.asked {
				t.Errorf("asked = %v, want %v (%v)", asked, c.asked, h.askedTools())
			}
			if c.ran {
				ans := logged[sessions.ApprovalAnswered](h, id, sessions.EventApprovalAnswered)
				if len(ans) != 1 || ans[0].By != "hook" || ans[0].Decision != string(AllowOnce) {
					t.Errorf("the audit trail: %+v", ans)
				}
			}
		})
	}
}

// TestHookAskPromptsDespiteAnAllowRule: ask puts the call to the user even
// where a rule (or auto mode) would let it run, with the hook's reason on
// the card.
func TestHookAskPromptsDespiteAnAllowRule(t *testing.T) {
	t.Parallel()
	for _, mode := range []Mode{ModeDefault, ModeAuto} {
		t.Run(string(mode), func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, llm.KindOpenAI, []llmtest.Turn{
				{ToolCalls: []llmtest.ToolCall{call("c1", "Bash", `{"command":"ls"}`)}},
				{Text: "ok"},
			}, withHooks(hooksJSON(hookSpec{event: hooks.PreToolUse, matcher: "Bash",
				command: `echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"listing is audited"}}'`})))
			if _, err := h.settings.AddRule(config.Rule{Tool: "Bash", Pattern: "ls", Action: config.RuleAllow}); err != nil {
				t.Fatal(err)
			}
			id := h.session(mode)
			h.run(id, "list")
			h.mu.Lock()
			asked := slices.Clone(h.asked)
			h.mu.Unlock()
			if len(asked) != 1 || asked[0].Tool != "Bash" || !strings.Contains(strings.Join(asked[0].Warnings, " "), "listing is audited") {
				t.Fatalf("asked %+v", asked)
			}
		})
	}
}

// TestUpdatedInputChangesTheCall: the hook's updatedInput is what runs
// (a file tool's file_path mapped back to its path), after the tool's
// schema accepts it; input it does not accept keeps the call from running.
func TestUpdatedInputChangesTheCall(t *testing.T) {
	t.Parallel()
	h := newHarness(t, llm.KindOpenAI, []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{call("c1", "Bash", `{"command":"echo original > bash.txt"}`)}},
		{ToolCalls: []llmtest.ToolCall{call("c2", "Write", `{"path":"draft.txt","content":"draft"}`)}},
		{ToolCalls: []llmtest.ToolCall{call("c3", "Bash", `{"command":"echo bad > bad.txt"}`)}},
		{Text: "ok"},
	}, withHooks(""))
	ws := h.workspace
	h.setHooks(hooksJSON(
		hookSpec{event: hooks.PreToolUse, matcher: "Bash", command: h.script("rewrite.py", `#!/usr/bin/env python3
import json, sys
d = json.load(sys.stdin)
cmd = d["tool_input"]["command"]
if "bad" in cmd:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"script": cmd}}}))
else:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
        "updatedInput": {"command": cmd.replace("original", "rewritten")}}}))
`)},
		hookSpec{event: hooks.PreToolUse, matcher: "Write", command: h.script("redirect.py", `#!/usr/bin/env python3
import json, os, sys
d = json.load(sys.stdin)
i = d["tool_input"]
i["file_path"] = os.path.join(os.path.dirname(i["file_path"]), "final.txt")
i["content"] = i["content"].upper()
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": i}}))
`)},
	))
	id := h.session(ModeDefault)
	h.run(id, "go")
	if b, _ := os.ReadFile(filepath.Join(ws, "bash.txt")); strings.TrimSpace(string(b)) != "rewritten" {
		t.Errorf("bash.txt holds %q", b)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "final.txt")); err != nil || string(b) != "DRAFT" {
		t.Errorf("final.txt: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(ws, "draft.txt")); err == nil {
		t.Error("the original path was written too")
	}
	if _, err := os.Stat(filepath.Join(ws, "bad.txt")); err == nil {
		t.Error("a call whose new input the schema refuses ran")
	}
	results := logged[sessions.ToolResult](h, id, sessions.EventToolResult)
	if len(results) != 3 || !results[2].IsError || !strings.Contains(results[2].Content, "does not accept") {
		t.Errorf("the refused call's result: %+v", results[len(results)-1])
	}
	if runs := hookRuns(h, id); !strings.Contains(runs[0].Input, "rewritten") {
		t.Errorf("the log does not show the new input: %+v", runs[0])
	}
	if asked := h.askedTools(); len(asked) != 0 {
		t.Errorf("asked about %v", asked)
	}
}

// TestHookPastItsTimeoutIsKilledWithItsChildren: a PreToolUse hook that
// sleeps past its timeout is killed with the process it started, reported,
// and decides nothing: the call goes through the usual permission step.
func TestHookPastItsTimeoutIsKilledWithItsChildren(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "grandchild.pid")
	h := newHarness(t, llm.KindOpenAI, []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{call("c1", "Bash", `{"command":"echo ran > out.txt"}`)}},
		{Text: "ok"},
	}, withHooks(hooksJSON(hookSpec{event: hooks.PreToolUse, timeout: 0.5,
		command: `sleep 300 & echo $! > '` + pidFile + `'; echo '{"hookSpecificOutput":{"permissionDecision":"deny"}}'; wait`})))
	id := h.session(ModeDefault)
	h.run(id, "go")
	runs := hookRuns(h, id)
	if len(runs) != 1 || !runs[0].TimedOut || runs[0].ExitCode != -1 || runs[0].Decision != "" || !strings.Contains(runs[0].Problem, "timeout") {
		t.Fatalf("runs %+v", runs)
	}
	if _, err := os.Stat(filepath.Join(h.workspace, "out.txt")); err != nil {
		t.Error("a hook that timed out kept the call from running")
	}
	if asked := h.askedTools(); !slices.Equal(asked, []string{"Bash"}) {
		t.Errorf("asked %v: the usual permission step should decide", asked)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	testutil.WaitGone(t, testutil.WaitTimeout, "the timed-out hook's child", pid)
}

// TestGarbageOutputIsReportedNotObeyed: output TinyElf cannot use is in
// the log as a problem, and the call is decided as if the hook said
// nothing.
func TestGarbageOutputIsReportedNotObeyed(t *testing.T) {
	t.Parallel()
	for name, out := range map[string]string{
		"unknown decision": `{"hookSpecificOutput":{"permissionDecision":"yes please"}}`,
		"broken JSON":      `{"hookSpecificOutput": {"permissionDecision": "allow"`,
		"wrong type":       `{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":"rm -rf /"}}`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, llm.KindOpenAI, []llmtest.Turn{
				{ToolCalls: []llmtest.ToolCall{call("c1", "Bash", `{"command":"echo ran > out.txt"}`)}},
				{Text: "ok"},
			}, withHooks(hooksJSON(hookSpec{event: hooks.PreToolUse, command: "echo '" + out + "'"})))
			id := h.session(ModeDefault)
			h.run(id, "go")
			runs := hookRuns(h, id)
			if len(runs) != 1 || runs[0].Problem == "" || runs[0].Decision != "" {
				t.Fatalf("runs %+v", runs)
			}
			if asked := h.askedTools(); !slices.Equal(asked, []string{"Bash"}) {
				t.Errorf("asked %v: garbage must not allow", asked)
			}
		})
	}
}

// TestPostToolUseFeedback: a PostToolUse block (or exit 2) reaches the
// model with the result, and "continue": false ends the turn after the
// call, with the hook's reason.
func TestPostToolUseFeedback(t *testing.T) {
	t.Parallel()
	h := newHarness(t, llm.KindOpenAI, []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{call("c1", "Bash", `{"command":"echo built"}`)}},
		{ToolCalls: []llmtest.ToolCall{call("c2", "Bash", `{"command":"echo deploy"}`)}},
		{Text: "never asked for"},
	}, withHooks(hooksJSON(hookSpec{event: hooks.PostToolUse, matcher: "Bash", command: `
		if grep -q deploy; then echo '{"continue": false, "stopReason": "deploys need a human"}'; else echo "3 lint warnings in main.go" >&2; exit 2; fi`})))
	id := h.session(ModeAuto)
	res := h.run(id, "build and deploy")
	if res.Reason != EndBlocked || !strings.Contains(res.Err, "deploys need a human") {
		t.Errorf("result %+v", res)
	}
	reqs := h.srv.ChatRequests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2 (the turn stops after the deploy)", len(reqs))
	}
	mustContain(t, "the request after the build", requestText(reqs[1]), "built", "3 lint warnings in main.go")
}

// TestUserPromptSubmitAddsContextAndCanRefuse: plain stdout and
// additionalContext join the conversation after the message; a refusal
// keeps the message from the model altogether.
func TestUserPromptSubmitAddsContextAndCanRefuse(t *testing.T) {
	t.Parallel()
	h := newHarness(t, llm.KindAnthropic, []llmtest.Turn{{Text: "ok"}}, withHooks(hooksJSON(
		hookSpec{event: hooks.UserPromptSubmit, command: `echo "Sprint ends Friday."`},
		hookSpec{event: hooks.UserPromptSubmit, command: `python3 -c '
import json, sys
d = json.load(sys.stdin)
if "password" in d["prompt"]:
    print(json.dumps({"decision": "block", "reason": "Prompts must not contain passwords."}))
else:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "Use British spelling."}}))
'`})))
	id := h.session(ModeDefault)
	h.run(id, "plan the week")
	req := h.lastRequest()
	mustContain(t, "the request", req, "plan the week", "Sprint ends Friday.", "Use British spelling.")
	if strings.Index(req, "plan the week") > strings.Index(req, "Sprint ends Friday.") {
		t.Error("the context comes before the message")
	}
	n := len(h.srv.ChatRequests())
	res := h.run(id, "my password is hunter2, log in")
	if res.Reason != EndBlocked || !strings.Contains(res.Err, "Prompts must not contain passwords.") {
		t.Errorf("result %+v", res)
	}
	if len(h.srv.ChatRequests()) != n {
		t.Error("the refused message reached the model")
	}
	for _, m := range logged[sessions.UserMessage](h, id, sessions.EventUserMessage) {
		if strings.Contains(m.Text, "hunter2") {
			t.Error("the refused message is in the conversation")
		}
	}
	var refused sessions.HookRun
	for _, r := range hookRuns(h, id) {
		if r.Decision == hooks.Block {
			refused = r
		}
	}
	if refused.Prompt != "my password is hunter2, log in" || refused.Reason != "Prompts must not contain passwords." {
		t.Errorf("the refusal's run %+v", refused)
	}
	msgs, _ := h.store.ModelMessages(context.Background(), id)
	for _, m := range msgs {
		if strings.Contains(m.Content, "hunter2") {
			t.Errorf("the model history holds the refused message: %+v", m)
		}
	}
}

// TestStopBlockContinuesOnce: a Stop hook that blocks every time makes the
// agent go on once with its reason, and the second block (with
// stop_hook_active set) is reported, not obeyed.
func TestStopBlockContinuesOnce(t *testing.T) {
	t.Parallel()
	cap := t.TempDir()
	h := newHarness(t, llm.KindOpenAI, []llmtest.Turn{
		{Text: "Done, I think."},
		{Text: "Tests run now; done."},
		{Text: "a third answer nobody asked for"},
	}, withHooks(hooksJSON(hookSpec{event: hooks.Stop, command: `cat > '` + cap + `/Stop.'$$'.json'; echo '{"decision": "block", "reason": "Run the tests before you stop."}'`})))
	id := h.session(ModeDefault)
	res := h.run(id, "fix it")
	if res.Reason != EndDone || res.Text != "Tests run now; done." {
		t.Fatalf("result %+v", res)
	}
	reqs := h.srv.ChatRequests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2", len(reqs))
	}
	mustContain(t, "the second request", requestText(reqs[1]), "Done, I think.", "Run the tests before you stop.")
	var active []any
	for _, in := range captured(t, cap, hooks.Stop) {
		active = append(active, in["stop_hook_active"])
	}
	if len(active) != 2 || active[0] != false || active[1] != true {
		t.Errorf("stop_hook_active %v", active)
	}
	runs := hookRuns(h, id)
	if len(runs) != 2 || runs[0].Context == "" || runs[1].Context != "" || !strings.Contains(runs[1].Problem, "stop_hook_active") {
		t.Errorf("runs %+v", runs)
	}
}

// TestPermissionRequestHookAnswersForTheUser: allow runs the call without
// the card; deny refuses it with the hook's message.
func TestPermissionRequestHookAnswersForTheUser(t *testing.T) {
	t.Parallel()
	h := newHarness(t, llm.KindOpenAI, []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{call("c1", "Bash", `{"command":"echo fine > ok.txt"}`)}},
		{ToolCalls: []llmtest.ToolCall{call("c2", "Bash", `{"command":"echo prod > prod.txt"}`)}},
		{Text: "ok"},
	}, withHooks(hooksJSON(hookSpec{event: hooks.PermissionRequest, matcher: "Bash", command: `
		if grep -q prod; then echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"no prod from here"}}}';
		else echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}'; fi`})))
	id := h.session(ModeDefault)
	h.run(id, "go")
	if _, err := os.Stat(filepath.Join(h.workspace, "ok.txt")); err != nil {
		t.Error("the allowed call did not run")
	}
	if _, err := os.Stat(filepath.Join(h.workspace, "prod.txt")); err == nil {
		t.Error("the denied call ran")
	}
	if asked := h.askedTools(); len(asked) != 0 {
		t.Errorf("asked %v", asked)
	}
	mustContain(t, "the last request", h.lastRequest(), "no prod from here")
}
