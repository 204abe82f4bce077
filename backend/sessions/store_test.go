package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCreateAndGet(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	s := openTestStore(t, WithClock(clock.Now))
	c := SessionCreated{Workspace: "/home/u/proj", Agent: "coder", Mode: "plan", Provider: "openai", Model: "gpt-x"}
	sess := mustCreate(t, s, c)
	got := mustGet(t, s, sess.ID)
	if got.ID == "" || got.Workspace != c.Workspace || got.Agent != "coder" || got.Mode != "plan" ||
		got.Provider != "openai" || got.Model != "gpt-x" || got.LastSeq != 1 || got.Title != "" || got.Deleted() {
		t.Errorf("Get = %+v", got)
	}
	if !got.CreatedAt.Equal(got.UpdatedAt) || got.CreatedAt.IsZero() {
		t.Errorf("times: created %v updated %v", got.CreatedAt, got.UpdatedAt)
	}
	if _, err := s.Get(context.Background(), "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get(nope) = %v, want ErrNotFound", err)
	}
	if _, err := s.Create(context.Background(), SessionCreated{ForkedFrom: sess.ID}); !errors.Is(err, ErrInvalidEvent) {
		t.Errorf("Create with ForkedFrom = %v, want ErrInvalidEvent", err)
	}
}

func TestAppendAssignsContiguousSeqs(t *testing.T) {
	t.Parallel()
	s := openTestStore(t)
	sess := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	ctx := context.Background()
	when := time.Date(2025, 1, 2, 3, 4, 5, 678_901_234, time.FixedZone("JST", 9*3600))
	first := mustAppend(t, s, sess.ID, NewEvent(EventUserMessage, UserMessage{Text: "a"}))
	ev := NewEvent(EventUserMessage, UserMessage{Text: "b"})
	ev.Time = when
	batch := mustAppend(t, s, sess.ID, ev, NewEvent(EventUserMessage, UserMessage{Text: "c"}))
	if first[0].Seq != 2 || batch[0].Seq != 3 || batch[1].Seq != 4 {
		t.Errorf("seqs %d, %d, %d; want 2, 3, 4", first[0].Seq, batch[0].Seq, batch[1].Seq)
	}
	if want := time.Date(2025, 1, 1, 18, 4, 5, 678_000_000, time.UTC); !batch[0].Time.Equal(want) || batch[0].Time.Location() != time.UTC {
		t.Errorf("time kept as %v, want %v (ms, UTC)", batch[0].Time, want)
	}
	var seqs []int64
	for e, err := range s.Events(ctx, sess.ID, 1, 0) {
		if err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, e.Seq)
		if e.SessionID != sess.ID {
			t.Errorf("event %d has session %q", e.Seq, e.SessionID)
		}
	}
	if len(seqs) != 4 || seqs[0] != 1 || seqs[3] != 4 {
		t.Errorf("Events seqs = %v", seqs)
	}
	if got := mustGet(t, s, sess.ID); got.LastSeq != 4 || got.MessageCount != 3 {
		t.Errorf("LastSeq %d MessageCount %d", got.LastSeq, got.MessageCount)
	}
	if out, err := s.Append(ctx, sess.ID); err != nil || out != nil {
		t.Errorf("empty Append = %v, %v", out, err)
	}
}

func TestAppendRejectsBadEvents(t *testing.T) {
	t.Parallel()
	s := openTestStore(t)
	sess := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	good := NewEvent(EventUserMessage, UserMessage{Text: "fine"})
	tests := []struct {
		name string
		id   string
		ev   Event
		want error
	}{
		{"invalid JSON", sess.ID, Event{Type: EventUserMessage, Data: []byte(`{"text":`)}, ErrInvalidEvent},
		{"invalid JSON, unknown type", sess.ID, Event{Type: "plugin.thing", Data: []byte(`{nope}`)}, ErrInvalidEvent},
		{"empty data", sess.ID, Event{Type: EventUserMessage}, ErrInvalidEvent},
		{"payload of the wrong shape", sess.ID, Event{Type: EventUsage, Data: []byte(`{"inputTokens":"many"}`)}, ErrInvalidEvent},
		{"payload not an object", sess.ID, Event{Type: EventUserMessage, Data: []byte(`"hi"`)}, ErrInvalidEvent},
		{"no type", sess.ID, Event{Data: []byte(`{}`)}, ErrInvalidEvent},
		{"second session.created", sess.ID, NewEvent(EventSessionCreated, SessionCreated{}), ErrInvalidEvent},
		{"other session's event", sess.ID, Event{SessionID: "other", Type: EventUserMessage, Data: []byte(`{}`)}, ErrInvalidEvent},
		{"unknown session", "missing", good, ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The good event goes first: a rejected batch writes nothing.
			_, err := s.Append(context.Background(), tt.id, good, tt.ev)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Append = %v, want %v", err, tt.want)
			}
			if got := mustGet(t, s, sess.ID); got.LastSeq != 1 || got.MessageCount != 0 {
				t.Errorf("a rejected batch left a trace: LastSeq %d, MessageCount %d", got.LastSeq, got.MessageCount)
			}
		})
	}
}

func TestUnknownEventTypesAreStoredButIgnored(t *testing.T) {
	t.Parallel()
	s := openTestStore(t, WithClock(newTestClock().Now))
	sess := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	mustAppend(t, s, sess.ID, NewEvent(EventUserMessage, UserMessage{Text: "hi"}))
	before := readProjections(t, s)
	evs := mustAppend(t, s, sess.ID,
		Event{Type: "message.delta", Data: []byte(`{"text":"partial tok"}`)},
		Event{Type: "future.thing", Data: []byte(`[1,2,3]`)})
	if evs[1].Seq != 4 {
		t.Fatalf("seq %d", evs[1].Seq)
	}
	after := readProjections(t, s)
	before.Sessions[0].LastSeq = 4 // the log grew; nothing else may change
	if mustJSON(t, before) != mustJSON(t, after) {
		t.Errorf("unknown events changed projections:\n%s\n%s", mustJSON(t, before), mustJSON(t, after))
	}
	var types []string
	for e, err := range s.Events(context.Background(), sess.ID, 3, 0) {
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, string(e.Type)+" "+string(e.Data))
	}
	if strings.Join(types, "|") != `message.delta {"text":"partial tok"}|future.thing [1,2,3]` {
		t.Errorf("stored: %q", types)
	}
	checkRebuildMatches(t, s)
}

func TestTitles(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("あ", 70)
	tests := []struct {
		name    string
		created string
		first   string
		rename  []string
		want    string
		renamed bool
	}{
		{"first line of first user message", "", "  \n  Fix the   parser\nsecond line", nil, "Fix the parser", false},
		{"cut at 60 characters", "", long, nil, strings.Repeat("あ", 60) + "…", false},
		{"title given at creation", "My task", "hello", nil, "My task", true},
		{"renamed", "", "hello", []string{"Renamed"}, "Renamed", true},
		{"rename to empty goes back to auto title", "", "hello", []string{"X", "  "}, "hello", false},
		{"no user message yet", "", "", nil, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := openTestStore(t)
			sess := mustCreate(t, s, SessionCreated{Title: tt.created, Workspace: "/w", Mode: "default"})
			if tt.first != "" {
				mustAppend(t, s, sess.ID, NewEvent(EventUserMessage, UserMessage{Text: tt.first}),
					NewEvent(EventUserMessage, UserMessage{Text: "a later message"}))
			}
			for _, r := range tt.rename {
				if err := s.Rename(context.Background(), sess.ID, r); err != nil {
					t.Fatal(err)
				}
			}
			got := mustGet(t, s, sess.ID)
			if got.Title != tt.want || got.Renamed != tt.renamed {
				t.Errorf("Title %q renamed %v, want %q %v", got.Title, got.Renamed, tt.want, tt.renamed)
			}
			checkRebuildMatches(t, s)
		})
	}
}

func TestListPagingAndFilters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTestStore(t, WithClock(newTestClock().Now))
	var ids []string // oldest first
	for i := 0; i < 7; i++ {
		ws := "/a"
		if i%2 == 1 {
			ws = "/b"
		}
		ids = append(ids, mustCreate(t, s, SessionCreated{Workspace: ws, Mode: "default"}).ID)
	}
	// Touch the oldest: it becomes the most recently updated.
	mustAppend(t, s, ids[0], NewEvent(EventUserMessage, UserMessage{Text: "bump"}))
	if err := s.Delete(ctx, ids[3]); err != nil {
		t.Fatal(err)
	}
	order := func(ss []Session) string {
		var out []string
		for _, x := range ss {
			for i, id := range ids {
				if id == x.ID {
					out = append(out, string(rune('0'+i)))
				}
			}
		}
		return strings.Join(out, "")
	}
	tests := []struct {
		name string
		o    ListOptions
		want string
	}{
		{"newest first, deleted hidden", ListOptions{}, "065421"},
		{"first page", ListOptions{Limit: 2}, "06"},
		{"second page", ListOptions{Limit: 2, Offset: 2}, "54"},
		{"last page", ListOptions{Limit: 4, Offset: 4}, "21"},
		{"past the end", ListOptions{Limit: 2, Offset: 10}, ""},
		{"include deleted", ListOptions{Deleted: IncludeDeleted}, "0654321"},
		{"only deleted", ListOptions{Deleted: OnlyDeleted}, "3"},
		{"workspace", ListOptions{Workspace: "/b"}, "51"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.List(ctx, tt.o)
			if err != nil {
				t.Fatal(err)
			}
			if order(got) != tt.want {
				t.Errorf("List = %q, want %q", order(got), tt.want)
			}
		})
	}
}

func TestDeleteRestorePurge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := newTestClock()
	s := openTestStore(t, WithClock(clock.Now))
	keep := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	mustAppend(t, s, keep.ID, conversation("keep this parser session", "k1")...)
	gone := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	mustAppend(t, s, gone.ID, conversation("purge this parser session", "g1")...)
	updated := mustGet(t, s, gone.ID).UpdatedAt

	if err := s.Delete(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, gone.ID); err != nil { // again: no-op
		t.Fatal(err)
	}
	got := mustGet(t, s, gone.ID)
	if !got.Deleted() || got.LastSeq != 14 {
		t.Fatalf("after Delete: deleted %v, LastSeq %d (want 14: one event)", got.Deleted(), got.LastSeq)
	}
	if hits, _ := s.Search(ctx, "parser session", SearchOptions{}); len(hits) != 1 || hits[0].SessionID != keep.ID {
		t.Errorf("search sees a deleted session: %+v", hits)
	}
	// Undo.
	if err := s.Restore(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	got = mustGet(t, s, gone.ID)
	if got.Deleted() || !got.UpdatedAt.Equal(updated) {
		t.Errorf("after Restore: deleted %v, updated %v (want %v: undo keeps the place in the list)", got.Deleted(), got.UpdatedAt, updated)
	}
	checkRebuildMatches(t, s)

	if err := s.Delete(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	deletedAt := mustGet(t, s, gone.ID).DeletedAt
	if n, err := s.Purge(ctx, deletedAt); err != nil || n != 0 {
		t.Fatalf("Purge before the delete = %d, %v; want 0", n, err)
	}
	if n, err := s.Purge(ctx, deletedAt.Add(time.Millisecond)); err != nil || n != 1 {
		t.Fatalf("Purge = %d, %v; want 1", n, err)
	}
	if _, err := s.Get(ctx, gone.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get after purge = %v", err)
	}
	var events, ui, model, docs int
	for q, n := range map[string]*int{
		`SELECT COUNT(*) FROM events WHERE session_id = ?`:         &events,
		`SELECT COUNT(*) FROM ui_messages WHERE session_id = ?`:    &ui,
		`SELECT COUNT(*) FROM model_messages WHERE session_id = ?`: &model,
		`SELECT COUNT(*) FROM search_docs WHERE session_id = ?`:    &docs,
	} {
		if err := s.r.QueryRow(q, gone.ID).Scan(n); err != nil {
			t.Fatal(err)
		}
	}
	if events+ui+model+docs != 0 {
		t.Errorf("purge left rows: %d events, %d ui, %d model, %d search", events, ui, model, docs)
	}
	if hits, _ := s.Search(ctx, "purge this", SearchOptions{IncludeDeleted: true}); len(hits) != 0 {
		t.Errorf("search finds a purged session: %+v", hits)
	}
	checkFTS(t, s)
	if got := mustGet(t, s, keep.ID); got.LastSeq != 13 {
		t.Errorf("the other session changed: %+v", got)
	}
	for _, op := range []func() error{
		func() error { return s.Delete(ctx, gone.ID) },
		func() error { return s.Restore(ctx, gone.ID) },
		func() error { return s.Rename(ctx, gone.ID, "x") },
	} {
		if err := op(); !errors.Is(err, ErrNotFound) {
			t.Errorf("operation on a purged session = %v, want ErrNotFound", err)
		}
	}
	checkRebuildMatches(t, s)
}

func TestClosedStore(t *testing.T) {
	t.Parallel()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	sess := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	if _, err := s.Append(context.Background(), sess.ID, NewEvent(EventUserMessage, UserMessage{Text: "x"})); !errors.Is(err, ErrClosed) {
		t.Errorf("Append after Close = %v, want ErrClosed", err)
	}
}

func TestEventsIterator(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTestStore(t)
	sess := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	mustAppend(t, s, sess.ID, conversation("hello", "c1")...)
	var got []int64
	for ev, err := range s.Events(ctx, sess.ID, 3, 6) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev.Seq)
	}
	if len(got) != 4 || got[0] != 3 || got[3] != 6 {
		t.Errorf("Events(3, 6) = %v", got)
	}
	n := 0
	for range s.Events(ctx, sess.ID, 1, 0) {
		n++
		if n == 2 {
			break // stopping early is fine
		}
	}
	for _, err := range s.Events(ctx, "missing", 1, 0) {
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("Events(missing) error = %v", err)
		}
	}
	// The payload survives byte for byte.
	for ev, err := range s.Events(ctx, sess.ID, 3, 3) {
		if err != nil {
			t.Fatal(err)
		}
		var p UserMessage
		if err := json.Unmarshal(ev.Data, &p); err != nil || p.Text != "hello" || ev.Type != EventUserMessage {
			t.Errorf("event 3 = %s %s", ev.Type, ev.Data)
		}
	}
}
