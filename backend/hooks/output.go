package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// The decisions a hook can take. Allow, Deny and Ask are PreToolUse's
// permissionDecision (Allow and Deny also PermissionRequest's behavior);
// Block is the "decision": "block" of UserPromptSubmit, Stop,
// SubagentStop, PostToolUse and PostToolUseFailure, and what exit code 2
// means for them.
const (
	Allow = "allow"
	Deny  = "deny"
	Ask   = "ask"
	Block = "block"
)

// Verdict is what one hook run says, read from its exit code and output.
type Verdict struct {
	// Decision is "", Allow, Deny, Ask or Block.
	Decision string `json:"decision,omitempty"`
	// Reason goes with the decision: what the model reads for a deny, a
	// block of a tool call or a Stop; what the user reads for a refused
	// prompt or an ask.
	Reason string `json:"reason,omitempty"`
	// Context is added to what the model reads (additionalContext, or the
	// plain stdout of UserPromptSubmit and SessionStart).
	Context string `json:"context,omitempty"`
	// UpdatedInput replaces the tool call's input (PreToolUse,
	// PermissionRequest's allow).
	UpdatedInput map[string]any `json:"updatedInput,omitempty"`
	// Stop is "continue": false: the agent stops after this step, and
	// StopReason tells the user why.
	Stop       bool   `json:"stop,omitempty"`
	StopReason string `json:"stopReason,omitempty"`
	// SystemMessage is shown to the user; SuppressOutput hides the hook's
	// output from the chat.
	SystemMessage  string `json:"systemMessage,omitempty"`
	SuppressOutput bool   `json:"suppressOutput,omitempty"`
	// Interrupt is PermissionRequest's deny with "interrupt": true: the
	// turn stops too.
	Interrupt bool `json:"interrupt,omitempty"`
	// Problem says what went wrong with the hook itself (it failed, timed
	// out, printed output TinyElf could not use): shown to the user, never
	// obeyed as a decision.
	Problem string `json:"problem,omitempty"`
}

// output is the JSON a hook may print on exit 0.
type output struct {
	Continue       *bool           `json:"continue"`
	StopReason     string          `json:"stopReason"`
	SuppressOutput bool            `json:"suppressOutput"`
	SystemMessage  string          `json:"systemMessage"`
	Decision       string          `json:"decision"`
	Reason         string          `json:"reason"`
	Specific       *specificOutput `json:"hookSpecificOutput"`
}

type specificOutput struct {
	HookEventName            string          `json:"hookEventName"`
	PermissionDecision       string          `json:"permissionDecision"`
	PermissionDecisionReason string          `json:"permissionDecisionReason"`
	UpdatedInput             json.RawMessage `json:"updatedInput"`
	AdditionalContext        string          `json:"additionalContext"`
	Decision                 *requestOutput  `json:"decision"`
}

// requestOutput is PermissionRequest's hookSpecificOutput.decision.
type requestOutput struct {
	Behavior     string          `json:"behavior"`
	Message      string          `json:"message"`
	UpdatedInput json.RawMessage `json:"updatedInput"`
	Interrupt    bool            `json:"interrupt"`
}

// plainContext reports whether an event's plain stdout becomes context.
func plainContext(ev Event) bool { return ev == UserPromptSubmit || ev == SessionStart }

// Judge reads what a finished hook says from its exit code, stdout and
// stderr, as Claude Code does:
//
//   - exit 0: go on; stdout may be JSON with a decision (PreToolUse's
//     hookSpecificOutput.permissionDecision, "decision": "block" ...),
//     "continue": false, "systemMessage"...; plain stdout of
//     UserPromptSubmit and SessionStart is context;
//   - exit 2: block, with stderr as the reason (PreToolUse and
//     PermissionRequest: deny; the events that cannot block only show it);
//   - any other code: a non-blocking error, shown to the user.
//
// Output that looks like JSON but does not parse, or holds a value TinyElf
// does not know, is a Problem and is not obeyed.
func Judge(ev Event, exitCode int, stdout, stderr string) Verdict {
	switch exitCode {
	case 0:
		return judgeOutput(ev, stdout)
	case 2:
		reason := strings.TrimSpace(stderr)
		v := Verdict{Reason: reason}
		switch ev {
		case PreToolUse, PermissionRequest:
			v.Decision = Deny
		case PostToolUse, PostToolUseFailure, UserPromptSubmit, Stop, SubagentStop:
			v.Decision = Block
		default:
			// These events cannot block: the user reads stderr.
			v.Reason = ""
			if reason != "" {
				v.SystemMessage = reason
			}
			return v
		}
		if v.Reason == "" {
			v.Reason = "a hook blocked this (exit status 2) without saying why"
		}
		return v
	}
	msg := fmt.Sprintf("exited with status %d (a non-blocking error)", exitCode)
	if s := firstLines(stderr, 3, 300); s != "" {
		msg += ": " + s
	}
	return Verdict{Problem: msg}
}

func judgeOutput(ev Event, stdout string) Verdict {
	text := strings.TrimSpace(stdout)
	if text == "" {
		return Verdict{}
	}
	if !strings.HasPrefix(text, "{") {
		if plainContext(ev) {
			return Verdict{Context: text}
		}
		return Verdict{}
	}
	var out output
	dec := json.NewDecoder(strings.NewReader(text))
	if err := dec.Decode(&out); err != nil {
		return Verdict{Problem: "its output looks like JSON but is not valid (" + err.Error() + "); ignored"}
	}
	if dec.More() {
		return Verdict{Problem: "its output holds more than one JSON value; ignored"}
	}
	v := Verdict{SystemMessage: out.SystemMessage, SuppressOutput: out.SuppressOutput}
	var problems []string
	if out.Continue != nil && !*out.Continue {
		v.Stop, v.StopReason = true, out.StopReason
	}
	switch out.Decision {
	case "":
	case Block:
		switch ev {
		case PreToolUse:
			v.Decision = Deny // the older form of permissionDecision
		case UserPromptSubmit, Stop, SubagentStop, PostToolUse, PostToolUseFailure:
			v.Decision = Block
		default:
			problems = append(problems, fmt.Sprintf("\"decision\": \"block\" means nothing for %s", ev))
		}
		v.Reason = out.Reason
	case "approve":
		if ev == PreToolUse {
			v.Decision, v.Reason = Allow, out.Reason
		} else {
			problems = append(problems, fmt.Sprintf("\"decision\": \"approve\" means nothing for %s", ev))
		}
	default:
		problems = append(problems, fmt.Sprintf("unknown \"decision\" %q (want \"block\")", out.Decision))
	}
	if sp := out.Specific; sp != nil {
		if sp.HookEventName != "" && sp.HookEventName != string(ev) {
			problems = append(problems, fmt.Sprintf("hookSpecificOutput is for %q, not %s; ignored", sp.HookEventName, ev))
		} else {
			ps, fatal := v.applySpecific(ev, sp)
			if fatal {
				// An input the hook meant to change and could not: nothing
				// it said about the call may be obeyed.
				return Verdict{Problem: strings.Join(ps, "; ")}
			}
			problems = append(problems, ps...)
		}
	}
	if (v.Decision == Block || v.Decision == Deny) && strings.TrimSpace(v.Reason) == "" {
		v.Reason = "a hook blocked this without saying why"
	}
	if len(problems) > 0 {
		v.Problem = strings.Join(problems, "; ")
	}
	return v
}

// applySpecific reads hookSpecificOutput for ev into v. fatal says the
// output must not be obeyed at all.
func (v *Verdict) applySpecific(ev Event, sp *specificOutput) (problems []string, fatal bool) {
	switch ev {
	case PreToolUse:
		switch sp.PermissionDecision {
		case "":
		case Allow, Deny, Ask:
			// permissionDecision wins over the older "decision".
			v.Decision, v.Reason = sp.PermissionDecision, sp.PermissionDecisionReason
		default:
			problems = append(problems, fmt.Sprintf("unknown permissionDecision %q (want allow, deny or ask); ignored", sp.PermissionDecision))
		}
		in, err := objectOf(sp.UpdatedInput)
		if err != nil {
			return []string{"updatedInput " + err.Error() + "; the output is ignored"}, true
		}
		v.UpdatedInput = in
	case PermissionRequest:
		if d := sp.Decision; d != nil {
			switch d.Behavior {
			case Allow:
				v.Decision = Allow
				in, err := objectOf(d.UpdatedInput)
				if err != nil {
					return []string{"updatedInput " + err.Error() + "; the output is ignored"}, true
				}
				v.UpdatedInput = in
			case Deny:
				v.Decision, v.Reason, v.Interrupt = Deny, d.Message, d.Interrupt
			default:
				problems = append(problems, fmt.Sprintf("unknown decision.behavior %q (want allow or deny); ignored", d.Behavior))
			}
		}
	case UserPromptSubmit, SessionStart, PostToolUse, PostToolUseFailure:
	default:
		if sp.AdditionalContext != "" {
			problems = append(problems, fmt.Sprintf("additionalContext means nothing for %s; ignored", ev))
		}
		return problems, false
	}
	if sp.AdditionalContext != "" {
		switch ev {
		case PreToolUse, UserPromptSubmit, SessionStart, PostToolUse, PostToolUseFailure:
			v.Context = sp.AdditionalContext
		default:
			problems = append(problems, fmt.Sprintf("additionalContext means nothing for %s; ignored", ev))
		}
	}
	return problems, false
}

// objectOf decodes an updatedInput: absent is nil, anything but an object
// an error.
func objectOf(raw json.RawMessage) (map[string]any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, fmt.Errorf("must be a JSON object")
	}
	return m, nil
}

// firstLines returns at most n lines and max bytes of s, trimmed, with
// "…" when cut.
func firstLines(s string, n, max int) string {
	s = strings.TrimSpace(s)
	cut := false
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines, cut = lines[:n], true
	}
	s = strings.Join(lines, "\n")
	if len(s) > max {
		s, cut = cutUTF8(s, max), true
	}
	if cut {
		s += "…"
	}
	return s
}

// cutUTF8 cuts s to at most n bytes without splitting a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
