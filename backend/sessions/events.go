// Package sessions is TinyElf's memory: an append-only event log in SQLite
// that is the source of truth for every session, and the projections built
// from it (the session list, message history for the UI and for the model,
// full-text search, exports, forks, replay).
package sessions

import (
	"encoding/json"
	"time"
)

// EventType names what an event records.
type EventType string

// The event types of the log. Data holds the matching payload struct.
const (
	EventSessionCreated   EventType = "session.created"   // SessionCreated
	EventSessionRenamed   EventType = "session.renamed"   // SessionRenamed
	EventSessionTitled    EventType = "session.titled"    // SessionTitled
	EventModeChanged      EventType = "mode.changed"      // ModeChanged
	EventModelChanged     EventType = "model.changed"     // ModelChanged
	EventUserMessage      EventType = "user.message"      // UserMessage
	EventAssistantMessage EventType = "assistant.message" // AssistantMessage
	EventToolIntent       EventType = "tool.intent"       // ToolIntent
	EventApprovalAsked    EventType = "approval.asked"    // ApprovalAsked
	EventApprovalAnswered EventType = "approval.answered" // ApprovalAnswered
	EventToolResult       EventType = "tool.result"       // ToolResult
	EventCapabilityDiff   EventType = "capability.diff"   // CapabilityDiff
	EventCapabilityLoad   EventType = "capability.loaded" // CapabilityLoaded
	EventModelRequest     EventType = "model.request"     // ModelRequest
	EventCompaction       EventType = "compaction"        // Compaction
	EventError            EventType = "error"             // Error
	EventUsage            EventType = "usage"             // Usage
	EventTurnStart        EventType = "turn.start"        // TurnStart
	EventTurnEnd          EventType = "turn.end"          // TurnEnd
	EventHookRun          EventType = "hook.run"          // HookRun

	// Added by the sessions package: soft delete and its undo are events so
	// that the session list can be rebuilt from the log alone.
	EventSessionDeleted  EventType = "session.deleted"  // SessionDeleted
	EventSessionRestored EventType = "session.restored" // SessionRestored
)

// Event is one entry of a session's log. Seq numbers start at 1 and have no
// gaps within a session.
type Event struct {
	SessionID string          `json:"sessionId"`
	Seq       int64           `json:"seq"`
	Type      EventType       `json:"type"`
	Time      time.Time       `json:"time"`
	Data      json.RawMessage `json:"data"`

	// marshaled says Data is json.Marshal's output, compact and valid
	// already (NewEvent); the store then need not compact it again.
	marshaled bool
}

// NewEvent marshals a payload into an event ready to append (the store sets
// SessionID, Seq and, when zero, Time).
func NewEvent(t EventType, payload any) Event {
	b, err := json.Marshal(payload)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"marshalError": err.Error()})
	}
	return Event{Type: t, Data: b, marshaled: true}
}

// Decode unmarshals the event's payload into v.
func (e Event) Decode(v any) error { return json.Unmarshal(e.Data, v) }

// SessionCreated starts a session's log.
type SessionCreated struct {
	Title     string `json:"title,omitempty"`
	Workspace string `json:"workspace"`
	Agent     string `json:"agent,omitempty"`
	Mode      string `json:"mode"`
	Provider  string `json:"provider,omitempty"`
	Model     string `json:"model,omitempty"`
	// ForkedFrom and ForkedAtSeq are set on a fork: the events up to that
	// seq were copied from the parent.
	ForkedFrom  string `json:"forkedFrom,omitempty"`
	ForkedAtSeq int64  `json:"forkedAtSeq,omitempty"`
	// Parent and ParentCallID are set on a subagent's session: the session
	// whose spawn_agent call (ParentCallID) started it.
	Parent       string `json:"parent,omitempty"`
	ParentCallID string `json:"parentCallId,omitempty"`
	// Inherited are the tools a subagent's parent passed on to it (names,
	// or "mcp__server" for every tool of a server); a subagent's session
	// sees no other tool, whatever this list holds (empty included).
	Inherited []string `json:"inherited,omitempty"`
	// Background marks a subagent started in the background.
	Background bool `json:"background,omitempty"`
	// Branch marks a fork made by editing the user message that followed
	// ForkedAtSeq and sending it again: another version of the parent's
	// conversation, shown in its place, not a conversation of its own.
	Branch bool `json:"branch,omitempty"`
}

// SessionRenamed records a new title chosen by the user.
type SessionRenamed struct {
	Title string `json:"title"`
}

// SessionTitled records a title a model wrote for the session after its
// first exchange. The user's title (SessionCreated.Title, SessionRenamed)
// wins over it; it wins over the first line of the first message.
type SessionTitled struct {
	Title string `json:"title"`
	// Model is the provider/model that wrote it.
	Model string `json:"model,omitempty"`
}

// SessionDeleted records a soft delete: the session leaves the list (and
// search) until a SessionRestored, or until a purge removes its log.
type SessionDeleted struct{}

// SessionRestored undoes a SessionDeleted.
type SessionRestored struct{}

// ModeChanged records a change of permission mode.
type ModeChanged struct {
	Mode string `json:"mode"`
}

// ModelChanged records the user choosing another model for the session:
// the turns after it use that provider and model.
type ModelChanged struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
}

// UserMessage is what the user sent.
type UserMessage struct {
	Text string `json:"text"`
	// Attachments are the files sent with it; their content is in the
	// store's Blobs, not in the event.
	Attachments []Attachment `json:"attachments,omitempty"`
}

// ToolCallRecord is a tool call as the model made it.
type ToolCallRecord struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// AssistantMessage is one complete model response.
type AssistantMessage struct {
	Text       string           `json:"text"`
	ToolCalls  []ToolCallRecord `json:"toolCalls,omitempty"`
	Model      string           `json:"model,omitempty"`
	StopReason string           `json:"stopReason,omitempty"`
	// Partial marks a response cut off by an error or a cancel: what arrived
	// is kept, and its tool calls (if any) were not run.
	Partial bool `json:"partial,omitempty"`
	// Usage is this response's own cost, shown beside it in the chat (the
	// usage event that follows it feeds the session's totals).
	Usage *Usage `json:"usage,omitempty"`
}

// ToolIntent is a tool call about to go through the pipeline.
type ToolIntent struct {
	CallID    string `json:"callId"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ApprovalAsked says a call waits for the user's decision.
type ApprovalAsked struct {
	CallID    string   `json:"callId"`
	Name      string   `json:"name"`
	Arguments string   `json:"arguments"`
	Warnings  []string `json:"warnings,omitempty"`
	// Suggestion is the rule "allow always" would create, for Bash in
	// Claude Code's notation ("Bash(git status:*)"); older logs hold a bare
	// command prefix ("git status").
	Suggestion string `json:"suggestion,omitempty"`
	// Held reports that the tool itself asked (the shell guard could not
	// check the command): asked in every mode, never covered by a rule.
	Held bool `json:"held,omitempty"`
	// OnceOnly, when set, says why the call can only be allowed once: no
	// rule can allow it (it writes to a file, sets a variable, the tool
	// holds it…), so "allow always" is not offered and would count as once.
	OnceOnly string `json:"onceOnly,omitempty"`
	// Kind is "" for a call's permission, "skill_trust" for whether a
	// project skill may guide the agent; Question is then the card's text
	// and Skill the skill's name.
	Kind     string `json:"kind,omitempty"`
	Question string `json:"question,omitempty"`
	Skill    string `json:"skill,omitempty"`
	// Server, Schema, URL and MaxTokens describe an MCP server's
	// elicitation ("elicitation": the form's JSON Schema, or the page a
	// URL-mode one opens) or sampling request ("sampling": Arguments holds
	// its messages, MaxTokens its limit). The answer's form values are not
	// logged.
	Server    string          `json:"server,omitempty"`
	Schema    json.RawMessage `json:"schema,omitempty"`
	URL       string          `json:"url,omitempty"`
	MaxTokens int             `json:"maxTokens,omitempty"`
}

// ApprovalAnswered records the decision on a call.
type ApprovalAnswered struct {
	CallID string `json:"callId"`
	// Decision is "allow_once", "allow_always" or "deny".
	Decision string `json:"decision"`
	Reason   string `json:"reason,omitempty"`
	// Rule is the rule created by allow_always, or the rule that decided
	// without asking.
	Rule string `json:"rule,omitempty"`
	// By says who decided: "user", "rule", "mode" or "cli".
	By string `json:"by,omitempty"`
}

// ToolResult is what a call returned (what the model read).
type ToolResult struct {
	CallID     string         `json:"callId"`
	Name       string         `json:"name"`
	Content    string         `json:"content"`
	IsError    bool           `json:"isError,omitempty"`
	Truncated  bool           `json:"truncated,omitempty"`
	Meta       map[string]any `json:"meta,omitempty"`
	DurationMs int64          `json:"durationMs"`
}

// CapabilityDiff records how the set of capabilities visible to the model
// changed before a model call, and why (seed 003 §十).
type CapabilityDiff struct {
	// Added and Removed are the visible tools' names that came and went.
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
	Reasons []string `json:"reasons,omitempty"`
	// Visible is the whole visible tool set after the change, in the order
	// it is sent, so replay can rebuild any call's set from one event.
	Visible []string `json:"visible"`
	// Deferred is the whole deferred index after the change.
	Deferred []string `json:"deferred,omitempty"`
	// Skills are the IDs of the skills in the index after the change, and
	// Loaded those of them loaded in the session.
	Skills []string `json:"skills,omitempty"`
	Loaded []string `json:"loaded,omitempty"`
	// Items are the capabilities whose standing changed, each with its
	// reason; a tool that became visible carries its schema hash.
	Items []CapabilityItem `json:"items,omitempty"`
	// DeferReason says why deferral is on or off.
	DeferReason string `json:"deferReason,omitempty"`
	// Inputs are the discovery policy's inputs (capabilities.InputsRecord).
	Inputs json.RawMessage `json:"inputs,omitempty"`
}

// CapabilityItem is one capability whose standing changed.
type CapabilityItem struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	Change string `json:"change"` // added, removed, changed
	From   string `json:"from,omitempty"`
	To     string `json:"to,omitempty"`
	Reason string `json:"reason"`
	Hash   string `json:"hash,omitempty"`
}

// CapabilityLoaded records a skill's body or a resource loaded into the
// conversation: a controlled, recorded action (seed 003 §三).
type CapabilityLoaded struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	Source string `json:"source,omitempty"`
	CallID string `json:"callId,omitempty"`
}

// ModelRequest records exactly what one model call was offered: the tools
// sent (name and schema hash, in order) and the index's names, so replay
// can check the visible set it rebuilds from the capability diffs.
type ModelRequest struct {
	Iteration   int        `json:"iteration"`
	Tools       []ToolSent `json:"tools"`
	Index       []string   `json:"index,omitempty"`
	Digest      string     `json:"digest"`
	ToolTokens  int        `json:"toolTokens"`
	IndexTokens int        `json:"indexTokens,omitempty"`
}

// ToolSent is one tool definition of a model request.
type ToolSent struct {
	Name string `json:"name"`
	Hash string `json:"hash"`
}

// Compaction replaces the history before UpToSeq with Summary when the
// model's context fills up. The original events stay in the log.
type Compaction struct {
	Summary      string `json:"summary"`
	UpToSeq      int64  `json:"upToSeq"`
	TokensBefore int    `json:"tokensBefore"`
	TokensAfter  int    `json:"tokensAfter"`
}

// Error records a failure that ended or disturbed a turn.
type Error struct {
	Message string `json:"message"`
	// Kind classifies it: "provider", "stream_cut", "stalled" (the model
	// stopped sending; sending again retries), "tool", "tool_clash" (a tool
	// left out because another has its name), "tool_skipped" (user tools
	// left out: named like a core tool, or failing to load), "internal",
	// "config", and the kinds of a failed model call that llm.ErrorKind
	// names ("connection_refused", "unreachable", "auth", "rate_limit"...).
	Kind string `json:"kind,omitempty"`
}

// Usage records the tokens (and, when prices are known, cost) of one model
// call.
type Usage struct {
	Model            string  `json:"model,omitempty"`
	InputTokens      int     `json:"inputTokens"`
	OutputTokens     int     `json:"outputTokens"`
	CacheReadTokens  int     `json:"cacheReadTokens,omitempty"`
	CacheWriteTokens int     `json:"cacheWriteTokens,omitempty"`
	CostUSD          float64 `json:"costUsd,omitempty"`
}

// TurnStart opens a turn (one user message and the agent's work on it).
type TurnStart struct {
	Mode string `json:"mode"`
	// Resume is set on a turn that starts without a new user message:
	// "retry" (after an error) or "continue" (after a stop).
	Resume string `json:"resume,omitempty"`
}

// TurnEnd closes a turn.
type TurnEnd struct {
	// Reason is "done", "yield", "max_iterations", "cancelled" or "error".
	Reason     string `json:"reason"`
	Iterations int    `json:"iterations"`
	Message    string `json:"message,omitempty"`
}

// HookRun records one run of a user hook (package hooks): which hook, at
// which event, how it ended and what it decided. Every run is logged, so the
// chat, an export and a replay show what the user's hooks did.
type HookRun struct {
	// Event is the hook event ("PreToolUse", "Stop"...).
	Event string `json:"event"`
	// CallID and Tool are the call a tool event's hook ran for; the chat
	// shows the run under that call's card.
	CallID string `json:"callId,omitempty"`
	Tool   string `json:"tool,omitempty"`
	// Detail is what a session event's matcher was tested against: the
	// SessionStart source, the SessionEnd reason, the Notification type,
	// the PreCompact trigger, the SubagentStop agent.
	Detail string `json:"detail,omitempty"`
	// Command is the hook's command, Source the settings file it is written
	// in ("settings", ".claude/settings.json"), Matcher its group's matcher.
	Command string `json:"command"`
	Source  string `json:"source,omitempty"`
	Matcher string `json:"matcher,omitempty"`
	// DurationMs is how long it ran; ExitCode its exit status, -1 when it
	// did not exit by itself (TimedOut: killed after its timeout, with its
	// process group).
	DurationMs int64 `json:"durationMs"`
	ExitCode   int   `json:"exitCode"`
	TimedOut   bool  `json:"timedOut,omitempty"`
	// Decision is "allow", "deny", "ask", "block" or "" (it only ran), and
	// Reason what it gave with it.
	Decision string `json:"decision,omitempty"`
	Reason   string `json:"reason,omitempty"`
	// Stop records "continue": false, with the reason shown to the user.
	Stop       bool   `json:"stop,omitempty"`
	StopReason string `json:"stopReason,omitempty"`
	// Output is the first lines of what it printed; Problem what went wrong
	// with the hook itself (it failed, timed out, printed output that could
	// not be used: reported, never obeyed); Message its systemMessage.
	Output  string `json:"output,omitempty"`
	Problem string `json:"problem,omitempty"`
	Message string `json:"message,omitempty"`
	// Input is the arguments the hook replaced the call's with (its
	// updatedInput, as JSON).
	Input string `json:"input,omitempty"`
	// Context is what the model reads from this run as a message of its own:
	// the context a UserPromptSubmit or SessionStart hook added, or a Stop
	// hook's reason to go on. A tool event's words reach the model in the
	// call's result instead.
	Context string `json:"context,omitempty"`
	// Prompt is the user's message a UserPromptSubmit hook refused: it is
	// not in the conversation, so it is kept here.
	Prompt string `json:"prompt,omitempty"`
}
