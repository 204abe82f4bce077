package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"tinyelf/backend/tools"
)

// SessionSummary is one session as the sessions provider lists it.
type SessionSummary struct {
	ID        string
	Title     string
	Workspace string
	Agent     string
	UpdatedAt time.Time
	Messages  int
}

// SessionHit is one search match.
type SessionHit struct {
	SessionID    string
	SessionTitle string
	Role         string
	Snippet      string
	Time         time.Time
}

// SessionMessage is one message of a session's history.
type SessionMessage struct {
	Role string
	Text string
	Time time.Time
}

// SessionReader is what the sessions provider needs from the session log;
// the engine backs it with the sessions store. Implementations must be safe
// for concurrent use.
type SessionReader interface {
	// List returns sessions, most recently updated first.
	List(ctx context.Context, limit, offset int) ([]SessionSummary, error)
	// Search returns messages matching query, best first.
	Search(ctx context.Context, query string, limit int) ([]SessionHit, error)
	// History returns the last limit messages of a session, oldest first.
	History(ctx context.Context, id string, limit int) ([]SessionMessage, error)
}

type sessionsProvider struct{ r SessionReader }

// NewSessionsProvider returns the "sessions" provider: list, search and
// read past sessions, read-only. It is eligible whenever r is set, except
// for subagents (their parent holds the context they need).
func NewSessionsProvider(r SessionReader) Provider { return sessionsProvider{r: r} }

func (p sessionsProvider) Name() string { return "sessions" }

func (p sessionsProvider) Description() string {
	return "TinyElf's session history: list past sessions, search their messages, read one session's messages."
}

func (p sessionsProvider) IsEligible(ctx context.Context) bool {
	c, _ := CallerFrom(ctx)
	return p.r != nil && !c.Subagent
}

func (p sessionsProvider) Tools(ctx context.Context) ([]tools.Tool, error) {
	return []tools.Tool{
		funcTool{info: tools.Info{Name: "list", ReadOnly: true,
			Description: "Lists TinyElf sessions, most recently updated first, with their IDs and titles.",
			Parameters: json.RawMessage(`{"type":"object","properties":{
  "limit":{"type":"integer","minimum":1,"maximum":100,"description":"How many sessions (default 20)."},
  "offset":{"type":"integer","minimum":0,"description":"How many to skip, for paging."}},"additionalProperties":false}`)},
			run: p.list},
		funcTool{info: tools.Info{Name: "search", ReadOnly: true,
			Description: "Searches the messages of every TinyElf session; returns matching snippets with their session IDs.",
			Parameters: json.RawMessage(`{"type":"object","properties":{
  "query":{"type":"string","description":"Words to find; \"double quotes\" keep a phrase."},
  "limit":{"type":"integer","minimum":1,"maximum":100,"description":"How many matches (default 20)."}},"required":["query"],"additionalProperties":false}`)},
			run: p.search},
		funcTool{info: tools.Info{Name: "history", ReadOnly: true,
			Description: "Shows the messages of one TinyElf session (user and assistant turns), oldest first.",
			Parameters: json.RawMessage(`{"type":"object","properties":{
  "session_id":{"type":"string","description":"The session ID, from list or search."},
  "limit":{"type":"integer","minimum":1,"maximum":200,"description":"How many of the last messages (default 50)."}},"required":["session_id"],"additionalProperties":false}`)},
			run: p.history},
	}, nil
}

func (p sessionsProvider) list(ctx context.Context, params map[string]any) (tools.Result, error) {
	ss, err := p.r.List(ctx, tools.Int(params, "limit", 20), tools.Int(params, "offset", 0))
	if err != nil {
		return tools.Result{}, fmt.Errorf("list sessions: %w", err)
	}
	if len(ss) == 0 {
		return tools.Text("No sessions."), nil
	}
	var b strings.Builder
	for _, s := range ss {
		fmt.Fprintf(&b, "%s  %s  %q (%d messages", s.ID, s.UpdatedAt.Format(time.DateTime), s.Title, s.Messages)
		if s.Workspace != "" {
			fmt.Fprintf(&b, ", in %s", s.Workspace)
		}
		b.WriteString(")\n")
	}
	return tools.Text(strings.TrimRight(b.String(), "\n")), nil
}

func (p sessionsProvider) search(ctx context.Context, params map[string]any) (tools.Result, error) {
	q := strings.TrimSpace(tools.String(params, "query", ""))
	if q == "" {
		return tools.Errorf("query is empty; give the words to search for."), nil
	}
	hits, err := p.r.Search(ctx, q, tools.Int(params, "limit", 20))
	if err != nil {
		return tools.Result{}, fmt.Errorf("search sessions: %w", err)
	}
	if len(hits) == 0 {
		return tools.Text(fmt.Sprintf("No messages match %q.", q)), nil
	}
	var b strings.Builder
	for _, h := range hits {
		fmt.Fprintf(&b, "%s %q [%s, %s]: %s\n", h.SessionID, h.SessionTitle, h.Role, h.Time.Format(time.DateTime), h.Snippet)
	}
	return tools.Text(strings.TrimRight(b.String(), "\n")), nil
}

func (p sessionsProvider) history(ctx context.Context, params map[string]any) (tools.Result, error) {
	id := strings.TrimSpace(tools.String(params, "session_id", ""))
	msgs, err := p.r.History(ctx, id, tools.Int(params, "limit", 50))
	if err != nil {
		return tools.Errorf("Could not read session %s: %v. Use list or search to find a session ID.", id, err), nil
	}
	if len(msgs) == 0 {
		return tools.Text(fmt.Sprintf("Session %s has no messages.", id)), nil
	}
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "[%s %s]\n%s\n\n", m.Role, m.Time.Format(time.DateTime), m.Text)
	}
	return tools.Text(strings.TrimRight(b.String(), "\n")), nil
}
