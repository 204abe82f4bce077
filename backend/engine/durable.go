package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"tinyelf/backend/llm"
	"tinyelf/backend/sessions"
	"tinyelf/backend/skills"
	"tinyelf/backend/tools/fs"
)

// Durable session state (ARCHITECTURE: "State that changes how a resumed
// session behaves … is an event in the session log, rebuilt on reopen,
// never memory alone"). What a session's memory holds beyond its
// conversation is logged as it changes, in the writes the turn makes
// anyway, and given back when the engine opens a session it does not hold
// (after the idle release or a restart):
//
//   - read marks: the read tracker reports every file the agent reads or
//     writes, with its content hash; a batch's marks go out with its
//     results (read.marks). A reopened session's tracker is seeded with
//     them: a file unchanged since is writable, one changed is refused.
//   - promotions: tools ToolSearch found or the model called by name stay
//     visible for the session (capability.promoted, with the results or
//     the capability diff of the load).
//   - grants: what a loaded skill or a typed command pre-approved for its
//     turn (permission.granted, with the next write); they matter again
//     only when that same turn is taken up after a restart.
//   - approvals: a tool call's approval that was waiting when TinyElf
//     closed stays open in the log (no answer, no result). When the
//     session is looked at again, Pending lists it, so the card comes back;
//     answering it takes the turn up where it stopped (ResumeApproval):
//     the call runs (or is refused) with that answer, the answer's other
//     calls follow, and the model goes on. An MCP server's question, a
//     trust card or a subagent's approval cannot be taken up (what asked
//     ended with TinyElf): they are expired with a line saying so. A new
//     message instead of an answer expires what waited, in its first write.

// ResumeApproval is the resume kind of a turn taken up again by answering
// an approval its turn left waiting when TinyElf closed (Answer starts it).
const ResumeApproval = "approval"

// revival is the answer that takes a turn up again.
type revival struct {
	callID string
	ans    ApprovalAnswer
}

// Why approvals left open by an earlier run are expired.
const (
	expiredClosed   = "TinyElf closed before this was answered"
	expiredMCP      = expiredClosed + "; the MCP server's request ended with it"
	expiredTrust    = expiredClosed + "; it is asked again when it is needed"
	expiredSubagent = expiredClosed + "; the subagent's run ended with it"
	expiredMoved    = "not answered before the conversation went on"
	// decidedExpired is the By of an expiry's approval.answered.
	decidedExpired = "expired"
)

// durableLog is implemented by a SessionLog that can read a session's
// durable state back (StoreLog does).
type durableLog interface {
	DurableState(ctx context.Context, sessionID string) (sessions.DurableState, error)
	OpenTurn(ctx context.Context, sessionID string) (sessions.OpenTurn, error)
}

// newSessionState makes the engine's memory of a session, its read
// tracker reporting to the session's mark buffer.
func newSessionState(id string) *sessionState {
	s := &sessionState{id: id, pending: map[string]chan ApprovalAnswer{}, reads: fs.NewReadTracker()}
	s.reads.SetRecorder(&s.marks)
	return s
}

// markBuffer keeps the read marks made since the session's last write of
// them. Safe for concurrent use.
type markBuffer struct {
	mu    sync.Mutex
	marks []sessions.ReadMark
}

// RecordRead implements fs.ReadRecorder.
func (b *markBuffer) RecordRead(m fs.ReadMark) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.marks = slices.DeleteFunc(b.marks, func(o sessions.ReadMark) bool { return o.Path == m.Path })
	b.marks = append(b.marks, sessions.ReadMark{Path: m.Path, Hash: m.Hash, Size: m.Size})
	if n := len(b.marks); n > fs.MaxTrackedFiles {
		b.marks = slices.Clone(b.marks[n-fs.MaxTrackedFiles:])
	}
}

// event returns the marks made since the last call as one event.
func (b *markBuffer) event() (sessions.Event, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.marks) == 0 {
		return sessions.Event{}, false
	}
	ev := sessions.NewEvent(sessions.EventReadMarks, sessions.ReadMarks{Marks: b.marks})
	b.marks = nil
	return ev, true
}

// withMarks appends the session's new read marks to a write's events.
func (t *turn) withMarks(evs []sessions.Event) []sessions.Event {
	if ev, ok := t.s.marks.event(); ok {
		return append(evs, ev)
	}
	return evs
}

// restoreDurable gives a session the engine opens from the log what its
// log keeps: read marks, promotions, and the last turn's unfinished
// business (t.open). It returns the visible set the log last recorded.
func (t *turn) restoreDurable(ctx context.Context) (sessions.CapabilityState, error) {
	e, s := t.e, t.s
	dl, ok := e.opts.Log.(durableLog)
	if !ok {
		return e.opts.Log.LastCapabilities(ctx, s.id)
	}
	st, err := dl.DurableState(ctx, s.id)
	if err != nil {
		return st.Capabilities, err
	}
	marks := make([]fs.ReadMark, len(st.Reads))
	for i, m := range st.Reads {
		marks[i] = fs.ReadMark{Path: m.Path, Hash: m.Hash, Size: m.Size}
	}
	s.reads.Seed(marks)
	d := s.discoveryState()
	for _, p := range st.Promoted {
		d.Promote(p.Name, p.Why)
	}
	ot, err := dl.OpenTurn(ctx, s.id)
	if err != nil {
		return st.Capabilities, err
	}
	t.open = &ot
	return st.Capabilities, nil
}

// notePromoted logs promotions with the turn's next write.
func (t *turn) notePromoted(names ...string) {
	if len(names) == 0 {
		return
	}
	d := t.s.discoveryState()
	var ps []sessions.Promotion
	for _, n := range names {
		if why, ok := d.Promoted(n); ok {
			ps = append(ps, sessions.Promotion{Name: n, Why: why})
		}
	}
	if len(ps) > 0 {
		t.hold(sessions.NewEvent(sessions.EventCapabilityPromoted, sessions.CapabilityPromoted{Tools: ps}))
	}
}

// grant adds a grant to the turn and logs it with the turn's next write.
func (t *turn) grant(ts skills.AllowedTools, by string, filter bool) {
	if len(ts) == 0 && !filter {
		return
	}
	t.grants.add(ts, by, filter)
	t.hold(sessions.NewEvent(sessions.EventPermissionGranted, sessions.PermissionGranted{Tools: ts.String(), By: by, Filter: filter}))
}

// waitingApprovals are, per session, the approvals an earlier run left
// open that can be taken up (see Pending), as the log said when first
// asked in this process. It is a cache of the log: at most
// maxWaitingSessions sessions, and starting over costs only reads.
type waitingApprovals struct {
	mu sync.Mutex
	by map[string][]sessions.OpenApproval
}

const maxWaitingSessions = 256

func (w *waitingApprovals) get(id string) ([]sessions.OpenApproval, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	a, ok := w.by[id]
	return a, ok
}

func (w *waitingApprovals) put(id string, a []sessions.OpenApproval) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.by == nil || len(w.by) >= maxWaitingSessions {
		w.by = map[string][]sessions.OpenApproval{}
	}
	w.by[id] = a
}

func (w *waitingApprovals) forget(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.by, id)
}

// leftOpen returns the approvals of a session's last turn that an earlier
// run of TinyElf left waiting and that its answer can take up; the others
// it finds are expired, with a line saying why. Only an engine whose
// approvals the user answers (no Approver: the desktop and serve) takes
// approvals up, and never while the session runs a turn here.
func (e *Engine) leftOpen(id string) []sessions.OpenApproval {
	if e.opts.Approver != nil || id == "" {
		return nil
	}
	if s := e.peek(id); s != nil {
		s.mu.Lock()
		running := s.running
		s.mu.Unlock()
		if running {
			return nil
		}
	}
	if a, ok := e.waiting.get(id); ok {
		return a
	}
	dl, ok := e.opts.Log.(durableLog)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ot, err := dl.OpenTurn(ctx, id)
	if err != nil {
		return nil // asked again next time
	}
	var keep []sessions.OpenApproval
	var expire []sessions.Event
	if len(ot.Approvals) > 0 {
		info, err := e.opts.Log.Info(ctx, id)
		if err != nil {
			return nil
		}
		for _, a := range ot.Approvals {
			if why := whyNotTakenUp(a, info); why != "" {
				expire = append(expire, expiry(a.CallID, why))
			} else {
				keep = append(keep, a)
			}
		}
	}
	if len(expire) > 0 && e.record(ctx, id, expire...) != nil {
		return nil // the log refused: try again next time
	}
	e.waiting.put(id, keep)
	return keep
}

// whyNotTakenUp says why an approval left open cannot be taken up again,
// or "" when it can: a tool call's permission, in a session of the user's.
func whyNotTakenUp(a sessions.OpenApproval, info SessionInfo) string {
	switch {
	case info.Parent != "":
		return expiredSubagent
	case a.Kind == ApprovalElicitation || a.Kind == ApprovalSampling:
		return expiredMCP
	case a.Kind != "":
		return expiredTrust
	}
	return ""
}

// expiry is the answer that closes an approval nobody can answer now.
func expiry(callID, why string) sessions.Event {
	return sessions.NewEvent(sessions.EventApprovalAnswered, sessions.ApprovalAnswered{
		CallID: callID, Decision: string(Deny), Reason: why, By: decidedExpired,
	})
}

// revive takes up the turn an approval left waiting by an earlier run was
// part of, with the user's answer to it.
func (e *Engine) revive(sessionID, callID string, ans ApprovalAnswer) error {
	if !slices.ContainsFunc(e.leftOpen(sessionID), func(a sessions.OpenApproval) bool { return a.CallID == callID }) {
		return fmt.Errorf("no approval is waiting for call %s in session %s", callID, sessionID)
	}
	in := Input{Resume: ResumeApproval, revive: &revival{callID: callID, ans: ans}}
	s, run, ctx, err := e.begin(sessionID)
	if err != nil {
		return err
	}
	go func() { e.finish(s, run, e.runInput(ctx, s, in, in.Options)) }()
	return nil
}

// expireLeftOpen returns the expiries of what the session's last turn left
// waiting, for the first write of a turn that starts instead of taking it
// up.
func (t *turn) expireLeftOpen() []sessions.Event {
	if t.open == nil {
		return nil
	}
	var evs []sessions.Event
	for _, a := range t.open.Approvals {
		evs = append(evs, expiry(a.CallID, expiredMoved))
	}
	t.open.Approvals = nil
	return evs
}

// takeUp runs what the turn left unfinished when TinyElf closed, with the
// user's answer to its approval: the answer's calls that have no result,
// in order, through the pipeline (the answered call does not ask again;
// another call that was waiting asks without a new card, the old one
// stands). It reports the turn's result when the turn ends here.
func (t *turn) takeUp(ctx context.Context, rv *revival) (TurnResult, bool) {
	if t.open == nil {
		dl, ok := t.e.opts.Log.(durableLog)
		if !ok {
			return t.fail(ctx, "internal", "", 0, errors.New("this session's log cannot say what its turn left unfinished")), true
		}
		ot, err := dl.OpenTurn(ctx, t.s.id)
		if err != nil {
			return t.fail(ctx, "internal", "", 0, err), true
		}
		t.open = &ot
	}
	ot := t.open
	waiting := map[string]bool{}
	for _, a := range ot.Approvals {
		waiting[a.CallID] = true
	}
	if !waiting[rv.callID] || !slices.ContainsFunc(ot.Calls, func(c sessions.ToolCallRecord) bool { return c.ID == rv.callID }) {
		return t.end(ctx, EndDone, "", 0, nil), true // answered meanwhile: nothing to take up
	}
	for _, g := range ot.Grants {
		ts, _ := skills.ParseAllowedTools(g.Tools)
		t.grant(ts, g.By, g.Filter)
	}
	t.intended = map[string]bool{}
	for _, id := range ot.Intended {
		t.intended[id] = true
	}
	t.revived = map[string]*ApprovalAnswer{rv.callID: &rv.ans}
	for id := range waiting {
		if id != rv.callID {
			t.revived[id] = nil
		}
	}
	calls := make([]llm.ToolCall, len(ot.Calls))
	for i, c := range ot.Calls {
		calls[i] = llm.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments}
	}
	sess, err := t.registry()
	if err != nil {
		return t.fail(ctx, "internal", "", 0, err), true
	}
	t.ws = sess.Workspace
	if err := t.discover(ctx); err != nil {
		return t.fail(ctx, "internal", "", 0, err), true
	}
	results := t.runCalls(ctx, calls)
	return t.afterCalls(ctx, results, "", 0)
}

// revivedAnswer reports whether the call's approval was asked before the
// turn was taken up again, and the user's answer when given (nil: wait for
// it, without asking again).
func (t *turn) revivedAnswer(callID string) (*ApprovalAnswer, bool) {
	if t == nil {
		return nil, false
	}
	t.logMu.Lock()
	defer t.logMu.Unlock()
	ans, ok := t.revived[callID]
	delete(t.revived, callID) // one answer, one question
	return ans, ok
}

// wasAsked reports whether the call's approval was asked before the turn
// was taken up again (and not put again since).
func (t *turn) wasAsked(callID string) bool {
	if t == nil {
		return false
	}
	t.logMu.Lock()
	defer t.logMu.Unlock()
	_, ok := t.revived[callID]
	return ok
}

// leaveOpen notes that the call's approval stays open in the log: TinyElf
// is closing, and the question is put again when the session is reopened.
// Its result is not logged.
func (t *turn) leaveOpen(callID, tool string) {
	t.logMu.Lock()
	defer t.logMu.Unlock()
	if t.leftOpen == nil {
		t.leftOpen = map[string]string{}
	}
	t.leftOpen[callID] = tool
}

// isLeftOpen reports whether leaveOpen kept the call's approval open.
func (t *turn) isLeftOpen(callID string) bool {
	t.logMu.Lock()
	defer t.logMu.Unlock()
	_, ok := t.leftOpen[callID]
	return ok
}

// leftOpenNote is the turn's end message when approvals stay open.
func (t *turn) leftOpenNote() string {
	t.logMu.Lock()
	defer t.logMu.Unlock()
	if len(t.leftOpen) == 0 {
		return ""
	}
	var names []string
	for _, tool := range t.leftOpen {
		if !slices.Contains(names, tool) {
			names = append(names, tool)
		}
	}
	slices.Sort(names)
	return fmt.Sprintf("TinyElf closed while %s waited for your approval; it is asked again when you open this session", nameList(names))
}

// closing reports whether the engine is shutting down (TinyElf closes).
func (e *Engine) closing() bool { return e.bgCtx.Err() != nil }

// keepsOpen reports whether an approval still waiting when TinyElf closes
// stays open in the log, to be asked again on reopen: a tool call's, in an
// engine whose approvals the user answers, in a session of the user's.
func (e *Engine) keepsOpen(t *turn, req ApprovalRequest) bool {
	return e.closing() && e.opts.Approver == nil && t != nil && t.info.Parent == "" && req.Kind == ""
}
