package agent

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"tinyelf/backend/tools"
)

//go:embed sessions_spawn.md
var sessionsSpawnDescription string

var sessionsSpawnParams = json.RawMessage(`{
  "type": "object",
  "properties": {
    "prompt": {"type": "string", "description": "The first message of the new session."},
    "agentId": {"type": "string", "description": "Agent profile of the new session (default: the default agent)."},
    "title": {"type": "string", "description": "Title shown in the sidebar (default: from the prompt)."}
  },
  "required": ["prompt"],
  "additionalProperties": false
}`)

type sessionsSpawnTool struct{ s SessionStore }

// NewSessionsSpawn returns SessionsSpawn, which starts a new top-level
// session.
func NewSessionsSpawn(s SessionStore) tools.Tool { return &sessionsSpawnTool{s: s} }

func (t *sessionsSpawnTool) Info() tools.Info {
	return tools.Info{Name: "SessionsSpawn", Description: sessionsSpawnDescription, Parameters: sessionsSpawnParams, Source: tools.SourceLocal}
}

func (t *sessionsSpawnTool) Execute(ctx context.Context, params map[string]any) (tools.Result, error) {
	prompt := strings.TrimSpace(tools.String(params, "prompt", ""))
	if prompt == "" {
		return tools.Errorf("prompt is empty: give the new session its first message."), nil
	}
	sum, err := t.s.SpawnSession(ctx, prompt, strings.TrimSpace(tools.String(params, "agentId", "")), strings.TrimSpace(tools.String(params, "title", "")))
	if err != nil {
		return refusalOr(err)
	}
	return tools.Result{
		Content: fmt.Sprintf("Started session %s (agent %s) on the prompt; it runs on its own. Read it with SessionsHistory(sessionId: %q).", sum.ID, sum.Agent, sum.ID),
		Meta:    map[string]any{"session": sum},
	}, nil
}
