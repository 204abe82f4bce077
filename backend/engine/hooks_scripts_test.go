package engine

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"tinyelf/backend/config"
	"tinyelf/backend/hooks"
	"tinyelf/backend/llm"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/proc"
	"tinyelf/backend/sessions"
	"tinyelf/internal/testutil"
)

// Hook scripts in the style people share for Claude Code, run unchanged:
// the commands reach them through $CLAUDE_PROJECT_DIR, they read their
// input with jq or Python, and answer with exit codes or JSON.

func need(t *testing.T, programs ...string) {
	t.Helper()
	for _, p := range programs {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s is not installed", p)
		}
	}
}

// The dangerous-command blocker of the hooks guide: jq reads the command,
// a JSON deny refuses it.
const blockerSh = `#!/bin/bash
COMMAND=$(jq -r '.tool_input.command')
if echo "$COMMAND" | grep -qE 'rm -rf|git push --force'; then
  jq -n '{
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: "Destructive command blocked by hook"
    }
  }'
else
  exit 0
fi
`

// A command validator in Python: the rules' messages on stderr, exit 2.
const validatorPy = `#!/usr/bin/env python3
import json
import re
import sys

RULES = [
    (r"\bgrep\b(?!.*\|)", "Use 'rg' (ripgrep) instead of 'grep' for speed"),
    (r"\bfind\s+\S+\s+-name\b", "Use 'rg --files -g PATTERN' instead of 'find -name'"),
]

try:
    data = json.load(sys.stdin)
except json.JSONDecodeError as e:
    print(f"Error: invalid JSON input: {e}", file=sys.stderr)
    sys.exit(1)

if data.get("tool_name") != "Bash":
    sys.exit(0)
command = data.get("tool_input", {}).get("command", "")
issues = [msg for pattern, msg in RULES if re.search(pattern, command)]
if issues:
    for msg in issues:
        print(f"• {msg}", file=sys.stderr)
    sys.exit(2)
`

// A secret-file protector: file tools may not touch .env files, lock files
// or .git.
const protectPy = `#!/usr/bin/env python3
import json
import sys

data = json.load(sys.stdin)
path = data.get("tool_input", {}).get("file_path", "")
protected = [".env", "package-lock.json", ".git/"]
if any(p in path for p in protected):
    print(f"Blocked: {path} is a protected file", file=sys.stderr)
    sys.exit(2)
sys.exit(0)
`

// A formatter after edits.
const formatSh = `#!/bin/bash
FILE=$(jq -r '.tool_input.file_path // empty')
[ -z "$FILE" ] && exit 0
case "$FILE" in
  *.go) gofmt -w "$FILE" ;;
esac
exit 0
`

// A notifier: the message to the desktop when it can, to a log always.
const notifySh = `#!/bin/bash
INPUT=$(cat)
TITLE=$(echo "$INPUT" | jq -r '.title // "Claude Code"')
MESSAGE=$(echo "$INPUT" | jq -r '.message')
if command -v notify-send >/dev/null 2>&1 && [ -n "$DISPLAY" ] && [ -n "$HOOK_TEST_DESKTOP" ]; then
  notify-send "$TITLE" "$MESSAGE"
fi
echo "[$(echo "$INPUT" | jq -r '.notification_type')] $TITLE: $MESSAGE" >> "$CLAUDE_PROJECT_DIR/.claude/notifications.log"
`

// A Stop notifier that reads the last answer from the transcript.
const lastAnswerSh = `#!/bin/bash
TRANSCRIPT=$(jq -r '.transcript_path')
LAST=$(jq -rs 'map(select(.type == "assistant")) | last | .message.content | map(select(.type == "text")) | map(.text) | join("")' "$TRANSCRIPT")
echo "$LAST" > "$CLAUDE_PROJECT_DIR/.claude/last-answer.txt"
`

func TestSharedHookScriptsRunUnchanged(t *testing.T) {
	need(t, "jq", "python3", "gofmt")
	t.Parallel()
	h := newHarness(t, llm.KindAnthropic, []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{call("c1", "Bash", `{"command":"rm -rf src"}`)}},
		{ToolCalls: []llmtest.ToolCall{call("c2", "Bash", `{"command":"grep -r TODO ."}`)}},
		{ToolCalls: []llmtest.ToolCall{call("c3", "Read", `{"path":".env"}`)}},
		{ToolCalls: []llmtest.ToolCall{call("c4", "Read", `{"path":"src/main.go"}`)}},
		{ToolCalls: []llmtest.ToolCall{call("c5", "Edit", `{"path":"src/main.go","old_string":"func main() {}","new_string":"func main() {\n\t\tx :=   1\n\t_ = x\n}"}`)}},
		{Text: "Edited main.go; the formatter tidied it."},
	}, withHooks(""))
	h.writeFile(".env", "API_TOKEN=do-not-read\n")
	h.writeFile("src/main.go", "package main\n\nfunc main() {}\n")
	h.setHooks(hooksJSON(
		hookSpec{event: hooks.PreToolUse, matcher: "Bash", command: h.script("block-dangerous.sh", blockerSh)},
		hookSpec{event: hooks.PreToolUse, matcher: "Bash", command: "python3 " + h.script("validate-bash.py", validatorPy)},
		hookSpec{event: hooks.PreToolUse, matcher: "Read|Edit|MultiEdit|Write", command: h.script("protect-files.py", protectPy)},
		hookSpec{event: hooks.PostToolUse, matcher: "Edit|MultiEdit|Write", command: h.script("format.sh", formatSh)},
		hookSpec{event: hooks.Notification, command: h.script("notify.sh", notifySh)},
		hookSpec{event: hooks.Stop, command: h.script("last-answer.sh", lastAnswerSh)},
	))
	id := h.session(ModeAuto)
	res := h.run(id, "tidy the project")
	if res.Reason != EndDone {
		t.Fatalf("result %+v", res)
	}
	results := logged[sessions.ToolResult](h, id, sessions.EventToolResult)
	if len(results) != 5 {
		t.Fatalf("%d results", len(results))
	}
	if _, err := os.Stat(filepath.Join(h.workspace, "src")); err != nil {
		t.Error("rm -rf ran")
	}
	mustContain(t, "the rm -rf result", results[0].Content, "Destructive command blocked by hook")
	mustContain(t, "the grep result", results[1].Content, "Use 'rg' (ripgrep) instead of 'grep'")
	mustContain(t, "the .env result", results[2].Content, ".env is a protected file")
	if strings.Contains(results[2].Content, "do-not-read") {
		t.Error("the protected file was read")
	}
	if results[4].IsError {
		t.Fatalf("the edit failed: %s", results[4].Content)
	}
	b, _ := os.ReadFile(filepath.Join(h.workspace, "src", "main.go"))
	if want := "package main\n\nfunc main() {\n\tx := 1\n\t_ = x\n}\n"; string(b) != want {
		t.Errorf("main.go after the formatter:\n%q\nwant\n%q", b, want)
	}
	last, err := os.ReadFile(filepath.Join(h.workspace, ".claude", "last-answer.txt"))
	if err != nil || strings.TrimSpace(string(last)) != "Edited main.go; the formatter tidied it." {
		t.Errorf("the Stop hook read %q from the transcript (%v)", last, err)
	}
	testutil.WaitFor(t, "the notifier", func() bool { return hasRun(h, id, hooks.Notification) })
	log, _ := os.ReadFile(filepath.Join(h.workspace, ".claude", "notifications.log"))
	mustContain(t, "the notification log", string(log), "[idle_prompt] TinyElf finished: Edited main.go")
	for _, r := range hookRuns(h, id) {
		if r.Problem != "" {
			t.Errorf("a hook had a problem: %+v", r)
		}
	}
}

// TestNotifierOnApproval: the approval card's notification runs the
// Notification hooks with permission_prompt.
func TestNotifierOnApproval(t *testing.T) {
	need(t, "jq")
	t.Parallel()
	h := newHarness(t, llm.KindOpenAI, []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{call("c1", "Bash", `{"command":"echo hi"}`)}},
		{Text: "ok"},
	}, interactive(), withHooks(""))
	h.setHooks(hooksJSON(hookSpec{event: hooks.Notification, matcher: "permission_prompt", command: h.script("notify.sh", notifySh)}))
	id := h.session(ModeDefault)
	if err := h.engine.Send(id, "say hi"); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, "the approval", func() bool { return len(h.engine.Pending(id)) == 1 })
	testutil.WaitFor(t, "the notifier", func() bool { return hasRun(h, id, hooks.Notification) })
	log, _ := os.ReadFile(filepath.Join(h.workspace, ".claude", "notifications.log"))
	mustContain(t, "the notification log", string(log), "[permission_prompt] TinyElf needs your approval: TinyElf needs your permission to use Bash")
	if err := h.engine.Answer(id, "c1", ApprovalAnswer{Decision: AllowOnce}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := h.engine.Wait(ctx, id); err != nil {
		t.Fatal(err)
	}
}

// TestProjectHooksNeedTrust: a workspace's own hooks run only once the
// user trusts them there; the answer is remembered, and asked again when
// the hooks change. Without anyone to ask they do not run, and the log
// says how to trust them.
func TestProjectHooksNeedTrust(t *testing.T) {
	t.Parallel()
	marker := func(h *harness) string { return filepath.Join(h.workspace, "project-hook-ran") }
	project := func(h *harness, cmd string) {
		h.writeFile(".claude/settings.json", `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "`+cmd+`"}]}]}}`)
	}
	t.Run("asked, denied, remembered, asked again after a change", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, llm.KindOpenAI, []llmtest.Turn{{Text: "1"}, {Text: "2"}, {Text: "3"}}, withHooks(""))
		project(h, "touch project-hook-ran")
		answer := Deny
		h.approver = func(req ApprovalRequest) ApprovalAnswer { return ApprovalAnswer{Decision: answer} }
		id := h.session(ModeDefault)
		h.run(id, "first")
		h.mu.Lock()
		asked := slices.Clone(h.asked)
		h.mu.Unlock()
		if len(asked) != 1 || asked[0].Kind != ApprovalHooksTrust || !strings.Contains(asked[0].Question, ".claude/settings.json") ||
			!strings.Contains(asked[0].Arguments, "touch project-hook-ran") {
			t.Fatalf("asked %+v", asked)
		}
		if _, err := os.Stat(marker(h)); err == nil {
			t.Fatal("a project hook the user denied ran")
		}
		h.run(h.session(ModeDefault), "second")
		if n := len(h.askedTools()); n != 1 {
			t.Errorf("asked %d times; the denial is remembered", n)
		}
		project(h, "touch project-hook-ran; echo changed")
		answer = AllowOnce
		h.run(id, "third")
		if n := len(h.askedTools()); n != 2 {
			t.Errorf("asked %d times; changed hooks are asked about again", n)
		}
		if _, err := os.Stat(marker(h)); err != nil {
			t.Error("the trusted project hook did not run")
		}
		runs := hookRuns(h, id)
		if len(runs) != 1 || runs[0].Source != ".claude/settings.json" {
			t.Errorf("runs %+v", runs)
		}
	})
	t.Run("nobody to ask", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, llm.KindOpenAI, []llmtest.Turn{{Text: "1"}}, withHooks("", func(o *HookOptions) { o.NoTrustPrompt = true }))
		project(h, "touch project-hook-ran")
		id := h.session(ModeDefault)
		h.run(id, "first")
		if _, err := os.Stat(marker(h)); err == nil {
			t.Error("an untrusted project hook ran")
		}
		errs := logged[sessions.Error](h, id, sessions.EventError)
		if len(errs) != 1 || errs[0].Kind != "hooks_untrusted" || !strings.Contains(errs[0].Message, "tinyelf hooks trust") {
			t.Errorf("errors %+v", errs)
		}
	})
	t.Run("trusted by the run", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, llm.KindOpenAI, []llmtest.Turn{{Text: "1"}}, withHooks("", func(o *HookOptions) { o.TrustProject = true }))
		project(h, "touch project-hook-ran")
		h.run(h.session(ModeDefault), "first")
		if _, err := os.Stat(marker(h)); err != nil {
			t.Error("the project hook did not run")
		}
		if n := len(h.askedTools()); n != 0 {
			t.Errorf("asked %d times", n)
		}
	})
}

// TestTranscriptIsTheSession: transcript_path is a JSONL file with the
// session's messages in Claude Code's shape, current when the hook runs.
func TestTranscriptIsTheSession(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	copyTo, during := filepath.Join(dir, "copy.jsonl"), filepath.Join(dir, "during.jsonl")
	copyHook := func(ev hooks.Event, to string) hookSpec {
		return hookSpec{event: ev, command: `python3 -c 'import json,sys,shutil; shutil.copy(json.load(sys.stdin)["transcript_path"], "` + to + `")'`}
	}
	h := newHarness(t, llm.KindOpenAI, []llmtest.Turn{
		{Text: "Reading.", ToolCalls: []llmtest.ToolCall{call("c1", "Read", `{"path":"a.txt"}`)}},
		{Text: "It says hello."},
	}, withHooks(hooksJSON(copyHook(hooks.Stop, copyTo), copyHook(hooks.PreToolUse, during))))
	h.writeFile("a.txt", "hello")
	id := h.session(ModeDefault)
	h.run(id, "what does a.txt say?")
	b, err := os.ReadFile(copyTo)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	var texts []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var l struct {
			Type    string `json:"type"`
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		types = append(types, l.Type)
		texts = append(texts, string(l.Message.Content))
	}
	if !slices.Equal(types, []string{"user", "assistant", "user", "assistant"}) {
		t.Fatalf("types %v", types)
	}
	mustContain(t, "the transcript", strings.Join(texts, "\n"), "what does a.txt say?", `"tool_use"`, `"name":"Read"`, `"tool_result"`, "hello", "It says hello.")
	// While the call waits for its PreToolUse hook, the transcript has the
	// call and no result made up for it.
	b, err = os.ReadFile(during)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(strings.TrimSpace(string(b)), "\n") + 1; n != 2 || !strings.Contains(string(b), `"id":"c1"`) || strings.Contains(string(b), "tool_result") {
		t.Errorf("the transcript during the call (%d lines):\n%s", n, b)
	}
}

// TestHooksGetTheCleanEnvironment: a hook sees the user's environment as
// Bash does, without TinyElf's credentials (by name, or by value under any
// name), with CLAUDE_PROJECT_DIR and TINYELF_PROJECT_DIR set to the
// workspace.
func TestHooksGetTheCleanEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-from-the-environment-123")
	t.Setenv("MY_COPY_OF_THE_KEY", "sk-provider-key-in-settings-456")
	t.Setenv("HOOK_TEST_VISIBLE", "visible")
	envFile := filepath.Join(t.TempDir(), "env.txt")
	h := newHarness(t, llm.KindOpenAI, []llmtest.Turn{{Text: "ok"}},
		withHooks(hooksJSON(hookSpec{event: hooks.UserPromptSubmit, command: "env > '" + envFile + "'"})))
	if err := h.settings.Update(func(s *config.Settings) error { s.Providers[0].APIKey = "sk-provider-key-in-settings-456"; return nil }); err != nil {
		t.Fatal(err)
	}
	h.run(h.session(ModeDefault), "hi")
	b, err := os.ReadFile(envFile)
	if err != nil {
		t.Fatal(err)
	}
	env := string(b)
	for _, secret := range []string{"sk-from-the-environment-123", "sk-provider-key-in-settings-456", "OPENAI_API_KEY="} {
		if strings.Contains(env, secret) {
			t.Errorf("the hook saw %s", secret)
		}
	}
	for _, want := range []string{"HOOK_TEST_VISIBLE=visible", "CLAUDE_PROJECT_DIR=" + h.workspace, "TINYELF_PROJECT_DIR=" + h.workspace, proc.ChildOfEnv + "="} {
		if !strings.Contains(env, want) {
			t.Errorf("the hook's environment lacks %s", want)
		}
	}
}
