package sessions

import (
	"context"
	"reflect"
	"testing"
)

// TestHookRunsProjection: a tool hook's run shows on its call's card, a
// session hook's as an item of its own, and the context a run carries is a
// message the model reads, in order, also after a replay and a rebuild.
func TestHookRunsProjection(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTestStore(t, WithClock(newTestClock().Now))
	sess := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	mustAppend(t, s, sess.ID,
		NewEvent(EventHookRun, HookRun{Event: "SessionStart", Detail: "startup", Command: "git status -s", Context: "branch main, clean"}),
		NewEvent(EventUserMessage, UserMessage{Text: "tidy up"}),
		NewEvent(EventHookRun, HookRun{Event: "UserPromptSubmit", Command: "date", Context: "It is Monday."}),
		NewEvent(EventTurnStart, TurnStart{Mode: "default"}),
		NewEvent(EventAssistantMessage, AssistantMessage{Text: "", ToolCalls: []ToolCallRecord{{ID: "c1", Name: "Bash", Arguments: `{"command":"rm -rf build"}`}}}),
		NewEvent(EventToolIntent, ToolIntent{CallID: "c1", Name: "Bash", Arguments: `{"command":"rm -rf build"}`}),
		NewEvent(EventHookRun, HookRun{Event: "PreToolUse", CallID: "c1", Tool: "Bash", Command: "./guard.sh", ExitCode: 2, Decision: "deny", Reason: "no rm -rf"}),
		NewEvent(EventApprovalAnswered, ApprovalAnswered{CallID: "c1", Decision: "deny", Reason: "no rm -rf", By: "hook"}),
		NewEvent(EventToolResult, ToolResult{CallID: "c1", Name: "Bash", Content: "PreToolUse hook denied it: no rm -rf", IsError: true}),
		NewEvent(EventAssistantMessage, AssistantMessage{Text: "Done."}),
		NewEvent(EventHookRun, HookRun{Event: "Stop", Command: "make check", ExitCode: 2, Decision: "block", Context: "Stop hook feedback: tests fail"}),
		NewEvent(EventHookRun, HookRun{Event: "PostToolUse", CallID: "unknown", Command: "fmt"}),
	)
	ui, err := s.UIMessages(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	var hooks []string
	var tool *ToolCallView
	for _, m := range ui {
		if m.Kind == UIHook {
			hooks = append(hooks, m.Hook.Event)
		}
		if m.Kind == UITool {
			tool = m.Tool
		}
	}
	if !reflect.DeepEqual(hooks, []string{"SessionStart", "UserPromptSubmit", "Stop", "PostToolUse"}) {
		t.Errorf("hook items %v", hooks)
	}
	if tool == nil || len(tool.Hooks) != 1 || tool.Hooks[0].Decision != "deny" || tool.Status != ToolDenied {
		t.Errorf("tool card %+v", tool)
	}
	model, err := s.ModelMessages(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range model {
		if m.Role == RoleUser {
			texts = append(texts, m.Content)
		}
	}
	want := []string{"branch main, clean", "tidy up", "It is Monday.", "Stop hook feedback: tests fail"}
	if !reflect.DeepEqual(texts, want) {
		t.Errorf("user-side model messages %q\nwant %q", texts, want)
	}
	st, err := s.Replay(ctx, sess.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(st.UI, ui) || !reflect.DeepEqual(st.Messages, model) {
		t.Errorf("replay differs:\n%s\n%s", mustJSON(t, st.UI), mustJSON(t, ui))
	}
	checkRebuildMatches(t, s)
}
