package hooks

import (
	"strings"
)

// Outcome is what all the hooks of one event say together.
type Outcome struct {
	// Decision is the strongest decision any run took: for PreToolUse
	// Deny over Ask over Allow (a deny always wins); for
	// PermissionRequest Deny over Allow; Block for the others.
	Decision string
	// Reason joins the reasons of the runs that took Decision, one line
	// each.
	Reason string
	// Context lists the context the runs added, in hook order.
	Context []string
	// UpdatedInput is the first replacement input a run gave (in hook
	// order) when Decision is not Deny; Conflict is set when another run
	// gave a different one (only the first is used).
	UpdatedInput map[string]any
	Conflict     bool
	// Stop is set when a run said "continue": false; StopReason joins
	// their reasons.
	Stop       bool
	StopReason string
	// Interrupt is PermissionRequest's deny that also stops the turn.
	Interrupt bool
	// Messages are the runs' systemMessages, for the user.
	Messages []string
}

// rank orders decisions: a higher one wins.
func rank(d string) int {
	switch d {
	case Deny, Block:
		return 3
	case Ask:
		return 2
	case Allow:
		return 1
	}
	return 0
}

// Combine merges the verdicts of one event's runs, given in hook order.
// Runs with a Problem add nothing but their systemMessage: a hook that
// failed, timed out or printed garbage never decides.
func Combine(runs []Run) Outcome {
	var o Outcome
	var reasons, stops []string
	for _, r := range runs {
		v := r.Verdict
		if v.SystemMessage != "" {
			o.Messages = append(o.Messages, v.SystemMessage)
		}
		if r.failed() {
			continue
		}
		if v.Context != "" {
			o.Context = append(o.Context, v.Context)
		}
		if v.Stop {
			o.Stop = true
			if v.StopReason != "" {
				stops = append(stops, v.StopReason)
			}
		}
		switch {
		case rank(v.Decision) > rank(o.Decision):
			o.Decision, reasons = v.Decision, nil
			fallthrough
		case v.Decision != "" && v.Decision == o.Decision:
			if s := strings.TrimSpace(v.Reason); s != "" {
				reasons = append(reasons, s)
			}
			o.Interrupt = o.Interrupt || v.Interrupt
		}
		if v.UpdatedInput != nil {
			if o.UpdatedInput == nil {
				o.UpdatedInput = v.UpdatedInput
			} else if !sameJSON(o.UpdatedInput, v.UpdatedInput) {
				o.Conflict = true
			}
		}
	}
	if o.Decision == Deny {
		o.UpdatedInput, o.Conflict = nil, false
	}
	o.Reason = strings.Join(reasons, "\n")
	o.StopReason = strings.Join(stops, "\n")
	return o
}
