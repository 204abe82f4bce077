package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"tinyelf/backend/capabilities"
	"tinyelf/backend/config"
	"tinyelf/backend/hooks"
	"tinyelf/backend/llm"
	"tinyelf/backend/sessions"
	"tinyelf/backend/tools"
	"tinyelf/backend/web"
)

// runCalls runs the model's tool calls and returns their results in the
// model's order. Consecutive read-only calls run in parallel, and so do
// consecutive spawn_agent calls (each child a session of its own, at most
// SubagentLimits.Parallel at once); any other call runs alone, in order, so
// writes never race each other or the reads around them. The log records
// intents and results in the model's order too, so the history the model
// sees next is the order it asked in.
//
// A log write that fails stops the calls (see turn.record): no call runs
// whose intent is not logged, waiting approvals are withdrawn, and results
// that could not be logged are kept for fail to try once more. The caller
// checks t.logFailure before going on.
func (t *turn) runCalls(ctx context.Context, calls []llm.ToolCall) []tools.CallResult {
	callCtx, stop := context.WithCancel(ctx)
	defer stop()
	t.logMu.Lock()
	t.stopCalls = stop
	t.logMu.Unlock()
	results := make([]tools.CallResult, len(calls))
	for i := 0; i < len(calls); {
		j := i + 1
		bound := 0 // how many of the batch run at once (0: all)
		switch {
		case t.readOnly(calls[i].Name):
			for j < len(calls) && t.readOnly(calls[j].Name) {
				j++
			}
		case calls[i].Name == spawnAgentName:
			for j < len(calls) && calls[j].Name == spawnAgentName {
				j++
			}
			bound = t.e.subagents.limits.Parallel
		}
		if t.logIntents(ctx, calls[i:j]) != nil {
			return results[:i]
		}
		var wg sync.WaitGroup
		var slots chan struct{}
		if bound > 0 {
			slots = make(chan struct{}, bound)
		}
		for k := i; k < j; k++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if slots != nil {
					select {
					case slots <- struct{}{}:
						defer func() { <-slots }()
					case <-callCtx.Done():
					}
				}
				results[k] = t.execute(callCtx, calls[k])
			}()
		}
		wg.Wait()
		t.noteResults(ctx, results[i:j], i == 0)
		t.noteGrants(results[i:j])
		t.logResults(ctx, results[i:j])
		if t.logFailure() != nil || t.leftOpenNote() != "" {
			// (TinyElf closes with an approval left open: the calls after
			// it run when the turn is taken up again.)
			return results[:j]
		}
		i = j
	}
	return results
}

func (t *turn) readOnly(name string) bool {
	info, ok := t.reg.Info(name)
	return ok && info.ReadOnly
}

// logIntents logs that a batch of calls is about to run, in one write
// (the first batch's goes out with the answer that made the calls).
func (t *turn) logIntents(ctx context.Context, calls []llm.ToolCall) error {
	evs := make([]sessions.Event, 0, len(calls))
	for _, c := range calls {
		if t.intended[c.ID] {
			continue // a turn taken up again: logged before TinyElf closed
		}
		evs = append(evs, sessions.NewEvent(sessions.EventToolIntent, sessions.ToolIntent{CallID: c.ID, Name: c.Name, Arguments: c.Arguments}))
	}
	if len(evs) == 0 {
		return nil
	}
	return t.record(ctx, evs...)
}

// execute runs one call through the registry, whose middleware is the
// permission gate.
func (t *turn) execute(ctx context.Context, c llm.ToolCall) tools.CallResult {
	if ctx.Err() != nil {
		return tools.CallResult{CallID: c.ID, Name: c.Name, IsError: true,
			Content: "The user stopped the agent before this call ran.\n\n" + tools.ErrorHint}
	}
	// The visibility step: a tool the model was not shown this call is
	// refused with an observation that says how to get it, not run.
	res, standing := t.visibility(ctx, c)
	if standing == standRefused {
		return res
	}
	callCtx := tools.WithProgress(ctx, func(msg string) {
		t.e.live(t.s.id, LiveToolProgress, map[string]any{"callId": c.ID, "message": msg})
	})
	callCtx = capabilities.WithSearcher(callCtx, t)
	// An MCP server's elicitation or sampling request reaches the user on
	// this call's card.
	callCtx = tools.WithAsker(callCtx, newCallAsker(t, c.ID, c.Name))
	res = t.reg.Execute(withTurn(callCtx, t), c.ID, c.Name, json.RawMessage(c.Arguments))
	if standing == standDenied {
		// A call to a tool a deny rule hides is as invalid as one to a
		// tool that is not there.
		res.Invalid = true
	}
	return res
}

// logResults logs a batch's results in one write. Results that cannot be
// logged (or come after a failed write) are kept in t.unlogged: the calls
// ran, and the next write that works must say so, or the model would later
// read "interrupted" for them.
func (t *turn) logResults(ctx context.Context, results []tools.CallResult) {
	evs := make([]sessions.Event, 0, len(results)+1)
	for _, res := range results {
		if t.isLeftOpen(res.CallID) {
			continue // its approval is asked again on reopen
		}
		evs = append(evs, sessions.NewEvent(sessions.EventToolResult, sessions.ToolResult{
			CallID: res.CallID, Name: res.Name, Content: res.Content, IsError: res.IsError, Truncated: res.Truncated,
			Meta: res.Meta, DurationMs: res.Duration.Milliseconds(),
		}))
	}
	// The files the calls read and wrote go with their results.
	evs = t.withMarks(evs)
	if len(evs) == 0 || t.logFailure() == nil && t.record(ctx, evs...) == nil {
		return
	}
	t.logMu.Lock()
	t.unlogged = append(t.unlogged, evs...)
	t.logMu.Unlock()
}

type turnKey struct{}

func withTurn(ctx context.Context, t *turn) context.Context {
	return context.WithValue(ctx, turnKey{}, t)
}

func turnFrom(ctx context.Context) *turn {
	t, _ := ctx.Value(turnKey{}).(*turn)
	return t
}

// permissionMiddleware is the permission step of the tool pipeline: deny
// rules, the mode, SAFE_TOOLS, allow rules, and otherwise the user. A
// denial is returned to the model as an error result it can read.
func (e *Engine) permissionMiddleware(s *sessionState) tools.Middleware {
	return func(next tools.Handler) tools.Handler {
		return func(ctx context.Context, call *tools.Call) (tools.Result, error) {
			t := turnFrom(ctx)
			mode := ModeDefault
			wsDir := ""
			var as tools.Assessment
			if t != nil {
				mode = t.info.Mode
				wsDir = t.info.Workspace
				if tool, ok := t.reg.Get(call.Name); ok {
					if a, ok := tool.(tools.Assessor); ok {
						as = a.Assess(call.Params)
					} else if insp, ok := tool.(tools.Inspector); ok {
						as.Warnings = insp.Warnings(call.Params)
					}
				}
			}
			v := decide(mode, call.Info, call.Params, e.rules(), as, wsDir)
			if v.allow && v.by == "safe" && mustAsk(ctx, t, call) != "" {
				// A Safe tool says this call needs approval (WebFetch of a
				// local address): an allow rule or the user decides.
				v = verdict{}
				if used, ok := matchAllow(e.rules(), call.Name, call.Params, wsDir); ok {
					v = verdict{allow: true, by: "rule", rule: used}
				}
			}
			// A PreToolUse hook's word: ask forces the question even where
			// the mode or a rule allows; allow skips it where the user would
			// be asked. Neither beats a denial (deny rules, plan mode, the
			// shell guard) or a call the guard holds for a person.
			hd := hookDecisionFrom(ctx)
			// A call whose approval was asked before TinyElf closed is
			// decided by the user's answer to it, unless a refusal comes
			// first.
			revived := t.wasAsked(call.ID)
			switch {
			case v.deny || v.hold != "":
			case hd.decision == hooks.Ask:
				v = verdict{}
				if r := strings.TrimSpace(hd.reason); r != "" {
					as.Warnings = append(as.Warnings, "A PreToolUse hook asks you to approve this: "+r)
				} else {
					as.Warnings = append(as.Warnings, "A PreToolUse hook asks you to approve this call.")
				}
			case hd.decision == hooks.Allow && !v.allow:
				v = verdict{allow: true, by: "hook"}
			}
			if revived && !v.deny {
				v = verdict{hold: v.hold, by: v.by}
			}
			switch {
			case v.deny && v.by == "guard":
				if err := e.answered(ctx, s.id, call.ID, Deny, v.reason, "", v.by); err != nil {
					return tools.Result{}, err
				}
				return tools.Result{Content: v.reason, IsError: true, Meta: map[string]any{"denied": true}}, nil
			case v.deny:
				if err := e.answered(ctx, s.id, call.ID, Deny, v.reason, v.rule, v.by); err != nil {
					return tools.Result{}, err
				}
				return tools.Errorf("Permission denied for %s: %s. Do not retry this call; choose another approach or ask the user.", call.Name, v.reason), nil
			case v.allow:
				if v.by == "rule" || v.by == "hook" {
					// A call the audit trail does not show must not run.
					if err := e.answered(ctx, s.id, call.ID, AllowOnce, "", v.rule, v.by); err != nil {
						return tools.Result{}, err
					}
				}
				if v.by != "safe" {
					ctx = web.WithApproval(ctx)
				}
				return next(ctx, call)
			}
			if t != nil && t.directID != "" && call.ID == t.directID {
				// The person asked for exactly this call: that is the
				// approval (deny rules and the guard's refusals came first).
				if err := e.answered(ctx, s.id, call.ID, AllowOnce, "", "", "cli"); err != nil {
					return tools.Result{}, err
				}
				return next(web.WithApproval(ctx), call)
			}
			if rule, ok := t.grantAllows(call); ok && v.hold == "" && hd.decision != hooks.Ask && !revived {
				// A skill or command the turn loaded pre-approved it.
				if err := e.answered(ctx, s.id, call.ID, AllowOnce, "", rule, "skill"); err != nil {
					return tools.Result{}, err
				}
				return next(web.WithApproval(ctx), call)
			}
			var d, reason string
			var err error
			if !revived { // the user's answer to the old card decides
				d, reason, err = e.permissionRequestHooks(ctx, s, call, v.hold, wsDir)
			}
			switch {
			case err != nil:
				return tools.Result{}, err
			case d == hooks.Deny:
				return tools.Errorf("A PermissionRequest hook denied this call to %s: %s Do not repeat the same call.", call.Name, reason), nil
			case d == hooks.Allow:
				return next(web.WithApproval(ctx), call)
			}
			ans, err := e.ask(ctx, s, call, as, v.hold, wsDir)
			if err != nil {
				return tools.Result{}, fmt.Errorf("waiting for approval: %w", err)
			}
			switch ans.Decision {
			case AllowOnce, AllowAlways:
				return next(web.WithApproval(ctx), call)
			default:
				msg := fmt.Sprintf("The user denied this call to %s.", call.Name)
				if r := strings.TrimSpace(ans.Reason); r != "" {
					msg += " Their reason: " + r
				}
				if v.hold != "" {
					msg += " TinyElf held it for approval because it cannot be checked: " + v.hold
				}
				return tools.Errorf("%s Do not repeat the same call; adjust your approach to what the user said.", msg), nil
			}
		}
	}
}

func (e *Engine) rules() []config.Rule {
	if e.opts.Settings == nil {
		return nil
	}
	return e.opts.Settings.Rules()
}

// ask logs the approval request, waits for the answer, persists "always"
// rules and logs the answer. A held call (hold set) gets no rule: it is
// asked about every time.
func (e *Engine) ask(ctx context.Context, s *sessionState, call *tools.Call, as tools.Assessment, hold, wsDir string) (ApprovalAnswer, error) {
	var rules []config.Rule
	suggestion := ""
	if hold == "" {
		rules = suggestRules(call.Name, call.Params, wsDir)
		if call.Name == "Bash" {
			suggestion = describeRules(rules)
		}
	}
	req := ApprovalRequest{
		SessionID: s.id, CallID: call.ID, Tool: call.Name, Arguments: argsJSON(call.Params),
		Warnings: as.Warnings, Suggestion: suggestion, Hold: hold,
		OnceOnly: onceOnlyReason(call.Name, call.Params, wsDir, rules, hold),
	}
	t := turnFrom(ctx)
	given, revived := t.revivedAnswer(call.ID)
	wait := func(ctx context.Context) (ApprovalAnswer, error) { return askUntilDone(ctx, e.opts.Approver, req) }
	switch {
	case given != nil:
		wait = func(context.Context) (ApprovalAnswer, error) { return *given, nil }
	case e.opts.Approver == nil:
		wait = e.expectAnswer(s, req)
	}
	if revived {
		// Asked before TinyElf closed: the card in the log stands.
	} else if err := e.recordFor(ctx, s.id, sessions.NewEvent(sessions.EventApprovalAsked, sessions.ApprovalAsked{
		CallID: req.CallID, Name: req.Tool, Arguments: req.Arguments, Warnings: req.Warnings, Suggestion: req.Suggestion,
		Held: hold != "", OnceOnly: req.OnceOnly,
	})); err != nil {
		// The UI never saw the question: nobody may wait for its answer.
		s.mu.Lock()
		delete(s.pending, req.CallID)
		s.mu.Unlock()
		return ApprovalAnswer{}, fmt.Errorf("ask for approval: %w", err)
	}
	ans, err := wait(ctx)
	if err != nil {
		if e.keepsOpen(t, req) {
			t.leaveOpen(call.ID, call.Name) // asked again when the session is reopened
			return ApprovalAnswer{}, err
		}
		_ = e.answered(ctx, s.id, call.ID, Deny, "the turn was stopped before an answer", "", "cancel")
		return ApprovalAnswer{}, err
	}
	rule := ""
	if ans.Decision == AllowAlways && req.OnceOnly != "" {
		// Nothing can be saved: say so in the audit trail instead of
		// recording an "always" that will ask again next time.
		ans.Decision = AllowOnce
		ans.Reason = strings.TrimSpace("allowed once (\"always\" is not possible: " + req.OnceOnly + ") " + ans.Reason)
	}
	if ans.Decision == AllowAlways && e.opts.Settings != nil && len(rules) > 0 {
		var saved []config.Rule
		for _, r := range rules {
			sr, rerr := e.opts.Settings.AddRule(r)
			if rerr != nil {
				ans.Reason = "allowed once; saving the rule failed: " + rerr.Error()
				break
			}
			saved = append(saved, sr)
		}
		rule = describeRules(saved)
	}
	by := "user"
	if e.opts.Approver != nil {
		by = "cli"
	}
	if err := e.answered(ctx, s.id, call.ID, ans.Decision, ans.Reason, rule, by); err != nil {
		return ApprovalAnswer{}, err
	}
	return ans, nil
}

// askUntilDone asks approver and returns its answer, or ctx's error as soon
// as ctx ends even if the approver does not return (a prompt waiting on a
// terminal), so a cancel never waits for the user.
func askUntilDone(ctx context.Context, approver Approver, req ApprovalRequest) (ApprovalAnswer, error) {
	type answer struct {
		ans ApprovalAnswer
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		a, err := approver.Ask(ctx, req)
		ch <- answer{a, err}
	}()
	select {
	case a := <-ch:
		return a.ans, a.err
	case <-ctx.Done():
		return ApprovalAnswer{}, ctx.Err()
	}
}

func (e *Engine) answered(ctx context.Context, sessionID, callID string, d Decision, reason, rule, by string) error {
	return e.recordFor(ctx, sessionID, sessions.NewEvent(sessions.EventApprovalAnswered, sessions.ApprovalAnswered{
		CallID: callID, Decision: string(d), Reason: reason, Rule: rule, By: by,
	}))
}

// recordFor logs events for a call in progress: through its turn, when ctx
// carries one, so that a failed write stops the turn.
func (e *Engine) recordFor(ctx context.Context, sessionID string, evs ...sessions.Event) error {
	if t := turnFrom(ctx); t != nil && t.s.id == sessionID {
		return t.record(ctx, evs...)
	}
	return e.record(ctx, sessionID, evs...)
}
