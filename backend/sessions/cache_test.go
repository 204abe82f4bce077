package sessions

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// checkHistory compares the (cached) ModelHistory with the history read
// from the database directly.
func checkHistory(t *testing.T, s *Store, id, label string) {
	t.Helper()
	ctx := context.Background()
	got, err := s.ModelHistory(ctx, id)
	if err != nil {
		t.Fatalf("%s: ModelHistory: %v", label, err)
	}
	direct, err := modelMessages(ctx, s.r, id)
	if err != nil {
		t.Fatalf("%s: read directly: %v", label, err)
	}
	if want := closeToolCalls(direct); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: ModelHistory (%d messages) differs from the database (%d):\n got %+v\nwant %+v", label, len(got), len(want), got, want)
	}
}

func TestModelHistoryCacheFollowsWrites(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sessions.db")
	s := openStoreAt(t, path)
	other := openStoreAt(t, path) // another process on the same file
	sess := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	id := sess.ID
	checkHistory(t, s, id, "empty")

	steps := []struct {
		name string
		do   func(t *testing.T)
	}{
		{"a turn appended", func(t *testing.T) { mustAppend(t, s, id, benchEvents(8, "a")...) }},
		{"one more message", func(t *testing.T) {
			mustAppend(t, s, id, NewEvent(EventUserMessage, UserMessage{Text: "and now?"}))
		}},
		{"a refused batch changes nothing", func(t *testing.T) {
			_, err := s.Append(ctx, id, NewEvent(EventUserMessage, UserMessage{Text: "kept out"}), Event{Type: EventAssistantMessage, Data: []byte(`{"text":`)})
			if err == nil {
				t.Fatal("a batch with bad JSON was accepted")
			}
		}},
		{"another process appends", func(t *testing.T) {
			mustAppend(t, other, id, NewEvent(EventUserMessage, UserMessage{Text: "from the CLI"}),
				NewEvent(EventAssistantMessage, AssistantMessage{Text: "seen"}))
		}},
		{"and this one appends after it", func(t *testing.T) {
			mustAppend(t, s, id, NewEvent(EventUserMessage, UserMessage{Text: "back here"}))
		}},
		{"a compaction rewrites the history", func(t *testing.T) {
			last, err := s.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			mustAppend(t, s, id, NewEvent(EventCompaction, Compaction{Summary: "all of it, briefly", UpToSeq: last.LastSeq - 1}))
		}},
		{"another process compacts", func(t *testing.T) {
			last, err := other.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			mustAppend(t, other, id, NewEvent(EventUserMessage, UserMessage{Text: "more"}),
				NewEvent(EventCompaction, Compaction{Summary: "shorter still", UpToSeq: last.LastSeq}))
		}},
		{"a tool call left open", func(t *testing.T) {
			mustAppend(t, s, id, NewEvent(EventAssistantMessage, AssistantMessage{ToolCalls: []ToolCallRecord{{ID: "open", Name: "Read", Arguments: `{}`}}}))
		}},
		{"the projections rebuilt", func(t *testing.T) {
			if err := s.Rebuild(ctx); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, st := range steps {
		st.do(t)
		checkHistory(t, s, id, st.name)
		checkHistory(t, other, id, st.name+" (the other store)")
	}

	// A purged session has no history left, cached or not.
	if err := s.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Purge(ctx, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got, err := s.ModelHistory(ctx, id); err != nil || len(got) != 0 {
		t.Fatalf("after purge: %d messages, %v", len(got), err)
	}
}

func TestModelHistoryCacheCallersCannotChangeIt(t *testing.T) {
	s := openTestStore(t)
	sess := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	mustAppend(t, s, sess.ID, benchEvents(8, "c")...)
	first, err := s.ModelHistory(context.Background(), sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	first[0].Content = "changed by the caller"
	first = append(first[:1], Message{Content: "appended by the caller"})
	_ = first
	checkHistory(t, s, sess.ID, "after the caller changed its copy")
}

func TestHistoryCacheBounds(t *testing.T) {
	var c historyCache
	msg := func(n int) []Message { return []Message{{Content: string(make([]byte, n))}} }
	for i := range historyCacheSessions + 5 {
		c.put(fmt.Sprint("s", i), 1, msg(10))
	}
	if len(c.entries) != historyCacheSessions {
		t.Fatalf("%d sessions cached, want at most %d", len(c.entries), historyCacheSessions)
	}
	if _, _, ok := c.get("s0"); ok {
		t.Error("the least recently used session was kept")
	}
	if _, _, ok := c.get(fmt.Sprint("s", historyCacheSessions+4)); !ok {
		t.Error("the newest session was evicted")
	}
	c.put("huge", 1, msg(historyCacheLargest+1))
	if _, _, ok := c.get("huge"); ok {
		t.Error("a history over the largest size was cached")
	}
	c.clear()
	for i := range 8 {
		c.put(fmt.Sprint("big", i), 1, msg(historyCacheLargest-200))
	}
	if c.bytes > historyCacheBytes {
		t.Errorf("the cache holds %d bytes, over its %d", c.bytes, historyCacheBytes)
	}
	// Extending from another state than the cached one drops the entry.
	c.clear()
	c.put("x", 3, msg(1))
	c.extend("x", 2, 4, msg(1), false)
	if _, _, ok := c.get("x"); ok {
		t.Error("an entry extended from a state it was not in survived")
	}
	c.put("x", 3, msg(1))
	c.extend("x", 3, 4, msg(1), false)
	if got, at, ok := c.get("x"); !ok || at != 4 || len(got) != 2 {
		t.Errorf("extended entry: %d messages as of %d (%v), want 2 as of 4", len(got), at, ok)
	}
}

// The write path keeps the session rows it wrote; a row another process
// changed since is read again, so an append here never writes back a stale
// row over the other's change.
func TestSessionRowsFollowAnotherProcess(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sessions.db")
	s := openStoreAt(t, path)
	other := openStoreAt(t, path)
	sess := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	mustAppend(t, s, sess.ID, say("first"))
	if err := other.Rename(ctx, sess.ID, "Named elsewhere"); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, other, sess.ID, say("from the other process"))
	mustAppend(t, s, sess.ID, say("back here"), say("and again"))
	got, err := s.Get(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != "Named elsewhere" || got.LastSeq != 6 || got.MessageCount != 4 {
		t.Fatalf("row after both processes wrote: title %q, last seq %d, %d messages; want the other's title, 6, 4", got.Title, got.LastSeq, got.MessageCount)
	}
	// A batch refused half way leaves the kept rows as they were.
	if _, err := s.Append(ctx, sess.ID, say("kept out"), Event{Type: EventUserMessage, Data: []byte(`{`)}); err == nil {
		t.Fatal("a batch with bad JSON was accepted")
	}
	mustAppend(t, s, sess.ID, say("after the refusal"))
	if got, _ := s.Get(ctx, sess.ID); got.LastSeq != 7 || got.MessageCount != 5 {
		t.Fatalf("after a refused batch: last seq %d, %d messages; want 7, 5", got.LastSeq, got.MessageCount)
	}
}

func TestCreateWithFirstEvents(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t)
	sess, logged, err := s.CreateWith(ctx, SessionCreated{Workspace: "/w", Mode: "default"},
		say("the first message"), NewEvent(EventTurnStart, TurnStart{Mode: "default"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(logged) != 2 || logged[0].Seq != 2 || logged[1].Seq != 3 || sess.LastSeq != 3 || sess.MessageCount != 1 {
		t.Fatalf("logged %+v, session at seq %d with %d messages", logged, sess.LastSeq, sess.MessageCount)
	}
	checkHistory(t, s, sess.ID, "created with a message")
	mustAppend(t, s, sess.ID, NewEvent(EventAssistantMessage, AssistantMessage{Text: "answered"}))
	checkHistory(t, s, sess.ID, "after the answer")
	// A bad first event fails the whole creation.
	if _, _, err := s.CreateWith(ctx, SessionCreated{Workspace: "/w"}, Event{Type: EventUserMessage, Data: []byte(`{`)}); err == nil {
		t.Fatal("a session with a bad first event was created")
	}
	if list, _ := s.List(ctx, ListOptions{}); len(list) != 1 {
		t.Fatalf("%d sessions listed, want the one", len(list))
	}
}
