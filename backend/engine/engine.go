package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"tinyelf/backend/proc"
	agenttools "tinyelf/backend/tools/agent"
	"tinyelf/backend/tools/fs"
	"tinyelf/backend/web"

	"tinyelf/backend/capabilities"
	"tinyelf/backend/config"
	"tinyelf/backend/hooks"
	"tinyelf/backend/llm"
	"tinyelf/backend/sessions"
	"tinyelf/backend/tools"
	"tinyelf/backend/usertools"
)

// Live event types: published to the UI but not logged (the log keeps the
// assembled message instead of its deltas).
const (
	LiveMessageDelta  = "message.delta"   // {"text": "..."}
	LiveToolCallDelta = "tool_call.delta" // {"index", "id", "name", "arguments"}
	LiveToolProgress  = "tool.progress"   // {"callId", "message"}
	LiveRetry         = "llm.retry"       // {"delayMs", "error"}
	LiveTurnState     = "turn.state"      // {"running": bool}
	// LiveTurnError carries an error that ended a turn but could not be
	// logged (the session log refused the write): {"kind", "message",
	// "logError"}. The UI shows it, since no logged error event will.
	LiveTurnError = "turn.error"
)

// Event is what the engine tells its listeners: every logged event (Seq >
// 0) and the live-only ones above (Seq 0).
type Event struct {
	SessionID string `json:"sessionId"`
	// ParentID and RootID are set on a subagent's events: the session that
	// spawned it, and the top-level session above them all (whose window
	// shows the subagent's approvals).
	ParentID string          `json:"parentId,omitempty"`
	RootID   string          `json:"rootId,omitempty"`
	Seq      int64           `json:"seq,omitempty"`
	Type     string          `json:"type"`
	Time     time.Time       `json:"time"`
	Data     json.RawMessage `json:"data"`
}

// SessionInfo is what the engine needs to know about a session.
type SessionInfo struct {
	ID        string
	Workspace string
	Agent     string
	Mode      Mode
	Provider  string
	Model     string
	Title     string
	// Parent and ParentCallID link a subagent's session to its parent;
	// Inherited (never nil for a subagent) are the tools the parent passed
	// on, Background whether it was started in the background.
	Parent       string
	ParentCallID string
	Inherited    []string
	Background   bool
	// Titled is set when the session has a title of the user's or one a
	// model wrote; Branch on an edit-and-resend branch; Messages counts
	// its user and assistant messages so far.
	Titled   bool
	Branch   bool
	Messages int
}

// SessionLog is the engine's view of the session store.
type SessionLog interface {
	// CreateSession starts a session's log and returns its ID.
	CreateSession(ctx context.Context, c sessions.SessionCreated) (string, error)
	// Append logs events in one transaction and returns them with their
	// sequence numbers and times.
	Append(ctx context.Context, sessionID string, events ...sessions.Event) ([]sessions.Event, error)
	// Info returns a session's settings as logged.
	Info(ctx context.Context, sessionID string) (SessionInfo, error)
	// ModelMessages returns the conversation as the model sees it (the log
	// projected, compactions applied).
	ModelMessages(ctx context.Context, sessionID string) ([]llm.Message, error)
	// LastSeq returns the sequence number of the session's newest event.
	LastSeq(ctx context.Context, sessionID string) (int64, error)
	// LastCapabilities returns the visible set the log last recorded, so a
	// reopened session diffs against what its model saw.
	LastCapabilities(ctx context.Context, sessionID string) (sessions.CapabilityState, error)
	// ListSessions returns sessions, most recently updated first (the
	// SessionsList tool).
	ListSessions(ctx context.Context, limit, offset int) ([]agenttools.SessionSummary, error)
}

// ProviderFactory makes a provider from its settings.
type ProviderFactory func(p config.Provider) (llm.Provider, error)

// Notices tells the user about things that happened while they were away
// (notify.Policy). Errors are ignored: a notification is never worth
// failing a turn for.
type Notices interface {
	TurnEnded(ctx context.Context, title, summary string, background bool) error
	TurnFailed(ctx context.Context, title, reason string, background bool) error
	ApprovalWaiting(ctx context.Context, title, tool string, background bool) error
}

// ToolSource offers tools beyond the built-in ones (MCP servers, user
// tools). The engine asks before every model call, so tools that appear or
// vanish (a server connecting or crashing) are seen at the next call and
// logged as a capability.diff.
type ToolSource interface {
	Tools(ctx context.Context, info SessionInfo) []tools.Tool
}

// SessionReleaser is implemented by a ToolSource that holds resources per
// session (MCP server processes, in-process connections). The engine calls
// Release when it drops an idle session from memory (IdleTimeout after its
// last turn, or when more than MaxIdleSessions sessions are idle), never
// while the session runs a turn, and no turn of that session starts until
// Release returns; the source builds the resources again if the session
// comes back. Release must be safe for concurrent use.
type SessionReleaser interface {
	Release(sessionID string)
}

// CapabilitySource offers catalog entries for one session: skills of its
// workspace, resources of its own servers. The engine asks before every
// model call and replaces the session's partition when the version the
// source returns changes (a cheap string: a content hash, a counter).
type CapabilitySource interface {
	Capabilities(ctx context.Context, info SessionInfo) (version string, entries []capabilities.Entry)
}

// ToolProblemSource is implemented by a ToolSource that leaves some of its
// tools out and can say why (a user tool named like a core tool, one that
// failed to load), one line each. The engine records the lines in the
// session's log as an error event of kind "tool_skipped" at the session's
// next model call, once for each change of them (a reopened session
// compares with the last such event in its log), so the user finds out
// why a tool is missing where they miss it — in the chat, its export and
// its replay — and not only in a live notice. ToolProblems is asked before
// every model call, so it must be cheap; it must be safe for concurrent use.
type ToolProblemSource interface {
	ToolProblems(ctx context.Context, info SessionInfo) []string
}

// RootSource is implemented by a ToolSource whose tools need the FileSystem
// tools to reach folders outside the workspace (the agent's personal tools
// folder, a skill's folder). The roots are asked for when the session's
// registry is built, which happens again when the agent changes.
type RootSource interface {
	Roots(info SessionInfo) []fs.Root
}

// Options configures an Engine.
type Options struct {
	Settings  *config.Store
	Log       SessionLog
	Providers ProviderFactory
	// Notifier backs the Notify tool; nil disables it.
	Notifier agenttools.Notifier
	// Notices is told about ended turns and waiting approvals; may be nil.
	Notices Notices
	// Sink receives every event; it must not block for long.
	Sink func(Event)
	// Approver answers approval requests. Nil means the interactive
	// approver: requests wait for Answer (the desktop and serve).
	Approver Approver
	// Background marks every turn as background work (tinyelf run), which
	// always notifies.
	Background bool
	// Now is the clock (tests fix it); nil means time.Now.
	Now func() time.Time
	// Getenv reads the environment for provider settings; nil means
	// os.Getenv.
	Getenv func(string) string
	// ToolSources add tools to every session (step 10 of the builder); the
	// engine puts them in the catalog as the session's own partitions.
	ToolSources []ToolSource
	// IdleTimeout is how long a session stays in memory after its last
	// turn (its tool registry, open workspace and the sources' per-session
	// resources) before it is released; 0 means DefaultIdleTimeout, a
	// negative value keeps sessions until MaxIdleSessions pushes them out.
	IdleTimeout time.Duration
	// Children starts the sessions' Bash commands and keeps them from
	// outliving TinyElf; nil runs each in a process group of its own
	// without recording it.
	Children *proc.Children
	// CapabilitySources add catalog entries of any kind to one session (a
	// workspace's project skills), as the session's own partitions.
	CapabilitySources []CapabilitySource
	// Skills gives sessions their workspace's skills and the skills tools
	// (steps 5, 6 and 9 of the builder); nil leaves them out.
	Skills *Skills
	// Catalog holds every capability; shared sources (the user's MCP
	// servers, skills, user tools) keep their partitions current in it. Nil
	// means an empty catalog of the engine's own, which then holds only the
	// sessions' tools.
	Catalog *capabilities.Catalog
	// Subagents bounds spawn_agent; zero fields take the defaults.
	Subagents SubagentLimits
	// Titles names each session after its first exchange with a short
	// title from the agent's background model (or the session's own),
	// logged as session.titled.
	Titles bool
	// Hooks runs the user's hooks (the settings' and trusted project
	// hooks) at the loop's points; nil runs none.
	Hooks *HookOptions
	// MCP gives sessions the MCP servers (step 10 of the builder, see
	// mcpsources.go); nil leaves them out.
	MCP *MCPOptions
	// UserTools gives each agent's sessions its user tools (seed 002);
	// nil leaves them out.
	UserTools *usertools.Service
}

// DefaultIdleTimeout is Options.IdleTimeout's default.
const DefaultIdleTimeout = 10 * time.Minute

// MaxIdleSessions bounds the idle sessions the engine keeps in memory; the
// least recently used ones beyond it are released.
const MaxIdleSessions = 16

// Engine runs agent turns. It is safe for concurrent use; each session runs
// at most one turn at a time.
type Engine struct {
	opts Options

	catalog *capabilities.Catalog
	// previewOnce builds the tools previews of unopened sessions use.
	previewOnce sync.Once
	previewErr  error

	mu       sync.Mutex
	sessions map[string]*sessionState // only sessions that ran a turn
	uses     int64                    // counts turns, for the LRU order
	// summaries is WebFetch's cache, shared by every session.
	summaries *web.SummaryCache
	// subagents runs spawn_agent's children and knows who spawned whom.
	subagents *SubagentManager
	// waiting are the approvals earlier runs left open (durable.go).
	waiting waitingApprovals
	// schemas are the tools' compiled parameter schemas, shared by every
	// session's registries; entries their catalog entries.
	schemas *tools.SchemaCache
	entries *entryCache
	// own are the tool sources the engine made from Options.MCP.
	own engineSources

	// Background work beside the turns (naming sessions) runs under bgCtx
	// and is counted in bgWork; Shutdown cancels and waits for it. bgMu
	// keeps a new job from starting once Shutdown began waiting.
	bgMu   sync.Mutex
	bgCtx  context.Context
	bgStop context.CancelFunc
	bgWork sync.WaitGroup
}

// sessionState is the engine's memory of one open session.
type sessionState struct {
	id string

	mu      sync.Mutex
	running bool
	cancel  context.CancelFunc
	done    chan struct{}
	cur     *turnRun // the running turn, nil when idle
	// reads is what the agent has read in this session, so that Write and
	// Edit refuse files it has not seen; it outlives registry rebuilds
	// (not the session's release from memory: the agent then reads again).
	reads *fs.ReadTracker
	// marks are the read marks made since they were last logged.
	marks  markBuffer
	reg    *Session
	regKey string
	// discovery is the session's capability-discovery state; disc is
	// created on first use, seeded from the log.
	discovery discovery
	pending   map[string]chan ApprovalAnswer // call ID → answer
	// unlogged are events a failed write left out (results of calls that
	// ran); the session's next turn logs them first.
	unlogged []sessions.Event
	lastCall *promptCall // the last model call's reported usage
	lastTurn TurnResult
	lastUsed int64       // Engine.uses at the end of its last turn
	idle     *time.Timer // releases the session after IdleTimeout
	// releasing is closed once the session's eviction is over; non-nil
	// marks a state that is being (or has been) dropped: look it up again.
	releasing chan struct{}

	// hooksStarted is set once SessionStart ran for the session in this
	// process; hookSet and hookBase are its last turn's hooks and their
	// common input, for SessionEnd; hookTrustNoted is the project hooks'
	// hash whose missing trust the log already told of.
	hooksStarted   bool
	hookSet        *hooks.Set
	hookBase       hooks.Input
	hookTrustNoted string
	// transcriptSeq is the seq of the newest message the hooks'
	// transcript holds and transcriptLines how many lines it has, once
	// this process wrote it (transcriptWritten).
	transcriptMu      sync.Mutex
	transcriptSeq     int64
	transcriptLines   int
	transcriptWritten bool
}

// evictable reports whether the state can be dropped; s.mu is held.
func (s *sessionState) evictable() bool {
	return !s.running && len(s.pending) == 0 && len(s.unlogged) == 0 && s.releasing == nil
}

// turnRun is one turn's handle, shared by the goroutine running it and
// whoever waits for it.
type turnRun struct {
	done   chan struct{} // closed once the turn has ended or was abandoned
	result TurnResult    // set before done closes
	// abandoned is set when Cancel gave up waiting for the turn: whatever
	// it still tries to log after that is dropped, so it cannot write into
	// the next turn.
	abandoned atomic.Bool
	// ending is set once the turn has logged its end: it only winds down
	// now, so a new turn waits for it instead of being refused as busy (a
	// client may send the next message as soon as it sees turn.end).
	ending atomic.Bool
}

type turnRunKey struct{}

func runFrom(ctx context.Context) *turnRun {
	r, _ := ctx.Value(turnRunKey{}).(*turnRun)
	return r
}

// cancelGrace is how long Cancel lets a turn wind down on its own (a tool
// returning its partial output, the cancel being logged) before it frees
// the session anyway.
const cancelGrace = 500 * time.Millisecond

// errAbandoned is what a write of an abandoned turn gets.
var errAbandoned = errors.New("the turn was stopped and left behind; nothing more is logged for it")

// ErrBusy is returned by Send when the session is already running a turn.
var ErrBusy = errors.New("the agent is still working on this session; wait for it or stop it first")

// New returns an engine.
func New(opts Options) *Engine {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Sink == nil {
		opts.Sink = func(Event) {}
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Providers == nil {
		opts.Providers = NewProvider
	}
	if opts.Catalog == nil {
		opts.Catalog = capabilities.NewCatalog()
	}
	e := &Engine{opts: opts, catalog: opts.Catalog, sessions: map[string]*sessionState{}, summaries: web.NewSummaryCache(opts.Now), schemas: tools.NewSchemaCache(), entries: newEntryCache()}
	e.withOwnSources()
	e.subagents = newSubagentManager(e, opts.Subagents)
	e.bgCtx, e.bgStop = context.WithCancel(context.Background())
	return e
}

// settings returns the current settings with providers from the
// environment added.
func (e *Engine) settings() config.Settings {
	return e.opts.Settings.Get().WithEnvironment(e.opts.Getenv)
}

// peek returns the session's state, or nil when the engine holds none (it
// never ran a turn here, or was released): the lookups that only read use
// it, so listing sessions adds nothing to memory.
func (e *Engine) peek(id string) *sessionState {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sessions[id]
}

// ErrUnknownAgent is wrapped by NewSession's error for an agent profile
// the settings do not have.
var ErrUnknownAgent = errors.New("no such agent profile")

// NewSession starts a session in a workspace and returns its ID. Empty
// fields take the defaults: the agent's profile (its permission mode,
// provider and model), then the settings'. An agent the settings do not
// have is refused (ErrUnknownAgent), naming the ones there are.
func (e *Engine) NewSession(ctx context.Context, workspace string, mode Mode, agent, provider, model string) (string, error) {
	st := e.settings()
	if agent == "" {
		agent = config.DefaultAgent
	}
	a, ok := st.Agent(agent)
	if !ok {
		return "", fmt.Errorf("%w %q: the agents are %s (Settings → Agents)", ErrUnknownAgent, agent, agentNames(st))
	}
	if mode == "" && a.PermissionMode != "" {
		if m, err := ParseMode(a.PermissionMode); err == nil {
			mode = m
		}
	}
	if mode == "" {
		m, err := ParseMode(st.Permissions.Mode)
		if err != nil {
			m = ModeDefault
		}
		mode = m
	}
	if provider == "" {
		provider = a.Provider
	}
	if model == "" {
		model = a.Model
	}
	if p, ok := st.Provider(provider); ok {
		provider = p.Name
		if model == "" {
			model = p.Model
		}
	}
	if _, err := fs.OpenWorkspace(workspace, false); err != nil {
		return "", err
	}
	return e.opts.Log.CreateSession(ctx, sessions.SessionCreated{
		Workspace: workspace, Agent: agent, Mode: string(mode), Provider: provider, Model: model,
	})
}

// agentNames lists the agent profiles for a message.
func agentNames(st config.Settings) string {
	var names []string
	for _, a := range st.AgentList() {
		names = append(names, a.Name)
	}
	return strings.Join(names, ", ")
}

// Send starts a turn on the session with the user's text and returns at
// once; the turn's events reach the Sink. It fails with ErrBusy while a
// turn runs.
func (e *Engine) Send(sessionID, text string) error {
	_, err := e.start(sessionID, text, TurnOptions{})
	return err
}

// SendWith is Send for a slash command the user typed: text is the
// rendered command, o what it asks of the turn.
func (e *Engine) SendWith(sessionID, text string, o TurnOptions) error {
	_, err := e.start(sessionID, text, o)
	return err
}

// Run runs a turn and waits for it to end. When ctx ends, the turn is
// cancelled, and Run returns within cancelGrace (and a little) whatever a
// tool is doing.
func (e *Engine) Run(ctx context.Context, sessionID, text string) (TurnResult, error) {
	return e.RunWith(ctx, sessionID, text, TurnOptions{})
}

// RunWith is Run for a slash command the user typed (see SendWith).
func (e *Engine) RunWith(ctx context.Context, sessionID, text string, o TurnOptions) (TurnResult, error) {
	run, err := e.start(sessionID, text, o)
	if err != nil {
		return TurnResult{}, err
	}
	return e.await(ctx, sessionID, run), nil
}

// start begins a turn and runs it in a goroutine of its own; the returned
// handle's done closes when it has ended.
func (e *Engine) start(sessionID, text string, o TurnOptions) (*turnRun, error) {
	return e.startInput(sessionID, Input{Text: text, Options: o})
}

// startInput is start for a whole Input.
func (e *Engine) startInput(sessionID string, in Input) (*turnRun, error) {
	s, run, ctx, err := e.begin(sessionID)
	if err != nil {
		return nil, err
	}
	go func() { e.finish(s, run, e.runInput(ctx, s, in, in.Options)) }()
	return run, nil
}

// await waits for a started turn, cancelling it when ctx ends.
func (e *Engine) await(ctx context.Context, sessionID string, run *turnRun) TurnResult {
	stop := context.AfterFunc(ctx, func() { e.Cancel(sessionID) })
	defer stop()
	<-run.done
	return run.result
}

// begin marks the session as running a turn, creating its state if the
// engine holds none. A state being released is waited for, then looked up
// afresh, so a turn never starts while the sources release the session.
func (e *Engine) begin(sessionID string) (*sessionState, *turnRun, context.Context, error) {
	for {
		e.mu.Lock()
		s, ok := e.sessions[sessionID]
		if !ok {
			s = newSessionState(sessionID)
			e.sessions[sessionID] = s
		}
		e.mu.Unlock()
		// The turn takes up or expires what an earlier run left open.
		e.waiting.forget(sessionID)
		s.mu.Lock()
		if wait := s.releasing; wait != nil {
			s.mu.Unlock()
			<-wait
			continue
		}
		if s.running {
			if cur := s.cur; cur != nil && cur.ending.Load() {
				s.mu.Unlock()
				<-cur.done
				continue
			}
			s.mu.Unlock()
			return nil, nil, nil, ErrBusy
		}
		if s.idle != nil {
			s.idle.Stop()
		}
		run := &turnRun{done: make(chan struct{})}
		ctx, cancel := context.WithCancel(context.WithValue(context.Background(), turnRunKey{}, run))
		s.running, s.cancel, s.done, s.cur = true, cancel, run.done, run
		s.mu.Unlock()
		e.live(sessionID, LiveTurnState, map[string]any{"running": true})
		return s, run, ctx, nil
	}
}

// finish ends run with res, unless Cancel already abandoned it (the session
// has moved on, and nothing of the old turn may touch it).
func (e *Engine) finish(s *sessionState, run *turnRun, res TurnResult) {
	s.mu.Lock()
	if s.cur != run {
		s.mu.Unlock()
		return
	}
	s.cur = nil // claimed: abandon leaves it alone now
	s.mu.Unlock()
	e.settle(s, run, res)
	e.live(s.id, LiveTurnState, map[string]any{"running": false, "reason": res.Reason})
	e.evictIdle()
	close(run.done) // last: whoever waits sees the turn fully wound up
}

// settle marks the session idle after run, with res as its last turn; the
// caller has claimed run (cleared s.cur).
func (e *Engine) settle(s *sessionState, run *turnRun, res TurnResult) {
	e.mu.Lock()
	e.uses++
	used := e.uses
	e.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.running = false
	s.cancel()
	// What the log leaves open may have changed with the turn: the next
	// Pending reads it again.
	e.waiting.forget(s.id)
	s.lastTurn = res
	s.lastUsed = used
	run.result = res
	if d := e.idleTimeout(); d > 0 {
		s.idle = time.AfterFunc(d, func() { e.evictIf(s, used) })
	}
}

// abandon frees the session from a cancelled turn that did not end within
// cancelGrace (a tool or a hook stuck where cancellation does not reach):
// the turn's end is logged for it, the session is idle again, and the old
// goroutine's late writes are dropped when it gets round to them.
func (e *Engine) abandon(s *sessionState, run *turnRun) {
	s.mu.Lock()
	if s.cur != run {
		s.mu.Unlock()
		return
	}
	run.abandoned.Store(true)
	s.cur = nil // claimed: the old goroutine's finish leaves it alone now
	var evs []sessions.Event
	if !e.closing() {
		// Their answers are not logged by the turn any more: none will
		// come, and none must be asked for again on reopen.
		for callID := range s.pending {
			evs = append(evs, sessions.NewEvent(sessions.EventApprovalAnswered, sessions.ApprovalAnswered{
				CallID: callID, Decision: string(Deny), Reason: "the turn was stopped before an answer", By: "cancel"}))
		}
	}
	s.pending = map[string]chan ApprovalAnswer{}
	s.mu.Unlock()
	e.settle(s, run, TurnResult{Reason: EndCancelled})
	_ = e.record(context.Background(), s.id, append(evs, sessions.NewEvent(sessions.EventTurnEnd, sessions.TurnEnd{
		Reason: EndCancelled, Message: "stopped by the user; a step that did not stop in time was left behind",
	}))...)
	e.live(s.id, LiveTurnState, map[string]any{"running": false, "reason": EndCancelled})
	close(run.done)
}

func (e *Engine) idleTimeout() time.Duration {
	if e.opts.IdleTimeout == 0 {
		return DefaultIdleTimeout
	}
	return e.opts.IdleTimeout
}

// evictIdle releases the least recently used idle sessions beyond
// MaxIdleSessions; they are rebuilt on their next turn.
func (e *Engine) evictIdle() {
	e.mu.Lock()
	var idle []*sessionState
	for _, s := range e.sessions {
		s.mu.Lock()
		if s.evictable() {
			idle = append(idle, s)
		}
		s.mu.Unlock()
	}
	e.mu.Unlock()
	if len(idle) <= MaxIdleSessions {
		return
	}
	slices.SortFunc(idle, func(a, b *sessionState) int { return cmp.Compare(a.lastUsed, b.lastUsed) })
	for _, s := range idle[:len(idle)-MaxIdleSessions] {
		e.evictIf(s, -1)
	}
}

// evictIf drops an idle session from memory, provided no turn ran since
// the one that ended as turn number used (-1: whatever ran): it closes the
// session's registry, tells the sources to release it, and removes its
// state.
func (e *Engine) evictIf(s *sessionState, used int64) {
	s.mu.Lock()
	if !s.evictable() || used >= 0 && s.lastUsed != used {
		s.mu.Unlock()
		return
	}
	done := make(chan struct{})
	s.releasing = done
	reg := s.reg
	s.reg, s.regKey = nil, ""
	if s.idle != nil {
		s.idle.Stop()
	}
	s.mu.Unlock()
	if reg != nil {
		reg.Close()
	}
	for _, src := range e.opts.ToolSources {
		if r, ok := src.(SessionReleaser); ok {
			r.Release(s.id)
		}
	}
	e.catalog.RemoveSession(s.id, "the session was released from memory")
	e.mu.Lock()
	if e.sessions[s.id] == s {
		delete(e.sessions, s.id)
	}
	e.mu.Unlock()
	e.subagents.forgetLineage(s.id)
	close(done)
	e.sessionEndLater(s, hooks.EndOther)
}

// sessionEndLater runs a released session's SessionEnd hooks beside the
// other background work, so that its release waits for nothing.
func (e *Engine) sessionEndLater(s *sessionState, reason string) {
	s.mu.Lock()
	has := s.hooksStarted && s.hookSet.Has(hooks.SessionEnd)
	s.mu.Unlock()
	if !has {
		return
	}
	e.bgMu.Lock()
	defer e.bgMu.Unlock()
	if e.bgCtx.Err() != nil {
		return
	}
	e.bgWork.Add(1)
	go func() {
		defer e.bgWork.Done()
		e.sessionEndHooks(e.bgCtx, s, reason)
	}()
}

// Shutdown cancels every running turn and the background work beside them
// and waits (until ctx ends) for them to finish logging, then releases
// every session's resources.
func (e *Engine) Shutdown(ctx context.Context) {
	e.bgMu.Lock()
	e.bgStop()
	e.bgMu.Unlock()
	defer e.closeSources()
	defer e.waitBackground(ctx)
	e.mu.Lock()
	all := make([]*sessionState, 0, len(e.sessions))
	for _, s := range e.sessions {
		all = append(all, s)
	}
	e.mu.Unlock()
	for _, s := range all {
		e.Cancel(s.id)
	}
	for _, s := range all {
		_ = e.Wait(ctx, s.id)
		s.mu.Lock()
		if s.idle != nil {
			s.idle.Stop()
		}
		if !s.running && s.reg != nil {
			s.reg.Close()
			s.reg = nil
		}
		s.mu.Unlock()
	}
	// The sessions end with TinyElf: their SessionEnd hooks run now,
	// together, within ctx.
	var ends sync.WaitGroup
	for _, s := range all {
		ends.Add(1)
		go func() {
			defer ends.Done()
			e.sessionEndHooks(ctx, s, hooks.EndExit)
		}()
	}
	ends.Wait()
}

// Cancel stops the session's running turn, if any, and its subagents'
// (foreground or background, at any depth). Pending approvals are
// answered with a denial. Cancel returns at once; the turn ends promptly
// (tool calls are abandoned by the pipeline when they do not stop), and if
// it has still not ended after cancelGrace the session is freed anyway.
func (e *Engine) Cancel(sessionID string) {
	for _, child := range e.subagents.activeChildren(sessionID) {
		e.Cancel(child)
	}
	s := e.peek(sessionID)
	if s == nil {
		return
	}
	s.mu.Lock()
	run := s.cur
	if s.running && s.cancel != nil {
		s.cancel()
	}
	s.mu.Unlock()
	if run != nil {
		time.AfterFunc(cancelGrace, func() { e.abandon(s, run) })
	}
}

// Wait blocks until the session's running turn (if any) has ended.
func (e *Engine) Wait(ctx context.Context, sessionID string) error {
	s := e.peek(sessionID)
	if s == nil {
		return nil
	}
	s.mu.Lock()
	done, running := s.done, s.running
	s.mu.Unlock()
	if !running {
		return nil
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// waitBackground waits until the background work has ended or ctx ends.
func (e *Engine) waitBackground(ctx context.Context) {
	done := make(chan struct{})
	go func() {
		e.bgWork.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// Running reports whether the session has a turn in progress.
func (e *Engine) Running(sessionID string) bool {
	s := e.peek(sessionID)
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running
}

// Answer delivers the user's decision on a pending approval: to the turn
// waiting for it, or, for an approval an earlier run of TinyElf left
// waiting (see Pending), to a turn that takes that one up (ResumeApproval;
// ErrBusy while the session runs another).
func (e *Engine) Answer(sessionID, callID string, ans ApprovalAnswer) error {
	var ch chan ApprovalAnswer
	ok := false
	if s := e.peek(sessionID); s != nil {
		s.mu.Lock()
		ch, ok = s.pending[callID]
		if ok {
			delete(s.pending, callID)
		}
		s.mu.Unlock()
	}
	if !ok {
		// Left waiting when TinyElf last closed: the answer takes its
		// turn up again.
		return e.revive(sessionID, callID, ans)
	}
	ch <- ans // buffered: never blocks
	return nil
}

// Pending lists the call IDs waiting for approval in a session: the
// running turn's, and those of a turn an earlier run of TinyElf left
// waiting (Answer takes that turn up again).
func (e *Engine) Pending(sessionID string) []string {
	out := []string{}
	if s := e.peek(sessionID); s != nil {
		s.mu.Lock()
		for id := range s.pending {
			out = append(out, id)
		}
		s.mu.Unlock()
	}
	for _, a := range e.leftOpen(sessionID) {
		if !slices.Contains(out, a.CallID) {
			out = append(out, a.CallID)
		}
	}
	return out
}

// expectAnswer registers a call as waiting for Answer and returns the
// function that waits for it. Registering comes first, before the
// approval.asked event goes out, so an answer sent the moment the UI sees
// the event is never lost.
func (e *Engine) expectAnswer(s *sessionState, req ApprovalRequest) func(ctx context.Context) (ApprovalAnswer, error) {
	ch := make(chan ApprovalAnswer, 1)
	s.mu.Lock()
	s.pending[req.CallID] = ch
	s.mu.Unlock()
	return func(ctx context.Context) (ApprovalAnswer, error) {
		defer func() {
			s.mu.Lock()
			delete(s.pending, req.CallID)
			s.mu.Unlock()
		}()
		title, background := "TinyElf needs your approval", e.opts.Background
		if run := e.subagents.active(s.id); run != nil {
			title, background = fmt.Sprintf("TinyElf's subagent (%s) needs your approval", run.agent), background || run.background
		}
		if e.opts.Notices != nil {
			_ = e.opts.Notices.ApprovalWaiting(ctx, title, req.Tool, background)
		}
		if t := turnFrom(ctx); t != nil && t.s == s {
			t.turnNotifyHooks(hooks.NotifyPermission, title, fmt.Sprintf("TinyElf needs your permission to use %s", req.Tool))
		}
		select {
		case ans := <-ch:
			return ans, nil
		case <-ctx.Done():
			return ApprovalAnswer{}, ctx.Err()
		}
	}
}

// record appends events to the log and publishes them.
func (e *Engine) record(ctx context.Context, sessionID string, evs ...sessions.Event) error {
	_, err := e.recordLogged(ctx, sessionID, evs...)
	return err
}

// recordLogged is record returning the events as logged (with their seqs).
func (e *Engine) recordLogged(ctx context.Context, sessionID string, evs ...sessions.Event) ([]sessions.Event, error) {
	if r := runFrom(ctx); r != nil && r.abandoned.Load() {
		return nil, errAbandoned
	}
	// Logging must survive a cancelled turn: the cancel itself is recorded.
	logged, err := e.opts.Log.Append(context.WithoutCancel(ctx), sessionID, evs...)
	if err != nil {
		return nil, fmt.Errorf("log session %s: %w", sessionID, err)
	}
	e.publish(sessionID, logged)
	return logged, nil
}

// publish sends logged events to the sink (and a subagent's to its run).
func (e *Engine) publish(sessionID string, logged []sessions.Event) {
	parent, root := e.subagents.lineageOf(sessionID)
	for _, ev := range logged {
		e.opts.Sink(Event{SessionID: sessionID, ParentID: parent, RootID: root, Seq: ev.Seq, Type: string(ev.Type), Time: ev.Time, Data: ev.Data})
	}
	if parent != "" {
		e.subagents.observe(sessionID, logged)
	}
}

// live publishes an event that is not logged.
func (e *Engine) live(sessionID, typ string, data any) {
	b, _ := json.Marshal(data)
	parent, root := e.subagents.lineageOf(sessionID)
	e.opts.Sink(Event{SessionID: sessionID, ParentID: parent, RootID: root, Type: typ, Time: e.opts.Now(), Data: b})
}

// discoveryState returns the session's discovery state, created at first
// use. A session reopened from the log gets back the tools that were
// visible when it was last used (loadVisible), so reopening changes nothing
// the model saw.
func (s *sessionState) discoveryState() *capabilities.Discovery {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.discovery.disc == nil {
		s.discovery.disc = capabilities.NewDiscovery()
	}
	return s.discovery.disc
}

// Catalog returns the engine's capability catalog.
func (e *Engine) Catalog() *capabilities.Catalog { return e.catalog }
