package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"time"
	agenttools "tinyelf/backend/tools/agent"

	"tinyelf/backend/capabilities"
	"tinyelf/backend/hooks"
	"tinyelf/backend/llm"
	"tinyelf/backend/sessions"
	"tinyelf/backend/tools"
)

// One gate for every surface: a `tinyelf tool` call goes through the same
// pipeline as a model's call (validate → visibility → permission → hooks →
// execute → observe → audit). The toolbox's registry carries the same
// middleware as a session's (pipeline), and Run drives a call through it
// as a turn drives its calls: it logs the intent, checks visibility, runs
// the call with a turn in its context (the gate and the hooks read it),
// and logs the result.

// directSession is the session the pipeline sees behind a direct call
// (the hooks' session_id, ${CLAUDE_SESSION_ID} in a command), and
// directCall the call's ID: `tinyelf tool --output json` shows it.
const (
	directSession = "cli"
	directCall    = "cli"
)

// pipeline is the tool pipeline's middleware, in order: PreToolUse hooks
// before the permission gate decides, PostToolUse only around the calls it
// let through. Every registry calls run through has it.
func (e *Engine) pipeline(s *sessionState) []tools.Middleware {
	return []tools.Middleware{e.preToolHooks(s), e.permissionMiddleware(s), e.postToolHooks()}
}

// openGate makes the engine the toolbox's calls go through: the settings'
// rules, the settings' hooks and the workspace's trusted project hooks
// (nobody is asked about untrusted ones: a direct call is not a
// conversation), and a log that only this process keeps.
func (t *Toolbox) openGate(workspace string) {
	trust, err := hooks.OpenTrustStore(filepath.Join(t.opts.DataDir, hooks.TrustFile))
	if err != nil {
		t.trustWarning = fmt.Sprintf("The project hooks' trust answers cannot be read (%v); project hooks do not run.", err)
	} else if w := trust.Warning(); w != "" {
		t.trustWarning = w
	}
	t.log = &directLog{}
	t.gate = New(Options{
		Settings: t.settings,
		Log:      t.log,
		Getenv:   t.opts.Getenv,
		Children: t.children,
		// A direct call is its own approval (the gate's directID); what
		// else would ask has nobody to ask.
		Approver: ApproverFunc(func(context.Context, ApprovalRequest) (ApprovalAnswer, error) {
			return ApprovalAnswer{Decision: Deny, Reason: "nobody can be asked during a direct tool call"}, nil
		}),
		Hooks: &HookOptions{Trust: trust, NoTrustPrompt: true},
	})
	t.state = &sessionState{id: directSession, pending: map[string]chan ApprovalAnswer{}}
	t.info = SessionInfo{ID: directSession, Workspace: workspace, Agent: t.agent.Name, Mode: t.opts.Mode}
}

// Run runs one call as a model's call runs, and returns its whole result:
// the arguments are coerced and validated; a tool the toolbox does not
// offer is refused with why (the mode, the agent's profile); the
// permission gate lets it through, since asking for the call is the
// approval of that one call, unless a deny rule or the shell guard
// refuses it; the PreToolUse hooks (which may block it or change its
// arguments), PostToolUse and PostToolUseFailure run as in a session; the
// result is truncated; intent, decisions, hook runs and result are logged
// (in this process only: a direct call is in no session's history). A
// refused or failed call is an error result, never a Go error.
func (t *Toolbox) Run(ctx context.Context, name string, args json.RawMessage) tools.CallResult {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	call := llm.ToolCall{ID: directCall, Name: name, Arguments: string(args)}
	tt := &turn{e: t.gate, s: t.state, info: t.info, settings: t.gate.settings(), agent: t.agent,
		reg: t.sess.Registry, ws: t.sess.Workspace, directID: call.ID}
	if err := tt.loadHooks(ctx); err != nil {
		return tools.CallResult{CallID: call.ID, Name: name, IsError: true, Content: "The hooks could not be loaded: " + err.Error()}
	}
	if err := tt.logIntents(ctx, []llm.ToolCall{call}); err != nil {
		return tools.CallResult{CallID: call.ID, Name: name, IsError: true, Content: err.Error()}
	}
	res := t.execute(ctx, tt, call, args)
	tt.logResults(ctx, []tools.CallResult{res})
	return res
}

// execute is the visibility step and the registry's pipeline for a direct
// call; ToolSearch searches what the toolbox offers.
func (t *Toolbox) execute(ctx context.Context, tt *turn, call llm.ToolCall, args json.RawMessage) tools.CallResult {
	if why, hidden := t.hidden[call.Name]; hidden && !t.sess.Registry.Has(call.Name) {
		return tools.CallResult{CallID: call.ID, Name: call.Name, IsError: true, Invalid: true,
			Content: fmt.Sprintf("%s is not available here: %s.\n\n%s", call.Name, why, tools.ErrorHint)}
	}
	ctx = capabilities.WithSearcher(ctx, toolboxSearcher{t})
	return t.sess.Registry.Execute(withTurn(ctx, tt), call.ID, call.Name, args)
}

// directLog is the session log of a toolbox's calls: their events are
// kept in memory, for this process only. It is safe for concurrent use.
type directLog struct {
	mu     sync.Mutex
	events []sessions.Event
}

// maxDirectEvents bounds what a long-lived toolbox keeps.
const maxDirectEvents = 1000

// The methods below implement SessionLog: a direct call has no
// conversation, so only Append keeps anything.

func (l *directLog) CreateSession(context.Context, sessions.SessionCreated) (string, error) {
	return "", fmt.Errorf("a direct tool call cannot start a session")
}

func (l *directLog) Append(_ context.Context, sessionID string, evs ...sessions.Event) ([]sessions.Event, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var seq int64
	if n := len(l.events); n > 0 {
		seq = l.events[n-1].Seq
	}
	out := make([]sessions.Event, len(evs))
	for i, ev := range evs {
		seq++
		ev.SessionID, ev.Seq = sessionID, seq
		if ev.Time.IsZero() {
			ev.Time = time.Now()
		}
		out[i] = ev
	}
	l.events = append(l.events, out...)
	if n := len(l.events); n > maxDirectEvents {
		l.events = append([]sessions.Event(nil), l.events[n-maxDirectEvents:]...)
	}
	return out, nil
}

func (l *directLog) Info(context.Context, string) (SessionInfo, error) {
	return SessionInfo{}, sessions.ErrNotFound
}

func (l *directLog) ModelMessages(context.Context, string) ([]llm.Message, error) { return nil, nil }

func (l *directLog) LastSeq(context.Context, string) (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.events); n > 0 {
		return l.events[n-1].Seq, nil
	}
	return 0, nil
}

func (l *directLog) LastCapabilities(context.Context, string) (sessions.CapabilityState, error) {
	return sessions.CapabilityState{}, nil
}

func (l *directLog) ListSessions(context.Context, int, int) ([]agenttools.SessionSummary, error) {
	return nil, nil
}

// logged returns the events of the given type logged so far (tests).
func (l *directLog) logged(typ sessions.EventType) []sessions.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []sessions.Event
	for _, ev := range l.events {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}
