package sessions

import (
	"context"
	"errors"
	"reflect"
	"testing"
)

func TestReplayAtSeveralPoints(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTestStore(t, WithClock(newTestClock().Now))
	sess := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	mustAppend(t, s, sess.ID, conversation("first task", "c1")...) // 2..13
	mustAppend(t, s, sess.ID,
		NewEvent(EventTurnStart, TurnStart{Mode: "default"}),                                                                                         // 14
		NewEvent(EventUserMessage, UserMessage{Text: "now search the web"}),                                                                          // 15
		NewEvent(EventCapabilityDiff, CapabilityDiff{Added: []string{"WebFetch"}, Removed: []string{"Bash"}, Visible: []string{"Read", "WebFetch"}}), // 16
		NewEvent(EventToolIntent, ToolIntent{CallID: "w1", Name: "WebFetch", Arguments: `{}`}),                                                       // 17
		NewEvent(EventApprovalAsked, ApprovalAsked{CallID: "w1", Name: "WebFetch", Arguments: `{}`}),                                                 // 18
	)
	tests := []struct {
		upto      int64
		wantSeq   int64
		visible   []string
		turns     int
		messages  int
		ui        int
		input     int64
		approvals []string // "callID:decision"
	}{
		{1, 1, nil, 0, 0, 0, 0, nil},
		{3, 3, nil, 1, 1, 1, 0, nil},
		// The first diff is the baseline item, the second a change.
		{4, 4, []string{"Bash", "Read"}, 1, 1, 2, 0, nil},
		{8, 8, []string{"Bash", "Read"}, 1, 2, 5, 100, []string{"c1:"}},
		{9, 9, []string{"Bash", "Read"}, 1, 2, 5, 100, []string{"c1:allow_once"}},
		{13, 13, []string{"Bash", "Read"}, 1, 4, 6, 250, []string{"c1:allow_once"}},
		{16, 16, []string{"Read", "WebFetch"}, 2, 5, 8, 250, []string{"c1:allow_once"}},
		{0, 18, []string{"Read", "WebFetch"}, 2, 5, 10, 250, []string{"c1:allow_once", "w1:"}},
		{999, 18, []string{"Read", "WebFetch"}, 2, 5, 10, 250, []string{"c1:allow_once", "w1:"}},
	}
	for _, tt := range tests {
		st, err := s.Replay(ctx, sess.ID, tt.upto)
		if err != nil {
			t.Fatalf("Replay(%d): %v", tt.upto, err)
		}
		var approvals []string
		for _, a := range st.Approvals {
			approvals = append(approvals, a.CallID+":"+a.Decision)
		}
		if st.Seq != tt.wantSeq || !reflect.DeepEqual(st.VisibleTools, tt.visible) || st.Turns != tt.turns ||
			len(st.Messages) != tt.messages || len(st.UI) != tt.ui || st.Usage.InputTokens != tt.input ||
			!reflect.DeepEqual(approvals, tt.approvals) || st.Session.LastSeq != tt.wantSeq {
			t.Errorf("Replay(%d): seq %d visible %v turns %d messages %d ui %d input %d approvals %v\nwant seq %d visible %v turns %d messages %d ui %d input %d approvals %v",
				tt.upto, st.Seq, st.VisibleTools, st.Turns, len(st.Messages), len(st.UI), st.Usage.InputTokens, approvals,
				tt.wantSeq, tt.visible, tt.turns, tt.messages, tt.ui, tt.input, tt.approvals)
		}
	}
	// At the end, replay and the stored projections agree.
	st, _ := s.Replay(ctx, sess.ID, 0)
	ui, _ := s.UIMessages(ctx, sess.ID)
	model, _ := s.ModelMessages(ctx, sess.ID)
	if !reflect.DeepEqual(st.UI, ui) || !reflect.DeepEqual(st.Messages, model) || !reflect.DeepEqual(st.Session, mustGet(t, s, sess.ID)) {
		t.Errorf("replay and projections disagree:\n%s\n%s", mustJSON(t, st.UI), mustJSON(t, ui))
	}
	// Mid-turn, the UI shows the call waiting for approval.
	st, _ = s.Replay(ctx, sess.ID, 7)
	if tool := st.UI[len(st.UI)-1].Tool; tool == nil || tool.Status != ToolPending {
		t.Errorf("at 7 the call is pending: %+v", st.UI[len(st.UI)-1])
	}
	st, _ = s.Replay(ctx, sess.ID, 8)
	if tool := st.UI[3].Tool; tool.Status != ToolAwaitingApproval {
		t.Errorf("at 8 the call awaits approval: %+v", tool)
	}
	if _, err := s.Replay(ctx, "missing", 0); !errors.Is(err, ErrNotFound) {
		t.Errorf("Replay(missing) = %v", err)
	}
}

func TestReplayRecordsRuleDecisions(t *testing.T) {
	t.Parallel()
	s := openTestStore(t)
	sess := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	mustAppend(t, s, sess.ID,
		NewEvent(EventToolIntent, ToolIntent{CallID: "r1", Name: "Read", Arguments: `{"path":"a"}`}),
		NewEvent(EventApprovalAnswered, ApprovalAnswered{CallID: "r1", Decision: "allow_once", By: "rule", Rule: "Read"}),
	)
	st, err := s.Replay(context.Background(), sess.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []Approval{{CallID: "r1", Name: "Read", Arguments: `{"path":"a"}`, Decision: "allow_once", By: "rule", Rule: "Read", AnsweredSeq: 3}}
	if !reflect.DeepEqual(st.Approvals, want) {
		t.Errorf("approvals = %+v", st.Approvals)
	}
}

func TestResume(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTestStore(t)
	sess := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	mustAppend(t, s, sess.ID, conversation("first task", "c1")...) // 2..13
	mustAppend(t, s, sess.ID,
		NewEvent(EventCompaction, Compaction{Summary: "Parser fixed.", UpToSeq: 13}),                                                     // 14
		NewEvent(EventUserMessage, UserMessage{Text: "run two tools"}),                                                                   // 15
		NewEvent(EventAssistantMessage, AssistantMessage{ToolCalls: []ToolCallRecord{{ID: "a", Name: "Read"}, {ID: "b", Name: "Glob"}}}), // 16
		NewEvent(EventToolResult, ToolResult{CallID: "a", Name: "Read", Content: "text"}),                                                // 17
		// The app died before b finished.
	)
	st, err := s.Resume(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := []Message{
		{Seq: 14, Role: RoleUser, Content: "Parser fixed.", Summary: true},
		{Seq: 15, Role: RoleUser, Content: "run two tools"},
		{Seq: 16, Role: RoleAssistant, ToolCalls: []ToolCallRecord{{ID: "a", Name: "Read"}, {ID: "b", Name: "Glob"}}},
		{Seq: 17, Role: RoleTool, Content: "text", ToolCallID: "a", ToolName: "Read"},
		{Seq: 16, Role: RoleTool, Content: InterruptedResult, ToolCallID: "b", ToolName: "Glob", IsError: true},
	}
	if !reflect.DeepEqual(st.Messages, want) {
		t.Errorf("Resume messages = %s\nwant %s", mustJSON(t, st.Messages), mustJSON(t, want))
	}
	if st.Summary != "Parser fixed." || !reflect.DeepEqual(st.VisibleTools, []string{"Bash", "Read"}) || st.Session.LastSeq != 17 {
		t.Errorf("Resume = summary %q visible %v session %+v", st.Summary, st.VisibleTools, st.Session)
	}
	// The stored history is left as it was.
	if m, _ := s.ModelMessages(ctx, sess.ID); len(m) != 4 {
		t.Errorf("stored model history has %d messages", len(m))
	}
	if _, err := s.Resume(ctx, "missing"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Resume(missing) = %v", err)
	}
}

func TestCloseToolCalls(t *testing.T) {
	t.Parallel()
	call := func(ids ...string) Message {
		m := Message{Role: RoleAssistant}
		for _, id := range ids {
			m.ToolCalls = append(m.ToolCalls, ToolCallRecord{ID: id})
		}
		return m
	}
	res := func(id string) Message { return Message{Role: RoleTool, ToolCallID: id, Content: "ok"} }
	user := Message{Role: RoleUser, Content: "u"}
	tests := []struct {
		name string
		in   []Message
		want []string // role:callID
	}{
		{"all answered", []Message{user, call("a"), res("a")}, []string{"user:", "assistant:", "tool:a"}},
		{"unanswered at the end", []Message{user, call("a", "b"), res("b")}, []string{"user:", "assistant:", "tool:b", "tool:a!"}},
		{"unanswered before a user message", []Message{call("a"), user}, []string{"assistant:", "tool:a!", "user:"}},
		{"no calls", []Message{user}, []string{"user:"}},
	}
	for _, tt := range tests {
		var got []string
		for _, m := range closeToolCalls(tt.in) {
			s := string(m.Role) + ":" + m.ToolCallID
			if m.Content == InterruptedResult {
				s += "!"
			}
			got = append(got, s)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
