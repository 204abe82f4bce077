package sessions

import (
	"context"
	"reflect"
	"testing"
	"time"
)

func TestProjectionsOfAConversation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTestStore(t, WithClock(newTestClock().Now))
	sess := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default", Provider: "openai", Model: "gpt-start"})
	mustAppend(t, s, sess.ID, conversation("Fix the failing parser test\nIt panics.", "call_1")...)

	got := mustGet(t, s, sess.ID)
	wantUsage := UsageTotals{InputTokens: 250, OutputTokens: 50, CacheReadTokens: 50, CostUSD: 0.003}
	if got.Title != "Fix the failing parser test" || got.MessageCount != 3 || got.LastSeq != 13 ||
		got.Model != "gpt-test" || got.Usage.InputTokens != 250 || got.Usage.OutputTokens != 50 ||
		got.Usage.CacheReadTokens != 50 || got.Usage.CostUSD < 0.00299 || got.Usage.CostUSD > 0.00301 {
		t.Errorf("session = %+v\nwant title, 3 messages, seq 13, model gpt-test, usage %+v", got, wantUsage)
	}
	if want := got.CreatedAt.Add(12 * time.Second); !got.UpdatedAt.Equal(want) {
		t.Errorf("UpdatedAt = %v, want %v", got.UpdatedAt, want)
	}

	ui, err := s.UIMessages(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Seq  int64
		Kind UIKind
		Text string
	}
	var rows []row
	for _, m := range ui {
		rows = append(rows, row{m.Seq, m.Kind, m.Text})
	}
	wantRows := []row{
		{3, UIUser, "Fix the failing parser test\nIt panics."},
		{4, UICapabilities, ""}, // the baseline
		{5, UIAssistant, "Let me run the tests."},
		{7, UITool, ""},
		{8, UIApproval, ""},
		{11, UIAssistant, "The parser panics on empty input. I fixed the guard in parse.go."},
	}
	if !reflect.DeepEqual(rows, wantRows) {
		t.Fatalf("UI items = %+v\nwant %+v", rows, wantRows)
	}
	if c := ui[1].Capabilities; c == nil || !c.Baseline || !reflect.DeepEqual(c.Added, []string{"Bash", "Read"}) || c.Visible != 2 {
		t.Errorf("baseline item = %+v", ui[1].Capabilities)
	}
	tool := ui[3].Tool
	if tool.CallID != "call_1" || tool.Name != "Bash" || tool.Status != ToolFailed || !tool.IsError ||
		tool.Decision != "allow_once" || tool.DecidedBy != "user" || tool.ResultSeq != 10 || tool.DurationMs != 1200 ||
		tool.Result == "" || tool.Arguments != `{"command":"go test ./..."}` {
		t.Errorf("tool item = %+v", tool)
	}
	ap := ui[4].Approval
	if ap.CallID != "call_1" || ap.Decision != "allow_once" || ap.By != "user" || ap.AnsweredSeq != 9 ||
		ap.Suggestion != "go test" || len(ap.Warnings) != 1 {
		t.Errorf("approval item = %+v", ap)
	}
	if len(ui[2].ToolCalls) != 1 || ui[2].Model != "gpt-test" {
		t.Errorf("assistant item = %+v", ui[2])
	}

	model, err := s.ModelMessages(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	wantModel := []Message{
		{Seq: 3, Role: RoleUser, Content: "Fix the failing parser test\nIt panics."},
		{Seq: 5, Role: RoleAssistant, Content: "Let me run the tests.",
			ToolCalls: []ToolCallRecord{{ID: "call_1", Name: "Bash", Arguments: `{"command":"go test ./..."}`}}},
		{Seq: 10, Role: RoleTool, Content: "--- FAIL: TestParse (0.00s)\n    parser_test.go:12: panic on empty input",
			ToolCallID: "call_1", ToolName: "Bash", IsError: true},
		{Seq: 11, Role: RoleAssistant, Content: "The parser panics on empty input. I fixed the guard in parse.go."},
	}
	if !reflect.DeepEqual(model, wantModel) {
		t.Errorf("model history = %s\nwant %s", mustJSON(t, model), mustJSON(t, wantModel))
	}
	checkRebuildMatches(t, s)
}

func TestToolCallEdgeCases(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTestStore(t)
	sess := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	mustAppend(t, s, sess.ID,
		NewEvent(EventUserMessage, UserMessage{Text: "delete everything"}),
		NewEvent(EventAssistantMessage, AssistantMessage{Text: "", ToolCalls: []ToolCallRecord{{ID: "d1", Name: "Bash", Arguments: `{"command":"rm -rf /"}`}}}),
		NewEvent(EventToolIntent, ToolIntent{CallID: "d1", Name: "Bash", Arguments: `{"command":"rm -rf /"}`}),
		NewEvent(EventApprovalAsked, ApprovalAsked{CallID: "d1", Name: "Bash"}),
		NewEvent(EventApprovalAnswered, ApprovalAnswered{CallID: "d1", Decision: "deny", By: "user", Reason: "no"}),
		NewEvent(EventToolResult, ToolResult{CallID: "d1", Name: "Bash", Content: "denied by the user: no", IsError: true}),
		// A rule decides without asking.
		NewEvent(EventAssistantMessage, AssistantMessage{ToolCalls: []ToolCallRecord{{ID: "r1", Name: "Read", Arguments: `{}`}}}),
		NewEvent(EventToolIntent, ToolIntent{CallID: "r1", Name: "Read", Arguments: `{}`}),
		NewEvent(EventApprovalAnswered, ApprovalAnswered{CallID: "r1", Decision: "allow_once", By: "rule", Rule: "Read"}),
		NewEvent(EventToolResult, ToolResult{CallID: "r1", Name: "Read", Content: "file text"}),
		// A result without an intent still shows.
		NewEvent(EventToolResult, ToolResult{CallID: "x9", Name: "Glob", Content: "a.go"}),
		// A cut-off response: kept for the UI, its call is not sent.
		NewEvent(EventAssistantMessage, AssistantMessage{Text: "I will now", Partial: true, ToolCalls: []ToolCallRecord{{ID: "p1", Name: "Bash"}}}),
		NewEvent(EventError, Error{Message: "stream cut", Kind: "stream_cut"}),
		NewEvent(EventAssistantMessage, AssistantMessage{Partial: true}), // nothing arrived
	)
	ui, err := s.UIMessages(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	byKindSeq := map[int64]UIMessage{}
	for _, m := range ui {
		byKindSeq[m.Seq] = m
	}
	if tl := byKindSeq[4].Tool; tl == nil || tl.Status != ToolDenied || tl.Decision != "deny" || tl.Result != "denied by the user: no" {
		t.Errorf("denied call = %+v", tl)
	}
	if a := byKindSeq[5].Approval; a == nil || a.Decision != "deny" || a.Reason != "no" {
		t.Errorf("denied approval = %+v", a)
	}
	if tl := byKindSeq[9].Tool; tl == nil || tl.Status != ToolDone || tl.DecidedBy != "rule" {
		t.Errorf("rule-approved call = %+v", tl)
	}
	if tl := byKindSeq[12].Tool; tl == nil || tl.Name != "Glob" || tl.Status != ToolDone || tl.Result != "a.go" {
		t.Errorf("result without intent = %+v", byKindSeq[12])
	}
	if m := byKindSeq[13]; !m.Partial || m.Text != "I will now" {
		t.Errorf("partial = %+v", m)
	}
	if m := byKindSeq[14]; m.Kind != UIError || m.ErrorKind != "stream_cut" {
		t.Errorf("error = %+v", m)
	}
	model, err := s.ModelMessages(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	var seqs []int64
	for _, m := range model {
		seqs = append(seqs, m.Seq)
		if m.Seq == 13 && (len(m.ToolCalls) != 0 || m.Content != "I will now") {
			t.Errorf("partial message sent to the model with its calls: %+v", m)
		}
	}
	if want := []int64{2, 3, 7, 8, 11, 12, 13}; !reflect.DeepEqual(seqs, want) {
		t.Errorf("model seqs = %v, want %v", seqs, want)
	}
	checkRebuildMatches(t, s)
}

func TestCompactionReplacesModelHistory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTestStore(t)
	sess := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	mustAppend(t, s, sess.ID, conversation("first task", "c1")...) // seqs 2..13
	mustAppend(t, s, sess.ID,
		NewEvent(EventUserMessage, UserMessage{Text: "second task"}), // 14
		NewEvent(EventCompaction, Compaction{Summary: "We fixed the parser.", UpToSeq: 13, TokensBefore: 9000, TokensAfter: 300}),
		NewEvent(EventAssistantMessage, AssistantMessage{Text: "On it."}), // 16
	)
	model, err := s.ModelMessages(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := []Message{
		{Seq: 15, Role: RoleUser, Content: "We fixed the parser.", Summary: true},
		{Seq: 14, Role: RoleUser, Content: "second task"},
		{Seq: 16, Role: RoleAssistant, Content: "On it."},
	}
	if !reflect.DeepEqual(model, want) {
		t.Errorf("after compaction = %s\nwant %s", mustJSON(t, model), mustJSON(t, want))
	}
	// A second compaction replaces the first summary too.
	mustAppend(t, s, sess.ID, NewEvent(EventCompaction, Compaction{Summary: "All done so far.", UpToSeq: 16}))
	model, _ = s.ModelMessages(ctx, sess.ID)
	if len(model) != 1 || model[0].Content != "All done so far." || !model[0].Summary {
		t.Errorf("after second compaction = %s", mustJSON(t, model))
	}
	// The UI keeps everything, and shows the compactions.
	ui, _ := s.UIMessages(ctx, sess.ID)
	if n := len(ui); n != 10 || ui[7].Kind != UICompaction || ui[7].Compaction.TokensBefore != 9000 {
		t.Errorf("UI after compaction: %d items: %s", n, mustJSON(t, ui))
	}
	checkRebuildMatches(t, s)
}

func TestOpenRebuildsOutdatedProjections(t *testing.T) {
	t.Parallel()
	path := t.TempDir() + "/s.db"
	s := openStoreAt(t, path)
	sess := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	mustAppend(t, s, sess.ID, conversation("needs a rebuild", "c1")...)
	want := readProjections(t, s)
	// Simulate an older build's projections: wrong rows and an old version.
	for _, q := range []string{
		`DELETE FROM ui_messages`,
		`UPDATE sessions SET message_count = 99, auto_title = 'stale'`,
		`UPDATE meta SET value = '0' WHERE key = 'projection_version'`,
	} {
		if _, err := s.w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	s2 := openStoreAt(t, path)
	if got := readProjections(t, s2); !reflect.DeepEqual(got, want) {
		t.Errorf("projections after reopening = %s\nwant %s", mustJSON(t, got), mustJSON(t, want))
	}
}

// TestSingleAppendsMatchOneBatch checks that the projections do not depend
// on how events were grouped into appends (a batch keeps its UI items in
// memory; single appends read and rewrite them), and that Replay agrees
// with both, compactions included.
func TestSingleAppendsMatchOneBatch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	evs := append(conversation("first task", "c1"), conversation("second task", "c2")...)
	evs = append(evs,
		NewEvent(EventCompaction, Compaction{Summary: "two tasks done", UpToSeq: 20}),
		NewEvent(EventToolIntent, ToolIntent{CallID: "c3", Name: "Read"}),
		NewEvent(EventApprovalAsked, ApprovalAsked{CallID: "c3", Name: "Read"}),
		NewEvent(EventApprovalAnswered, ApprovalAnswered{CallID: "c3", Decision: "deny", By: "user"}),
		NewEvent(EventToolResult, ToolResult{CallID: "c3", Name: "Read", Content: "denied", IsError: true}),
	)
	build := func(single bool) (*Store, string) {
		s := openTestStore(t, WithClock(newTestClock().Now))
		sess := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
		if single {
			for _, ev := range evs {
				mustAppend(t, s, sess.ID, ev)
			}
		} else {
			mustAppend(t, s, sess.ID, evs...)
		}
		return s, sess.ID
	}
	type view struct {
		UI    []UIMessage
		Model []Message
		Sess  Session
	}
	read := func(s *Store, id string) (stored, replayed view) {
		stored.UI, _ = s.UIMessages(ctx, id)
		stored.Model, _ = s.ModelMessages(ctx, id)
		stored.Sess = mustGet(t, s, id)
		st, err := s.Replay(ctx, id, 0)
		if err != nil {
			t.Fatal(err)
		}
		replayed = view{st.UI, st.Messages, st.Session}
		stored.Sess.ID, replayed.Sess.ID = "", ""
		return stored, replayed
	}
	batchStore, batchID := build(false)
	singleStore, singleID := build(true)
	batch, batchReplay := read(batchStore, batchID)
	single, singleReplay := read(singleStore, singleID)
	if !reflect.DeepEqual(single, batch) {
		t.Errorf("single appends and one batch differ:\n%s\n%s", mustJSON(t, single), mustJSON(t, batch))
	}
	if !reflect.DeepEqual(batchReplay, batch) || !reflect.DeepEqual(singleReplay, single) {
		t.Errorf("replay differs from the stored projections:\n%s\n%s", mustJSON(t, batchReplay), mustJSON(t, batch))
	}
	if len(batch.Model) == 0 || !batch.Model[0].Summary {
		t.Errorf("model history does not start with the summary: %s", mustJSON(t, batch.Model))
	}
	if tool := batch.UI[len(batch.UI)-2].Tool; tool == nil || tool.Status != ToolDenied {
		t.Errorf("denied call: %+v", batch.UI[len(batch.UI)-2])
	}
	checkRebuildMatches(t, singleStore)
}
