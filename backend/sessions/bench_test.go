package sessions

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// benchEvents makes n events shaped like real turns: user and assistant
// text, tool calls with approvals and ~1 KB results, usage.
func benchEvents(n int, tag string) []Event {
	userText := "Please look at the parser and explain why the tests fail on empty input; " + strings.Repeat("context ", 15)
	answer := "The parser indexes the first token without checking the length. " + strings.Repeat("Explanation continues. ", 20)
	result := strings.Repeat("func parse(tokens []Token) (*Node, error) {\n", 24)
	var evs []Event
	for i := 0; len(evs) < n; i++ {
		call := fmt.Sprintf("%s-%d", tag, i)
		args := `{"path":"parser.go"}`
		evs = append(evs,
			NewEvent(EventUserMessage, UserMessage{Text: userText}),
			NewEvent(EventAssistantMessage, AssistantMessage{Text: "Let me read it.", ToolCalls: []ToolCallRecord{{ID: call, Name: "Read", Arguments: args}}}),
			NewEvent(EventToolIntent, ToolIntent{CallID: call, Name: "Read", Arguments: args}),
			NewEvent(EventApprovalAnswered, ApprovalAnswered{CallID: call, Decision: "allow_once", By: "rule", Rule: "Read"}),
			NewEvent(EventToolResult, ToolResult{CallID: call, Name: "Read", Content: result, DurationMs: 3}),
			NewEvent(EventAssistantMessage, AssistantMessage{Text: answer, Model: "gpt-test"}),
			NewEvent(EventUsage, Usage{InputTokens: 1200, OutputTokens: 300, CostUSD: 0.001}),
			NewEvent(EventTurnEnd, TurnEnd{Reason: "done", Iterations: 2}),
		)
	}
	return evs[:n]
}

// BenchmarkAppendBatch appends 1000 events per op in one transaction.
func BenchmarkAppendBatch(b *testing.B) {
	ctx := context.Background()
	s := openTestStore(b)
	sess := mustCreate(b, s, SessionCreated{Workspace: "/w", Mode: "default"})
	ops := 0
	for b.Loop() {
		b.StopTimer() // building the payloads is the caller's work
		evs := benchEvents(1000, fmt.Sprint(ops))
		b.StartTimer()
		if _, err := s.Append(ctx, sess.ID, evs...); err != nil {
			b.Fatal(err)
		}
		ops++
	}
	b.ReportMetric(float64(ops*1000)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkAppendSingle appends 1000 events per op, one transaction each.
func BenchmarkAppendSingle(b *testing.B) {
	ctx := context.Background()
	s := openTestStore(b)
	sess := mustCreate(b, s, SessionCreated{Workspace: "/w", Mode: "default"})
	ops := 0
	for b.Loop() {
		b.StopTimer()
		evs := benchEvents(1000, fmt.Sprint(ops))
		b.StartTimer()
		for _, ev := range evs {
			if _, err := s.Append(ctx, sess.ID, ev); err != nil {
				b.Fatal(err)
			}
		}
		ops++
	}
	b.ReportMetric(float64(ops*1000)/b.Elapsed().Seconds(), "events/s")
}

// bench10k writes a database holding one 10,000-event session.
func bench10k(b *testing.B) (path, id string) {
	b.Helper()
	path = filepath.Join(b.TempDir(), "sessions.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	sess := mustCreate(b, s, SessionCreated{Workspace: "/w", Mode: "default"})
	for i := 0; i < 10; i++ {
		mustAppend(b, s, sess.ID, benchEvents(1000, fmt.Sprint(i))...)
	}
	return path, sess.ID
}

// BenchmarkOpenAndProject10k opens the database and reads a 10,000-event
// session's UI and model histories (the "open a session" path of the app).
func BenchmarkOpenAndProject10k(b *testing.B) {
	ctx := context.Background()
	path, id := bench10k(b)
	for b.Loop() {
		s, err := Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		ui, err := s.UIMessages(ctx, id)
		if err != nil || len(ui) < 5000 {
			b.Fatal(len(ui), err)
		}
		model, err := s.ModelMessages(ctx, id)
		if err != nil || len(model) < 5000 {
			b.Fatal(len(model), err)
		}
		s.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
}

// BenchmarkReplay10k replays a 10,000-event session from the log alone.
func BenchmarkReplay10k(b *testing.B) {
	ctx := context.Background()
	path, id := bench10k(b)
	s := openStoreAt(b, path)
	for b.Loop() {
		if _, err := s.Replay(ctx, id, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReopen10k reads what the engine needs when it opens a
// 10,000-event session it does not hold: LastCapabilities (what it read
// before read marks and promotions were logged) against DurableState
// (which includes it) with 1,000 read marks in the log, and OpenTurn.
func BenchmarkReopen10k(b *testing.B) {
	ctx := context.Background()
	path, id := bench10k(b)
	s := openStoreAt(b, path)
	for i := 0; i < 10; i++ {
		var marks []ReadMark
		for j := 0; j < 100; j++ {
			marks = append(marks, ReadMark{Path: fmt.Sprintf("/w/src/f%03d.go", j), Hash: fmt.Sprintf("%064x", i*100+j), Size: 1000})
		}
		mustAppend(b, s, id, NewEvent(EventReadMarks, ReadMarks{Marks: marks}),
			NewEvent(EventCapabilityPromoted, CapabilityPromoted{Tools: []Promotion{{Name: fmt.Sprint("mcp__s__t", i), Why: "found"}}}))
	}
	mustAppend(b, s, id, NewEvent(EventTurnStart, TurnStart{Mode: "default"}))
	b.Run("LastCapabilities", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.LastCapabilities(ctx, id); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("DurableState", func(b *testing.B) {
		for b.Loop() {
			if st, err := s.DurableState(ctx, id); err != nil || len(st.Reads) != 100 {
				b.Fatal(len(st.Reads), err)
			}
		}
	})
	b.Run("OpenTurn", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.OpenTurn(ctx, id); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSearch searches 100 sessions of 1,000 events.
func BenchmarkSearch(b *testing.B) {
	ctx := context.Background()
	s := openTestStore(b)
	for i := 0; i < 100; i++ {
		sess := mustCreate(b, s, SessionCreated{Workspace: "/w", Mode: "default"})
		evs := benchEvents(1000, fmt.Sprint(i))
		evs[0] = NewEvent(EventUserMessage, UserMessage{Text: fmt.Sprintf("unique needle%03d in 東京都の会議", i)})
		mustAppend(b, s, sess.ID, evs...)
	}
	for _, q := range []string{"needle042", "parser", "会議", "東京都"} {
		b.Run(q, func(b *testing.B) {
			for b.Loop() {
				if _, err := s.Search(ctx, q, SearchOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTurnReads is what the engine reads back around one model call
// of a 40-event session: its row (Get) and its model history.
func BenchmarkTurnReads(b *testing.B) {
	ctx := context.Background()
	s := openTestStore(b)
	sess := mustCreate(b, s, SessionCreated{Workspace: "/w", Mode: "default"})
	if _, err := s.Append(ctx, sess.ID, benchEvents(40, "r")...); err != nil {
		b.Fatal(err)
	}
	b.Run("Get", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.Get(ctx, sess.ID); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ModelHistory", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.ModelHistory(ctx, sess.ID); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("AppendTurnEnd", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.Append(ctx, sess.ID, NewEvent(EventTurnEnd, TurnEnd{Reason: "done", Iterations: 1})); err != nil {
				b.Fatal(err)
			}
		}
	})
}
