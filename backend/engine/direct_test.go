package engine

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"tinyelf/backend/config"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
)

type recordingNotifier struct {
	mu   sync.Mutex
	sent []string
}

func (n *recordingNotifier) Notify(_ context.Context, title, body string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.sent = append(n.sent, title+": "+body)
	return nil
}

// A tool only a session has runs as a direct call in a session of its own:
// spawn_agent starts a real subagent (the scripted model answers it),
// Notify reaches the notifier, SessionsList reads the store. The call is
// logged as the assistant's, approved by the person who asked for it, and
// the turn makes no model call of its own.
func TestRunToolCallInAOneOffSession(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		n := &recordingNotifier{}
		h := newHarness(t, kind, []llmtest.Turn{{Text: "The child says hi."}}, func(_ *harness, o *Options) { o.Notifier = n })
		ctx := context.Background()

		id := h.session(ModeDefault)
		res, err := h.engine.RunToolCall(ctx, id, "tinyelf tool spawn_agent", "spawn_agent", json.RawMessage(`{"prompt":"say hi"}`))
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError || !strings.Contains(res.Content, "The child says hi.") {
			t.Fatalf("spawn_agent: %+v", res)
		}
		if reqs := h.srv.ChatRequests(); len(reqs) != 1 || !strings.Contains(systemText(reqs[0]), "You are a subagent") {
			t.Errorf("the direct call's turn called the model itself (%d requests)", len(reqs))
		}
		answers := logged[sessions.ApprovalAnswered](h, id, sessions.EventApprovalAnswered)
		if len(answers) != 1 || answers[0].Decision != string(AllowOnce) || answers[0].By != "cli" {
			t.Errorf("the direct call was not approved by the person who made it: %+v", answers)
		}
		msgs := logged[sessions.AssistantMessage](h, id, sessions.EventAssistantMessage)
		if len(msgs) != 1 || len(msgs[0].ToolCalls) != 1 || msgs[0].ToolCalls[0].Name != "spawn_agent" {
			t.Errorf("the call is not in the history as made: %+v", msgs)
		}

		id2 := h.session(ModeDefault)
		if res, err := h.engine.RunToolCall(ctx, id2, "notify", "Notify", json.RawMessage(`{"title":"Done","body":"from the CLI"}`)); err != nil || res.IsError {
			t.Fatalf("Notify: %+v %v", res, err)
		}
		n.mu.Lock()
		sent := strings.Join(n.sent, "|")
		n.mu.Unlock()
		if !strings.Contains(sent, "Done: from the CLI") {
			t.Errorf("notifications: %q", sent)
		}
		res, err = h.engine.RunToolCall(ctx, id2, "list", "SessionsList", nil)
		if err != nil || res.IsError || !strings.Contains(res.Content, id) {
			t.Errorf("SessionsList: %+v %v", res, err)
		}
	})
}

// A direct call is no way past visibility or the gate: a tool the mode
// hides and one a deny rule forbids do not run, and without a model
// provider a call that needs none still runs.
func TestRunToolCallRefusals(t *testing.T) {
	h := newHarness(t, "openai", nil)
	ctx := context.Background()
	plan := h.session(ModePlan)
	res, err := h.engine.RunToolCall(ctx, plan, "send", "SessionsSend", json.RawMessage(`{"sessionId":"x","message":"hi"}`))
	if err != nil || !res.IsError || !strings.Contains(res.Content, "plan mode") {
		t.Errorf("SessionsSend in plan mode: %+v %v", res, err)
	}
	if _, err := h.settings.AddRule(config.Rule{Tool: "SessionsList", Action: config.RuleDeny}); err != nil {
		t.Fatal(err)
	}
	res, err = h.engine.RunToolCall(ctx, h.session(ModeAuto), "list", "SessionsList", nil)
	if err != nil || !res.IsError || !strings.Contains(res.Content, "Permission denied") {
		t.Errorf("a denied tool: %+v %v", res, err)
	}
	if err := h.settings.Update(func(s *config.Settings) error {
		s.Providers, s.DefaultProvider, s.Permissions.Rules = nil, "", nil
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	res, err = h.engine.RunToolCall(ctx, h.session(ModeDefault), "list", "SessionsList", nil)
	if err != nil || res.IsError {
		t.Errorf("SessionsList without a provider: %+v %v", res, err)
	}
	if n := len(h.srv.ChatRequests()); n != 0 {
		t.Errorf("%d model calls", n)
	}
}
