package hooks

import (
	"fmt"
	"slices"
	"strings"
)

// Event names a hook point, spelled as Claude Code spells it.
type Event string

// The events, in the order a session meets them.
const (
	// SessionStart runs when a session starts in this process (source
	// "startup"), comes back into memory ("resume"), or after its history
	// was compacted ("compact"); its output becomes context.
	SessionStart Event = "SessionStart"
	// UserPromptSubmit runs before the user's message reaches the model;
	// it can add context or refuse the message.
	UserPromptSubmit Event = "UserPromptSubmit"
	// PreToolUse runs before a tool call's permission step; it can allow,
	// deny, ask, or change the call's input.
	PreToolUse Event = "PreToolUse"
	// PermissionRequest runs when the user is about to be asked to approve
	// a call; it can answer for them.
	PermissionRequest Event = "PermissionRequest"
	// PostToolUse runs after a call succeeded, PostToolUseFailure after
	// one failed; both can give the model feedback.
	PostToolUse        Event = "PostToolUse"
	PostToolUseFailure Event = "PostToolUseFailure"
	// Notification runs when TinyElf notifies the user.
	Notification Event = "Notification"
	// Stop runs when the agent is about to end its turn with an answer,
	// SubagentStop when a subagent is; blocking makes it go on.
	Stop         Event = "Stop"
	SubagentStop Event = "SubagentStop"
	// PreCompact runs before the history is compacted.
	PreCompact Event = "PreCompact"
	// SessionEnd runs when a session leaves this process.
	SessionEnd Event = "SessionEnd"
)

// Events lists every event in lifecycle order.
var Events = []Event{
	SessionStart, UserPromptSubmit, PreToolUse, PermissionRequest, PostToolUse, PostToolUseFailure,
	Notification, Stop, SubagentStop, PreCompact, SessionEnd,
}

// ParseEvent reads an event name; case and surrounding space are forgiven
// ("pretooluse" is PreToolUse).
func ParseEvent(s string) (Event, error) {
	s = strings.TrimSpace(s)
	for _, e := range Events {
		if strings.EqualFold(s, string(e)) {
			return e, nil
		}
	}
	names := make([]string, len(Events))
	for i, e := range Events {
		names[i] = string(e)
	}
	return "", fmt.Errorf("unknown hook event %q (the events are %s)", s, strings.Join(names, ", "))
}

// Known reports whether e is one of Events.
func (e Event) Known() bool { return slices.Contains(Events, e) }

// MatchField names the input field an event's matcher is tested against,
// "" for the events whose hooks all run whatever their matcher (Claude
// Code ignores the matcher of UserPromptSubmit and Stop).
func (e Event) MatchField() string {
	switch e {
	case PreToolUse, PermissionRequest, PostToolUse, PostToolUseFailure:
		return "tool_name"
	case SessionStart:
		return "source"
	case SessionEnd:
		return "reason"
	case Notification:
		return "notification_type"
	case PreCompact:
		return "trigger"
	case SubagentStop:
		return "agent_type"
	}
	return ""
}

// ToolEvent reports whether e runs for a tool call.
func (e Event) ToolEvent() bool {
	switch e {
	case PreToolUse, PermissionRequest, PostToolUse, PostToolUseFailure:
		return true
	}
	return false
}

// MatcherValues are the values an event's matcher is usually written for
// (the SessionStart sources, the Notification types...), for the settings
// form; nil for tool events (a tool name) and events without a matcher.
func (e Event) MatcherValues() []string {
	switch e {
	case SessionStart:
		return []string{SourceStartup, SourceResume, SourceClear, SourceCompact}
	case SessionEnd:
		return []string{EndClear, EndLogout, EndExit, EndOther}
	case Notification:
		return []string{NotifyPermission, NotifyIdle}
	case PreCompact:
		return []string{TriggerManual, TriggerAuto}
	}
	return nil
}

// SessionStart sources.
const (
	SourceStartup = "startup"
	SourceResume  = "resume"
	SourceClear   = "clear"
	SourceCompact = "compact"
)

// SessionEnd reasons.
const (
	EndClear  = "clear"
	EndLogout = "logout"
	EndExit   = "prompt_input_exit"
	EndOther  = "other"
)

// Notification types.
const (
	NotifyPermission = "permission_prompt"
	NotifyIdle       = "idle_prompt"
)

// PreCompact triggers.
const (
	TriggerManual = "manual"
	TriggerAuto   = "auto"
)
