package agent

import (
	"context"
	_ "embed"
	"encoding/json"
	"strings"
	"tinyelf/backend/tools"
)

//go:embed subagent_status.md
var subagentStatusDescription string

var subagentStatusParams = json.RawMessage(`{
  "type": "object",
  "properties": {
    "runId": {"type": "string", "description": "The run ID spawn_agent returned."}
  },
  "required": ["runId"],
  "additionalProperties": false
}`)

type subagentStatusTool struct{ s Spawner }

// NewSubagentStatus returns subagent_status, one subagent's state and answer.
func NewSubagentStatus(s Spawner) tools.Tool { return &subagentStatusTool{s: s} }

func (t *subagentStatusTool) Info() tools.Info {
	return tools.Info{Name: "subagent_status", Description: subagentStatusDescription, Parameters: subagentStatusParams, ReadOnly: true, Source: tools.SourceLocal}
}

func (t *subagentStatusTool) Execute(ctx context.Context, params map[string]any) (tools.Result, error) {
	id := strings.TrimSpace(tools.String(params, "runId", ""))
	if id == "" {
		return tools.Errorf("runId is empty: pass the run ID spawn_agent returned (subagent_list shows them)."), nil
	}
	run, err := t.s.Run(ctx, id)
	if err != nil {
		return refusalOr(err)
	}
	return tools.Result{Content: runReport(run, 40<<10), Meta: runMeta(run)}, nil
}
