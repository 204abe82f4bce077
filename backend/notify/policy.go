package notify

import (
	"context"
	"strings"
	"sync/atomic"
)

// Policy decides when TinyElf shows a notification; the engine and the api
// layer only report what happened.
//
// The rule: what the user is watching needs no notification. Work in the
// foreground session notifies only while the window is not focused;
// background work (subagents, sessions not on screen) notifies whether or
// not it is; nothing is sent while the policy is disabled. Turn ends, failed
// turns and approvals that wait all follow this rule.
//
// Until the UI first reports focus, the window counts as not focused: a
// missed notification costs the user more than an extra one.
//
// A Policy is safe for concurrent use: the UI flips focus and the settings
// flip Enabled while turns end on other goroutines. A nil *Policy sends
// nothing. Methods return the notifier's error for the caller to log; a nil
// error also means the policy chose not to notify.
type Policy struct {
	notifier Notifier
	enabled  atomic.Bool
	focused  atomic.Bool
	rules    atomic.Pointer[Rules]
}

// Rules are the user's choices of what notifies (Settings → Notifications).
// The zero value notifies nothing; DefaultRules is what a new user gets.
type Rules struct {
	// TurnFinished: a turn of the session on screen ended (or failed).
	TurnFinished bool `json:"turnFinished"`
	// ApprovalWaiting: a tool call waits for the user.
	ApprovalWaiting bool `json:"approvalWaiting"`
	// BackgroundDone: background work (a subagent, a session not on
	// screen, tinyelf run) ended.
	BackgroundDone bool `json:"backgroundDone"`
	// MCPFailed: an MCP server failed to start or crashed.
	MCPFailed bool `json:"mcpFailed"`
	// Sound plays the desktop's message sound.
	Sound bool `json:"sound"`
	// OnlyUnfocused sends the foreground's notifications (turn finished,
	// approval waiting, MCP server failed) only while TinyElf's window is
	// not focused; background work notifies either way.
	OnlyUnfocused bool `json:"onlyUnfocused"`
}

// DefaultRules notify of everything, with sound, only while the window is
// not focused.
var DefaultRules = Rules{TurnFinished: true, ApprovalWaiting: true, BackgroundDone: true, MCPFailed: true, Sound: true, OnlyUnfocused: true}

// NewPolicy returns a policy that sends through n (nil means Disabled),
// enabled or not as the user's setting says.
func NewPolicy(n Notifier, enabled bool) *Policy {
	if n == nil {
		n = Disabled{}
	}
	p := &Policy{notifier: n}
	p.enabled.Store(enabled)
	p.SetRules(DefaultRules)
	return p
}

// SetRules replaces what notifies (the user's settings).
func (p *Policy) SetRules(r Rules) {
	if p != nil {
		p.rules.Store(&r)
	}
}

// Rules returns what notifies.
func (p *Policy) Rules() Rules {
	if p == nil {
		return Rules{}
	}
	return *p.rules.Load()
}

// SetEnabled turns notifications on or off (the user's setting).
func (p *Policy) SetEnabled(on bool) {
	if p != nil {
		p.enabled.Store(on)
	}
}

// Enabled reports whether notifications are on.
func (p *Policy) Enabled() bool { return p != nil && p.enabled.Load() }

// SetFocused records whether TinyElf's window (or browser tab) has focus;
// the UI calls it on every focus change.
func (p *Policy) SetFocused(focused bool) {
	if p != nil {
		p.focused.Store(focused)
	}
}

// Focused reports the focus state last set.
func (p *Policy) Focused() bool { return p != nil && p.focused.Load() }

// TurnEnded notifies that a turn of the session titled title finished, with
// summary (the start of the final answer) as the body.
func (p *Policy) TurnEnded(ctx context.Context, title, summary string, background bool) error {
	return p.send(ctx, background, turnEvent(background), Notification{
		Title: title,
		Body:  orIfBlank(summary, "Finished."),
		Kind:  KindDone,
	})
}

// TurnFailed notifies that a turn of the session titled title stopped with
// an error, described by reason.
func (p *Policy) TurnFailed(ctx context.Context, title, reason string, background bool) error {
	body := "Stopped with an error."
	if r := strings.TrimSpace(reason); r != "" {
		body = "Stopped with an error: " + r
	}
	return p.send(ctx, background, turnEvent(background), Notification{Title: title, Body: body, Kind: KindError})
}

// turnEvent is the rule a turn's end goes by.
func turnEvent(background bool) func(Rules) bool {
	if background {
		return func(r Rules) bool { return r.BackgroundDone }
	}
	return func(r Rules) bool { return r.TurnFinished }
}

// TaskEnded notifies that a background task (a user tool's action run in
// the background) ended, by the BackgroundDone rule and whatever the
// focus; failed says it ended badly, summary is the start of its result.
func (p *Policy) TaskEnded(ctx context.Context, title, summary string, failed bool) error {
	n := Notification{Title: title, Body: orIfBlank(summary, "Finished."), Kind: KindDone}
	if failed {
		n.Body, n.Kind = orIfBlank(summary, "Stopped with an error."), KindError
	}
	return p.send(ctx, true, func(r Rules) bool { return r.BackgroundDone }, n)
}

// MCPServerFailed notifies that the MCP server name failed (to start, or
// while running) with reason.
func (p *Policy) MCPServerFailed(ctx context.Context, name, reason string) error {
	body := "It stopped working."
	if r := strings.TrimSpace(reason); r != "" {
		body = r
	}
	return p.send(ctx, false, func(r Rules) bool { return r.MCPFailed },
		Notification{Title: "MCP server " + name + " failed", Body: body, Kind: KindError})
}

// Test sends a sample notification whatever the focus and the rules (but
// with the sound setting), so the user can see that notifications work;
// it returns the notifier's error, and ErrUnavailable's kin when off.
func (p *Policy) Test(ctx context.Context, title, body string) error {
	if p == nil {
		return ErrUnavailable
	}
	return p.notifier.Notify(ctx, Notification{Title: title, Body: body, Kind: KindDone, Silent: !p.Rules().Sound})
}

// ApprovalWaiting notifies that the session titled title waits for the
// user to approve a call of tool.
func (p *Policy) ApprovalWaiting(ctx context.Context, title, tool string, background bool) error {
	body := "Waiting for your approval."
	if t := strings.TrimSpace(tool); t != "" {
		body = "Waiting for your approval to run " + t + "."
	}
	return p.send(ctx, background, func(r Rules) bool { return r.ApprovalWaiting }, Notification{Title: title, Body: body, Kind: KindApproval})
}

// Notify shows a notification the agent asked for (the Notify tool):
// whenever the policy is enabled, focused or not, since the model chose to
// call for attention. With it, *Policy satisfies agent.Notifier.
func (p *Policy) Notify(ctx context.Context, title, body string) error {
	if !p.Enabled() {
		return nil
	}
	return p.notifier.Notify(ctx, Notification{Title: title, Body: body, Kind: KindDone, Silent: !p.Rules().Sound})
}

// send notifies n when the policy is on, the event's rule allows it, and
// the focus rule does not hold it back.
func (p *Policy) send(ctx context.Context, background bool, allowed func(Rules) bool, n Notification) error {
	if !p.Enabled() {
		return nil
	}
	r := p.Rules()
	if !allowed(r) || (r.OnlyUnfocused && p.Focused() && !background) {
		return nil
	}
	n.Silent = !r.Sound
	return p.notifier.Notify(ctx, n)
}

func orIfBlank(s, fallback string) string {
	if strings.TrimSpace(s) == "" {
		return fallback
	}
	return s
}
