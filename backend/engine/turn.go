package engine

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"

	"tinyelf/backend/capabilities"
	"tinyelf/backend/config"
	"tinyelf/backend/hooks"
	"tinyelf/backend/llm"
	"tinyelf/backend/sessions"
	"tinyelf/backend/tools"
	"tinyelf/backend/tools/agent"
	"tinyelf/backend/tools/fs"
)

// DefaultMaxIterations bounds the model calls of one turn.
const DefaultMaxIterations = 50

// Turn end reasons.
const (
	EndDone          = "done"
	EndYield         = "yield"
	EndMaxIterations = "max_iterations"
	EndCancelled     = "cancelled"
	EndError         = "error"
)

// TurnResult is how a turn ended.
type TurnResult struct {
	Reason     string    `json:"reason"`
	Text       string    `json:"text"` // the final assistant text (or the yield message)
	Iterations int       `json:"iterations"`
	Usage      llm.Usage `json:"usage"`
	Err        string    `json:"error,omitempty"`
	// Tool is the result of a direct call's turn (TurnOptions.Direct).
	Tool *tools.CallResult `json:"tool,omitempty"`
}

// turn is the state of one running turn.
type turn struct {
	e        *Engine
	s        *sessionState
	info     SessionInfo
	settings config.Settings
	agent    config.Agent
	provider llm.Provider
	provCfg  config.Provider
	reg      *tools.Registry
	ws       *fs.Workspace
	usage    llm.Usage
	// depth is how deep the session nests below a top-level one (0: it is
	// one; 1: a top-level session's subagent).
	depth int
	// sub is the run this turn does for a parent session, nil otherwise.
	sub *subRun

	// Capability discovery: this call's visible set, and the policy
	// inputs the turn gathers (the task, the project, the latest results).
	vs          *capabilities.VisibleSet
	directID    string     // the call a person made themselves this turn (TurnOptions.Direct)
	loadMu      sync.Mutex // serializes loading deferred tools called by name
	task        string
	project     []capabilities.ProjectType
	observation string

	logMu     sync.Mutex
	logErr    error              // the turn's first failed log write
	stopCalls context.CancelFunc // cancels the running tool calls
	unlogged  []sessions.Event   // tool results a failed write left out

	// held are the records of the model call under way (its capability
	// diff, its model.request), written with the next event.
	held []sessions.Event

	system, systemKey string // the turn's system prompt, and what it was made for
	frame             frameEstimate

	userText string // the message that started the turn
	userSeq  int64  // its seq in the log (0 until logged; a resumed turn's: the last one's)
	resume   string // Input.Resume of the turn

	// grants are the allowed-tools skills and commands granted this turn.
	grants turnGrants
	// What durable.go keeps for a session opened from the log: the last
	// turn's unfinished business (nil unless the engine did not hold the
	// session); and, for a turn taken up again (ResumeApproval), the calls
	// whose intents are logged already and the approvals asked before,
	// with the user's answer (nil: still to come). leftOpen are the
	// approvals left open as TinyElf closes, by call ID (the tool's name).
	open     *sessions.OpenTurn
	intended map[string]bool
	revived  map[string]*ApprovalAnswer
	leftOpen map[string]string
	// hooks are the user's hooks for this turn.
	hooks hookState
}

// record logs events for this turn. A write that fails stops the turn: the
// running tool calls are cancelled (waiting approvals withdrawn) and the
// loop ends with the error, because going on would show the model and the
// UI a history the log does not hold.
func (t *turn) record(ctx context.Context, evs ...sessions.Event) error {
	_, err := t.recordLogged(ctx, evs...)
	return err
}

// recordLogged is record returning the events as logged (with their seqs).
func (t *turn) recordLogged(ctx context.Context, evs ...sessions.Event) ([]sessions.Event, error) {
	if held := t.takeHeld(); len(held) > 0 {
		// The model call's records go out with the next write (the answer
		// or the error), saving transactions per model call.
		logged, err := t.recordLogged(ctx, append(held, evs...)...)
		if len(logged) >= len(held) {
			logged = logged[len(held):]
		}
		return logged, err
	}
	logged, err := t.e.recordLogged(ctx, t.s.id, evs...)
	if err != nil {
		t.logMu.Lock()
		if t.logErr == nil {
			t.logErr = err
			if t.stopCalls != nil {
				t.stopCalls()
			}
		}
		t.logMu.Unlock()
	}
	return logged, err
}

// logFailure returns the turn's first failed log write, if any.
func (t *turn) logFailure() error {
	t.logMu.Lock()
	defer t.logMu.Unlock()
	return t.logErr
}

// runInput runs a turn started by in: a user message (with its
// attachments), or a resumed turn with none; opts are what a typed slash
// command asks of it. The user's hooks run first: SessionStart for the
// session's first turn here, UserPromptSubmit for the message (which may
// refuse it: it is then never sent, nor part of the conversation).
func (e *Engine) runInput(ctx context.Context, s *sessionState, in Input, opts TurnOptions) TurnResult {
	text := in.Text
	// Results an earlier turn could not log come first: those calls ran.
	s.mu.Lock()
	first := s.unlogged
	s.unlogged = nil
	s.mu.Unlock()
	hasUser := in.Resume == ""
	started := len(in.started) > 0 // user.message and turn.start logged with the session
	var userMsg []sessions.Event
	if hasUser && !started {
		userMsg = []sessions.Event{sessions.NewEvent(sessions.EventUserMessage, sessions.UserMessage{Text: text, Attachments: in.Attachments})}
	}
	t, err := e.prepare(ctx, s, started, opts.Direct != nil)
	t.task = text
	t.resume = in.Resume
	if err == nil {
		err = t.loadHooks(ctx)
	}
	if err != nil {
		// The user message is still logged so nothing they typed is lost.
		if evs := append(first, userMsg...); len(evs) > 0 && t.record(ctx, evs...) != nil {
			t.unlogged = first
		}
		return t.fail(ctx, "config", "", 0, err)
	}
	if !hasUser {
		t.task, t.userSeq = e.lastUserMessage(ctx, s.id)
	}
	t.userText = t.task
	if started {
		t.userSeq = in.started[0].Seq
		if len(first) > 0 {
			if err := t.record(ctx, first...); err != nil {
				t.unlogged = first
				return t.fail(ctx, "internal", "", 0, logFailed(err))
			}
		}
		return t.loop(ctx, opts)
	}
	// unlogged results, what an earlier run left waiting (expired, unless
	// this turn takes it up), SessionStart's runs, the message,
	// UserPromptSubmit's runs, turn.start: one write. A turn taken up
	// again runs SessionStart with the next turn: its calls' results must
	// follow the answer that made them.
	evs := first
	if in.revive == nil {
		evs = append(append(evs, t.expireLeftOpen()...), t.sessionStartHooks(ctx)...)
	}
	if hasUser {
		after, refusal := t.promptHooks(ctx, text)
		if refusal != "" {
			evs = append(append(evs, after...), sessions.NewEvent(sessions.EventTurnStart, sessions.TurnStart{Mode: string(t.info.Mode)}))
			if err := t.record(ctx, evs...); err != nil {
				t.unlogged = first
				return t.fail(ctx, "internal", "", 0, logFailed(err))
			}
			return t.end(ctx, EndBlocked, "", 0, errors.New(refusal))
		}
		userMsg = append(userMsg, after...)
	}
	userAt := len(evs)
	evs = append(append(evs, userMsg...), sessions.NewEvent(sessions.EventTurnStart, sessions.TurnStart{Mode: string(t.info.Mode), Resume: in.Resume}))
	logged, err := t.recordLogged(ctx, evs...)
	if err != nil {
		t.unlogged = first
		return t.fail(ctx, "internal", "", 0, logFailed(err))
	}
	if hasUser {
		t.userSeq = logged[userAt].Seq
	}
	if in.revive != nil {
		if err := t.applyTurnOptions(ctx, opts); err != nil {
			return t.fail(ctx, "internal", "", 0, logFailed(err))
		}
		if res, over := t.takeUp(ctx, in.revive); over {
			return res
		}
		return t.iterate(ctx, opts, "")
	}
	return t.loop(ctx, opts)
}

// loop runs the turn's model calls and tool calls, once its start is
// logged, until it ends.
func (t *turn) loop(ctx context.Context, opts TurnOptions) TurnResult {
	if err := t.applyTurnOptions(ctx, opts); err != nil {
		return t.fail(ctx, "internal", "", 0, logFailed(err))
	}
	return t.iterate(ctx, opts, "")
}

// iterate is the loop's model calls and tool calls, after what starts
// the turn; lastText is the answer so far.
func (t *turn) iterate(ctx context.Context, opts TurnOptions, lastText string) TurnResult {
	e, s := t.e, t.s
	maxIter := t.agent.MaxIterations
	if t.sub != nil && t.sub.maxIterations > 0 {
		maxIter = t.sub.maxIterations // spawn_agent's maxIterations, for the turn it started
	}
	if maxIter <= 0 {
		maxIter = DefaultMaxIterations
	}
	for iter := 1; ; iter++ {
		if ctx.Err() != nil {
			return t.end(ctx, EndCancelled, lastText, iter-1, nil)
		}
		if iter > maxIter {
			return t.end(ctx, EndMaxIterations, lastText, iter-1,
				fmt.Errorf("stopped after %d model calls (the agent's maxIterations); send a message to let it continue", maxIter))
		}
		// The skill folders the file tools reach can change within a turn
		// (a skill installed or trusted): the registry follows.
		sess, err := t.registry()
		if err != nil {
			return t.fail(ctx, "internal", lastText, iter, err)
		}
		t.ws = sess.Workspace
		if err := t.discover(ctx); err != nil {
			return t.fail(ctx, "internal", lastText, iter, err)
		}
		if opts.Direct != nil {
			return t.direct(ctx, *opts.Direct)
		}
		msgs, err := e.opts.Log.ModelMessages(ctx, s.id)
		if err != nil {
			return t.fail(ctx, "internal", lastText, iter, err)
		}
		req := t.request(msgs)
		if req, err = t.maybeCompact(ctx, req); err != nil {
			if ctx.Err() != nil {
				return t.end(ctx, EndCancelled, lastText, iter, nil)
			}
			return t.fail(ctx, "internal", lastText, iter, err)
		}
		t.logRequest(iter, req)
		resp, err := t.provider.Stream(ctx, req, t.onStream)
		if resp != nil {
			t.usage = t.usage.Add(resp.Usage)
		}
		if err == nil {
			t.noteCall(req, resp.Usage)
		}
		if err != nil {
			if resp != nil && (resp.Text != "" || len(resp.ToolCalls) > 0) {
				_ = t.logAssistant(ctx, resp, true)
			}
			if ctx.Err() != nil {
				return t.end(ctx, EndCancelled, lastText, iter, nil)
			}
			// The kind names what failed (connection refused, a refused
			// key, a cut stream...), so the error card can say it plainly.
			return t.fail(ctx, llm.ErrorKind(err), lastText, iter, err)
		}
		if len(resp.ToolCalls) == 0 {
			answer := t.assistantEvents(resp, false)
			if t.hooks.set.Has(hooks.Stop) || t.hooks.set.Has(hooks.SubagentStop) {
				// The answer is logged first, so the hooks' transcript has it.
				if err := t.record(ctx, answer...); err != nil {
					return t.fail(ctx, "internal", resp.Text, iter, logFailed(err))
				}
				var goOn bool
				if answer, goOn = t.stopHooks(ctx); goOn {
					// A Stop hook blocked: the model reads why and goes on.
					if err := t.record(ctx, answer...); err != nil {
						return t.fail(ctx, "internal", resp.Text, iter, logFailed(err))
					}
					lastText = resp.Text
					continue
				}
			}
			// The answer and the turn's end go out in one write.
			res := t.endWith(ctx, EndDone, resp.Text, iter, nil, answer)
			if res.Reason == EndDone && t.titleWorthy(resp.Text) {
				e.nameSession(t, resp.Text)
			}
			return res
		}
		// The answer goes out with the first write of its calls (their
		// intents): a failure there stops the turn as below.
		t.hold(t.assistantEvents(resp, false)...)
		lastText = resp.Text
		results := t.runCalls(ctx, resp.ToolCalls)
		if res, over := t.afterCalls(ctx, results, lastText, iter); over {
			return res
		}
	}
}

// afterCalls ends the turn when its calls say so: a failed log write, a
// hook's stop, a yield. over reports that it did.
func (t *turn) afterCalls(ctx context.Context, results []tools.CallResult, lastText string, iter int) (res TurnResult, over bool) {
	if err := t.logFailure(); err != nil {
		return t.fail(ctx, "internal", lastText, iter, logFailed(err)), true
	}
	if reason, stop := t.hooks.stopRequested(); stop {
		msg := "a hook stopped the agent"
		if reason != "" {
			msg += ": " + reason
		}
		return t.end(ctx, EndBlocked, lastText, iter, errors.New(msg)), true
	}
	for _, r := range results {
		if r.Name == "SessionsYield" && !r.IsError {
			msg, _ := r.Meta[agent.YieldMetaKey].(string)
			return t.end(ctx, EndYield, msg, iter, nil), true
		}
	}
	return TurnResult{}, false
}

// prepare loads the session, its settings, provider and tool registry.
// created says the session was just created with the turn's start (a
// subagent's): its log holds nothing to restore. noModel says the turn
// makes no model call (a direct call): a provider that is missing or
// cannot be set up is left out instead of failing the turn.
func (e *Engine) prepare(ctx context.Context, s *sessionState, created, noModel bool) (*turn, error) {
	t := &turn{e: e, s: s, settings: e.settings()}
	info, err := e.opts.Log.Info(ctx, s.id)
	if err != nil {
		return t, err
	}
	t.info = info
	if info.Parent != "" {
		depth, root, err := e.subagents.ancestry(ctx, info)
		if err != nil {
			return t, err
		}
		t.depth = depth
		e.subagents.setLineage(s.id, info.Parent, root)
		t.sub = e.subagents.active(s.id)
	}
	agent, ok := t.settings.Agent(info.Agent)
	if !ok {
		agent, _ = t.settings.Agent(config.DefaultAgent)
	}
	t.agent = agent
	if err := t.setProvider(); err != nil && !noModel {
		return t, err
	}
	sess, err := t.registry()
	if err != nil {
		return t, err
	}
	t.reg, t.ws = sess.Registry, sess.Workspace
	t.project = capabilities.DetectProject(info.Workspace)
	s.mu.Lock()
	fresh := s.discovery.disc == nil
	s.mu.Unlock()
	// A session without messages has had no turn to log capabilities in
	// (a new one, a subagent's): there is nothing to read back.
	if fresh && info.Messages > 0 && !created {
		// A session reopened from the log keeps what the model saw, and
		// its next diff is against that, not against nothing.
		last, err := t.restoreDurable(ctx)
		if err != nil {
			return t, err
		}
		if last.Logged {
			s.discoveryState().Restore(last.Visible)
			s.mu.Lock()
			s.discovery.baseline = &last
			s.mu.Unlock()
		}
		s.mu.Lock()
		s.discovery.problems = last.ToolSkipped
		s.mu.Unlock()
	}
	return t, nil
}

// registry returns the session's tool registry, building it when the
// session is new or its workspace, mode or agent changed.
func (t *turn) registry() (*Session, error) {
	web := t.e.webTools(t.settings)
	sk := t.sessionSkills()
	var readable []fs.Root
	if sk != nil {
		readable = SkillRoots(sk.Library, t.info.Workspace)
	}
	// The agent picks the extra folders (RootSource) the workspace reaches.
	key := strings.Join([]string{t.info.Workspace, t.info.Agent, fmt.Sprint(t.settings.Restricted(), t.settings.ExecTimeout()), web.fingerprint(),
		fmt.Sprintf("%p", libraryOf(sk)), rootsKey(readable)}, "\x00")
	s := t.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reg != nil && s.regKey == key {
		return s.reg, nil
	}
	if s.reg != nil {
		s.reg.Close()
	}
	// Every tool is built: the discovery policy hides what the mode and
	// the agent's profile do not allow, and says why.
	var roots []fs.Root
	for _, src := range t.e.opts.ToolSources {
		if rs, ok := src.(RootSource); ok {
			roots = append(roots, rs.Roots(t.info)...)
		}
	}
	roots = append(roots, readable...)
	built, err := BuildRegistry(BuildOptions{
		Workspace:    t.info.Workspace,
		Unrestricted: !t.settings.Restricted(),
		ExecTimeout:  t.settings.ExecTimeout(),
		Notifier:     t.e.opts.Notifier,
		Web:          web,
		Environ:      func() []string { return ChildEnviron(t.e.settings()) },
		Children:     t.e.opts.Children,
		Reads:        s.reads,
		Roots:        roots,
		Skills:       sk,
		Spawner:      t.e.subagents,
		Sessions:     sessionTools{t.e},
		Schemas:      t.e.schemas,
	})
	if err != nil {
		return nil, err
	}
	s.reg, s.regKey = built, key
	return built, nil
}

// setProvider sets up the session's model provider.
func (t *turn) setProvider() error {
	pc, ok := t.settings.Provider(t.info.Provider)
	if !ok {
		return errors.New("no model provider is set up: add one in Settings → Providers (or set OPENAI_API_KEY / ANTHROPIC_API_KEY)")
	}
	if t.info.Model != "" {
		pc.Model = t.info.Model
	}
	if pc.Model == "" {
		return fmt.Errorf("provider %s has no model selected: pick one in Settings → Providers", pc.Name)
	}
	if pc.StallTimeoutSeconds <= 0 {
		pc.StallTimeoutSeconds = int(t.settings.StallTimeout() / time.Second)
	}
	p, err := t.e.opts.Providers(pc)
	if err != nil {
		return fmt.Errorf("set up provider %s: %w", pc.Name, err)
	}
	t.provCfg, t.provider = pc, p
	return nil
}

// sameTools reports whether two lists hold the same tool values. A tool of a
// type that cannot be compared (a struct holding a map) counts as changed,
// which only costs a rebuild, where == would panic.
func sameTools(a, b []tools.Tool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !reflect.TypeOf(a[i]).Comparable() || a[i] != b[i] {
			return false
		}
	}
	return true
}

// request assembles the model call.
func (t *turn) request(msgs []llm.Message) llm.Request {
	// The system prompt is made once a turn (again only if the workspace's
	// roots or the date change): the same prefix every call keeps the
	// provider's prompt cache, and listing the workspace costs a read.
	now := t.e.opts.Now()
	if key := fmt.Sprintf("%p|%s", t.ws, now.Format(time.DateOnly)); key != t.systemKey {
		t.system, t.systemKey = systemPrompt(t.info, t.agent, t.ws, t.project, now), key
	}
	system := t.system
	if idx := t.vs.IndexText(); idx != "" {
		// After the stable part, so a change of the index leaves the tools'
		// and the prompt's cached prefix intact.
		system += "\n" + idx
	}
	msgs = withoutImages(msgs, t.provCfg)
	if t.resume != "" {
		msgs = continueNudge(msgs)
	}
	return llm.Request{
		Model:    t.provCfg.Model,
		System:   system,
		Messages: msgs,
		Tools:    t.definitions(),
	}
}

func (t *turn) onStream(ev llm.StreamEvent) {
	switch ev.Type {
	case llm.EventText:
		t.e.live(t.s.id, LiveMessageDelta, map[string]any{"text": ev.Text})
	case llm.EventToolCallDelta:
		t.e.live(t.s.id, LiveToolCallDelta, map[string]any{"index": ev.Index, "id": ev.ID, "name": ev.Name, "arguments": ev.Text})
	case llm.EventRetry:
		t.e.live(t.s.id, LiveRetry, map[string]any{"delayMs": ev.Delay.Milliseconds(), "error": ev.Err})
	}
}

func (t *turn) logAssistant(ctx context.Context, resp *llm.Response, partial bool) error {
	return t.record(ctx, t.assistantEvents(resp, partial)...)
}

// assistantEvents are the log records of a model answer: the message, and
// its usage when the provider reported one. A partial answer (cut off by an
// error) keeps its text but not its tool calls.
func (t *turn) assistantEvents(resp *llm.Response, partial bool) []sessions.Event {
	calls := make([]sessions.ToolCallRecord, len(resp.ToolCalls))
	for i, c := range resp.ToolCalls {
		calls[i] = sessions.ToolCallRecord{ID: c.ID, Name: c.Name, Arguments: c.Arguments}
	}
	if partial {
		calls = nil // never run, so never shown to the model as made
	}
	model := resp.Model
	if model == "" {
		model = t.provCfg.Model
	}
	msg := sessions.AssistantMessage{Text: resp.Text, ToolCalls: calls, Model: model, StopReason: string(resp.StopReason), Partial: partial}
	// A response cut off before the provider reported usage has none; a
	// zero would read as an empty context.
	if resp.Usage == (llm.Usage{}) {
		return []sessions.Event{sessions.NewEvent(sessions.EventAssistantMessage, msg)}
	}
	usage := sessions.Usage{
		Model: model, InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens,
		CacheReadTokens: resp.Usage.CacheReadTokens, CacheWriteTokens: resp.Usage.CacheWriteTokens,
		CostUSD: Cost(model, resp.Usage),
	}
	msg.Usage = &usage
	return []sessions.Event{
		sessions.NewEvent(sessions.EventAssistantMessage, msg),
		sessions.NewEvent(sessions.EventUsage, usage),
	}
}

// logFailed explains a failed log write to the user.
func logFailed(err error) error {
	return fmt.Errorf("the turn was stopped because the session history could not be saved (is the disk full or the data folder read-only?): %w", err)
}

// fail logs an error event (after any tool results a failed write left
// out, which get one more try) and ends the turn with it. When even that
// write fails, the error goes out as a live LiveTurnError event, the
// results are kept for the session's next turn, and the TurnResult says it.
func (t *turn) fail(ctx context.Context, kind, text string, iterations int, err error) TurnResult {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		// A step that failed because the turn was stopped (reading the
		// history, asking a source) is the stop, not a failure.
		return t.end(ctx, EndCancelled, text, iterations, nil)
	}
	if r := runFrom(ctx); r != nil && r.abandoned.Load() {
		// Cancel gave up on this turn and logged its end: what it left
		// unsaved stays out of the next turn.
		return t.end(ctx, EndCancelled, text, iterations, nil)
	}
	t.logMu.Lock()
	evs := append(t.unlogged, sessions.NewEvent(sessions.EventError, sessions.Error{Message: err.Error(), Kind: kind}))
	t.unlogged = nil
	t.logMu.Unlock()
	evs = append(t.takeHeld(), evs...)
	if lerr := t.e.record(ctx, t.s.id, evs...); lerr != nil {
		t.s.mu.Lock()
		t.s.unlogged = append(evs[:len(evs)-1:len(evs)-1], t.s.unlogged...)
		t.s.mu.Unlock()
		t.e.live(t.s.id, LiveTurnError, map[string]any{"kind": kind, "message": err.Error(), "logError": lerr.Error()})
		if t.logFailure() == nil {
			err = fmt.Errorf("%w (and the error could not be saved either: %v)", err, lerr)
		}
	}
	return t.end(ctx, EndError, text, iterations, err)
}

// end logs the end of the turn, tells the user and returns the result. A
// turn.end that cannot be logged turns the result into an error, sent live
// as well.
func (t *turn) end(ctx context.Context, reason, text string, iterations int, err error) TurnResult {
	return t.endWith(ctx, reason, text, iterations, err, nil)
}

// endWith is end writing first (the final answer) in the same transaction
// as turn.end, after the model.request record still pending, if any.
func (t *turn) endWith(ctx context.Context, reason, text string, iterations int, err error, first []sessions.Event) TurnResult {
	res := TurnResult{Reason: reason, Text: text, Iterations: iterations, Usage: t.usage}
	msg := ""
	if err != nil {
		res.Err = err.Error()
		msg = err.Error()
	}
	if reason == EndYield {
		msg = text
	}
	if note := t.leftOpenNote(); note != "" && reason == EndCancelled {
		msg = note
	}
	if r := runFrom(ctx); r != nil && r.abandoned.Load() {
		return res // the user stopped it long ago; Cancel logged its end
	}
	evs := t.withMarks(append(t.takeHeld(), first...))
	evs = append(evs, sessions.NewEvent(sessions.EventTurnEnd, sessions.TurnEnd{Reason: reason, Iterations: iterations, Message: msg}))
	if r := runFrom(ctx); r != nil {
		r.ending.Store(true) // before turn.end is out: whoever sees it may send at once
	}
	if lerr := t.e.record(ctx, t.s.id, evs...); lerr != nil {
		lerr = logFailed(lerr)
		if reason != EndError {
			t.e.live(t.s.id, LiveTurnError, map[string]any{"kind": "internal", "message": lerr.Error(), "logError": lerr.Error()})
			res.Reason, res.Err, reason, msg = EndError, lerr.Error(), EndError, lerr.Error()
		}
	}
	if t.sub == nil || t.sub.background {
		// A foreground subagent's end is its parent's business: the parent
		// goes on, and its own end is what the user hears of.
		n := t.e.opts.Notices
		nctx := context.WithoutCancel(ctx)
		stopped, finished, background := "TinyElf stopped", "TinyElf finished", t.e.opts.Background
		if t.sub != nil {
			stopped, finished, background = "TinyElf's subagent stopped", "TinyElf's subagent finished", true
		}
		switch reason {
		case EndError, EndMaxIterations, EndBlocked:
			title, body := withTitle(stopped, t.info.Title), tools.CutUTF8(msg, 200)
			if n != nil {
				_ = n.TurnFailed(nctx, title, body, background)
			}
			t.turnNotifyHooks(hooks.NotifyIdle, title, notifyText(title, body))
		case EndCancelled:
			// The user stopped it; they know.
		default:
			title, body := withTitle(finished, t.info.Title), tools.CutUTF8(text, 200)
			if n != nil {
				_ = n.TurnEnded(nctx, title, body, background)
			}
			t.turnNotifyHooks(hooks.NotifyIdle, title, notifyText(title, body))
		}
	}
	return res
}

func withTitle(prefix, title string) string {
	if title == "" {
		return prefix
	}
	return prefix + ": " + title
}

// notifyText is a Notification hook's message: the notice's text, or its
// title when it has none.
func notifyText(title, body string) string {
	if body = strings.TrimSpace(body); body == "" {
		return title
	}
	return body
}
