package engine

import (
	"context"

	"tinyelf/backend/llm"
	"tinyelf/backend/sessions"
	"tinyelf/backend/tools/agent"
)

// StoreLog adapts the session store to the engine's SessionLog.
type StoreLog struct{ Store *sessions.Store }

// CreateSession implements SessionLog.
func (l StoreLog) CreateSession(ctx context.Context, c sessions.SessionCreated) (string, error) {
	id, _, err := l.CreateSessionWith(ctx, c)
	return id, err
}

// CreateSessionWith creates a session and logs its first events in the
// same transaction, returning them as logged (sessionCreatorWith).
func (l StoreLog) CreateSessionWith(ctx context.Context, c sessions.SessionCreated, first ...sessions.Event) (string, []sessions.Event, error) {
	s, logged, err := l.Store.CreateWith(ctx, c, first...)
	if err != nil {
		return "", nil, err
	}
	return s.ID, logged, nil
}

// Append implements SessionLog.
func (l StoreLog) Append(ctx context.Context, sessionID string, events ...sessions.Event) ([]sessions.Event, error) {
	return l.Store.Append(ctx, sessionID, events...)
}

// Info implements SessionLog.
func (l StoreLog) Info(ctx context.Context, sessionID string) (SessionInfo, error) {
	s, err := l.Store.Get(ctx, sessionID)
	if err != nil {
		return SessionInfo{}, err
	}
	mode, err := ParseMode(s.Mode)
	if err != nil {
		mode = ModeDefault
	}
	info := SessionInfo{
		ID: s.ID, Workspace: s.Workspace, Agent: s.Agent, Mode: mode,
		Provider: s.Provider, Model: s.Model, Title: s.Title,
		Titled: s.Titled(), Branch: s.Branch, Messages: s.MessageCount,
		Parent: s.Parent, ParentCallID: s.ParentCallID, Inherited: s.Inherited, Background: s.Background,
	}
	if info.Parent != "" && info.Inherited == nil {
		info.Inherited = []string{} // a subagent that inherited nothing still sees nothing more
	}
	return info, nil
}

// ListSessions implements SessionLog.
func (l StoreLog) ListSessions(ctx context.Context, limit, offset int) ([]agent.SessionSummary, error) {
	list, err := l.Store.List(ctx, sessions.ListOptions{Limit: limit, Offset: offset})
	out := make([]agent.SessionSummary, len(list))
	for i, s := range list {
		out[i] = agent.SessionSummary{ID: s.ID, Title: s.Title, Agent: s.Agent, Workspace: s.Workspace, Parent: s.Parent,
			Messages: s.MessageCount, UpdatedAt: s.UpdatedAt}
	}
	return out, err
}

// LastSeq implements SessionLog.
func (l StoreLog) LastSeq(ctx context.Context, sessionID string) (int64, error) {
	s, err := l.Store.Get(ctx, sessionID)
	if err != nil {
		return 0, err
	}
	return s.LastSeq, nil
}

// ModelMessages implements SessionLog. It reads the history ready to send,
// so a tool call left without a result by a crash gets an "interrupted"
// result instead of making the provider reject the conversation.
func (l StoreLog) ModelMessages(ctx context.Context, sessionID string) ([]llm.Message, error) {
	msgs, err := l.Store.ModelHistory(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	out := make([]llm.Message, len(msgs))
	for i, m := range msgs {
		out[i] = conversationMessage(m)
		out[i].Parts = attachmentParts(l.Store.Blobs(), m.Attachments)
	}
	return out, nil
}

// conversationMessage is the one conversion between the two forms of a
// conversation's message: the session log's model history
// (sessions.Message, with its seq, attachments and summary mark) and the
// message the provider is sent and the hooks' transcript is written from
// (llm.Message). Attachments become parts only where the caller loads
// them (ModelMessages).
func conversationMessage(m sessions.Message) llm.Message {
	calls := make([]llm.ToolCall, len(m.ToolCalls))
	for j, c := range m.ToolCalls {
		calls[j] = llm.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments}
	}
	return llm.Message{
		Role: llm.Role(m.Role), Content: m.Content, ToolCalls: calls,
		ToolCallID: m.ToolCallID, ToolName: m.ToolName, IsError: m.IsError,
	}
}

// LastCapabilities implements SessionLog.
func (l StoreLog) LastCapabilities(ctx context.Context, sessionID string) (sessions.CapabilityState, error) {
	return l.Store.LastCapabilities(ctx, sessionID)
}

// LastUserMessage returns the text and seq of the session's last user
// message in the model's history (not a compaction summary); "" and 0 when
// there is none. A resumed turn (Retry, Continue) works on it.
func (l StoreLog) LastUserMessage(ctx context.Context, sessionID string) (string, int64, error) {
	msgs, err := l.Store.ModelHistory(ctx, sessionID)
	if err != nil {
		return "", 0, err
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if m := msgs[i]; m.Role == sessions.RoleUser && !m.Summary {
			return m.Content, m.Seq, nil
		}
	}
	return "", 0, nil
}

// TranscriptMessages implements transcriptSource: the model's history as
// logged, each message with its seq, calls under way without results.
func (l StoreLog) TranscriptMessages(ctx context.Context, sessionID string) ([]sessions.Message, error) {
	return l.Store.ModelMessages(ctx, sessionID)
}

// DurableState implements durableLog.
func (l StoreLog) DurableState(ctx context.Context, sessionID string) (sessions.DurableState, error) {
	return l.Store.DurableState(ctx, sessionID)
}

// OpenTurn implements durableLog.
func (l StoreLog) OpenTurn(ctx context.Context, sessionID string) (sessions.OpenTurn, error) {
	return l.Store.OpenTurn(ctx, sessionID)
}
