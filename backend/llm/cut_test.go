package llm_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"tinyelf/backend/llm"
	"tinyelf/backend/llm/llmtest"
)

func TestStreamCutKeepsWhatArrived(t *testing.T) {
	t.Parallel()
	// Three text pieces, then two calls of three argument pieces each.
	calls := []llmtest.ToolCall{
		{ID: "call_a", Name: "read", ArgChunks: []string{`{"pa`, `th":"a`, `.go"}`}},
		{ID: "call_b", Name: "read", ArgChunks: []string{`{"pa`, `th":"b`, `.go"}`}},
	}
	first := llm.ToolCall{ID: "call_a", Name: "read", Arguments: `{"path":"a.go"}`}
	tests := []struct {
		name     string
		cutAfter int
		text     string
		calls    []llm.ToolCall
	}{
		{"inside the text", 2, "one two ", nil},
		{"inside the first call", 4, "one two three", nil},
		{"after the first call's last piece", 6, "one two three", nil},
		{"inside the second call", 7, "one two three", []llm.ToolCall{first}},
	}
	for _, w := range wires {
		for _, tc := range tests {
			t.Run(w.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				srv := llmtest.NewServer(t,
					llmtest.Turn{Text: "one two three", ToolCalls: calls, CutAfter: tc.cutAfter},
					llmtest.Turn{Text: "must not be fetched"},
				)
				resp, rec, err := stream(t, newProvider(t, w, srv), hello)
				if !errors.Is(err, llm.ErrStreamCut) {
					t.Fatalf("err = %v, want one wrapping llm.ErrStreamCut", err)
				}
				if resp == nil {
					t.Fatal("resp = nil, want the partial response")
				}
				if resp.Text != tc.text {
					t.Errorf("Text = %q, want %q", resp.Text, tc.text)
				}
				if !reflect.DeepEqual(resp.ToolCalls, tc.calls) {
					t.Errorf("ToolCalls = %+v, want only the complete ones %+v", resp.ToolCalls, tc.calls)
				}
				if rec.text() != tc.text {
					t.Errorf("streamed text = %q, want %q", rec.text(), tc.text)
				}
				// Output had begun: a retry would repeat it.
				if n := len(srv.ChatRequests()); n != 1 {
					t.Errorf("made %d requests, want 1 (no retry after output)", n)
				}
				if n := len(rec.of(llm.EventRetry)); n != 0 {
					t.Errorf("saw %d retry events, want none", n)
				}
			})
		}
	}
}

func TestStreamEndsEarlyOrFails(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		turn    llmtest.Turn
		text    string
		mention string // in the error
	}{
		{"body ends without the final events", llmtest.Turn{Chunks: []string{"a", "b", "c"}, CutAfter: 2, CutCleanly: true}, "ab", ""},
		{"error event after output", llmtest.Turn{Chunks: []string{"a", "b", "c"}, CutAfter: 1, StreamError: "Overloaded"}, "a", "Overloaded"},
	}
	for _, w := range wires {
		for _, tc := range tests {
			t.Run(w.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				srv := llmtest.NewServer(t, tc.turn)
				resp, _, err := stream(t, newProvider(t, w, srv), hello)
				if !errors.Is(err, llm.ErrStreamCut) {
					t.Fatalf("err = %v, want one wrapping llm.ErrStreamCut", err)
				}
				if !strings.Contains(err.Error(), tc.mention) {
					t.Errorf("err = %v, want it to mention %q", err, tc.mention)
				}
				if resp == nil || resp.Text != tc.text {
					t.Errorf("resp = %+v, want the partial text %q", resp, tc.text)
				}
				if n := len(srv.ChatRequests()); n != 1 {
					t.Errorf("made %d requests, want 1", n)
				}
			})
		}
	}
}

func TestErrorEventBeforeOutputIsRetried(t *testing.T) {
	t.Parallel()
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t,
				llmtest.Turn{Text: "x", CutAfter: -1, StreamError: "Overloaded"},
				llmtest.Turn{Text: "fine"},
			)
			resp, rec, err := stream(t, newProvider(t, w, srv), hello)
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			if resp.Text != "fine" {
				t.Errorf("Text = %q, want fine", resp.Text)
			}
			retries := rec.of(llm.EventRetry)
			if len(retries) != 1 || !strings.Contains(retries[0].Err, "Overloaded") {
				t.Errorf("retry events = %+v, want one saying Overloaded", retries)
			}
		})
	}
}

func TestCancelMidStream(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		turn llmtest.Turn
	}{
		{"hanging stream", llmtest.Turn{Text: "partial answer", Hang: true}},
		{"slow stream", llmtest.Turn{Chunks: []string{"partial ", "answer", " never", " finished"}, ChunkDelay: 300 * time.Millisecond}},
	}
	for _, w := range wires {
		for _, tc := range tests {
			t.Run(w.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				srv := llmtest.NewServer(t, tc.turn)
				p := newProvider(t, w, srv)
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()

				rec := &recorder{}
				var cancelled time.Time
				onEvent := func(ev llm.StreamEvent) {
					rec.on(ev)
					if ev.Type == llm.EventText && cancelled.IsZero() {
						cancelled = time.Now()
						cancel()
					}
				}
				resp, err := p.Stream(ctx, hello, onEvent)
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("err = %v, want one wrapping context.Canceled", err)
				}
				if errors.Is(err, llm.ErrStreamCut) {
					t.Errorf("err = %v: a cancel is not a cut", err)
				}
				if d := time.Since(cancelled); d > time.Second {
					t.Errorf("Stream returned %v after the cancel, want promptly", d)
				}
				if resp == nil || resp.Text == "" {
					t.Errorf("resp = %+v, want the partial text", resp)
				}
				if n := len(srv.ChatRequests()); n != 1 {
					t.Errorf("made %d requests, want 1", n)
				}
			})
		}
	}
}

func TestCancelWhileWaitingToRetry(t *testing.T) {
	t.Parallel()
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, llmtest.Turn{Status: 429, RetryAfter: "1"}, llmtest.Turn{Text: "late"})
			p := newProvider(t, w, srv)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var cancelled time.Time
			_, err := p.Stream(ctx, hello, func(ev llm.StreamEvent) {
				if ev.Type == llm.EventRetry {
					cancelled = time.Now()
					cancel()
				}
			})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want one wrapping context.Canceled", err)
			}
			if d := time.Since(cancelled); d > 500*time.Millisecond {
				t.Errorf("Stream returned %v after the cancel, want without sleeping out the Retry-After", d)
			}
		})
	}
}

func TestCancelledBeforeStart(t *testing.T) {
	t.Parallel()
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, llmtest.Turn{Text: "never"})
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			_, err := newProvider(t, w, srv).Stream(ctx, hello, nil)
			if !errors.Is(err, context.Canceled) {
				t.Errorf("err = %v, want one wrapping context.Canceled", err)
			}
		})
	}
}
