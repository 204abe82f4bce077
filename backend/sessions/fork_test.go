package sessions

import (
	"context"
	"errors"
	"reflect"
	"testing"
)

func TestFork(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTestStore(t, WithClock(newTestClock().Now))
	parent := mustCreate(t, s, SessionCreated{Workspace: "/w", Agent: "coder", Mode: "default", Provider: "openai", Model: "gpt-start"})
	mustAppend(t, s, parent.ID, conversation("first task", "c1")...)  // 2..13
	mustAppend(t, s, parent.ID, conversation("second task", "c2")...) // 14..25
	parentBefore := readProjections(t, s)

	// Fork at the first turn's final answer.
	fork, err := s.Fork(ctx, parent.ID, 11)
	if err != nil {
		t.Fatal(err)
	}
	if fork.ID == parent.ID || fork.ForkedFrom != parent.ID || fork.ForkedAtSeq != 11 || fork.LastSeq != 11 {
		t.Fatalf("fork = %+v", fork)
	}
	if fork.Title != "first task" || fork.Agent != "coder" || fork.Workspace != "/w" || fork.MessageCount != 3 {
		t.Errorf("fork did not inherit: %+v", fork)
	}
	if !fork.UpdatedAt.Equal(fork.CreatedAt) {
		t.Errorf("a fork is as new as its creation: updated %v, created %v", fork.UpdatedAt, fork.CreatedAt)
	}
	list, _ := s.List(ctx, ListOptions{Limit: 1})
	if len(list) != 1 || list[0].ID != fork.ID {
		t.Errorf("the new fork is not at the top of the list: %+v", list)
	}
	pe, _ := readEvents(ctx, s.r, parent.ID, 11)
	fe, _ := readEvents(ctx, s.r, fork.ID, 0)
	if len(fe) != 11 {
		t.Fatalf("fork has %d events, want 11", len(fe))
	}
	var created SessionCreated
	if err := fe[0].Decode(&created); err != nil || created.ForkedFrom != parent.ID || created.ForkedAtSeq != 11 || created.Model != "gpt-start" {
		t.Errorf("fork's session.created = %+v, %v", created, err)
	}
	for i := 1; i < 11; i++ {
		f, p := fe[i], pe[i]
		if f.Seq != p.Seq || f.Type != p.Type || string(f.Data) != string(p.Data) || !f.Time.Equal(p.Time) {
			t.Errorf("event %d: fork %+v, parent %+v", i+1, f, p)
		}
	}
	// The fork's history is the parent's up to the fork point, and it goes
	// its own way afterwards without touching the parent.
	pm, _ := s.ModelMessages(ctx, parent.ID)
	fm, _ := s.ModelMessages(ctx, fork.ID)
	if !reflect.DeepEqual(fm, pm[:len(fm)]) || len(fm) != 4 {
		t.Errorf("fork model history = %s", mustJSON(t, fm))
	}
	mustAppend(t, s, fork.ID, NewEvent(EventUserMessage, UserMessage{Text: "a different second task"}))
	after := readProjections(t, s)
	for i, sess := range after.Sessions {
		if sess.ID == parent.ID && !reflect.DeepEqual(sess, parentBefore.Sessions[0]) {
			t.Errorf("parent changed: %+v", after.Sessions[i])
		}
	}
	if !reflect.DeepEqual(after.UI[parent.ID], parentBefore.UI[parent.ID]) {
		t.Error("parent UI history changed")
	}
	if hits, _ := s.Search(ctx, "first task", SearchOptions{}); len(hits) != 2 {
		t.Errorf("search finds the message in parent and fork: %d hits", len(hits))
	}
	checkRebuildMatches(t, s)

	for _, at := range []int64{0, -1, 26, 1000} {
		if _, err := s.Fork(ctx, parent.ID, at); !errors.Is(err, ErrInvalidEvent) {
			t.Errorf("Fork at %d = %v, want ErrInvalidEvent", at, err)
		}
	}
	if _, err := s.Fork(ctx, "missing", 1); !errors.Is(err, ErrNotFound) {
		t.Errorf("Fork(missing) = %v", err)
	}
	// Forking at seq 1 gives an empty session with the parent's settings.
	empty, err := s.Fork(ctx, parent.ID, 1)
	if err != nil || empty.LastSeq != 1 || empty.MessageCount != 0 {
		t.Errorf("Fork at 1 = %+v, %v", empty, err)
	}
}

func TestForkOfADeletedSessionWithCompaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTestStore(t, WithClock(newTestClock().Now))
	parent := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	mustAppend(t, s, parent.ID, NewEvent(EventUserMessage, UserMessage{Text: "one"})) // 2
	if err := s.Delete(ctx, parent.ID); err != nil {                                  // 3
		t.Fatal(err)
	}
	if err := s.Restore(ctx, parent.ID); err != nil { // 4
		t.Fatal(err)
	}
	mustAppend(t, s, parent.ID,
		NewEvent(EventAssistantMessage, AssistantMessage{Text: "two"}),         // 5
		NewEvent(EventUserMessage, UserMessage{Text: "three"}),                 // 6
		NewEvent(EventCompaction, Compaction{Summary: "one, two", UpToSeq: 5}), // 7
		NewEvent(EventAssistantMessage, AssistantMessage{Text: "four"}),        // 8
	)
	if err := s.Delete(ctx, parent.ID); err != nil { // 9
		t.Fatal(err)
	}
	fork, err := s.Fork(ctx, parent.ID, 9)
	if err != nil {
		t.Fatal(err)
	}
	if fork.Deleted() || fork.LastSeq != 6 {
		t.Errorf("fork of a deleted session: deleted %v, LastSeq %d (want live, 6: deletes and restores are not copied)", fork.Deleted(), fork.LastSeq)
	}
	fe, _ := readEvents(ctx, s.r, fork.ID, 0)
	var c Compaction
	if err := fe[4].Decode(&c); err != nil || fe[4].Type != EventCompaction || c.UpToSeq != 3 {
		t.Errorf("compaction in fork = %s %+v; want UpToSeq moved from 5 to 3", fe[4].Type, c)
	}
	pm, _ := s.ModelMessages(ctx, parent.ID)
	fm, _ := s.ModelMessages(ctx, fork.ID)
	contents := func(ms []Message) (out []string) {
		for _, m := range ms {
			out = append(out, m.Content)
		}
		return out
	}
	if !reflect.DeepEqual(contents(pm), contents(fm)) {
		t.Errorf("model history: parent %q, fork %q", contents(pm), contents(fm))
	}
	checkRebuildMatches(t, s)
}
