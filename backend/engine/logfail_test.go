package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
)

// failingLog is the session log with writes that fail on demand: Append
// refuses any batch holding an event of a type in failing, the first
// times[type] times (0: always), until heal.
type failingLog struct {
	SessionLog

	mu      sync.Mutex
	failing map[sessions.EventType]int
	refused int
}

var errDiskFull = errors.New("disk I/O error: no space left on device")

func (f *failingLog) Append(ctx context.Context, id string, evs ...sessions.Event) ([]sessions.Event, error) {
	f.mu.Lock()
	for _, ev := range evs {
		if n, ok := f.failing[ev.Type]; ok {
			if n == 1 {
				delete(f.failing, ev.Type)
			} else if n > 1 {
				f.failing[ev.Type] = n - 1
			}
			f.refused++
			f.mu.Unlock()
			return nil, errDiskFull
		}
	}
	f.mu.Unlock()
	return f.SessionLog.Append(ctx, id, evs...)
}

func (f *failingLog) heal() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failing = nil
}

func withFailingLog(f *failingLog) harnessOption {
	return func(h *harness, o *Options) {
		f.SessionLog = o.Log
		o.Log = f
	}
}

func (h *harness) liveErrors() []Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []Event
	for _, ev := range h.events {
		if ev.Type == LiveTurnError {
			out = append(out, ev)
		}
	}
	return out
}

// TestLogWriteFailures: a session-log write that fails ends the turn with
// an error the user sees (logged when the log takes it, live otherwise),
// leaves nothing waiting, never calls the model on a history the log does
// not hold, and never later tells the model "interrupted" for a call that
// ran.
func TestLogWriteFailures(t *testing.T) {
	t.Parallel()
	type check func(t *testing.T, h *harness, id string, res TurnResult, log *failingLog)
	tests := []struct {
		name  string
		fail  map[sessions.EventType]int
		turns []llmtest.Turn
		opts  []harnessOption
		check check
	}{
		{
			name:  "approval.asked",
			fail:  map[sessions.EventType]int{sessions.EventApprovalAsked: 0},
			turns: []llmtest.Turn{{ToolCalls: []llmtest.ToolCall{call("b", "Bash", `{"command":"touch made.txt"}`)}}, {Text: "never asked for"}},
			opts:  []harnessOption{interactive()},
			check: func(t *testing.T, h *harness, id string, res TurnResult, _ *failingLog) {
				if _, err := os.Stat(filepath.Join(h.workspace, "made.txt")); err == nil {
					t.Error("the call ran without the question being shown")
				}
				if errs := logged[sessions.Error](h, id, sessions.EventError); len(errs) != 1 || !strings.Contains(errs[0].Message, "could not be saved") {
					t.Errorf("error events %+v", errs)
				}
			},
		},
		{
			name:  "tool.result once",
			fail:  map[sessions.EventType]int{sessions.EventToolResult: 1},
			turns: []llmtest.Turn{{ToolCalls: []llmtest.ToolCall{call("r", "Read", `{"path":"notes.txt"}`)}}, {Text: "not reached"}, {Text: "next turn"}},
			check: func(t *testing.T, h *harness, id string, res TurnResult, _ *failingLog) {
				if results := logged[sessions.ToolResult](h, id, sessions.EventToolResult); len(results) != 1 || !strings.Contains(results[0].Content, "hi there") {
					t.Errorf("the result was not saved on the second try: %+v", results)
				}
			},
		},
		{
			name:  "tool.result and error events until healed",
			fail:  map[sessions.EventType]int{sessions.EventToolResult: 0, sessions.EventError: 0},
			turns: []llmtest.Turn{{ToolCalls: []llmtest.ToolCall{call("r", "Read", `{"path":"notes.txt"}`)}}, {Text: "not reached"}, {Text: "next turn"}},
			check: func(t *testing.T, h *harness, id string, res TurnResult, _ *failingLog) {
				if live := h.liveErrors(); len(live) != 1 || !strings.Contains(string(live[0].Data), "could not be saved") {
					t.Errorf("live errors %v", live)
				}
			},
		},
		{
			name:  "tool.intent",
			fail:  map[sessions.EventType]int{sessions.EventToolIntent: 0},
			turns: []llmtest.Turn{{ToolCalls: []llmtest.ToolCall{call("w", "Write", `{"path":"w.txt","content":"x"}`)}}, {Text: "not reached"}},
			check: func(t *testing.T, h *harness, id string, res TurnResult, _ *failingLog) {
				if _, err := os.Stat(filepath.Join(h.workspace, "w.txt")); err == nil {
					t.Error("a call whose intent was not logged ran")
				}
			},
		},
		{
			name:  "turn.end",
			fail:  map[sessions.EventType]int{sessions.EventTurnEnd: 0},
			turns: []llmtest.Turn{{Text: "done, but not saved"}},
			check: func(t *testing.T, h *harness, id string, res TurnResult, _ *failingLog) {
				if live := h.liveErrors(); len(live) != 1 {
					t.Errorf("live errors %v", live)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			log := &failingLog{failing: tc.fail}
			h := newHarness(t, "openai", tc.turns, append(tc.opts, withFailingLog(log))...)
			h.writeFile("notes.txt", "hi there\n")
			id := h.session(ModeDefault)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			res, err := h.engine.Run(ctx, id, "go")
			if err != nil || ctx.Err() != nil {
				t.Fatalf("Run: %v (ctx %v): the turn hung", err, ctx.Err())
			}
			if res.Reason != EndError || !strings.Contains(res.Err, "could not be saved") {
				t.Fatalf("result %+v, want an error naming the failed save", res)
			}
			if h.engine.Running(id) || len(h.engine.Pending(id)) != 0 {
				t.Errorf("left behind: running %v, pending %v", h.engine.Running(id), h.engine.Pending(id))
			}
			if n := len(h.srv.ChatRequests()); n != 1 {
				t.Errorf("%d model calls: the model must not be called after a failed save", n)
			}
			tc.check(t, h, id, res, log)
			if log.refused == 0 {
				t.Fatal("the fake log refused nothing")
			}

			// Once the log works again, the model sees every call that ran
			// with its real result.
			log.heal()
			if h.srv.Pending() == 0 {
				return
			}
			h.run(id, "again")
			reqs := h.srv.ChatRequests()
			last := requestText(reqs[len(reqs)-1])
			if slices.ContainsFunc(tc.turns[0].ToolCalls, func(c llmtest.ToolCall) bool { return c.Name == "Read" }) {
				mustContain(t, "the next request", last, "hi there")
				if strings.Contains(last, "interrupted") {
					t.Errorf("the model was told a call that ran was interrupted:\n%s", last)
				}
			}
		})
	}
}
