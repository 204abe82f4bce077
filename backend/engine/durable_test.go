package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"tinyelf/backend/capabilities"
	"tinyelf/backend/config"
	"tinyelf/backend/llm"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
	"tinyelf/backend/skills"
	"tinyelf/internal/testutil"
)

// The state that changes how a resumed session behaves is in its log and
// comes back when the session is opened again: after a restart (a new
// engine on the same database) and after the idle release (the same
// engine, the session dropped from memory).
var reopenings = []struct {
	name   string
	reopen func(h *harness, id string, turns []llmtest.Turn)
}{
	{"restart", func(h *harness, id string, turns []llmtest.Turn) {
		h.engine.Shutdown(context.Background())
		h.restart(turns)
	}},
	{"idle release", func(h *harness, id string, turns []llmtest.Turn) {
		h.srv.Push(turns...)
		s := h.engine.peek(id)
		if s == nil {
			h.t.Fatal("the session is not in memory")
		}
		h.engine.evictIf(s, -1)
		if h.engine.peek(id) != nil {
			h.t.Fatal("the session was not released")
		}
	}},
}

// TestReadMarksSurviveReopen: a file read before the session was reopened
// is still writable when unchanged, and still refused when it changed on
// disk meanwhile (even with its size and time kept); a file never read is
// refused as before.
func TestReadMarksSurviveReopen(t *testing.T) {
	for _, ro := range reopenings {
		t.Run(ro.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, llm.KindOpenAI, []llmtest.Turn{
				{ToolCalls: []llmtest.ToolCall{call("r1", "Read", `{"path":"same.txt"}`), call("r2", "Read", `{"path":"changed.txt"}`)}},
				{ToolCalls: []llmtest.ToolCall{call("w0", "Write", `{"path":"mine.txt","content":"mine\n"}`)}},
				{Text: "read them"},
			})
			for _, f := range []string{"same.txt", "changed.txt", "unread.txt"} {
				h.writeFile(f, "alpha\n")
			}
			id := h.session(ModeAcceptEdits)
			if res := h.run(id, "read"); res.Reason != EndDone {
				t.Fatalf("first turn %+v", res)
			}
			p := filepath.Join(h.workspace, "changed.txt")
			st, _ := os.Stat(p)
			if err := os.WriteFile(p, []byte("ALPHA\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			_ = os.Chtimes(p, st.ModTime(), st.ModTime())
			ro.reopen(h, id, []llmtest.Turn{
				{ToolCalls: []llmtest.ToolCall{call("e1", "Edit", `{"path":"same.txt","old_string":"alpha","new_string":"beta"}`)}},
				{ToolCalls: []llmtest.ToolCall{call("e2", "Edit", `{"path":"mine.txt","old_string":"mine","new_string":"ours"}`)}},
				{ToolCalls: []llmtest.ToolCall{call("e3", "Edit", `{"path":"changed.txt","old_string":"ALPHA","new_string":"beta"}`)}},
				{ToolCalls: []llmtest.ToolCall{call("e4", "Write", `{"path":"unread.txt","content":"x"}`)}},
				{Text: "done"},
			})
			if res := h.run(id, "edit"); res.Reason != EndDone {
				t.Fatalf("turn after reopening %+v", res)
			}
			results := logged[sessions.ToolResult](h, id, sessions.EventToolResult)
			byCall := map[string]sessions.ToolResult{}
			for _, r := range results {
				byCall[r.CallID] = r
			}
			for _, c := range []string{"e1", "e2"} {
				if byCall[c].IsError {
					t.Errorf("%s on a file read (or written) before reopening, unchanged since: %s", c, byCall[c].Content)
				}
			}
			if r := byCall["e3"]; !r.IsError || !strings.Contains(r.Content, "modified since you last read it") {
				t.Errorf("an edit of a file changed since it was read: %+v", r)
			}
			if r := byCall["e4"]; !r.IsError || !strings.Contains(r.Content, "you have not read it") {
				t.Errorf("an overwrite of a file never read: %+v", r)
			}
		})
	}
}

// TestPromotionSurvivesReopen: a tool ToolSearch found is visible for the
// rest of the session, also when the session is reopened before any model
// call saw it (the turn ended at its step limit right after the search),
// and `sessions replay --capabilities` still agrees with every request.
func TestPromotionSurvivesReopen(t *testing.T) {
	for _, ro := range reopenings {
		t.Run(ro.name, func(t *testing.T) {
			t.Parallel()
			cat := capabilities.NewCatalog()
			h := newHarness(t, llm.KindOpenAI, []llmtest.Turn{
				{ToolCalls: []llmtest.ToolCall{call("s", "ToolSearch", `{"query":"logs of the failed CI job"}`)}},
			}, withFixtureCatalog(cat, 0))
			if err := h.settings.Update(func(s *config.Settings) error {
				s.Agents = []config.Agent{{Name: config.DefaultAgent, MaxIterations: 1}}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			id := h.session(ModeAuto)
			if res := h.run(id, "why did CI fail?"); res.Reason != EndMaxIterations {
				t.Fatalf("first turn %+v", res)
			}
			const tool = "mcp__github__get_job_logs"
			if contains(toolNames(h.srv.ChatRequests()[0]), tool) {
				t.Fatal("the tool was visible before it was found")
			}
			ro.reopen(h, id, []llmtest.Turn{{Text: "found it"}})
			if res := h.run(id, "go on"); res.Reason != EndDone {
				t.Fatalf("turn after reopening %+v", res)
			}
			reqs := h.srv.ChatRequests()
			if !contains(toolNames(reqs[len(reqs)-1]), tool) {
				t.Errorf("the promoted tool is not offered after reopening: %v", toolNames(reqs[len(reqs)-1]))
			}
			rep, err := h.store.ReplayCapabilities(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Mismatches != 0 || len(rep.Calls) != 2 || !contains(rep.Calls[1].Visible, tool) {
				t.Errorf("replay: %d mismatches in %d calls; the second call's set has the tool: %v", rep.Mismatches, len(rep.Calls), len(rep.Calls) == 2 && contains(rep.Calls[1].Visible, tool))
			}
			found := false
			for _, d := range logged[sessions.CapabilityDiff](h, id, sessions.EventCapabilityDiff) {
				for _, it := range d.Items {
					found = found || it.Name == tool && it.To == "visible" && strings.Contains(it.Reason, "found by ToolSearch")
				}
			}
			if !found {
				t.Error("no diff says why the tool became visible")
			}
		})
	}
}

// waitPending waits until the session has an approval waiting, and returns
// its call IDs.
func waitPending(t *testing.T, h *harness, id string) []string {
	t.Helper()
	var pending []string
	testutil.WaitFor(t, "an approval waits", func() bool { pending = h.engine.Pending(id); return len(pending) > 0 })
	return pending
}

// TestApprovalWaitingAtCloseIsAskedAgain: an approval still waiting when
// TinyElf closes is neither denied nor lost: the log keeps it open, the
// reopened session lists it again (the card comes back), and answering it
// takes the turn up where it stopped: the call runs, the answer's other
// calls after it run, and the model goes on with all their results. The
// turn's grants (a typed command's allowed-tools) come back with it, and go
// with it.
func TestApprovalWaitingAtCloseIsAskedAgain(t *testing.T) {
	t.Parallel()
	h := newHarness(t, llm.KindOpenAI, []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{
			call("b1", "Bash", `{"command":"echo made > made.txt"}`),
			call("r1", "Read", `{"path":"notes.md"}`),
		}},
	}, interactive())
	h.writeFile("notes.md", "notes\n")
	id := h.session(ModeDefault)
	grants, errs := skills.ParseAllowedTools("Bash(echo granted)")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if err := h.engine.SendWith(id, "make it", TurnOptions{AllowedTools: grants, Command: "/make"}); err != nil {
		t.Fatal(err)
	}
	if got := waitPending(t, h, id); !slices.Equal(got, []string{"b1"}) {
		t.Fatalf("pending %v", got)
	}
	h.engine.Shutdown(context.Background())
	if _, err := os.Stat(filepath.Join(h.workspace, "made.txt")); err == nil {
		t.Fatal("the command ran without an answer")
	}
	if a := logged[sessions.ApprovalAnswered](h, id, sessions.EventApprovalAnswered); len(a) != 0 {
		t.Fatalf("closing answered the approval: %+v", a)
	}
	if r := logged[sessions.ToolResult](h, id, sessions.EventToolResult); len(r) != 0 {
		t.Fatalf("closing logged results: %+v", r)
	}
	ends := logged[sessions.TurnEnd](h, id, sessions.EventTurnEnd)
	if len(ends) != 1 || !strings.Contains(ends[0].Message, "asked again when you open this session") {
		t.Errorf("turn end %+v", ends)
	}

	h.restart([]llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{call("b2", "Bash", `{"command":"echo granted"}`)}},
		{Text: "made it"},
		{ToolCalls: []llmtest.ToolCall{call("b3", "Bash", `{"command":"echo granted"}`)}},
		{Text: "asked"},
	})
	if got := h.engine.Pending(id); !slices.Equal(got, []string{"b1"}) {
		t.Fatalf("after reopening, pending %v, want the approval that waited", got)
	}
	if err := h.engine.Answer(id, "b1", ApprovalAnswer{Decision: AllowOnce}); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, "the turn taken up ends", func() bool {
		return len(logged[sessions.TurnEnd](h, id, sessions.EventTurnEnd)) == 2 && !h.engine.Running(id)
	})
	if b, err := os.ReadFile(filepath.Join(h.workspace, "made.txt")); err != nil || string(b) != "made\n" {
		t.Errorf("the approved command did not run: %q %v", b, err)
	}
	results := logged[sessions.ToolResult](h, id, sessions.EventToolResult)
	var ids []string
	for _, r := range results {
		ids = append(ids, r.CallID)
		if r.IsError {
			t.Errorf("%s failed: %s", r.CallID, r.Content)
		}
	}
	if !slices.Equal(ids, []string{"b1", "r1", "b2"}) {
		t.Errorf("results of %v, want b1 and r1 (the rest of the answer), then b2 (granted, not asked)", ids)
	}
	intents := logged[sessions.ToolIntent](h, id, sessions.EventToolIntent)
	if len(intents) != 3 {
		t.Errorf("%d intents: the call taken up was logged twice? %+v", len(intents), intents)
	}
	answers := logged[sessions.ApprovalAnswered](h, id, sessions.EventApprovalAnswered)
	if len(answers) != 2 || answers[0].CallID != "b1" || answers[0].Decision != string(AllowOnce) || answers[0].By != "user" ||
		answers[1].CallID != "b2" || answers[1].By != "skill" {
		t.Errorf("answers %+v, want the user's to b1 and the grant's to b2", answers)
	}
	if asked := logged[sessions.ApprovalAsked](h, id, sessions.EventApprovalAsked); len(asked) != 1 {
		t.Errorf("the card was put again: %+v", asked)
	}
	starts := logged[sessions.TurnStart](h, id, sessions.EventTurnStart)
	if len(starts) != 2 || starts[1].Resume != ResumeApproval {
		t.Errorf("turn starts %+v", starts)
	}
	reqs := h.srv.ChatRequests()
	if len(reqs) == 0 {
		t.Fatal("the model was not asked again")
	}
	text := requestText(reqs[0])
	mustContain(t, "the model's next request", text, "notes")
	if strings.Contains(text, "interrupted") {
		t.Errorf("the request calls a call that ran interrupted:\n%s", text)
	}
	ui, err := h.store.UIMessages(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ui {
		if m.Tool != nil && m.Tool.Status != sessions.ToolDone {
			t.Errorf("tool card %s is %s", m.Tool.CallID, m.Tool.Status)
		}
	}
	if rep, err := h.store.ReplayCapabilities(context.Background(), id); err != nil {
		t.Error(err)
	} else if rep.Mismatches != 0 {
		t.Errorf("replay after the turn taken up: %d mismatches", rep.Mismatches)
	}
	// The grant was the old turn's: the next turn asks.
	if err := h.engine.Send(id, "again"); err != nil {
		t.Fatal(err)
	}
	if got := waitPending(t, h, id); !slices.Equal(got, []string{"b3"}) {
		t.Errorf("the next turn's pending %v: a grant outlived its turn?", got)
	}
	h.engine.Cancel(id)
	_ = h.engine.Wait(context.Background(), id)
}

// TestApprovalsThatCannotBeTakenUpExpire: what an earlier run left open
// that cannot come back (an MCP server's question, a trust card, a
// subagent's approval) is closed with a line saying why when the session
// is looked at again, and a tool call's approval left waiting expires when
// the user sends a new message instead.
func TestApprovalsThatCannotBeTakenUpExpire(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHarness(t, llm.KindOpenAI, []llmtest.Turn{{Text: "ok"}}, interactive())
	open := func(parent string, asked ...sessions.ApprovalAsked) string {
		sess, err := h.store.Create(ctx, sessions.SessionCreated{Workspace: h.workspace, Mode: "default", Parent: parent, Provider: "fake"})
		if err != nil {
			t.Fatal(err)
		}
		var calls []sessions.ToolCallRecord
		for _, a := range asked {
			calls = append(calls, sessions.ToolCallRecord{ID: a.CallID, Name: a.Name, Arguments: "{}"})
		}
		evs := []sessions.Event{
			sessions.NewEvent(sessions.EventUserMessage, sessions.UserMessage{Text: "go"}),
			sessions.NewEvent(sessions.EventTurnStart, sessions.TurnStart{Mode: "default"}),
			sessions.NewEvent(sessions.EventAssistantMessage, sessions.AssistantMessage{ToolCalls: calls}),
		}
		for _, a := range asked {
			evs = append(evs, sessions.NewEvent(sessions.EventToolIntent, sessions.ToolIntent{CallID: a.CallID, Name: a.Name, Arguments: "{}"}),
				sessions.NewEvent(sessions.EventApprovalAsked, a))
		}
		if _, err := h.store.Append(ctx, sess.ID, evs...); err != nil {
			t.Fatal(err)
		}
		return sess.ID
	}
	mine := open("", sessions.ApprovalAsked{CallID: "m1", Name: "mcp__crm__lookup", Kind: ApprovalElicitation, Server: "crm"},
		sessions.ApprovalAsked{CallID: "t1", Name: "read_skill", Kind: ApprovalSkillTrust},
		sessions.ApprovalAsked{CallID: "p1", Name: "Bash"})
	child := open(mine, sessions.ApprovalAsked{CallID: "c1", Name: "Bash"})

	if got := h.engine.Pending(mine); !slices.Equal(got, []string{"p1"}) {
		t.Errorf("pending %v, want only the tool call's", got)
	}
	if got := h.engine.Pending(child); len(got) != 0 {
		t.Errorf("a subagent's approval is pending again: %v", got)
	}
	why := map[string]string{}
	for _, id := range []string{mine, child} {
		for _, a := range logged[sessions.ApprovalAnswered](h, id, sessions.EventApprovalAnswered) {
			if a.By != "expired" || a.Decision != string(Deny) {
				t.Errorf("%s answered %+v", a.CallID, a)
			}
			why[a.CallID] = a.Reason
		}
	}
	for call, want := range map[string]string{"m1": "the MCP server's request ended with it", "t1": "asked again when it is needed", "c1": "the subagent's run ended with it"} {
		if !strings.Contains(why[call], want) {
			t.Errorf("%s expired with %q, want it to say %q", call, why[call], want)
		}
	}
	if _, ok := why["p1"]; ok {
		t.Error("the tool call's approval expired before anyone could answer it")
	}
	if got := h.engine.Pending(mine); !slices.Equal(got, []string{"p1"}) || len(logged[sessions.ApprovalAnswered](h, mine, sessions.EventApprovalAnswered)) != 2 {
		t.Errorf("looking again: pending %v, or expired twice", got)
	}

	// A new message instead of the answer: the approval expires in the
	// turn's first write, and the model reads the call as interrupted.
	if res := h.run(mine, "never mind"); res.Reason != EndDone {
		t.Fatalf("%+v", res)
	}
	answers := logged[sessions.ApprovalAnswered](h, mine, sessions.EventApprovalAnswered)
	if len(answers) != 3 || answers[2].CallID != "p1" || answers[2].By != "expired" {
		t.Errorf("answers %+v", answers)
	}
	if got := h.engine.Pending(mine); len(got) != 0 {
		t.Errorf("still pending after the next turn: %v", got)
	}
	mustContain(t, "the model's request", requestText(h.srv.ChatRequests()[0]), "interrupted")
}

// TestAbandonedTurnClosesItsApprovals: a turn Cancel gives up on leaves no
// approval open in the log to be asked again on reopen.
func TestAbandonedTurnClosesItsApprovals(t *testing.T) {
	t.Parallel()
	h := newHarness(t, llm.KindOpenAI, []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{call("b1", "Bash", `{"command":"echo hi"}`)}},
	}, interactive())
	id := h.session(ModeDefault)
	if err := h.engine.Send(id, "go"); err != nil {
		t.Fatal(err)
	}
	waitPending(t, h, id)
	s := h.engine.peek(id)
	s.mu.Lock()
	run := s.cur
	s.mu.Unlock()
	h.engine.abandon(s, run) // as Cancel does when the turn does not stop in time
	_ = h.engine.Wait(context.Background(), id)
	testutil.WaitFor(t, "the approval is closed", func() bool {
		ot, err := h.store.OpenTurn(context.Background(), id)
		return err == nil && len(ot.Approvals) == 0
	})
	h.engine.Shutdown(context.Background())
	h.restart(nil)
	if got := h.engine.Pending(id); len(got) != 0 {
		t.Errorf("the stopped turn's approval is asked again: %v", got)
	}
}
