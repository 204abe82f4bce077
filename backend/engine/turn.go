package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"tinyelf/backend/config"
	"tinyelf/backend/llm"
	"tinyelf/backend/sessions"
	"tinyelf/backend/tools"
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
	ws       *tools.Workspace
	usage    llm.Usage

	logMu     sync.Mutex
	logErr    error              // the turn's first failed log write
	stopCalls context.CancelFunc // cancels the running tool calls
	unlogged  []sessions.Event   // tool results a failed write left out
	clashes   []string           // tool-name clashes to report (refreshTools)

	userText string // the message that started the turn
	userSeq  int64  // its seq in the log (0 until logged)
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

func (e *Engine) runTurn(ctx context.Context, s *sessionState, text string) TurnResult {
	// Results an earlier turn could not log come first: those calls ran.
	s.mu.Lock()
	first := s.unlogged
	s.unlogged = nil
	s.mu.Unlock()
	first = append(first, sessions.NewEvent(sessions.EventUserMessage, sessions.UserMessage{Text: text}))
	t, err := e.prepare(ctx, s)
	if err != nil {
		// The user message is still logged so nothing they typed is lost.
		if t.record(ctx, first...) != nil {
			t.unlogged = first[:len(first)-1]
		}
		return t.fail(ctx, "config", "", 0, err)
	}
	t.userText = text
	logged, err := t.recordLogged(ctx, append(first, sessions.NewEvent(sessions.EventTurnStart, sessions.TurnStart{Mode: string(t.info.Mode)}))...)
	if err != nil {
		t.unlogged = first[:len(first)-1]
		return t.fail(ctx, "internal", "", 0, logFailed(err))
	}
	t.userSeq = logged[len(first)-1].Seq
	maxIter := t.agent.MaxIterations
	if maxIter <= 0 {
		maxIter = DefaultMaxIterations
	}
	var lastText string
	for iter := 1; ; iter++ {
		if ctx.Err() != nil {
			return t.end(ctx, EndCancelled, lastText, iter-1, nil)
		}
		if iter > maxIter {
			return t.end(ctx, EndMaxIterations, lastText, iter-1,
				fmt.Errorf("stopped after %d model calls (the agent's maxIterations); send a message to let it continue", maxIter))
		}
		t.refreshTools(ctx)
		if err := t.reportClashes(ctx); err != nil {
			return t.fail(ctx, "internal", lastText, iter, logFailed(err))
		}
		if err := t.recordVisibleSet(ctx); err != nil {
			return t.fail(ctx, "internal", lastText, iter, err)
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
			kind := "provider"
			var stall *llm.StallError
			switch {
			case errors.As(err, &stall):
				kind = "stalled" // the UI offers to send again
			case errors.Is(err, llm.ErrStreamCut):
				kind = "stream_cut"
			}
			return t.fail(ctx, kind, lastText, iter, err)
		}
		if err := t.logAssistant(ctx, resp, false); err != nil {
			return t.fail(ctx, "internal", lastText, iter, err)
		}
		lastText = resp.Text
		if len(resp.ToolCalls) == 0 {
			return t.end(ctx, EndDone, lastText, iter, nil)
		}
		results := t.runCalls(ctx, resp.ToolCalls)
		if err := t.logFailure(); err != nil {
			return t.fail(ctx, "internal", lastText, iter, logFailed(err))
		}
		for _, r := range results {
			if r.Name == "SessionsYield" && !r.IsError {
				msg, _ := r.Meta[tools.YieldMetaKey].(string)
				return t.end(ctx, EndYield, msg, iter, nil)
			}
		}
	}
}

// prepare loads the session, its settings, provider and tool registry.
func (e *Engine) prepare(ctx context.Context, s *sessionState) (*turn, error) {
	t := &turn{e: e, s: s, settings: e.settings()}
	info, err := e.opts.Log.Info(ctx, s.id)
	if err != nil {
		return t, err
	}
	t.info = info
	agent, ok := t.settings.Agent(info.Agent)
	if !ok {
		agent, _ = t.settings.Agent("default")
	}
	t.agent = agent
	pc, ok := t.settings.Provider(info.Provider)
	if !ok {
		return t, errors.New("no model provider is set up: add one in Settings → Providers (or set OPENAI_API_KEY / ANTHROPIC_API_KEY)")
	}
	if info.Model != "" {
		pc.Model = info.Model
	}
	if pc.Model == "" {
		return t, fmt.Errorf("provider %s has no model selected: pick one in Settings → Providers", pc.Name)
	}
	if pc.StallTimeoutSeconds <= 0 {
		pc.StallTimeoutSeconds = int(t.settings.StallTimeout() / time.Second)
	}
	t.provCfg = pc
	if t.provider, err = e.opts.Providers(pc); err != nil {
		return t, fmt.Errorf("set up provider %s: %w", pc.Name, err)
	}
	sess, err := t.registry()
	if err != nil {
		return t, err
	}
	t.reg, t.ws = sess.Registry, sess.Workspace
	s.mu.Lock()
	loaded := s.loaded
	s.mu.Unlock()
	if !loaded {
		visible, err := e.opts.Log.LastVisible(ctx, s.id)
		if err != nil {
			return t, err
		}
		s.mu.Lock()
		s.visible, s.loaded = visible, true
		s.mu.Unlock()
	}
	return t, nil
}

// registry returns the session's tool registry, building it when the
// session is new or its workspace, mode or agent changed.
func (t *turn) registry() (*Session, error) {
	web := t.e.webTools(t.settings)
	key := strings.Join([]string{t.info.Workspace, string(t.info.Mode), t.agent.Name, fmt.Sprint(t.settings.Restricted(), t.settings.ExecTimeout()), web.fingerprint()}, "\x00")
	s := t.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reg != nil && s.regKey == key {
		return s.reg, nil
	}
	if s.reg != nil {
		s.reg.Close()
	}
	s.withExtras, s.extras = nil, nil
	built, err := BuildRegistry(BuildOptions{
		Workspace:    t.info.Workspace,
		Unrestricted: !t.settings.Restricted(),
		Mode:         t.info.Mode,
		ExecTimeout:  t.settings.ExecTimeout(),
		AllowedTools: t.agent.AllowedTools,
		Notifier:     t.e.opts.Notifier,
		Web:          web,
		Middleware:   []tools.Middleware{t.e.permissionMiddleware(s)},
		Environ:      func() []string { return ChildEnviron(t.e.settings()) },
		Children:     t.e.opts.Children,
		Reads:        s.reads,
	})
	if err != nil {
		return nil, err
	}
	s.reg, s.regKey = built, key
	return built, nil
}

// refreshTools adds the tool sources' current tools to the session's
// built-in registry, reusing the last result while the sources offer the
// same tools. The seed's builder order is kept: the sources' tools (step 10)
// come before the control tools (step 12).
func (t *turn) refreshTools(ctx context.Context) {
	var extras []tools.Tool
	for _, src := range t.e.opts.ToolSources {
		extras = append(extras, src.Tools(ctx, t.info)...)
	}
	s := t.s
	s.mu.Lock()
	defer s.mu.Unlock()
	base := s.reg.Registry
	switch {
	case len(extras) == 0:
		t.reg = base
		return
	case s.withExtras != nil && sameTools(s.extras, extras):
		t.reg = s.withExtras
		return
	}
	reg := base.FilteredFunc(func(i tools.Info) bool { return !controlTools[i.Name] })
	var clashes []string
	for _, tool := range extras {
		info := tool.Info()
		if t.info.Mode == ModePlan && !info.ReadOnly {
			continue
		}
		if len(t.agent.AllowedTools) > 0 && !slices.Contains(t.agent.AllowedTools, info.Name) && !agentAllowsMCP(t.agent.AllowedTools, info) {
			continue
		}
		if base.Has(info.Name) || errors.Is(reg.Register(tool), tools.ErrDuplicateTool) {
			clashes = append(clashes, clashMessage(reg, info))
		}
		// A tool with a bad schema is left out, not fatal.
	}
	for _, n := range base.Names() {
		if tool, ok := base.Get(n); ok && controlTools[n] {
			_ = reg.Register(tool)
		}
	}
	s.withExtras, s.extras = reg, extras
	t.reg = reg
	if !slices.Equal(clashes, s.clashes) {
		s.clashes, t.clashes = clashes, clashes
	}
}

// clashMessage explains a tool left out because its name was taken.
func clashMessage(reg *tools.Registry, lost tools.Info) string {
	from := func(i tools.Info) string {
		switch {
		case i.Source == tools.SourceMCP && i.Origin != "":
			return "MCP server " + i.Origin
		case i.Origin != "":
			return string(i.Source) + " " + i.Origin
		}
		return "a " + string(cmp.Or(i.Source, tools.SourceLocal)) + " tool"
	}
	kept, _ := reg.Info(lost.Name)
	return fmt.Sprintf("Two tools are named %s (from %s and %s); the second is left out. Rename one of the servers (Settings → MCP) so that both can be used.",
		lost.Name, from(kept), from(lost))
}

// reportClashes logs the tool-name clashes the last refreshTools found,
// once for each change of them, so the user learns why a tool is missing.
func (t *turn) reportClashes(ctx context.Context) error {
	if len(t.clashes) == 0 {
		return nil
	}
	msg := strings.Join(t.clashes, "\n")
	t.clashes = nil
	return t.record(ctx, sessions.NewEvent(sessions.EventError, sessions.Error{Message: msg, Kind: "tool_clash"}))
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

// controlTools are step 12 of the builder, registered last.
var controlTools = map[string]bool{"Notify": true, "SessionsYield": true}

// agentAllowsMCP lets an allowedTools entry "mcp__server" (or "mcp__*")
// admit every tool of that server.
func agentAllowsMCP(allowed []string, info tools.Info) bool {
	if info.Source != tools.SourceMCP {
		return false
	}
	for _, a := range allowed {
		if a == "mcp__*" || (strings.HasPrefix(a, "mcp__") && strings.HasPrefix(info.Name, a+"__")) {
			return true
		}
	}
	return false
}

// recordVisibleSet logs a capability.diff when the tools the model will see
// differ from those it saw on the previous model call.
func (t *turn) recordVisibleSet(ctx context.Context) error {
	now := t.reg.Names()
	t.s.mu.Lock()
	prev := t.s.visible
	t.s.mu.Unlock()
	var added, removed []string
	for _, n := range now {
		if !slices.Contains(prev, n) {
			added = append(added, n)
		}
	}
	for _, n := range prev {
		if !slices.Contains(now, n) {
			removed = append(removed, n)
		}
	}
	if prev != nil && len(added) == 0 && len(removed) == 0 {
		return nil
	}
	reasons := diffReasons(prev, added, removed, t.info.Mode, t.agent)
	if err := t.e.record(ctx, t.s.id, sessions.NewEvent(sessions.EventCapabilityDiff, sessions.CapabilityDiff{
		Added: added, Removed: removed, Reasons: reasons, Visible: now,
	})); err != nil {
		return err
	}
	t.s.mu.Lock()
	t.s.visible = now
	t.s.mu.Unlock()
	return nil
}

// request assembles the model call.
func (t *turn) request(msgs []llm.Message) llm.Request {
	defs := t.reg.Definitions()
	toolDefs := make([]llm.ToolDef, len(defs))
	for i, d := range defs {
		toolDefs[i] = llm.ToolDef{Name: d.Function.Name, Description: d.Function.Description, Parameters: d.Function.Parameters}
	}
	return llm.Request{
		Model:    t.provCfg.Model,
		System:   systemPrompt(t.info, t.agent, t.ws, t.e.opts.Now()),
		Messages: msgs,
		Tools:    toolDefs,
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
		return t.e.record(ctx, t.s.id, sessions.NewEvent(sessions.EventAssistantMessage, msg))
	}
	usage := sessions.Usage{
		Model: model, InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens,
		CacheReadTokens: resp.Usage.CacheReadTokens, CacheWriteTokens: resp.Usage.CacheWriteTokens,
		CostUSD: Cost(model, resp.Usage),
	}
	msg.Usage = &usage
	return t.e.record(ctx, t.s.id,
		sessions.NewEvent(sessions.EventAssistantMessage, msg),
		sessions.NewEvent(sessions.EventUsage, usage),
	)
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
	if r := runFrom(ctx); r != nil && r.abandoned.Load() {
		// Cancel gave up on this turn and logged its end: what it left
		// unsaved stays out of the next turn.
		return t.end(ctx, EndCancelled, text, iterations, nil)
	}
	t.logMu.Lock()
	evs := append(t.unlogged, sessions.NewEvent(sessions.EventError, sessions.Error{Message: err.Error(), Kind: kind}))
	t.unlogged = nil
	t.logMu.Unlock()
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
	res := TurnResult{Reason: reason, Text: text, Iterations: iterations, Usage: t.usage}
	msg := ""
	if err != nil {
		res.Err = err.Error()
		msg = err.Error()
	}
	if reason == EndYield {
		msg = text
	}
	if r := runFrom(ctx); r != nil && r.abandoned.Load() {
		return res // the user stopped it long ago; Cancel logged its end
	}
	if lerr := t.e.record(ctx, t.s.id, sessions.NewEvent(sessions.EventTurnEnd, sessions.TurnEnd{Reason: reason, Iterations: iterations, Message: msg})); lerr != nil {
		lerr = logFailed(lerr)
		if reason != EndError {
			t.e.live(t.s.id, LiveTurnError, map[string]any{"kind": "internal", "message": lerr.Error(), "logError": lerr.Error()})
			res.Reason, res.Err, reason, msg = EndError, lerr.Error(), EndError, lerr.Error()
		}
	}
	if n := t.e.opts.Notices; n != nil {
		nctx := context.WithoutCancel(ctx)
		switch reason {
		case EndError, EndMaxIterations:
			_ = n.TurnFailed(nctx, withTitle("TinyElf stopped", t.info.Title), tools.CutUTF8(msg, 200), t.e.opts.Background)
		case EndCancelled:
			// The user stopped it; they know.
		default:
			_ = n.TurnEnded(nctx, withTitle("TinyElf finished", t.info.Title), tools.CutUTF8(text, 200), t.e.opts.Background)
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

// diffReasons explains a change of the visible tool set.
func diffReasons(prev, added, removed []string, mode Mode, agent config.Agent) []string {
	var reasons []string
	if prev == nil {
		reasons = append(reasons, fmt.Sprintf("session opened in %s mode", mode))
		if mode == ModePlan {
			reasons = append(reasons, "plan mode shows only read-only tools")
		}
		if len(agent.AllowedTools) > 0 {
			reasons = append(reasons, fmt.Sprintf("agent %s allows only %s", agent.Name, strings.Join(agent.AllowedTools, ", ")))
		}
	}
	servers := func(names []string) []string {
		var out []string
		for _, n := range names {
			if rest, ok := strings.CutPrefix(n, "mcp__"); ok {
				srv, _, _ := strings.Cut(rest, "__")
				if !slices.Contains(out, srv) {
					out = append(out, srv)
				}
			}
		}
		return out
	}
	if prev != nil {
		for _, srv := range servers(added) {
			reasons = append(reasons, fmt.Sprintf("MCP server %s offers tools", srv))
		}
		for _, srv := range servers(removed) {
			reasons = append(reasons, fmt.Sprintf("MCP server %s no longer offers some tools (disconnected, failed or changed its list)", srv))
		}
		local := func(names []string) bool {
			return slices.ContainsFunc(names, func(n string) bool { return !strings.HasPrefix(n, "mcp__") })
		}
		if local(added) || local(removed) {
			reasons = append(reasons, fmt.Sprintf("tool set rebuilt for %s mode", mode))
		}
	}
	return reasons
}
