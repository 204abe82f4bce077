package agent

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"tinyelf/backend/tools"
)

//go:embed sessions_list.md
var sessionsListDescription string

var sessionsListParams = json.RawMessage(`{
  "type": "object",
  "properties": {
    "limit": {"type": "integer", "minimum": 1, "maximum": 100, "description": "How many sessions (default 20)."},
    "offset": {"type": "integer", "minimum": 0, "description": "How many to skip, for the next page."}
  },
  "additionalProperties": false
}`)

type sessionsListTool struct{ s SessionStore }

// NewSessionsList returns SessionsList, the session list.
func NewSessionsList(s SessionStore) tools.Tool { return &sessionsListTool{s: s} }

func (t *sessionsListTool) Info() tools.Info {
	// Read-only, but not in SAFE_TOOLS: it shows other conversations.
	return tools.Info{Name: "SessionsList", Description: sessionsListDescription, Parameters: sessionsListParams, ReadOnly: true, Source: tools.SourceLocal}
}

func (t *sessionsListTool) Execute(ctx context.Context, params map[string]any) (tools.Result, error) {
	limit := min(max(tools.Int(params, "limit", 20), 1), 100)
	offset := max(tools.Int(params, "offset", 0), 0)
	list, err := t.s.ListSessions(ctx, limit, offset)
	if err != nil {
		return refusalOr(err)
	}
	if len(list) == 0 {
		if offset > 0 {
			return tools.Text(fmt.Sprintf("No sessions after the first %d.", offset)), nil
		}
		return tools.Text("There are no sessions."), nil
	}
	var b strings.Builder
	for _, s := range list {
		title := s.Title
		if title == "" {
			title = "(untitled)"
		}
		fmt.Fprintf(&b, "%s  %q  agent %s, %d messages, updated %s", s.ID, tools.CutUTF8(title, 80), s.Agent, s.Messages, s.UpdatedAt.UTC().Format(time.RFC3339))
		if s.Running {
			b.WriteString(", running")
		}
		if s.Parent != "" {
			fmt.Fprintf(&b, ", subagent of %s", s.Parent)
		}
		b.WriteByte('\n')
	}
	if len(list) == limit {
		fmt.Fprintf(&b, "(more may follow: offset %d)\n", offset+limit)
	}
	return tools.Text(b.String()), nil
}
