package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tinyelf/backend/config"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
)

func forEachFormat(t *testing.T, fn func(t *testing.T, kind string)) {
	for _, kind := range wireFormats {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			fn(t, kind)
		})
	}
}

func TestPlainAnswer(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		h := newHarness(t, kind, []llmtest.Turn{{Text: "Hello from the fake model."}})
		id := h.session(ModeDefault)
		res := h.run(id, "Say hello")
		if res.Reason != EndDone || res.Text != "Hello from the fake model." || res.Iterations != 1 {
			t.Fatalf("result %+v", res)
		}
		var deltas strings.Builder
		for _, ev := range h.events {
			if ev.Type == LiveMessageDelta {
				deltas.WriteString(string(ev.Data))
			}
		}
		mustContain(t, "streamed deltas", deltas.String(), "Hello", "fake", "model.")
		req := h.srv.ChatRequests()[0]
		mustContain(t, "the request", requestText(req), "Say hello")
		names := toolNames(req)
		for _, want := range []string{"Read", "Write", "Edit", "ListDir", "Glob", "Grep", "Bash", "SessionsYield"} {
			if !contains(names, want) {
				t.Errorf("tool %s not offered: %v", want, names)
			}
		}
		sess, _ := h.store.Get(context.Background(), id)
		if sess.Title != "Say hello" || sess.Usage.InputTokens == 0 {
			t.Errorf("session projection: %+v", sess)
		}
		ends := logged[sessions.TurnEnd](h, id, sessions.EventTurnEnd)
		if len(ends) != 1 || ends[0].Reason != EndDone {
			t.Errorf("turn.end: %+v", ends)
		}
		diffs := logged[sessions.CapabilityDiff](h, id, sessions.EventCapabilityDiff)
		if len(diffs) != 1 || !contains(diffs[0].Visible, "Read") || len(diffs[0].Reasons) == 0 {
			t.Errorf("capability.diff: %+v", diffs)
		}
	})
}

func TestToolCallThenAnswer(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		h := newHarness(t, kind, []llmtest.Turn{
			{Text: "Let me look.", ToolCalls: []llmtest.ToolCall{call("c1", "Read", `{"path":"notes.txt"}`)}},
			{Text: "The notes say hi."},
		})
		h.writeFile("notes.txt", "hi there\n")
		id := h.session(ModeDefault)
		res := h.run(id, "What do the notes say?")
		if res.Reason != EndDone || res.Iterations != 2 {
			t.Fatalf("result %+v", res)
		}
		second := h.srv.ChatRequests()[1]
		mustContain(t, "the second request", requestText(second), "hi there")
		results := logged[sessions.ToolResult](h, id, sessions.EventToolResult)
		if len(results) != 1 || results[0].IsError || !strings.Contains(results[0].Content, "hi there") {
			t.Errorf("tool.result: %+v", results)
		}
		if len(h.asked) != 0 {
			t.Errorf("Read is safe but the user was asked: %+v", h.asked)
		}
	})
}

func TestParallelReadOnlyCalls(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		h := newHarness(t, kind, []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{
				call("a", "Read", `{"path":"a.txt"}`),
				call("b", "Read", `{"path":"b.txt"}`),
				call("c", "Glob", `{"pattern":"*.txt"}`),
			}},
			{Text: "done"},
		})
		h.writeFile("a.txt", "AAA\n")
		h.writeFile("b.txt", "BBB\n")
		id := h.session(ModeDefault)
		h.run(id, "read both")
		results := logged[sessions.ToolResult](h, id, sessions.EventToolResult)
		if len(results) != 3 {
			t.Fatalf("%d results", len(results))
		}
		// Results go back in the model's call order, whatever order they finished in.
		msgs, _ := StoreLog{h.store}.ModelMessages(context.Background(), id)
		var order []string
		for _, m := range msgs {
			if m.ToolCallID != "" {
				order = append(order, m.ToolCallID)
			}
		}
		if strings.Join(order, ",") != "a,b,c" {
			t.Errorf("results fed back in order %v", order)
		}
		mustContain(t, "the second request", requestText(h.srv.ChatRequests()[1]), "AAA", "BBB", "a.txt")
	})
}

func TestBadToolCallsAreObservations(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		h := newHarness(t, kind, []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{
				call("u", "FrobnicateFiles", `{}`),
				call("m", "Read", `{"path": "x.txt"`),
			}},
			{Text: "I will try differently."},
		})
		id := h.session(ModeDefault)
		res := h.run(id, "go")
		if res.Reason != EndDone {
			t.Fatalf("a bad call ended the turn: %+v", res)
		}
		results := logged[sessions.ToolResult](h, id, sessions.EventToolResult)
		if len(results) != 2 || !results[0].IsError || !results[1].IsError {
			t.Fatalf("results %+v", results)
		}
		mustContain(t, "unknown tool result", results[0].Content, `Unknown tool "FrobnicateFiles"`, "Read", "[Analyze the error above")
		mustContain(t, "malformed JSON result", results[1].Content, "Invalid arguments for Read", "not valid JSON")
		mustContain(t, "the second request", requestText(h.srv.ChatRequests()[1]), "FrobnicateFiles", "not valid JSON")
	})
}

func TestDenialWithReason(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		h := newHarness(t, kind, []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("w", "Write", `{"path":"out.txt","content":"x"}`)}},
			{Text: "Understood, I won't write it."},
		}, withApprover(func(ApprovalRequest) ApprovalAnswer {
			return ApprovalAnswer{Decision: Deny, Reason: "do not create files in my home"}
		}))
		id := h.session(ModeDefault)
		h.run(id, "write out.txt")
		if _, err := os.Stat(filepath.Join(h.workspace, "out.txt")); err == nil {
			t.Fatal("a denied Write ran")
		}
		if len(h.asked) != 1 || h.asked[0].Tool != "Write" {
			t.Fatalf("asked %+v", h.asked)
		}
		mustContain(t, "the request after the denial", requestText(h.srv.ChatRequests()[1]), "denied", "do not create files in my home")
		answers := logged[sessions.ApprovalAnswered](h, id, sessions.EventApprovalAnswered)
		if len(answers) != 1 || answers[0].Decision != string(Deny) || answers[0].Reason != "do not create files in my home" {
			t.Errorf("approval.answered %+v", answers)
		}
		if asked := logged[sessions.ApprovalAsked](h, id, sessions.EventApprovalAsked); len(asked) != 1 {
			t.Errorf("approval.asked %+v", asked)
		}
	})
}

func TestPlanModeHidesWriteTools(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		h := newHarness(t, kind, []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("w", "Write", `{"path":"p.txt","content":"x"}`)}},
			{Text: "I can only plan."},
		})
		// Even an allow rule does not beat plan mode.
		if _, err := h.settings.AddRule(config.Rule{Tool: "Write", Action: config.RuleAllow}); err != nil {
			t.Fatal(err)
		}
		id := h.session(ModePlan)
		h.run(id, "plan it")
		names := toolNames(h.srv.ChatRequests()[0])
		for _, hidden := range []string{"Write", "Edit", "Bash"} {
			if contains(names, hidden) {
				t.Errorf("plan mode offered %s: %v", hidden, names)
			}
		}
		if !contains(names, "Read") || !contains(names, "Grep") {
			t.Errorf("plan mode lost read tools: %v", names)
		}
		if _, err := os.Stat(filepath.Join(h.workspace, "p.txt")); err == nil {
			t.Error("Write ran in plan mode")
		}
		results := logged[sessions.ToolResult](h, id, sessions.EventToolResult)
		if len(results) != 1 || !results[0].IsError || !strings.Contains(results[0].Content, "Write is not available in this session: plan mode hides tools that change things") {
			t.Errorf("result %+v", results)
		}
	})
}

func TestAlwaysAllowSurvivesRestart(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		h := newHarness(t, kind, []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("b1", "Bash", `{"command":"echo first"}`)}},
			{Text: "ok"},
		}, withApprover(func(ApprovalRequest) ApprovalAnswer { return ApprovalAnswer{Decision: AllowAlways} }))
		id := h.session(ModeDefault)
		h.run(id, "run echo")
		if len(h.asked) != 1 || h.asked[0].Suggestion != "Bash(echo:*)" {
			t.Fatalf("asked %+v", h.asked)
		}
		// A new engine on the same files: the rule is remembered.
		h.restart([]llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{
				call("b2", "Bash", `{"command":"echo second && echo third"}`),
				call("b3", "Bash", `{"command":"echo x; rm -f nothing.txt"}`),
			}},
			{Text: "done"},
		})
		rules := h.settings.Rules()
		if len(rules) != 1 || rules[0].Tool != "Bash" || rules[0].Pattern != "echo:*" {
			t.Fatalf("rules after restart: %+v", rules)
		}
		h.approver = func(ApprovalRequest) ApprovalAnswer { return ApprovalAnswer{Decision: Deny} }
		id2 := h.session(ModeDefault)
		h.run(id2, "run more")
		if len(h.asked) != 1 || !strings.Contains(h.asked[0].Arguments, "rm -f") {
			t.Errorf("the rule should cover only echo commands; asked %+v", h.asked)
		}
		results := logged[sessions.ToolResult](h, id2, sessions.EventToolResult)
		if len(results) != 2 || results[0].IsError || !strings.Contains(results[0].Content, "third") || !results[1].IsError {
			t.Errorf("results %+v", results)
		}
		answers := logged[sessions.ApprovalAnswered](h, id2, sessions.EventApprovalAnswered)
		if len(answers) != 2 || answers[0].By != "rule" || answers[0].Rule != "Bash(echo:*)" || answers[1].Decision != string(Deny) {
			t.Errorf("decisions logged: %+v", answers)
		}
	})
}

func TestCancelMidStream(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		h := newHarness(t, kind, []llmtest.Turn{{Text: "partial words before the hang", Hang: true}}, interactive())
		id := h.session(ModeDefault)
		if err := h.engine.Send(id, "start"); err != nil {
			t.Fatal(err)
		}
		if err := h.engine.Send(id, "again"); err != ErrBusy {
			t.Errorf("second Send = %v, want ErrBusy", err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for !strings.Contains(h.deltaText(), "hang") && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		h.engine.Cancel(id)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := h.engine.Wait(ctx, id); err != nil {
			t.Fatal("the turn did not stop after Cancel")
		}
		ends := logged[sessions.TurnEnd](h, id, sessions.EventTurnEnd)
		if len(ends) != 1 || ends[0].Reason != EndCancelled {
			t.Fatalf("turn.end %+v", ends)
		}
		msgs := logged[sessions.AssistantMessage](h, id, sessions.EventAssistantMessage)
		if len(msgs) != 1 || !msgs[0].Partial || !strings.Contains(msgs[0].Text, "partial words") {
			t.Errorf("the partial answer was not kept: %+v", msgs)
		}
	})
}

func (h *harness) deltaText() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var sb strings.Builder
	for _, ev := range h.events {
		if ev.Type == LiveMessageDelta {
			sb.Write(ev.Data)
		}
	}
	return sb.String()
}

func TestRetryThenSuccess(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		h := newHarness(t, kind, []llmtest.Turn{
			{Status: 429, RetryAfter: "0", ErrorMessage: "slow down"},
			{Text: "made it"},
		})
		id := h.session(ModeDefault)
		res := h.run(id, "hi")
		if res.Reason != EndDone || res.Text != "made it" {
			t.Fatalf("result %+v", res)
		}
		retried := false
		for _, ev := range h.events {
			retried = retried || ev.Type == LiveRetry
		}
		if !retried {
			t.Error("no retry event reached the UI")
		}
	})
}

func TestStreamCutKeepsWhatArrived(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		h := newHarness(t, kind, []llmtest.Turn{{Text: "one two three four five", CutAfter: 2}})
		id := h.session(ModeDefault)
		res := h.run(id, "count")
		if res.Reason != EndError || res.Err == "" {
			t.Fatalf("result %+v", res)
		}
		msgs := logged[sessions.AssistantMessage](h, id, sessions.EventAssistantMessage)
		if len(msgs) != 1 || !msgs[0].Partial || !strings.HasPrefix(msgs[0].Text, "one") {
			t.Errorf("partial message %+v", msgs)
		}
		errs := logged[sessions.Error](h, id, sessions.EventError)
		if len(errs) != 1 || errs[0].Kind != "stream_cut" {
			t.Errorf("error events %+v", errs)
		}
	})
}

func TestMaxIterations(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		loop := llmtest.Turn{ToolCalls: []llmtest.ToolCall{call("l", "ListDir", `{"path":"."}`)}}
		h := newHarness(t, kind, []llmtest.Turn{loop, loop, loop})
		if err := h.settings.Update(func(s *config.Settings) error {
			s.Agents = []config.Agent{{Name: "default", MaxIterations: 2}}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		id := h.session(ModeDefault)
		res := h.run(id, "loop forever")
		if res.Reason != EndMaxIterations || res.Iterations != 2 || len(h.srv.ChatRequests()) != 2 {
			t.Fatalf("result %+v after %d requests", res, len(h.srv.ChatRequests()))
		}
	})
}

func TestYieldEndsTheTurn(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		h := newHarness(t, kind, []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("y", "SessionsYield", `{"message":"Need your decision on X."}`)}},
		})
		id := h.session(ModeDefault)
		res := h.run(id, "do it")
		if res.Reason != EndYield || res.Text != "Need your decision on X." || len(h.srv.ChatRequests()) != 1 {
			t.Fatalf("result %+v", res)
		}
	})
}

func TestCompaction(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		h := newHarness(t, kind, []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("r", "Read", `{"path":"big.txt"}`)}},
			{Text: "SUMMARY: the user asked about big.txt; it was read."},
			{Text: "Here is the answer."},
		})
		h.writeFile("big.txt", strings.Repeat("lorem ipsum dolor sit amet\n", 800))
		if err := h.settings.Update(func(s *config.Settings) error {
			s.Providers[0].ContextWindow = 6000
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		id := h.session(ModeDefault)
		res := h.run(id, "summarise big.txt")
		if res.Reason != EndDone || res.Text != "Here is the answer." {
			t.Fatalf("result %+v", res)
		}
		comps := logged[sessions.Compaction](h, id, sessions.EventCompaction)
		if len(comps) != 1 || !strings.Contains(comps[0].Summary, "SUMMARY") || comps[0].TokensBefore <= comps[0].TokensAfter {
			t.Fatalf("compaction %+v", comps)
		}
		reqs := h.srv.ChatRequests()
		if len(reqs) != 3 {
			t.Fatalf("%d requests", len(reqs))
		}
		mustContain(t, "the summary request", requestText(reqs[1]), "lorem ipsum", "summary")
		last := requestText(reqs[2])
		mustContain(t, "the request after compaction", last, "SUMMARY", "summarise big.txt")
		if strings.Contains(last, "lorem ipsum") {
			t.Error("the compacted history still carries the original tool output")
		}
		// The originals stay in the log.
		if results := logged[sessions.ToolResult](h, id, sessions.EventToolResult); len(results) != 1 || !strings.Contains(results[0].Content, "lorem") {
			t.Error("the original tool result is gone from the log")
		}
	})
}

// TestCompactionThroughBackgroundModel: an agent with a background model
// has its history summarised by that model, and the call's usage is logged
// under it; the session's own calls stay on its model.
func TestCompactionThroughBackgroundModel(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		h := newHarness(t, kind, []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("r", "Read", `{"path":"big.txt"}`)}},
			{Text: "SUMMARY: big.txt was read."},
			{Text: "Here is the answer."},
		})
		h.writeFile("big.txt", strings.Repeat("lorem ipsum dolor sit amet\n", 800))
		if err := h.settings.Update(func(s *config.Settings) error {
			s.Providers[0].ContextWindow = 6000
			s.Agents = []config.Agent{{Name: "default", BackgroundModel: "bg-model"}}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		id := h.session(ModeDefault)
		if res := h.run(id, "summarise big.txt"); res.Reason != EndDone || res.Text != "Here is the answer." {
			t.Fatalf("result %+v", res)
		}
		if comps := logged[sessions.Compaction](h, id, sessions.EventCompaction); len(comps) != 1 {
			t.Fatalf("compactions %+v", comps)
		}
		reqs := h.srv.ChatRequests()
		if len(reqs) != 3 {
			t.Fatalf("%d requests", len(reqs))
		}
		if reqs[1].Body["model"] != "bg-model" {
			t.Errorf("the summary ran on %v, want the background model", reqs[1].Body["model"])
		}
		if reqs[0].Body["model"] != "test-model" || reqs[2].Body["model"] != "test-model" {
			t.Errorf("the session's calls must stay on its model: %v, %v", reqs[0].Body["model"], reqs[2].Body["model"])
		}
		found := false
		for _, u := range logged[sessions.Usage](h, id, sessions.EventUsage) {
			found = found || u.Model == "bg-model"
		}
		if !found {
			t.Error("the summary's usage was not logged under the background model")
		}
	})
}

func TestInteractiveApproval(t *testing.T) {
	h := newHarness(t, "openai", []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{call("e", "Bash", `{"command":"sudo ls"}`)}},
		{Text: "ok"},
	}, interactive())
	id := h.session(ModeDefault)
	if err := h.engine.Send(id, "list"); err != nil {
		t.Fatal(err)
	}
	// Wait for the question as the UI would: by its event.
	deadline := time.Now().Add(10 * time.Second)
	var asked []sessions.ApprovalAsked
	for len(asked) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
		asked = logged[sessions.ApprovalAsked](h, id, sessions.EventApprovalAsked)
	}
	if p := h.engine.Pending(id); len(p) != 1 || p[0] != "e" {
		t.Fatalf("once asked, the call must be pending: %v", p)
	}
	if len(asked) != 1 || len(asked[0].Warnings) == 0 || !strings.Contains(strings.Join(asked[0].Warnings, " "), "sudo") {
		t.Fatalf("approval.asked without the shell guard's warning: %+v", asked)
	}
	if err := h.engine.Answer(id, "nope", ApprovalAnswer{Decision: AllowOnce}); err == nil {
		t.Error("answering an unknown call succeeded")
	}
	if err := h.engine.Answer(id, "e", ApprovalAnswer{Decision: Deny, Reason: "no sudo"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.engine.Wait(ctx, id); err != nil {
		t.Fatal(err)
	}
	mustContain(t, "the request after the denial", requestText(h.srv.ChatRequests()[1]), "no sudo")
}

func TestProviderMissingIsAClearError(t *testing.T) {
	h := newHarness(t, "openai", nil)
	h.settings.Update(func(s *config.Settings) error { s.Providers = nil; s.DefaultProvider = ""; return nil })
	id := h.session(ModeDefault)
	res := h.run(id, "hello?")
	if res.Reason != EndError || !strings.Contains(res.Err, "no model provider is set up") {
		t.Fatalf("result %+v", res)
	}
	if msgs := logged[sessions.UserMessage](h, id, sessions.EventUserMessage); len(msgs) != 1 {
		t.Error("the user's message was lost")
	}
}

// TestCompactionKeepsTheCurrentMessage: compaction is triggered by the
// input size the provider reported (not by counting bytes), summarises the
// history before the turn's message without showing it that message, and
// sends the message word for word after the summary.
func TestCompactionKeepsTheCurrentMessage(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		h := newHarness(t, kind, []llmtest.Turn{
			// A small exchange that the provider says filled most of the window.
			{Text: "first answer", Usage: &llmtest.Usage{Input: 5000, Output: 10}},
			{Text: "SUMMARY of the first exchange"},
			{Text: "second answer"},
		})
		if err := h.settings.Update(func(s *config.Settings) error { s.Providers[0].ContextWindow = 6000; return nil }); err != nil {
			t.Fatal(err)
		}
		id := h.session(ModeDefault)
		h.run(id, "first question")
		const current = "CURRENT-REQUEST: now do the second part exactly like this"
		if res := h.run(id, current); res.Reason != EndDone || res.Text != "second answer" {
			t.Fatalf("result %+v", res)
		}
		reqs := h.srv.ChatRequests()
		if len(reqs) != 3 {
			t.Fatalf("%d requests, want answer, summary, answer", len(reqs))
		}
		summaryReq, after := requestText(reqs[1]), requestText(reqs[2])
		mustContain(t, "the summary request", summaryReq, "first question", "first answer")
		if strings.Contains(summaryReq, "CURRENT-REQUEST") {
			t.Error("the turn's own message was given to the summary")
		}
		mustContain(t, "the request after compaction", after, "SUMMARY of the first exchange", current)
		if strings.Contains(after, "first answer") {
			t.Error("the compacted history still carries the old exchange")
		}
		if comps := logged[sessions.Compaction](h, id, sessions.EventCompaction); len(comps) != 1 || comps[0].TokensBefore < 5000 {
			t.Errorf("compaction %+v: TokensBefore should start from the reported 5000", comps)
		}
	})
}

// TestCompactionThatCannotFit: a message too large for the window even
// with nothing else fails before any model call, saying what to do.
func TestCompactionThatCannotFit(t *testing.T) {
	h := newHarness(t, "openai", []llmtest.Turn{{Text: "never sent"}})
	if err := h.settings.Update(func(s *config.Settings) error { s.Providers[0].ContextWindow = 6000; return nil }); err != nil {
		t.Fatal(err)
	}
	id := h.session(ModeDefault)
	res := h.run(id, strings.Repeat("a pasted log line that is far too long ", 1500))
	if res.Reason != EndError || !strings.Contains(res.Err, "does not fit the model's context window") || !strings.Contains(res.Err, "Shorten your message") {
		t.Fatalf("result %+v", res)
	}
	if n := len(h.srv.ChatRequests()); n != 0 {
		t.Errorf("%d requests sent that could not fit", n)
	}
}

// TestStalledStreamIsARetryableError: a model that stops sending ends the
// turn after the settings' stall timeout with the "stalled" kind, which
// the UI shows as something to send again, and keeps what arrived.
func TestStalledStreamIsARetryableError(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		// Spare copies: a stall before the first word (a loaded machine) is
		// retried, and the retry must stall the same way.
		hang := llmtest.Turn{Text: "thinking about it", Hang: true}
		h := newHarness(t, kind, []llmtest.Turn{hang, hang, hang})
		if err := h.settings.Update(func(s *config.Settings) error { s.StallTimeoutSeconds = 1; return nil }); err != nil {
			t.Fatal(err)
		}
		id := h.session(ModeDefault)
		res := h.run(id, "answer slowly")
		if res.Reason != EndError || !strings.Contains(res.Err, "sent nothing for 1s") {
			t.Fatalf("result %+v", res)
		}
		if errs := logged[sessions.Error](h, id, sessions.EventError); len(errs) != 1 || errs[0].Kind != "stalled" {
			t.Errorf("error events %+v", errs)
		}
		if msgs := logged[sessions.AssistantMessage](h, id, sessions.EventAssistantMessage); len(msgs) != 1 || !msgs[0].Partial {
			t.Errorf("the partial answer was not kept: %+v", msgs)
		}
	})
}
