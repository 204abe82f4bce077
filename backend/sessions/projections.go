package sessions

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"
)

// Session is one row of the session list: a projection of the session's
// log, current as of LastSeq.
type Session struct {
	ID string `json:"id"`
	// Title is the user's title (given at creation or by a rename), else
	// the title a model wrote (session.titled), else the auto title: the
	// first line of the first user message, trimmed and cut to
	// AutoTitleLen characters.
	Title     string `json:"title"`
	Renamed   bool   `json:"renamed"` // Title is the user's, not the auto title
	Workspace string `json:"workspace"`
	Agent     string `json:"agent,omitempty"`
	Mode      string `json:"mode"`
	Provider  string `json:"provider,omitempty"`
	// Model is the model of the latest assistant message that named one,
	// else the one the session was created with.
	Model     string    `json:"model,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	// UpdatedAt is the latest time of any known event except deletes and
	// restores, so an undone delete puts the session back where it was.
	UpdatedAt time.Time `json:"updatedAt"`
	// DeletedAt is zero unless the session is soft-deleted.
	DeletedAt    time.Time   `json:"deletedAt,omitzero"`
	LastSeq      int64       `json:"lastSeq"`
	MessageCount int         `json:"messageCount"` // user and assistant messages
	Usage        UsageTotals `json:"usage"`
	ForkedFrom   string      `json:"forkedFrom,omitempty"`
	ForkedAtSeq  int64       `json:"forkedAtSeq,omitempty"`
	// Branch is set on an edit-and-resend branch (SessionCreated.Branch).
	Branch bool `json:"branch,omitempty"`
	// Parent and ParentCallID link a subagent's session to the session
	// and the spawn_agent call that started it; empty for the others.
	Parent       string `json:"parentId,omitempty"`
	ParentCallID string `json:"parentCallId,omitempty"`
	// Inherited are the tools a subagent's parent passed on (see
	// SessionCreated.Inherited).
	Inherited  []string     `json:"inherited,omitempty"`
	Background bool         `json:"background,omitempty"`
	titles     sessionTitle // the parts Title is chosen from
}

// Subagent reports whether the session is a subagent's (it has a parent).
func (s Session) Subagent() bool { return s.Parent != "" }

// sessionTitle keeps every title so a rename to "" falls back to the
// generated or the auto title.
type sessionTitle struct {
	custom, generated, auto string
}

// Titled reports whether the session has a title beyond the auto title:
// the user's, or one a model wrote.
func (s Session) Titled() bool { return s.titles.custom != "" || s.titles.generated != "" }

// Deleted reports whether the session is soft-deleted.
func (s Session) Deleted() bool { return !s.DeletedAt.IsZero() }

// UsageTotals sums the usage events of a session.
type UsageTotals struct {
	InputTokens      int64   `json:"inputTokens"`
	OutputTokens     int64   `json:"outputTokens"`
	CacheReadTokens  int64   `json:"cacheReadTokens,omitempty"`
	CacheWriteTokens int64   `json:"cacheWriteTokens,omitempty"`
	CostUSD          float64 `json:"costUsd,omitempty"`
}

// AutoTitleLen is the longest auto title, in characters, before "…".
const AutoTitleLen = 60

// autoTitle makes a title from a user message: its first non-blank line,
// trimmed, cut at a character boundary.
func autoTitle(text string) string {
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		line = strings.Join(strings.FieldsFunc(line, unicode.IsSpace), " ")
		r := []rune(line)
		if len(r) > AutoTitleLen {
			return strings.TrimSpace(string(r[:AutoTitleLen])) + "…"
		}
		return line
	}
	return ""
}

func (s *Session) setTitle() {
	s.Renamed = s.titles.custom != ""
	switch {
	case s.Renamed:
		s.Title = s.titles.custom
	case s.titles.generated != "":
		s.Title = s.titles.generated
	default:
		s.Title = s.titles.auto
	}
}

// UIKind says what a UI history item shows.
type UIKind string

// The kinds of UI history items.
const (
	UIUser       UIKind = "user"
	UIAssistant  UIKind = "assistant"
	UITool       UIKind = "tool"
	UIApproval   UIKind = "approval"
	UIError      UIKind = "error"
	UICompaction UIKind = "compaction"
	// UICapabilities is a change of the tools the model sees (a
	// capability.diff), UILoaded a skill or resource loaded into the
	// conversation (a capability.loaded).
	UICapabilities UIKind = "capabilities"
	UILoaded       UIKind = "loaded"
	// UIModelChange is a switch of model (Provider and Model say to what).
	UIModelChange UIKind = "model"
	// UIHook is a run of a user hook that belongs to no tool call (a
	// session, prompt or stop hook); a tool hook's run is listed on its
	// call's ToolCallView instead.
	UIHook UIKind = "hook"
)

// ToolStatus is where a tool call stands.
type ToolStatus string

// Tool call states as the UI shows them. A call still "pending" after its
// turn ended was interrupted.
const (
	ToolPending          ToolStatus = "pending"
	ToolAwaitingApproval ToolStatus = "awaiting_approval"
	ToolDenied           ToolStatus = "denied"
	ToolDone             ToolStatus = "done"
	ToolFailed           ToolStatus = "error"
)

// UIMessage is one item of the history the UI shows, in log order: a user
// or assistant message, a tool call with its result, an approval, an error
// a compaction, a capability change or a loaded capability. Seq is the seq of the event that opened the item; later
// events (a result, an answer) fill it in.
type UIMessage struct {
	Seq  int64     `json:"seq"`
	Kind UIKind    `json:"kind"`
	Time time.Time `json:"time"`
	// Text is the message text, the error message, or the compaction
	// summary.
	Text string `json:"text,omitempty"`
	// Attachments are a user message's files.
	Attachments []Attachment `json:"attachments,omitempty"`
	// Assistant messages and model changes.
	Provider   string           `json:"provider,omitempty"`
	Model      string           `json:"model,omitempty"`
	StopReason string           `json:"stopReason,omitempty"`
	Partial    bool             `json:"partial,omitempty"`
	ToolCalls  []ToolCallRecord `json:"toolCalls,omitempty"`
	// Usage is an assistant message's tokens and cost, when logged.
	Usage *Usage `json:"usage,omitempty"`
	// ErrorKind classifies an error item.
	ErrorKind  string        `json:"errorKind,omitempty"`
	Tool       *ToolCallView `json:"tool,omitempty"`
	Approval   *ApprovalView `json:"approval,omitempty"`
	Compaction *Compaction   `json:"compaction,omitempty"`
	// Capabilities is a capability change; Loaded a loaded capability.
	Capabilities *CapabilityChange `json:"capabilities,omitempty"`
	Loaded       *CapabilityLoaded `json:"loaded,omitempty"`
	// Hook is a hook run (UIHook).
	Hook *HookRun `json:"hook,omitempty"`
}

// ToolCallView is a tool call with what became of it.
type ToolCallView struct {
	CallID    string     `json:"callId"`
	Name      string     `json:"name"`
	Arguments string     `json:"arguments"`
	Status    ToolStatus `json:"status"`
	// Decision is the approval decision, when one was recorded.
	Decision  string `json:"decision,omitempty"`
	DecidedBy string `json:"decidedBy,omitempty"`
	// Reason is the reason given with the decision: the user's, or why a
	// rule, the mode or the shell guard refused the call.
	Reason     string         `json:"reason,omitempty"`
	Result     string         `json:"result,omitempty"`
	IsError    bool           `json:"isError,omitempty"`
	Truncated  bool           `json:"truncated,omitempty"`
	Meta       map[string]any `json:"meta,omitempty"`
	DurationMs int64          `json:"durationMs,omitempty"`
	ResultSeq  int64          `json:"resultSeq,omitempty"`
	// Hooks are the user's hooks that ran for the call, in order.
	Hooks []HookRun `json:"hooks,omitempty"`
}

// ApprovalView is a question put to the user and, once given, the answer.
type ApprovalView struct {
	ApprovalAsked
	Decision    string `json:"decision,omitempty"` // "" while waiting
	Reason      string `json:"reason,omitempty"`
	Rule        string `json:"rule,omitempty"`
	By          string `json:"by,omitempty"`
	AnsweredSeq int64  `json:"answeredSeq,omitempty"`
}

// Role is who a model message is from.
type Role string

// Model message roles (the engine maps them onto llm.Role).
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one message of the history sent to the model. The engine
// converts it to its provider type.
type Message struct {
	// Seq is the seq of the event the message came from; for a summary,
	// the compaction's seq.
	Seq       int64            `json:"seq"`
	Role      Role             `json:"role"`
	Content   string           `json:"content,omitempty"`
	ToolCalls []ToolCallRecord `json:"toolCalls,omitempty"`
	// ToolCallID and ToolName tie a RoleTool message to its call.
	ToolCallID string `json:"toolCallId,omitempty"`
	ToolName   string `json:"toolName,omitempty"`
	IsError    bool   `json:"isError,omitempty"`
	// Attachments are a user message's files.
	Attachments []Attachment `json:"attachments,omitempty"`
	// Summary marks the one user message that stands for everything a
	// compaction replaced.
	Summary bool `json:"summary,omitempty"`
}

// sink receives the changes a projector derives from events: the SQL
// tables on append and Rebuild, or memory for Replay. Both run the same
// projector, so they cannot disagree.
type sink interface {
	addUI(m UIMessage) error
	// updateUI applies fn to the newest item of that kind for callID and
	// reports whether there was one.
	updateUI(kind UIKind, callID string, fn func(*UIMessage)) (bool, error)
	// addModel adds a model message ordered at pos.
	addModel(pos int64, m Message) error
	// compactModel drops the model messages ordered at or before upTo and
	// puts summary at upTo.
	compactModel(upTo int64, summary Message) error
	addSearch(seq int64, role Role, text string) error
	// previousDiff returns the session's last capability.diff before seq
	// (nil when there is none); noteDiff tells the sink of one just
	// projected, for a sink that does not read the log.
	previousDiff(before int64) (*CapabilityDiff, error)
	noteDiff(d CapabilityDiff)
}

// known reports whether projections understand the event type; the others
// are kept in the log and ignored.
func known(t EventType) bool {
	switch t {
	case EventSessionCreated, EventSessionRenamed, EventSessionTitled, EventSessionDeleted, EventSessionRestored,
		EventModeChanged, EventModelChanged, EventUserMessage, EventAssistantMessage, EventToolIntent,
		EventApprovalAsked, EventApprovalAnswered, EventToolResult, EventCapabilityDiff,
		EventCapabilityLoad, EventModelRequest, EventCompaction, EventError, EventUsage, EventTurnStart, EventTurnEnd,
		EventHookRun:
		return true
	}
	return false
}

// project applies one event to the session row s and to sink. The event's
// payload has been validated. Unknown types only advance LastSeq.
func project(s *Session, ev Event, out sink) error {
	s.LastSeq = ev.Seq
	if !known(ev.Type) {
		return nil
	}
	if ev.Type != EventSessionDeleted && ev.Type != EventSessionRestored && ev.Time.After(s.UpdatedAt) {
		s.UpdatedAt = ev.Time
	}
	item := UIMessage{Seq: ev.Seq, Time: ev.Time}
	switch ev.Type {
	case EventSessionCreated:
		var p SessionCreated
		if err := decode(ev, &p); err != nil {
			return err
		}
		s.ID, s.Workspace, s.Agent, s.Mode = ev.SessionID, p.Workspace, p.Agent, p.Mode
		s.Provider, s.Model, s.ForkedFrom, s.ForkedAtSeq = p.Provider, p.Model, p.ForkedFrom, p.ForkedAtSeq
		s.Parent, s.ParentCallID, s.Inherited, s.Background = p.Parent, p.ParentCallID, p.Inherited, p.Background
		s.Branch = p.Branch && p.ForkedFrom != ""
		s.CreatedAt, s.UpdatedAt = ev.Time, ev.Time
		s.titles.custom = strings.TrimSpace(p.Title)
		s.setTitle()
	case EventSessionRenamed:
		var p SessionRenamed
		if err := decode(ev, &p); err != nil {
			return err
		}
		s.titles.custom = strings.TrimSpace(p.Title)
		s.setTitle()
	case EventSessionTitled:
		var p SessionTitled
		if err := decode(ev, &p); err != nil {
			return err
		}
		s.titles.generated = strings.TrimSpace(p.Title)
		s.setTitle()
	case EventSessionDeleted:
		s.DeletedAt = ev.Time
	case EventSessionRestored:
		s.DeletedAt = time.Time{}
	case EventModeChanged:
		var p ModeChanged
		if err := decode(ev, &p); err != nil {
			return err
		}
		s.Mode = p.Mode
	case EventModelChanged:
		var p ModelChanged
		if err := decode(ev, &p); err != nil {
			return err
		}
		s.Provider, s.Model = p.Provider, p.Model
		item.Kind, item.Provider, item.Model = UIModelChange, p.Provider, p.Model
		return out.addUI(item)
	case EventUserMessage:
		var p UserMessage
		if err := decode(ev, &p); err != nil {
			return err
		}
		s.MessageCount++
		if s.titles.auto == "" {
			s.titles.auto = autoTitle(p.Text)
			s.setTitle()
		}
		item.Kind, item.Text, item.Attachments = UIUser, p.Text, p.Attachments
		if err := out.addUI(item); err != nil {
			return err
		}
		if err := out.addModel(ev.Seq, Message{Seq: ev.Seq, Role: RoleUser, Content: p.Text, Attachments: p.Attachments}); err != nil {
			return err
		}
		if strings.TrimSpace(p.Text) != "" {
			return out.addSearch(ev.Seq, RoleUser, p.Text)
		}
	case EventAssistantMessage:
		var p AssistantMessage
		if err := decode(ev, &p); err != nil {
			return err
		}
		s.MessageCount++
		if p.Model != "" {
			s.Model = p.Model
		}
		item.Kind, item.Text, item.Model, item.StopReason, item.Partial, item.ToolCalls = UIAssistant, p.Text, p.Model, p.StopReason, p.Partial, p.ToolCalls
		item.Usage = p.Usage
		if err := out.addUI(item); err != nil {
			return err
		}
		// A partial response's tool calls were never run: sending them
		// without results would be rejected by the provider.
		m := Message{Seq: ev.Seq, Role: RoleAssistant, Content: p.Text, ToolCalls: p.ToolCalls}
		if p.Partial {
			m.ToolCalls = nil
		}
		if m.Content != "" || len(m.ToolCalls) > 0 {
			if err := out.addModel(ev.Seq, m); err != nil {
				return err
			}
		}
		if strings.TrimSpace(p.Text) != "" {
			return out.addSearch(ev.Seq, RoleAssistant, p.Text)
		}
	case EventToolIntent:
		var p ToolIntent
		if err := decode(ev, &p); err != nil {
			return err
		}
		item.Kind = UITool
		item.Tool = &ToolCallView{CallID: p.CallID, Name: p.Name, Arguments: p.Arguments, Status: ToolPending}
		return out.addUI(item)
	case EventApprovalAsked:
		var p ApprovalAsked
		if err := decode(ev, &p); err != nil {
			return err
		}
		item.Kind, item.Approval = UIApproval, &ApprovalView{ApprovalAsked: p}
		if err := out.addUI(item); err != nil {
			return err
		}
		_, err := out.updateUI(UITool, p.CallID, func(m *UIMessage) { m.Tool.Status = ToolAwaitingApproval })
		return err
	case EventApprovalAnswered:
		var p ApprovalAnswered
		if err := decode(ev, &p); err != nil {
			return err
		}
		if _, err := out.updateUI(UIApproval, p.CallID, func(m *UIMessage) {
			a := m.Approval
			a.Decision, a.Reason, a.Rule, a.By, a.AnsweredSeq = p.Decision, p.Reason, p.Rule, p.By, ev.Seq
		}); err != nil {
			return err
		}
		_, err := out.updateUI(UITool, p.CallID, func(m *UIMessage) {
			m.Tool.Decision, m.Tool.DecidedBy, m.Tool.Reason = p.Decision, p.By, p.Reason
			switch {
			case p.Decision == "deny":
				m.Tool.Status = ToolDenied
			case m.Tool.Status == ToolAwaitingApproval:
				m.Tool.Status = ToolPending
			}
		})
		return err
	case EventToolResult:
		var p ToolResult
		if err := decode(ev, &p); err != nil {
			return err
		}
		fill := func(m *UIMessage) {
			t := m.Tool
			t.Result, t.IsError, t.Truncated, t.Meta, t.DurationMs, t.ResultSeq = p.Content, p.IsError, p.Truncated, p.Meta, p.DurationMs, ev.Seq
			if t.Status != ToolDenied {
				t.Status = ToolDone
				if p.IsError {
					t.Status = ToolFailed
				}
			}
		}
		found, err := out.updateUI(UITool, p.CallID, fill)
		if err != nil {
			return err
		}
		if !found { // a result without an intent still shows
			item.Kind = UITool
			item.Tool = &ToolCallView{CallID: p.CallID, Name: p.Name}
			fill(&item)
			if err := out.addUI(item); err != nil {
				return err
			}
		}
		return out.addModel(ev.Seq, Message{Seq: ev.Seq, Role: RoleTool, Content: p.Content, ToolCallID: p.CallID, ToolName: p.Name, IsError: p.IsError})
	case EventCompaction:
		var p Compaction
		if err := decode(ev, &p); err != nil {
			return err
		}
		item.Kind, item.Text, item.Compaction = UICompaction, p.Summary, &p
		if err := out.addUI(item); err != nil {
			return err
		}
		upTo := min(p.UpToSeq, ev.Seq-1)
		return out.compactModel(upTo, Message{Seq: ev.Seq, Role: RoleUser, Content: p.Summary, Summary: true})
	case EventError:
		var p Error
		if err := decode(ev, &p); err != nil {
			return err
		}
		item.Kind, item.Text, item.ErrorKind = UIError, p.Message, p.Kind
		return out.addUI(item)
	case EventUsage:
		var p Usage
		if err := decode(ev, &p); err != nil {
			return err
		}
		s.Usage.InputTokens += int64(p.InputTokens)
		s.Usage.OutputTokens += int64(p.OutputTokens)
		s.Usage.CacheReadTokens += int64(p.CacheReadTokens)
		s.Usage.CacheWriteTokens += int64(p.CacheWriteTokens)
		s.Usage.CostUSD += p.CostUSD
	case EventCapabilityDiff:
		return projectCapabilityDiff(ev, item, out)
	case EventCapabilityLoad:
		return projectCapabilityLoaded(ev, item, out)
	case EventHookRun:
		return projectHookRun(ev, item, out)
	case EventModelRequest, EventTurnStart, EventTurnEnd:
		// Only UpdatedAt.
	}
	return nil
}

// projectHookRun shows a hook run under its tool call's card (or as an item
// of its own) and gives the model the context it carries.
func projectHookRun(ev Event, item UIMessage, out sink) error {
	var p HookRun
	if err := decode(ev, &p); err != nil {
		return err
	}
	found := false
	if p.CallID != "" {
		var err error
		found, err = out.updateUI(UITool, p.CallID, func(m *UIMessage) { m.Tool.Hooks = append(m.Tool.Hooks, p) })
		if err != nil {
			return err
		}
	}
	if !found {
		item.Kind, item.Hook = UIHook, &p
		if err := out.addUI(item); err != nil {
			return err
		}
	}
	if strings.TrimSpace(p.Context) == "" {
		return nil
	}
	return out.addModel(ev.Seq, Message{Seq: ev.Seq, Role: RoleUser, Content: p.Context})
}

// memSink keeps projections in memory, for Replay.
type memSink struct {
	ui       []UIMessage
	byCall   map[string]int // callKey -> index into ui
	model    []posMessage
	lastDiff *CapabilityDiff
}

type posMessage struct {
	pos int64
	m   Message
}

func newMemSink() *memSink { return &memSink{byCall: map[string]int{}} }

func (m *memSink) addUI(item UIMessage) error {
	m.ui = append(m.ui, item)
	if id := callID(item); id != "" {
		m.byCall[callKey(item.Kind, id)] = len(m.ui) - 1
	}
	return nil
}

func (m *memSink) updateUI(kind UIKind, id string, fn func(*UIMessage)) (bool, error) {
	i, ok := m.byCall[callKey(kind, id)]
	if !ok {
		return false, nil
	}
	fn(&m.ui[i])
	return true, nil
}

func (m *memSink) addModel(pos int64, msg Message) error {
	m.model = append(m.model, posMessage{pos, msg})
	return nil
}

func (m *memSink) compactModel(upTo int64, summary Message) error {
	kept := []posMessage{{upTo, summary}}
	for _, pm := range m.model {
		if pm.pos > upTo {
			kept = append(kept, pm)
		}
	}
	m.model = kept
	return nil
}

func (m *memSink) addSearch(int64, Role, string) error { return nil }

func (m *memSink) previousDiff(int64) (*CapabilityDiff, error) { return m.lastDiff, nil }

func (m *memSink) noteDiff(d CapabilityDiff) { m.lastDiff = &d }

func (m *memSink) messages() []Message {
	out := make([]Message, len(m.model))
	for i, pm := range m.model {
		out[i] = pm.m
	}
	return out
}

// callKey indexes UI items by kind and call ID.
func callKey(kind UIKind, id string) string { return string(kind) + "\x00" + id }

// callID is the call an item belongs to, for the updateUI index.
func callID(m UIMessage) string {
	switch {
	case m.Tool != nil:
		return m.Tool.CallID
	case m.Approval != nil:
		return m.Approval.CallID
	}
	return ""
}

// decode unmarshals an event's payload; a payload that does not fit its
// type is an invalid event.
func decode(ev Event, v any) error {
	if err := json.Unmarshal(ev.Data, v); err != nil {
		return fmt.Errorf("event %d (%s): %w: %v", ev.Seq, ev.Type, ErrInvalidEvent, err)
	}
	return nil
}
