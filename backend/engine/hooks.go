package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"tinyelf/backend/hooks"
	"tinyelf/backend/llm"
	"tinyelf/backend/sessions"
	"tinyelf/backend/tools"
)

// The user's hooks (package hooks) at the loop's points: SessionStart and
// UserPromptSubmit before a turn, PreToolUse, PermissionRequest,
// PostToolUse and PostToolUseFailure inside the tool pipeline (middleware
// around the permission gate), Stop and SubagentStop at a turn's end,
// PreCompact before a compaction, Notification where TinyElf notifies and
// SessionEnd when a session leaves memory. Each run is a hook.run event.

// HookOptions configures the user's hooks. The settings' hooks always
// apply; a workspace's project hooks (.tinyelf/settings.json,
// .claude/settings.json) only once the user trusts them there.
type HookOptions struct {
	// Trust remembers the user's answers about project hooks; nil asks
	// every session.
	Trust *hooks.TrustStore
	// TrustProject runs project hooks without asking or saving an answer
	// (`tinyelf run --yes`).
	TrustProject bool
	// NoTrustPrompt says nobody can be asked (`tinyelf run` without
	// --yes): project hooks not trusted yet do not run, and the session's
	// log says how to trust them.
	NoTrustPrompt bool
	// TranscriptDir is where each session's transcript (transcript_path,
	// a Claude Code-shaped JSONL export) is written for its hooks.
	TranscriptDir string
}

// ApprovalHooksTrust is the Kind of the question whether a workspace's
// project hooks may run.
const ApprovalHooksTrust = "hooks_trust"

// EndBlocked ends a turn a hook stopped: a UserPromptSubmit hook refused
// the message, or a hook said "continue": false.
const EndBlocked = "blocked"

// maxHookContext bounds the context one hook run adds for the model, as
// Claude Code bounds it.
const maxHookContext = 10_000

// hookState is what a turn knows of its hooks.
type hookState struct {
	set *hooks.Set
	// stopActive is set once a Stop hook made the turn go on: the next
	// block is not obeyed (stop_hook_active).
	stopActive bool

	mu   sync.Mutex
	stop string // a hook's "continue": false, with its reason; "" none
	any  bool   // a hook said continue: false
}

// requestStop records a hook's "continue": false.
func (h *hookState) requestStop(reason string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.any {
		h.any, h.stop = true, reason
	}
}

// stopRequested returns a hook's "continue": false, if any.
func (h *hookState) stopRequested() (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.stop, h.any
}

// hookRunner returns the engine's hook runner: the sessions' children
// tracker, the same clean environment as Bash.
func (e *Engine) hookRunner() *hooks.Runner {
	return &hooks.Runner{Children: e.opts.Children, Environ: func() []string { return ChildEnviron(e.settings()) }}
}

// loadHooks gathers the turn's hooks: the settings', and the workspace's
// once trusted. The trust question goes on the approval card the first
// time (and again when the project's hooks changed); a stopped turn's
// error is returned.
func (t *turn) loadHooks(ctx context.Context) error {
	ho := t.e.opts.Hooks
	if ho == nil {
		return nil
	}
	global, _ := hooks.Parse(t.settings.Hooks)
	sources := []hooks.Source{{Name: hooks.SourceSettings, Config: global}}
	proj := hooks.LoadProject(t.info.Workspace)
	if !proj.Empty() {
		state := ho.Trust.State(t.info.Workspace, proj.Hash)
		if ho.TrustProject {
			state = hooks.TrustTrusted
		}
		if state == hooks.TrustUntrusted {
			var err error
			if state, err = t.askHooksTrust(ctx, proj); err != nil {
				return err
			}
		}
		if state == hooks.TrustTrusted {
			sources = append(sources, proj.Sources()...)
		}
	}
	t.hooks.set = hooks.NewSet(sources...)
	t.s.mu.Lock()
	t.s.hookSet = t.hooks.set
	t.s.hookBase = hooks.Input{SessionID: t.s.id, Cwd: t.info.Workspace, PermissionMode: claudeMode(t.info.Mode)}
	t.s.mu.Unlock()
	return nil
}

// askHooksTrust asks the user whether the workspace's project hooks may
// run, remembers the answer for exactly these hooks, and returns it. When
// nobody can be asked, they do not run, and the log says so once.
func (t *turn) askHooksTrust(ctx context.Context, proj hooks.Project) (hooks.TrustState, error) {
	ho := t.e.opts.Hooks
	files := make([]string, len(proj.Files))
	for i, f := range proj.Files {
		files[i] = f.Path
	}
	if ho.NoTrustPrompt {
		t.s.mu.Lock()
		noted := t.s.hookTrustNoted == proj.Hash
		t.s.hookTrustNoted = proj.Hash
		t.s.mu.Unlock()
		if !noted {
			msg := fmt.Sprintf("This workspace has project hooks (%s) that have not been trusted, so they did not run. Trust them in Settings → Hooks, with `tinyelf hooks trust --workspace %s`, or rerun with --yes.",
				strings.Join(files, ", "), t.info.Workspace)
			if err := t.record(ctx, sessions.NewEvent(sessions.EventError, sessions.Error{Message: msg, Kind: "hooks_untrusted"})); err != nil {
				return hooks.TrustUntrusted, err
			}
		}
		return hooks.TrustUntrusted, nil
	}
	type shown struct {
		Event   hooks.Event `json:"event"`
		Matcher string      `json:"matcher,omitempty"`
		Command string      `json:"command"`
		Source  string      `json:"source"`
	}
	var list []shown
	for _, h := range proj.Commands() {
		list = append(list, shown{h.Event, h.Matcher, h.Command, h.Source})
	}
	args, _ := json.Marshal(map[string]any{"workspace": t.info.Workspace, "files": files, "hooks": list})
	ans, err := t.e.askQuestion(ctx, t.s, ApprovalRequest{
		SessionID: t.s.id, CallID: fmt.Sprintf("hooks-trust-%s-%d", proj.Hash[:12], time.Now().UnixNano()), Tool: "hooks",
		Kind: ApprovalHooksTrust, Arguments: string(args),
		Question: fmt.Sprintf("This workspace has project hooks in %s: commands that run on this computer at the agent's steps. Let them run in %s?",
			strings.Join(files, " and "), filepath.Base(t.info.Workspace)),
	})
	if err != nil {
		return hooks.TrustUntrusted, err
	}
	state := hooks.TrustTrusted
	if ans.Decision == Deny {
		state = hooks.TrustDenied
	}
	if err := ho.Trust.Set(t.info.Workspace, proj.Hash, state); err != nil {
		// The answer holds for this turn; next time the user is asked again.
		_ = t.record(ctx, sessions.NewEvent(sessions.EventError, sessions.Error{Message: "Your answer about the project hooks could not be saved: " + err.Error(), Kind: "hooks_untrusted"}))
	}
	return state, nil
}

// claudeMode is a mode as Claude Code names it in permission_mode.
func claudeMode(m Mode) string {
	if m == ModeAuto {
		return "bypassPermissions"
	}
	return string(m)
}

// hookInput is the common part of an event's input.
func (t *turn) hookInput(ctx context.Context, ev hooks.Event) hooks.Input {
	return hooks.Input{
		SessionID: t.s.id, TranscriptPath: t.e.transcript(ctx, t.s, t.info.Workspace), Cwd: t.info.Workspace,
		PermissionMode: claudeMode(t.info.Mode), Event: ev,
	}
}

// transcriptSource is implemented by a SessionLog that can list the
// model's history with each message's seq and without the results it
// makes up for calls under way (StoreLog does): the transcript then grows
// by what is new, as Claude Code's does, instead of being rewritten.
type transcriptSource interface {
	TranscriptMessages(ctx context.Context, sessionID string) ([]sessions.Message, error)
}

// transcript brings the session's transcript for its hooks up to date and
// returns its path ("" when there is no transcript folder). A failure
// leaves the file as it was; the hooks still get its path.
func (e *Engine) transcript(ctx context.Context, s *sessionState, workspace string) string {
	ho := e.opts.Hooks
	if ho == nil || ho.TranscriptDir == "" {
		return ""
	}
	path := filepath.Join(ho.TranscriptDir, s.id+".jsonl")
	s.transcriptMu.Lock()
	defer s.transcriptMu.Unlock()
	src, ok := e.opts.Log.(transcriptSource)
	if !ok {
		e.rewriteTranscript(ctx, s, path, workspace)
		return path
	}
	msgs, err := src.TranscriptMessages(ctx, s.id)
	if err != nil {
		return path
	}
	var fresh []hooks.TranscriptMessage
	last := s.transcriptSeq
	for _, m := range msgs {
		if m.Seq <= s.transcriptSeq {
			continue
		}
		fresh = append(fresh, transcriptMessage(conversationMessage(m)))
		last = max(last, m.Seq)
	}
	switch {
	case !s.transcriptWritten:
		// A file left by an earlier process starts over.
		err = hooks.WriteTranscript(path, s.id, workspace, fresh)
	case len(fresh) > 0:
		err = hooks.AppendTranscript(path, s.id, workspace, fresh, s.transcriptLines)
	}
	if err == nil {
		s.transcriptSeq, s.transcriptLines, s.transcriptWritten = last, s.transcriptLines+len(fresh), true
	}
	return path
}

// rewriteTranscript writes the transcript from the model's history when
// the log moved on since it was last written (a SessionLog that cannot
// say more).
func (e *Engine) rewriteTranscript(ctx context.Context, s *sessionState, path, workspace string) {
	seq, err := e.opts.Log.LastSeq(ctx, s.id)
	if err != nil || seq == s.transcriptSeq {
		return
	}
	msgs, err := e.opts.Log.ModelMessages(ctx, s.id)
	if err != nil {
		return
	}
	out := make([]hooks.TranscriptMessage, 0, len(msgs))
	for _, m := range msgs {
		out = append(out, transcriptMessage(m))
	}
	if hooks.WriteTranscript(path, s.id, workspace, out) == nil {
		s.transcriptSeq = seq
	}
}

// transcriptMessage is a conversation message as the hooks' transcript
// writes it.
func transcriptMessage(m llm.Message) hooks.TranscriptMessage {
	tm := hooks.TranscriptMessage{Role: string(m.Role), Text: m.Content, ToolCallID: m.ToolCallID, IsError: m.IsError}
	for _, c := range m.ToolCalls {
		tm.ToolCalls = append(tm.ToolCalls, hooks.TranscriptToolCall{ID: c.ID, Name: c.Name, Input: c.Arguments})
	}
	return tm
}

// hookRun is what one hook.run event says about a run.
func hookRunEvent(r hooks.Run, base sessions.HookRun) sessions.HookRun {
	v := r.Verdict
	ev := base
	ev.Command, ev.Source, ev.Matcher = r.Hook.Command, r.Hook.Source, r.Hook.Matcher
	ev.DurationMs, ev.ExitCode, ev.TimedOut = r.Duration.Milliseconds(), r.ExitCode, r.TimedOut
	ev.Decision, ev.Reason = v.Decision, v.Reason
	ev.Stop, ev.StopReason = v.Stop, v.StopReason
	ev.Problem, ev.Message = v.Problem, v.SystemMessage
	if !v.SuppressOutput {
		ev.Output = r.Summary()
	}
	if v.UpdatedInput != nil {
		b, _ := json.Marshal(v.UpdatedInput)
		ev.Input = string(b)
	}
	return ev
}

// runHooks runs an event's matching hooks for the turn and returns the runs
// with the events that log them (not yet written: the caller writes them
// with what it logs next, or at once).
func (t *turn) runHooks(ctx context.Context, hs []*hooks.Hook, in hooks.Input, base sessions.HookRun) ([]hooks.Run, []sessions.Event) {
	runs := t.e.hookRunner().Run(ctx, hs, in, t.info.Workspace)
	evs := make([]sessions.Event, len(runs))
	for i, r := range runs {
		evs[i] = sessions.NewEvent(sessions.EventHookRun, hookRunEvent(r, base))
	}
	return runs, evs
}

// withContext sets the Context of the logged runs that added one (what the
// model reads from them), bounded.
func withContext(evs []sessions.Event, runs []hooks.Run, label string) []sessions.Event {
	for i, r := range runs {
		c := strings.TrimSpace(r.Verdict.Context)
		if c == "" || r.Verdict.Problem != "" && r.Verdict.Decision == "" {
			continue
		}
		var p sessions.HookRun
		if evs[i].Decode(&p) != nil {
			continue
		}
		p.Context = label + "\n" + boundContext(c)
		evs[i] = sessions.NewEvent(sessions.EventHookRun, p)
	}
	return evs
}

// boundContext cuts a hook's context to maxHookContext bytes.
func boundContext(s string) string {
	if len(s) <= maxHookContext {
		return s
	}
	return tools.CutUTF8(s, maxHookContext) + "\n[... the rest of the hook's output was cut]"
}

// sessionStartHooks runs SessionStart for a session's first turn in this
// process ("startup" for a new session, "resume" for one reopened) and
// returns the events to log with the turn's start. Subagents have none.
func (t *turn) sessionStartHooks(ctx context.Context) []sessions.Event {
	if t.info.Parent != "" {
		return nil
	}
	t.s.mu.Lock()
	started := t.s.hooksStarted
	t.s.hooksStarted = true
	t.s.mu.Unlock()
	if started {
		return nil
	}
	source := hooks.SourceStartup
	if t.info.Messages > 0 {
		source = hooks.SourceResume
	}
	return t.sessionStart(ctx, source)
}

// sessionStart runs SessionStart hooks for source.
func (t *turn) sessionStart(ctx context.Context, source string) []sessions.Event {
	hs := t.hooks.set.Match(hooks.SessionStart, source)
	if len(hs) == 0 {
		return nil
	}
	in := t.hookInput(ctx, hooks.SessionStart)
	in.Source, in.Model = source, t.provCfg.Model
	if t.info.Agent != "" && t.info.Agent != "default" {
		in.AgentType = t.info.Agent
	}
	runs, evs := t.runHooks(ctx, hs, in, sessions.HookRun{Event: string(hooks.SessionStart), Detail: source})
	return withContext(evs, runs, "SessionStart hook context:")
}

// promptHooks runs UserPromptSubmit for the user's message. It returns the
// events to log after the message, and a refusal ("" when the message
// goes to the model): the prompt is then kept on the refusing run's event
// only, never in the conversation.
func (t *turn) promptHooks(ctx context.Context, text string) ([]sessions.Event, string) {
	if t.info.Parent != "" {
		return nil, ""
	}
	hs := t.hooks.set.Match(hooks.UserPromptSubmit, "")
	if len(hs) == 0 {
		return nil, ""
	}
	in := t.hookInput(ctx, hooks.UserPromptSubmit)
	in.Prompt = text
	runs, evs := t.runHooks(ctx, hs, in, sessions.HookRun{Event: string(hooks.UserPromptSubmit)})
	o := hooks.Combine(runs)
	refusal := ""
	switch {
	case o.Decision == hooks.Block:
		refusal = "A UserPromptSubmit hook refused the message: " + o.Reason
	case o.Stop:
		refusal = "A UserPromptSubmit hook stopped the agent"
		if o.StopReason != "" {
			refusal += ": " + o.StopReason
		}
	}
	if refusal == "" {
		return withContext(evs, runs, "UserPromptSubmit hook context:"), ""
	}
	// The message is not sent: the first refusing run keeps it.
	for i, r := range runs {
		if r.Verdict.Decision == hooks.Block || r.Verdict.Stop {
			var p sessions.HookRun
			if evs[i].Decode(&p) == nil {
				p.Prompt = text
				evs[i] = sessions.NewEvent(sessions.EventHookRun, p)
			}
			break
		}
	}
	return evs, refusal
}

// stopHooks runs Stop (SubagentStop in a subagent's session) when the
// model answered without tool calls. block says the turn goes on: a hook
// blocked and no Stop hook has made it go on yet in this turn. evs log the
// runs; a blocking run's event carries the reason the model reads next.
func (t *turn) stopHooks(ctx context.Context) (evs []sessions.Event, block bool) {
	ev := hooks.Stop
	if t.info.Parent != "" {
		ev = hooks.SubagentStop
	}
	hs := t.hooks.set.Match(ev, t.info.Agent)
	if len(hs) == 0 {
		return nil, false
	}
	in := t.hookInput(ctx, ev)
	in.StopHookActive = t.hooks.stopActive
	base := sessions.HookRun{Event: string(ev)}
	if ev == hooks.SubagentStop {
		in.AgentID, in.AgentType, in.AgentTranscriptPath = t.s.id, t.info.Agent, in.TranscriptPath
		base.Detail = t.info.Agent
		if ps := t.e.peek(t.info.Parent); ps != nil {
			in.TranscriptPath = t.e.transcript(ctx, ps, t.info.Workspace)
		}
	}
	runs, evs := t.runHooks(ctx, hs, in, base)
	o := hooks.Combine(runs)
	if o.Decision != hooks.Block {
		return evs, false
	}
	for i, r := range runs {
		if r.Verdict.Decision != hooks.Block {
			continue
		}
		var p sessions.HookRun
		if evs[i].Decode(&p) != nil {
			continue
		}
		if t.hooks.stopActive {
			p.Problem = "it blocked again after the agent had already gone on for a Stop hook in this turn (stop_hook_active); the agent stops"
		} else {
			p.Context = fmt.Sprintf("%s hook feedback:\n%s", ev, boundContext(r.Verdict.Reason))
		}
		evs[i] = sessions.NewEvent(sessions.EventHookRun, p)
	}
	if t.hooks.stopActive {
		return evs, false
	}
	t.hooks.stopActive = true
	return evs, true
}

// preCompactHooks runs PreCompact before a compaction; the runs are logged
// at once (nothing they say changes the compaction).
func (t *turn) preCompactHooks(ctx context.Context) error {
	hs := t.hooks.set.Match(hooks.PreCompact, hooks.TriggerAuto)
	if len(hs) == 0 {
		return nil
	}
	in := t.hookInput(ctx, hooks.PreCompact)
	in.Trigger = hooks.TriggerAuto
	_, evs := t.runHooks(ctx, hs, in, sessions.HookRun{Event: string(hooks.PreCompact), Detail: hooks.TriggerAuto})
	return t.record(ctx, evs...)
}

// compactedHooks runs SessionStart with source "compact" after a
// compaction was logged, so the context it adds follows the summary.
func (t *turn) compactedHooks(ctx context.Context) error {
	if t.info.Parent != "" {
		return nil
	}
	if evs := t.sessionStart(ctx, hooks.SourceCompact); len(evs) > 0 {
		return t.record(ctx, evs...)
	}
	return nil
}

// hookDecisionKey carries PreToolUse's outcome to the permission gate.
type hookDecisionKey struct{}

// hookDecision is what PreToolUse hooks decided for a call.
type hookDecision struct {
	decision string // hooks.Allow, hooks.Ask or ""
	reason   string
}

func hookDecisionFrom(ctx context.Context) hookDecision {
	d, _ := ctx.Value(hookDecisionKey{}).(hookDecision)
	return d
}

// fileTools take a "path" that Claude Code's tools call "file_path" (an
// absolute path): hooks read and write that name.
var fileTools = map[string]bool{"Read": true, "Write": true, "Edit": true}

// hookToolInput is a call's parameters as a hook reads them: a copy, with
// file_path (absolute) beside a file tool's path.
func (t *turn) hookToolInput(call *tools.Call) map[string]any {
	in := make(map[string]any, len(call.Params)+1)
	for k, v := range call.Params {
		in[k] = v
	}
	if p, ok := call.Params["path"].(string); ok && fileTools[call.Name] {
		in["file_path"] = t.absPath(p)
	}
	return in
}

// absPath resolves a tool's path against the workspace.
func (t *turn) absPath(p string) string {
	if t.ws != nil {
		if abs, err := t.ws.Resolve(p); err == nil {
			if !filepath.IsAbs(abs) {
				abs = filepath.Join(t.ws.Dir(), abs)
			}
			return abs
		}
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(t.info.Workspace, p)
}

// fromHookInput turns a hook's updatedInput back into the tool's
// parameters: a file tool's file_path becomes its path again.
func (t *turn) fromHookInput(call *tools.Call, updated map[string]any) map[string]any {
	out := make(map[string]any, len(updated))
	for k, v := range updated {
		out[k] = v
	}
	if fileTools[call.Name] {
		if fp, ok := out["file_path"].(string); ok {
			orig, _ := call.Params["path"].(string)
			if _, has := out["path"]; !has || fp != t.absPath(orig) {
				out["path"] = fp
			}
		}
		delete(out, "file_path")
	}
	return out
}

// preToolHooks is the pipeline's PreToolUse step, before the permission
// gate: a deny refuses the call (the model reads why), an updatedInput
// replaces its arguments once they pass the tool's schema, and allow or ask
// go on to the gate, which weighs them against the mode and the rules.
func (e *Engine) preToolHooks(s *sessionState) tools.Middleware {
	return func(next tools.Handler) tools.Handler {
		return func(ctx context.Context, call *tools.Call) (tools.Result, error) {
			t := turnFrom(ctx)
			if t == nil || !t.hooks.set.Has(hooks.PreToolUse) {
				return next(ctx, call)
			}
			hs := t.hooks.set.Match(hooks.PreToolUse, call.Name)
			if len(hs) == 0 {
				return next(ctx, call)
			}
			in := t.hookInput(ctx, hooks.PreToolUse)
			in.ToolName, in.ToolInput, in.ToolUseID = call.Name, t.hookToolInput(call), call.ID
			runs, evs := t.runHooks(ctx, hs, in, sessions.HookRun{Event: string(hooks.PreToolUse), CallID: call.ID, Tool: call.Name})
			if err := t.record(ctx, evs...); err != nil {
				return tools.Result{}, err
			}
			o := hooks.Combine(runs)
			if o.Stop {
				t.hooks.requestStop(o.StopReason)
			}
			if o.Decision == hooks.Deny {
				if err := e.answered(ctx, s.id, call.ID, Deny, o.Reason, "", "hook"); err != nil {
					return tools.Result{}, err
				}
				res := tools.Errorf("A PreToolUse hook blocked this call to %s: %s", call.Name, o.Reason)
				res.Meta = map[string]any{"denied": true, "hook": true}
				return res, nil
			}
			if o.UpdatedInput != nil {
				if err := call.Replace(t.fromHookInput(call, o.UpdatedInput)); err != nil {
					reason := fmt.Sprintf("a PreToolUse hook changed its arguments into ones %s does not accept: %v", call.Name, err)
					if err := e.answered(ctx, s.id, call.ID, Deny, reason, "", "hook"); err != nil {
						return tools.Result{}, err
					}
					return tools.Errorf("This call did not run: %s.", reason), nil
				}
			}
			ctx = context.WithValue(ctx, hookDecisionKey{}, hookDecision{decision: o.Decision, reason: o.Reason})
			res, err := next(ctx, call)
			if err == nil && len(o.Context) > 0 {
				res.Content = appendHookNote(res.Content, "PreToolUse hook context", strings.Join(o.Context, "\n"))
			}
			return res, err
		}
	}
}

// appendHookNote adds what a hook says to a result the model reads.
func appendHookNote(content, label, note string) string {
	note = boundContext(strings.TrimSpace(note))
	if note == "" {
		return content
	}
	if content != "" {
		content += "\n\n"
	}
	return content + "[" + label + "]\n" + note
}

// postToolHooks is the pipeline's last step around the tool itself, so it
// runs only for calls that ran: PostToolUse after a result, or
// PostToolUseFailure after an error, whose block or context the model
// reads with the result.
func (e *Engine) postToolHooks() tools.Middleware {
	return func(next tools.Handler) tools.Handler {
		return func(ctx context.Context, call *tools.Call) (tools.Result, error) {
			res, err := next(ctx, call)
			t := turnFrom(ctx)
			if t == nil || ctx.Err() != nil || (!t.hooks.set.Has(hooks.PostToolUse) && !t.hooks.set.Has(hooks.PostToolUseFailure)) {
				return res, err
			}
			ev := hooks.PostToolUse
			if err != nil || res.IsError {
				ev = hooks.PostToolUseFailure
			}
			hs := t.hooks.set.Match(ev, call.Name)
			if len(hs) == 0 {
				return res, err
			}
			content, _ := tools.Truncate(res.Content, tools.DefaultMaxOutputBytes)
			in := t.hookInput(ctx, ev)
			in.ToolName, in.ToolInput, in.ToolUseID = call.Name, t.hookToolInput(call), call.ID
			if ev == hooks.PostToolUse {
				file := ""
				if p, ok := call.Params["path"].(string); ok && fileTools[call.Name] {
					file = t.absPath(p)
				}
				in.ToolResponse = hooks.ToolResponse(call.Name, content, false, file)
			} else {
				in.Error = content
				if err != nil {
					in.Error = err.Error()
				}
			}
			runs, evs := t.runHooks(ctx, hs, in, sessions.HookRun{Event: string(ev), CallID: call.ID, Tool: call.Name})
			if lerr := t.record(ctx, evs...); lerr != nil {
				return res, err
			}
			o := hooks.Combine(runs)
			if o.Stop {
				t.hooks.requestStop(o.StopReason)
			}
			if err != nil {
				return res, err
			}
			if o.Decision == hooks.Block {
				res.Content = appendHookNote(res.Content, string(ev)+" hook feedback", o.Reason)
			}
			if len(o.Context) > 0 {
				res.Content = appendHookNote(res.Content, string(ev)+" hook context", strings.Join(o.Context, "\n"))
			}
			return res, nil
		}
	}
}

// permissionRequestHooks runs PermissionRequest when the gate is about to
// ask the user. It returns Allow or Deny when a hook answered for them (a
// held call, which needs a person, is never allowed by one), "" when the
// user is asked, with the reason, and logs the hooks' answer.
func (e *Engine) permissionRequestHooks(ctx context.Context, s *sessionState, call *tools.Call, hold, wsDir string) (string, string, error) {
	t := turnFrom(ctx)
	if t == nil || !t.hooks.set.Has(hooks.PermissionRequest) {
		return "", "", nil
	}
	hs := t.hooks.set.Match(hooks.PermissionRequest, call.Name)
	if len(hs) == 0 {
		return "", "", nil
	}
	in := t.hookInput(ctx, hooks.PermissionRequest)
	in.ToolName, in.ToolInput, in.ToolUseID = call.Name, t.hookToolInput(call), call.ID
	in.PermissionSuggestions = []hooks.Suggestion{}
	if hold == "" {
		for _, r := range suggestRules(call.Name, call.Params, wsDir) {
			in.PermissionSuggestions = append(in.PermissionSuggestions, hooks.Suggestion{Type: "addRules",
				Rules: []hooks.SuggestionRule{{ToolName: r.Tool, RuleContent: r.Pattern}}, Behavior: "allow", Destination: "userSettings"})
		}
	}
	runs, evs := t.runHooks(ctx, hs, in, sessions.HookRun{Event: string(hooks.PermissionRequest), CallID: call.ID, Tool: call.Name})
	if err := t.record(ctx, evs...); err != nil {
		return "", "", err
	}
	o := hooks.Combine(runs)
	switch {
	case o.Decision == hooks.Deny:
		if o.Interrupt {
			t.hooks.requestStop(o.Reason)
		}
		return hooks.Deny, o.Reason, e.answered(ctx, s.id, call.ID, Deny, o.Reason, "", "hook")
	case o.Decision == hooks.Allow && hold == "":
		if o.UpdatedInput != nil {
			if err := call.Replace(t.fromHookInput(call, o.UpdatedInput)); err != nil {
				reason := fmt.Sprintf("a PermissionRequest hook changed its arguments into ones %s does not accept: %v", call.Name, err)
				return hooks.Deny, reason, e.answered(ctx, s.id, call.ID, Deny, reason, "", "hook")
			}
		}
		return hooks.Allow, "", e.answered(ctx, s.id, call.ID, AllowOnce, "", "", "hook")
	}
	return "", "", nil
}

// notifyHooks runs Notification hooks where TinyElf notifies the user,
// beside the turn (they never hold it up), logging their runs.
func (e *Engine) notifyHooks(s *sessionState, set *hooks.Set, base hooks.Input, kind, title, message string) {
	hs := set.Match(hooks.Notification, kind)
	if len(hs) == 0 {
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
		in := base
		in.Event, in.Message, in.Title, in.NotificationType = hooks.Notification, message, title, kind
		in.TranscriptPath = e.transcript(e.bgCtx, s, base.Cwd)
		runs := e.hookRunner().Run(e.bgCtx, hs, in, base.Cwd)
		evs := make([]sessions.Event, len(runs))
		for i, r := range runs {
			evs[i] = sessions.NewEvent(sessions.EventHookRun, hookRunEvent(r, sessions.HookRun{Event: string(hooks.Notification), Detail: kind}))
		}
		_ = e.record(context.Background(), s.id, evs...)
	}()
}

// turnNotifyHooks is notifyHooks for the turn's session.
func (t *turn) turnNotifyHooks(kind, title, message string) {
	if !t.hooks.set.Has(hooks.Notification) {
		return
	}
	base := hooks.Input{SessionID: t.s.id, Cwd: t.info.Workspace, PermissionMode: claudeMode(t.info.Mode)}
	t.e.notifyHooks(t.s, t.hooks.set, base, kind, title, message)
}

// sessionEndHooks runs SessionEnd for a session leaving memory (reason:
// hooks.EndOther when released idle, hooks.EndExit when TinyElf quits),
// with the hooks its last turn used, and logs the runs.
func (e *Engine) sessionEndHooks(ctx context.Context, s *sessionState, reason string) {
	s.mu.Lock()
	set, started, base := s.hookSet, s.hooksStarted, s.hookBase
	s.hooksStarted = false // once
	s.mu.Unlock()
	if !started || !set.Has(hooks.SessionEnd) {
		return
	}
	hs := set.Match(hooks.SessionEnd, reason)
	if len(hs) == 0 {
		return
	}
	in := base
	in.Event, in.Reason = hooks.SessionEnd, reason
	in.TranscriptPath = e.transcript(ctx, s, base.Cwd)
	runs := e.hookRunner().Run(ctx, hs, in, base.Cwd)
	evs := make([]sessions.Event, len(runs))
	for i, r := range runs {
		evs[i] = sessions.NewEvent(sessions.EventHookRun, hookRunEvent(r, sessions.HookRun{Event: string(hooks.SessionEnd), Detail: reason}))
	}
	_ = e.record(context.WithoutCancel(ctx), s.id, evs...)
}
