package hooks

import (
	"bytes"
	"encoding/json"
)

// Input is what a hook reads on stdin: one JSON object with Claude Code's
// field names. The common fields go to every event; the others only to the
// events that have them (MarshalJSON writes exactly those, so a Stop hook
// reads "stop_hook_active": false rather than nothing).
type Input struct {
	SessionID string
	// TranscriptPath is a JSONL export of the session (WriteTranscript).
	TranscriptPath string
	// Cwd is the workspace, the hook's working directory.
	Cwd string
	// PermissionMode is "default", "plan", "acceptEdits" or
	// "bypassPermissions" (TinyElf's auto mode).
	PermissionMode string
	Event          Event

	// Tool events.
	ToolName  string
	ToolInput map[string]any
	ToolUseID string
	// ToolResponse is PostToolUse's result (ToolResponse builds it).
	ToolResponse any
	// Error and IsInterrupt are PostToolUseFailure's: what the failed call
	// returned, and whether the user stopped it.
	Error       string
	IsInterrupt bool
	// PermissionSuggestions are PermissionRequest's: the rules "allow
	// always" would add.
	PermissionSuggestions []Suggestion

	// UserPromptSubmit.
	Prompt string

	// Stop and SubagentStop: StopHookActive is set when the agent already
	// goes on because a Stop hook blocked; AgentID, AgentType and
	// AgentTranscriptPath describe the subagent (SubagentStop).
	StopHookActive      bool
	AgentID             string
	AgentType           string
	AgentTranscriptPath string

	// Notification.
	Message          string
	Title            string
	NotificationType string

	// SessionStart (Source, Model, AgentType), SessionEnd (Reason),
	// PreCompact (Trigger, CustomInstructions).
	Source             string
	Model              string
	Reason             string
	Trigger            string
	CustomInstructions string
}

// Suggestion is a permission rule the user could add, in Claude Code's
// shape ({"type": "addRules", "rules": [{"toolName", "ruleContent"}],
// "behavior": "allow", "destination": "userSettings"}).
type Suggestion struct {
	Type        string           `json:"type"`
	Rules       []SuggestionRule `json:"rules"`
	Behavior    string           `json:"behavior"`
	Destination string           `json:"destination"`
}

// SuggestionRule is one rule of a Suggestion.
type SuggestionRule struct {
	ToolName    string `json:"toolName"`
	RuleContent string `json:"ruleContent,omitempty"`
}

// MatchValue is the value the event's matcher is tested against.
func (in Input) MatchValue() string {
	switch in.Event.MatchField() {
	case "tool_name":
		return in.ToolName
	case "source":
		return in.Source
	case "reason":
		return in.Reason
	case "notification_type":
		return in.NotificationType
	case "trigger":
		return in.Trigger
	case "agent_type":
		return in.AgentType
	}
	return ""
}

// MarshalJSON writes the common fields, then the event's own, in a stable
// order.
func (in Input) MarshalJSON() ([]byte, error) {
	var o object
	o.add("session_id", in.SessionID)
	o.add("transcript_path", in.TranscriptPath)
	o.add("cwd", in.Cwd)
	o.add("permission_mode", in.PermissionMode)
	o.add("hook_event_name", string(in.Event))
	toolInput := any(in.ToolInput)
	if in.ToolInput == nil {
		toolInput = map[string]any{}
	}
	switch in.Event {
	case PreToolUse:
		o.add("tool_name", in.ToolName)
		o.add("tool_input", toolInput)
		o.add("tool_use_id", in.ToolUseID)
	case PermissionRequest:
		o.add("tool_name", in.ToolName)
		o.add("tool_input", toolInput)
		o.add("tool_use_id", in.ToolUseID)
		sugg := in.PermissionSuggestions
		if sugg == nil {
			sugg = []Suggestion{}
		}
		o.add("permission_suggestions", sugg)
	case PostToolUse:
		o.add("tool_name", in.ToolName)
		o.add("tool_input", toolInput)
		o.add("tool_response", in.ToolResponse)
		o.add("tool_use_id", in.ToolUseID)
	case PostToolUseFailure:
		o.add("tool_name", in.ToolName)
		o.add("tool_input", toolInput)
		o.add("tool_use_id", in.ToolUseID)
		o.add("error", in.Error)
		o.add("is_interrupt", in.IsInterrupt)
	case UserPromptSubmit:
		o.add("prompt", in.Prompt)
	case Stop:
		o.add("stop_hook_active", in.StopHookActive)
	case SubagentStop:
		o.add("stop_hook_active", in.StopHookActive)
		o.add("agent_id", in.AgentID)
		o.add("agent_type", in.AgentType)
		o.add("agent_transcript_path", in.AgentTranscriptPath)
	case Notification:
		o.add("message", in.Message)
		if in.Title != "" {
			o.add("title", in.Title)
		}
		o.add("notification_type", in.NotificationType)
	case SessionStart:
		o.add("source", in.Source)
		if in.Model != "" {
			o.add("model", in.Model)
		}
		if in.AgentType != "" {
			o.add("agent_type", in.AgentType)
		}
	case SessionEnd:
		o.add("reason", in.Reason)
	case PreCompact:
		o.add("trigger", in.Trigger)
		o.add("custom_instructions", in.CustomInstructions)
	}
	return o.bytes()
}

// object writes a JSON object with its keys in the order added.
type object struct {
	buf bytes.Buffer
	err error
}

func (o *object) add(key string, v any) {
	if o.err != nil {
		return
	}
	if o.buf.Len() == 0 {
		o.buf.WriteByte('{')
	} else {
		o.buf.WriteByte(',')
	}
	k, _ := json.Marshal(key)
	o.buf.Write(k)
	o.buf.WriteByte(':')
	b, err := json.Marshal(v)
	if err != nil {
		o.err = err
		return
	}
	o.buf.Write(b)
}

func (o *object) bytes() ([]byte, error) {
	if o.err != nil {
		return nil, o.err
	}
	if o.buf.Len() == 0 {
		return []byte("{}"), nil
	}
	o.buf.WriteByte('}')
	return o.buf.Bytes(), nil
}

// ToolResponse is PostToolUse's tool_response for a result: the text the
// model reads as "content" (and as "stdout" for Bash, whose Claude Code
// response scripts read), "success", and "filePath" for a file tool, as
// Claude Code's Write and Edit responses carry it.
func ToolResponse(tool, content string, isError bool, filePath string) map[string]any {
	r := map[string]any{"content": content, "success": !isError}
	if filePath != "" {
		r["filePath"] = filePath
	}
	if tool == "Bash" {
		r["stdout"] = content
		r["stderr"] = ""
		r["interrupted"] = false
	}
	return r
}
