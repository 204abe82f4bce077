package sessions

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"
)

// testClock hands out times one second apart from a fixed start, so logs
// made in tests are reproducible.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newTestClock() *testClock {
	return &testClock{t: time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)}
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

// openTestStore opens a store in a fresh temp dir, closed at cleanup.
func openTestStore(t testing.TB, opts ...Option) *Store {
	t.Helper()
	return openStoreAt(t, filepath.Join(t.TempDir(), "sessions.db"), opts...)
}

func openStoreAt(t testing.TB, path string, opts ...Option) *Store {
	t.Helper()
	s, err := Open(context.Background(), path, opts...)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func mustCreate(t testing.TB, s *Store, c SessionCreated) Session {
	t.Helper()
	sess, err := s.Create(context.Background(), c)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	return sess
}

func mustAppend(t testing.TB, s *Store, id string, evs ...Event) []Event {
	t.Helper()
	out, err := s.Append(context.Background(), id, evs...)
	if err != nil {
		t.Fatalf("Append: %v", err)
	}
	return out
}

func mustGet(t testing.TB, s *Store, id string) Session {
	t.Helper()
	sess, err := s.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("Get(%s): %v", id, err)
	}
	return sess
}

// conversation is one realistic turn: a user message, a tool call that
// needs approval and fails, and a final answer.
func conversation(user, callID string) []Event {
	args := `{"command":"go test ./..."}`
	return []Event{
		NewEvent(EventTurnStart, TurnStart{Mode: "default"}),
		NewEvent(EventUserMessage, UserMessage{Text: user}),
		NewEvent(EventCapabilityDiff, CapabilityDiff{Added: []string{"Bash", "Read"}, Reasons: []string{"task mentions tests"}, Visible: []string{"Bash", "Read"}}),
		NewEvent(EventAssistantMessage, AssistantMessage{Text: "Let me run the tests.", Model: "gpt-test", StopReason: "tool_use",
			ToolCalls: []ToolCallRecord{{ID: callID, Name: "Bash", Arguments: args}}}),
		NewEvent(EventUsage, Usage{Model: "gpt-test", InputTokens: 100, OutputTokens: 20, CacheReadTokens: 50, CostUSD: 0.001}),
		NewEvent(EventToolIntent, ToolIntent{CallID: callID, Name: "Bash", Arguments: args}),
		NewEvent(EventApprovalAsked, ApprovalAsked{CallID: callID, Name: "Bash", Arguments: args, Suggestion: "go test", Warnings: []string{"runs code"}}),
		NewEvent(EventApprovalAnswered, ApprovalAnswered{CallID: callID, Decision: "allow_once", By: "user"}),
		NewEvent(EventToolResult, ToolResult{CallID: callID, Name: "Bash", Content: "--- FAIL: TestParse (0.00s)\n    parser_test.go:12: panic on empty input", IsError: true, DurationMs: 1200}),
		NewEvent(EventAssistantMessage, AssistantMessage{Text: "The parser panics on empty input. I fixed the guard in parse.go.", Model: "gpt-test", StopReason: "end_turn"}),
		NewEvent(EventUsage, Usage{Model: "gpt-test", InputTokens: 150, OutputTokens: 30, CostUSD: 0.002}),
		NewEvent(EventTurnEnd, TurnEnd{Reason: "done", Iterations: 2}),
	}
}

// projections is everything the projections hold, read straight from the
// tables.
type projections struct {
	Sessions []Session
	UI       map[string][]UIMessage
	Model    map[string][]Message
	Search   map[string][]string // "seq role text" per session
}

func readProjections(t testing.TB, s *Store) projections {
	t.Helper()
	ctx := context.Background()
	p := projections{UI: map[string][]UIMessage{}, Model: map[string][]Message{}, Search: map[string][]string{}}
	rows, err := s.r.QueryContext(ctx, `SELECT `+sessionCols+` FROM sessions ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			t.Fatal(err)
		}
		p.Sessions = append(p.Sessions, sess)
	}
	rows.Close()
	for _, sess := range p.Sessions {
		if p.UI[sess.ID], err = s.UIMessages(ctx, sess.ID); err != nil {
			t.Fatal(err)
		}
		if p.Model[sess.ID], err = s.ModelMessages(ctx, sess.ID); err != nil {
			t.Fatal(err)
		}
		docs, err := queryStrings(ctx, s.r, `SELECT seq || ' ' || role || ' ' || text FROM search_docs WHERE session_id = ? ORDER BY seq`, sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		p.Search[sess.ID] = docs
	}
	return p
}

// checkFTS runs SQLite's integrity check and FTS5's own check that the
// index matches search_docs.
func checkFTS(t testing.TB, s *Store) {
	t.Helper()
	if err := s.IntegrityCheck(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// checkRebuildMatches rebuilds the projections and fails when anything
// differs from what append maintained.
func checkRebuildMatches(t testing.TB, s *Store) {
	t.Helper()
	before := readProjections(t, s)
	if err := s.Rebuild(context.Background()); err != nil {
		t.Fatalf("Rebuild: %v", err)
	}
	after := readProjections(t, s)
	if !reflect.DeepEqual(before, after) {
		b, _ := json.MarshalIndent(before, "", " ")
		a, _ := json.MarshalIndent(after, "", " ")
		t.Fatalf("projections differ after Rebuild\nbefore: %s\nafter:  %s", b, a)
	}
	checkFTS(t, s)
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
