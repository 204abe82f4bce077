package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
)

//go:embed sessions_history.md
var sessionsHistoryDescription string

var sessionsHistoryParams = json.RawMessage(`{
  "type": "object",
  "properties": {
    "sessionId": {"type": "string", "description": "The session to read (SessionsList shows IDs)."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 100, "description": "How many of the latest messages (default 20)."}
  },
  "required": ["sessionId"],
  "additionalProperties": false
}`)

// historyMessageBytes caps each message SessionsHistory shows.
const historyMessageBytes = 4000

type sessionsHistoryTool struct{ s SessionStore }

// NewSessionsHistory returns SessionsHistory, a session's model history.
func NewSessionsHistory(s SessionStore) Tool { return &sessionsHistoryTool{s: s} }

func (t *sessionsHistoryTool) Info() Info {
	return Info{Name: "SessionsHistory", Description: sessionsHistoryDescription, Parameters: sessionsHistoryParams, ReadOnly: true, Safe: true, Source: SourceLocal}
}

func (t *sessionsHistoryTool) Execute(ctx context.Context, params map[string]any) (Result, error) {
	id := strings.TrimSpace(String(params, "sessionId", ""))
	if id == "" {
		return Errorf("sessionId is empty: pass a session ID from SessionsList."), nil
	}
	limit := min(max(Int(params, "limit", 20), 1), 100)
	sum, msgs, total, err := t.s.SessionHistory(ctx, id, limit)
	if err != nil {
		return refusalOr(err)
	}
	var b strings.Builder
	title := sum.Title
	if title == "" {
		title = "(untitled)"
	}
	fmt.Fprintf(&b, "Session %s %q (agent %s", sum.ID, CutUTF8(title, 80), sum.Agent)
	if sum.Running {
		b.WriteString(", working now")
	}
	fmt.Fprintf(&b, "): the last %d of %d messages.\n", len(msgs), total)
	for _, m := range msgs {
		b.WriteByte('\n')
		switch {
		case m.Role == "tool" && m.IsError:
			fmt.Fprintf(&b, "[tool %s, error]\n", m.ToolName)
		case m.Role == "tool":
			fmt.Fprintf(&b, "[tool %s]\n", m.ToolName)
		default:
			fmt.Fprintf(&b, "[%s]\n", m.Role)
		}
		if c := strings.TrimSpace(m.Content); c != "" {
			b.WriteString(CutUTF8(c, historyMessageBytes))
			if len(c) > historyMessageBytes {
				b.WriteString(" [...cut]")
			}
			b.WriteByte('\n')
		}
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, "→ %s\n", CutUTF8(c, 300))
		}
	}
	return Text(b.String()), nil
}
