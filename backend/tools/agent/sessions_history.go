package agent

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"tinyelf/backend/tools"
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
func NewSessionsHistory(s SessionStore) tools.Tool { return &sessionsHistoryTool{s: s} }

func (t *sessionsHistoryTool) Info() tools.Info {
	return tools.Info{Name: "SessionsHistory", Description: sessionsHistoryDescription, Parameters: sessionsHistoryParams, ReadOnly: true, Safe: true, Source: tools.SourceLocal}
}

func (t *sessionsHistoryTool) Execute(ctx context.Context, params map[string]any) (tools.Result, error) {
	id := strings.TrimSpace(tools.String(params, "sessionId", ""))
	if id == "" {
		return tools.Errorf("sessionId is empty: pass a session ID from SessionsList."), nil
	}
	limit := min(max(tools.Int(params, "limit", 20), 1), 100)
	sum, msgs, total, err := t.s.SessionHistory(ctx, id, limit)
	if err != nil {
		return refusalOr(err)
	}
	var b strings.Builder
	title := sum.Title
	if title == "" {
		title = "(untitled)"
	}
	fmt.Fprintf(&b, "Session %s %q (agent %s", sum.ID, tools.CutUTF8(title, 80), sum.Agent)
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
			b.WriteString(tools.CutUTF8(c, historyMessageBytes))
			if len(c) > historyMessageBytes {
				b.WriteString(" [...cut]")
			}
			b.WriteByte('\n')
		}
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, "→ %s\n", tools.CutUTF8(c, 300))
		}
	}
	return tools.Text(b.String()), nil
}
