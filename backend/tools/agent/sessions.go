package agent

import (
	"context"
	"time"
)

// SessionStore is what the Sessions* tools need of TinyElf's sessions; the
// engine implements it over the session log. Every method acts for the
// session whose tool call ctx carries; a request the model can change (its
// own session, a busy one, an unknown ID) is refused with a Refusal.
type SessionStore interface {
	// ListSessions returns sessions, most recently updated first.
	ListSessions(ctx context.Context, limit, offset int) ([]SessionSummary, error)
	// SessionHistory returns a session's messages as its model would read
	// them (compactions applied), the last limit of them, and how many
	// there are in all.
	SessionHistory(ctx context.Context, id string, limit int) (SessionSummary, []HistoryMessage, int, error)
	// SendToSession starts a turn of another session with message and
	// returns at once. It refuses the calling session itself and a session
	// that is running a turn.
	SendToSession(ctx context.Context, id, message string) error
	// SpawnSession creates a top-level session in the caller's workspace
	// and starts it on the prompt, returning at once.
	SpawnSession(ctx context.Context, prompt, agent, title string) (SessionSummary, error)
}

// SessionSummary is one session as the Sessions* tools show it.
type SessionSummary struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	Agent     string    `json:"agent,omitempty"`
	Workspace string    `json:"workspace"`
	Parent    string    `json:"parent,omitempty"`
	Running   bool      `json:"running"`
	Messages  int       `json:"messages"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// HistoryMessage is one message of a session's model history.
type HistoryMessage struct {
	Role      string   // user, assistant, tool
	Content   string   // the text, or a tool's result
	ToolCalls []string // an assistant message's calls, as name(arguments)
	ToolName  string   // a tool message's tool
	IsError   bool
}
