package api

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"tinyelf/backend/engine"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
)

// call runs a method through the transport-neutral table, as the UI does.
func (h *svcHarness) call(method string, args any, out any) error {
	h.t.Helper()
	b, _ := json.Marshal(args)
	res, err := h.svc.Call(context.Background(), method, b)
	if err != nil {
		return err
	}
	if out != nil {
		if err := json.Unmarshal(res, out); err != nil {
			h.t.Fatalf("%s returned %s: %v", method, res, err)
		}
	}
	return nil
}

// Settings → Hooks saves the settings' hooks in Claude Code's shape and
// refuses what would never run, naming it.
func TestSaveAndListHooks(t *testing.T) {
	t.Parallel()
	h := newSvc(t)
	bad := map[string]any{"hooks": map[string]any{
		"PreToolUse": []any{map[string]any{"matcher": "Bash(", "hooks": []any{map[string]any{"type": "command", "command": "x"}}}},
		"Whenever":   []any{map[string]any{"hooks": []any{map[string]any{"command": "y"}}}},
	}}
	err := h.call("SaveHooks", bad, nil)
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeInvalid || !strings.Contains(e.Message, `matcher "Bash(" is not a valid regular expression`) || !strings.Contains(e.Message, "Whenever") {
		t.Fatalf("saving bad hooks: %v", err)
	}
	good := map[string]any{"workspace": h.workspace, "hooks": map[string]any{
		"PreToolUse": []any{map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{"command": " ./check.sh ", "timeout": 5}}}},
	}}
	var list HookList
	if err := h.call("SaveHooks", good, &list); err != nil {
		t.Fatal(err)
	}
	if g := list.Hooks["PreToolUse"]; len(g) != 1 || g[0].Hooks[0].Command != "./check.sh" || g[0].Hooks[0].Type != "command" {
		t.Errorf("saved %+v", list.Hooks)
	}
	if list.Project == nil || list.Project.Workspace != h.workspace || len(list.Events) != 11 {
		t.Errorf("list %+v", list)
	}
	b, _ := os.ReadFile(list.SettingsPath)
	if !strings.Contains(string(b), `"PreToolUse": [`) || !strings.Contains(string(b), `"type": "command"`) {
		t.Errorf("the settings file:\n%s", b)
	}
}

// A session in a workspace with project hooks asks on its first turn
// whether they may run; once allowed they run (and are listed as
// trusted), and each run shows under its tool call in the chat.
func TestProjectHooksTrustThroughTheUI(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the hooks are bash")
	}
	t.Parallel()
	h := newSvc(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "Bash", Arguments: `{"command":"rm -rf build"}`}}},
		llmtest.Turn{Text: "Understood."})
	h.addProvider()
	writeFile := func(rel, content string) {
		p := filepath.Join(h.workspace, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(".claude/settings.json", `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "grep -q 'rm -rf' && { echo 'not here' >&2; exit 2; }; exit 0"}]}]}}`)
	var list HookList
	if err := h.call("ListHooks", HooksArgs{Workspace: h.workspace}, &list); err != nil || list.Project.Trust != "untrusted" || len(list.Project.Files) != 1 {
		t.Fatalf("before: %+v %v", list.Project, err)
	}
	sess, err := h.svc.CreateSession(context.Background(), CreateSessionArgs{Workspace: h.workspace})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.SendMessage(context.Background(), SendArgs{SessionID: sess.ID, Text: "clean"}); err != nil {
		t.Fatal(err)
	}
	ev := h.waitFor(sess.ID, string(sessions.EventApprovalAsked))
	var asked sessions.ApprovalAsked
	if err := json.Unmarshal(ev.Data, &asked); err != nil || asked.Kind != engine.ApprovalHooksTrust || !strings.Contains(asked.Arguments, "rm -rf") {
		t.Fatalf("asked %+v %v", asked, err)
	}
	if _, err := h.svc.Approve(context.Background(), ApproveArgs{SessionID: sess.ID, CallID: asked.CallID, Decision: "allow_once"}); err != nil {
		t.Fatal(err)
	}
	h.waitFor(sess.ID, string(sessions.EventTurnEnd))
	if err := h.call("ListHooks", HooksArgs{SessionID: sess.ID}, &list); err != nil || list.Project.Trust != "trusted" {
		t.Errorf("after: %+v %v", list.Project, err)
	}
	view, err := h.svc.GetSession(context.Background(), IDArgs{ID: sess.ID})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, m := range view.Messages {
		if m.Kind == sessions.UITool && m.Tool.CallID == "c1" {
			found = len(m.Tool.Hooks) == 1 && m.Tool.Hooks[0].Decision == "deny" && m.Tool.Status == sessions.ToolDenied
		}
	}
	if !found {
		t.Errorf("the Bash card does not show the hook's denial: %+v", view.Messages)
	}
	// Forgetting asks again.
	if err := h.call("SetHooksTrust", HooksTrustArgs{Workspace: h.workspace, Trust: "untrusted"}, &list); err != nil || list.Project.Trust != "untrusted" {
		t.Errorf("forget: %+v %v", list.Project, err)
	}
}
