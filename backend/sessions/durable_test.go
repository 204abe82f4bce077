package sessions

import (
	"context"
	"fmt"
	"reflect"
	"testing"
)

func TestDurableState(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, WithClock(newTestClock().Now))
	sess := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	mustAppend(t, s, sess.ID, conversation("read a.go and b.go", "c1")...)
	mustAppend(t, s, sess.ID,
		NewEvent(EventReadMarks, ReadMarks{Marks: []ReadMark{{Path: "/w/a.go", Hash: "aa", Size: 1}, {Path: "/w/b.go", Hash: "bb", Size: 2}}}),
		NewEvent(EventCapabilityPromoted, CapabilityPromoted{Tools: []Promotion{{Name: "mcp__gh__logs", Why: `found by ToolSearch "ci"`}}}),
		NewEvent(EventToolResult, ToolResult{CallID: "c2", Name: "Read", Content: "x"}),
	)
	// A later mark of a.go (the agent wrote it) supersedes the first; a
	// second promotion of the same tool keeps its place with the new reason.
	mustAppend(t, s, sess.ID,
		NewEvent(EventReadMarks, ReadMarks{Marks: []ReadMark{{Path: "/w/a.go", Hash: "a2", Size: 3}}}),
		NewEvent(EventCapabilityPromoted, CapabilityPromoted{Tools: []Promotion{{Name: "mcp__fs__read", Why: "called by its exact name"}, {Name: "mcp__gh__logs", Why: "again"}}}),
	)
	st, err := s.DurableState(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	wantReads := []ReadMark{{Path: "/w/b.go", Hash: "bb", Size: 2}, {Path: "/w/a.go", Hash: "a2", Size: 3}}
	if !reflect.DeepEqual(st.Reads, wantReads) {
		t.Errorf("reads %+v, want %+v", st.Reads, wantReads)
	}
	wantPromoted := []Promotion{{Name: "mcp__gh__logs", Why: "again"}, {Name: "mcp__fs__read", Why: "called by its exact name"}}
	if !reflect.DeepEqual(st.Promoted, wantPromoted) {
		t.Errorf("promoted %+v, want %+v", st.Promoted, wantPromoted)
	}
	last, err := s.LastCapabilities(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(st.Capabilities, last) {
		t.Errorf("capabilities %+v, LastCapabilities says %+v", st.Capabilities, last)
	}
	// The new events are projected like any other: a rebuild agrees, and
	// a payload that does not fit its type is refused.
	checkRebuildMatches(t, s)
	if _, err := s.Append(ctx, sess.ID, Event{Type: EventReadMarks, Data: []byte(`{"marks":"nope"}`)}); err == nil {
		t.Error("a read.marks event with a bad payload was logged")
	}
}

func TestDurableStateBoundsReadMarks(t *testing.T) {
	s := openTestStore(t)
	sess := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	const files = MaxReadMarks + 500
	for i := 0; i < files; i += 1000 {
		var marks []ReadMark
		for j := i; j < min(i+1000, files); j++ {
			marks = append(marks, ReadMark{Path: fmt.Sprintf("/w/f%05d", j), Hash: "h", Size: int64(j)})
		}
		mustAppend(t, s, sess.ID, NewEvent(EventReadMarks, ReadMarks{Marks: marks}))
	}
	st, err := s.DurableState(context.Background(), sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Reads) != MaxReadMarks || st.Reads[0].Path != "/w/f00500" || st.Reads[len(st.Reads)-1].Path != fmt.Sprintf("/w/f%05d", files-1) {
		t.Errorf("%d marks from %s to %s, want the newest %d", len(st.Reads), st.Reads[0].Path, st.Reads[len(st.Reads)-1].Path, MaxReadMarks)
	}
}

func TestOpenTurn(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, WithClock(newTestClock().Now))
	sess := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	if ot, err := s.OpenTurn(ctx, sess.ID); err != nil || ot.StartSeq != 0 || len(ot.Approvals) != 0 {
		t.Fatalf("a session without turns: %+v %v", ot, err)
	}
	// A finished turn with an answered approval leaves nothing open.
	mustAppend(t, s, sess.ID, conversation("run the tests", "c1")...)
	if ot, err := s.OpenTurn(ctx, sess.ID); err != nil || len(ot.Calls) != 0 || len(ot.Approvals) != 0 {
		t.Fatalf("a finished turn: %+v %v", ot, err)
	}
	// The next turn stops while two calls of its answer wait: a read that
	// ran, a Bash call waiting for approval, and an Edit not started.
	calls := []ToolCallRecord{{ID: "r", Name: "Read", Arguments: `{}`}, {ID: "b", Name: "Bash", Arguments: `{"command":"make"}`}, {ID: "e", Name: "Edit", Arguments: `{}`}}
	logged := mustAppend(t, s, sess.ID,
		NewEvent(EventTurnStart, TurnStart{Mode: "default"}),
		NewEvent(EventUserMessage, UserMessage{Text: "build it"}),
		NewEvent(EventPermissionGranted, PermissionGranted{Tools: "Bash(make:*)", By: "/build"}),
		NewEvent(EventAssistantMessage, AssistantMessage{Text: "Building.", ToolCalls: calls}),
		NewEvent(EventToolIntent, ToolIntent{CallID: "r", Name: "Read"}),
		NewEvent(EventToolResult, ToolResult{CallID: "r", Name: "Read", Content: "ok"}),
		NewEvent(EventToolIntent, ToolIntent{CallID: "b", Name: "Bash", Arguments: `{"command":"make"}`}),
		NewEvent(EventApprovalAsked, ApprovalAsked{CallID: "b", Name: "Bash", Arguments: `{"command":"make"}`}),
		NewEvent(EventTurnEnd, TurnEnd{Reason: "cancelled"}),
	)
	ot, err := s.OpenTurn(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if ot.StartSeq != logged[0].Seq {
		t.Errorf("start %d, want %d", ot.StartSeq, logged[0].Seq)
	}
	if !reflect.DeepEqual(ot.Calls, calls[1:]) || !reflect.DeepEqual(ot.Intended, []string{"b"}) {
		t.Errorf("calls %+v intended %v, want b and e with b intended", ot.Calls, ot.Intended)
	}
	if len(ot.Approvals) != 1 || ot.Approvals[0].CallID != "b" || ot.Approvals[0].Seq != logged[7].Seq || ot.Approvals[0].Arguments != `{"command":"make"}` {
		t.Errorf("approvals %+v", ot.Approvals)
	}
	if !reflect.DeepEqual(ot.Grants, []PermissionGranted{{Tools: "Bash(make:*)", By: "/build"}}) {
		t.Errorf("grants %+v", ot.Grants)
	}
	// Answered, it is no longer open.
	mustAppend(t, s, sess.ID, NewEvent(EventApprovalAnswered, ApprovalAnswered{CallID: "b", Decision: "deny", By: "expired"}))
	if ot, err := s.OpenTurn(ctx, sess.ID); err != nil || len(ot.Approvals) != 0 || len(ot.Calls) != 2 {
		t.Errorf("after the answer: %+v %v", ot, err)
	}
}

func TestLogWritesCountsAppendTransactions(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t)
	sess := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	before := s.LogWrites()
	mustAppend(t, s, sess.ID, conversation("hello", "c1")...) // one transaction, many events
	mustAppend(t, s, sess.ID, NewEvent(EventTurnStart, TurnStart{Mode: "default"}))
	if _, err := s.Append(ctx, sess.ID, Event{Type: EventUserMessage, Data: []byte(`{"text":1}`)}); err == nil {
		t.Fatal("a bad event was logged")
	}
	if err := s.IndexSearch(ctx); err != nil { // a write that logs nothing
		t.Fatal(err)
	}
	if got := s.LogWrites() - before; got != 2 {
		t.Errorf("%d log writes counted, want 2", got)
	}
}
