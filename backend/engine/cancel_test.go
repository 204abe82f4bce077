package engine

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tinyelf/backend/llm"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
	"tinyelf/backend/tools"
)

// hangingTool blocks, ignoring its context, until the test ends: a tool
// stuck in a system call. entered is closed when a call begins.
type hangingTool struct {
	entered chan struct{}
	once    sync.Once
	release chan struct{}
}

func newHangingTool(t *testing.T) *hangingTool {
	h := &hangingTool{entered: make(chan struct{}), release: make(chan struct{})}
	t.Cleanup(func() { close(h.release) })
	return h
}

func (h *hangingTool) Info() tools.Info {
	return tools.Info{Name: "Hang", Description: "hangs", ReadOnly: true, Safe: true,
		Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}
}

func (h *hangingTool) Execute(context.Context, map[string]any) (tools.Result, error) {
	h.once.Do(func() { close(h.entered) })
	<-h.release
	return tools.Text("too late"), nil
}

type fixedSource struct{ tools []tools.Tool }

func (f fixedSource) Tools(context.Context, SessionInfo) []tools.Tool { return f.tools }

// blockingSource blocks (ignoring ctx) in Tools once armed: a step of the
// turn loop that cancellation does not reach.
type blockingSource struct {
	armed   atomic.Bool
	entered chan struct{}
	release chan struct{}
}

func (b *blockingSource) Tools(context.Context, SessionInfo) []tools.Tool {
	if b.armed.CompareAndSwap(true, false) {
		close(b.entered)
		<-b.release
	}
	return nil
}

// waitClosed fails when ch is not closed within d.
func waitClosed(t *testing.T, ch <-chan struct{}, d time.Duration, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(d):
		t.Fatalf("%s did not happen within %s", what, d)
	}
}

// stateEvents returns the running flags of the turn.state events so far.
func (h *harness) stateEvents(id string) []bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []bool
	for _, ev := range h.events {
		if ev.SessionID == id && ev.Type == LiveTurnState {
			var d struct {
				Running bool `json:"running"`
			}
			_ = json.Unmarshal(ev.Data, &d)
			out = append(out, d.Running)
		}
	}
	return out
}

// checkFreed cancels the session's turn and checks that it is free within a
// second, said so on the bus, and takes a new message.
func checkFreed(t *testing.T, h *harness, id string) {
	t.Helper()
	start := time.Now()
	h.engine.Cancel(id)
	// Free means: Running says so, and the UI was told (turn.state).
	told := func() bool {
		states := h.stateEvents(id)
		return len(states) > 0 && !states[len(states)-1]
	}
	for h.engine.Running(id) || !told() {
		if time.Since(start) > time.Second {
			t.Fatalf("a second after Cancel: running %v, turn.state events %v", h.engine.Running(id), h.stateEvents(id))
		}
		time.Sleep(5 * time.Millisecond)
	}
	ends := logged[sessions.TurnEnd](h, id, sessions.EventTurnEnd)
	if len(ends) != 1 || ends[0].Reason != EndCancelled {
		t.Errorf("turn.end %+v", ends)
	}
	h.srv.Push(llmtest.Turn{Text: "back again"})
	if err := h.engine.Send(id, "are you there?"); err != nil {
		t.Fatalf("Send after Cancel: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.engine.Wait(ctx, id); err != nil {
		t.Fatal("the new turn did not end")
	}
	if ends := logged[sessions.TurnEnd](h, id, sessions.EventTurnEnd); len(ends) != 2 || ends[1].Reason != EndDone {
		t.Errorf("turn.end after the new message: %+v", ends)
	}
}

// TestCancelFreesTheSession: Cancel in the UI frees the session at once,
// whatever is stuck: a tool ignoring its context, an approval the approver
// never answers, a step of the loop cancellation does not reach.
func TestCancelFreesTheSession(t *testing.T) {
	t.Parallel()
	t.Run("tool ignores its context", func(t *testing.T) {
		t.Parallel()
		hang := newHangingTool(t)
		h := newHarness(t, llm.KindOpenAI, []llmtest.Turn{{ToolCalls: []llmtest.ToolCall{call("h1", "Hang", `{}`)}}},
			interactive(), func(h *harness, o *Options) { o.ToolSources = []ToolSource{fixedSource{[]tools.Tool{hang}}} })
		id := h.session(ModeDefault)
		if err := h.engine.Send(id, "hang"); err != nil {
			t.Fatal(err)
		}
		waitClosed(t, hang.entered, 10*time.Second, "the tool call")
		checkFreed(t, h, id)
		results := logged[sessions.ToolResult](h, id, sessions.EventToolResult)
		if len(results) != 1 || !results[0].IsError || results[0].Meta["abandoned"] != true {
			t.Errorf("the stuck call's result: %+v", results)
		}
	})
	t.Run("approver ignores its context", func(t *testing.T) {
		t.Parallel()
		asked := make(chan struct{})
		var once sync.Once
		release := make(chan struct{})
		t.Cleanup(func() { close(release) })
		h := newHarness(t, llm.KindOpenAI, []llmtest.Turn{{ToolCalls: []llmtest.ToolCall{call("w1", "Write", `{"path":"x.txt","content":"x"}`)}}},
			func(h *harness, o *Options) {
				o.Approver = ApproverFunc(func(context.Context, ApprovalRequest) (ApprovalAnswer, error) {
					once.Do(func() { close(asked) })
					<-release // a prompt nobody answers, deaf to ctx
					return ApprovalAnswer{Decision: AllowOnce}, nil
				})
			})
		id := h.session(ModeDefault)
		if err := h.engine.Send(id, "write"); err != nil {
			t.Fatal(err)
		}
		waitClosed(t, asked, 10*time.Second, "the approval request")
		checkFreed(t, h, id)
	})
	t.Run("interactive approval", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, llm.KindOpenAI, []llmtest.Turn{{ToolCalls: []llmtest.ToolCall{call("w1", "Write", `{"path":"x.txt","content":"x"}`)}}}, interactive())
		id := h.session(ModeDefault)
		if err := h.engine.Send(id, "write"); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for len(h.engine.Pending(id)) == 0 {
			if time.Now().After(deadline) {
				t.Fatal("no approval pending")
			}
			time.Sleep(5 * time.Millisecond)
		}
		checkFreed(t, h, id)
	})
	t.Run("a loop step deaf to cancellation", func(t *testing.T) {
		t.Parallel()
		src := &blockingSource{entered: make(chan struct{}), release: make(chan struct{})}
		t.Cleanup(func() { close(src.release) })
		h := newHarness(t, llm.KindOpenAI, nil, interactive(),
			func(h *harness, o *Options) { o.ToolSources = []ToolSource{src} })
		id := h.session(ModeDefault)
		src.armed.Store(true)
		if err := h.engine.Send(id, "hello"); err != nil {
			t.Fatal(err)
		}
		waitClosed(t, src.entered, 10*time.Second, "the tool source call")
		checkFreed(t, h, id)
	})
}

// TestAbandonedTurnLogsNothing: once Cancel has given up on a turn, what
// its goroutine still tries to log is dropped, so it cannot write into the
// turn that follows.
func TestAbandonedTurnLogsNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t, llm.KindOpenAI, nil)
	id := h.session(ModeDefault)
	run := &turnRun{done: make(chan struct{})}
	ctx := context.WithValue(context.Background(), turnRunKey{}, run)
	if err := h.engine.record(ctx, id, sessions.NewEvent(sessions.EventUserMessage, sessions.UserMessage{Text: "live"})); err != nil {
		t.Fatal(err)
	}
	run.abandoned.Store(true)
	if err := h.engine.record(ctx, id, sessions.NewEvent(sessions.EventUserMessage, sessions.UserMessage{Text: "late"})); err == nil {
		t.Error("a write of an abandoned turn was accepted")
	}
	msgs := logged[sessions.UserMessage](h, id, sessions.EventUserMessage)
	if len(msgs) != 1 || msgs[0].Text != "live" {
		t.Errorf("logged %+v", msgs)
	}
}

// TestRunReturnsPromptlyOnCancel: Run (tinyelf run) returns within a second
// of its context ending, with a tool stuck.
func TestRunReturnsPromptlyOnCancel(t *testing.T) {
	t.Parallel()
	hang := newHangingTool(t)
	h := newHarness(t, llm.KindOpenAI, []llmtest.Turn{{ToolCalls: []llmtest.ToolCall{call("h1", "Hang", `{}`)}}},
		func(h *harness, o *Options) { o.ToolSources = []ToolSource{fixedSource{[]tools.Tool{hang}}} })
	id := h.session(ModeDefault)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-hang.entered
		cancel()
	}()
	done := make(chan TurnResult, 1)
	go func() {
		res, _ := h.engine.Run(ctx, id, "hang")
		done <- res
	}()
	waitClosed(t, hang.entered, 10*time.Second, "the tool call")
	select {
	case res := <-done:
		if res.Reason != EndCancelled {
			t.Errorf("result %+v", res)
		}
	case <-time.After(time.Second):
		t.Fatal("Run did not return within a second of its context ending")
	}
}
