package agent

import (
	"context"
	_ "embed"
	"encoding/json"
	"strings"
	"time"
	"tinyelf/backend/tools"
)

//go:embed spawn_agent.md
var spawnAgentDescription string

var spawnAgentParams = json.RawMessage(`{
  "type": "object",
  "properties": {
    "prompt": {"type": "string", "description": "The child's task, complete: what to do, where, and what to report back."},
    "agent": {"type": "string", "description": "Agent profile to run (default: the default agent)."},
    "model": {"type": "string", "description": "Model to run it on instead of the profile's (\"model\" or \"provider/model\")."},
    "background": {"type": "boolean", "description": "Return a runId at once instead of waiting for the answer."},
    "maxIterations": {"type": "integer", "minimum": 1, "maximum": 200, "description": "Most model calls the child may make."},
    "permissionMode": {"type": "string", "enum": ["plan", "default", "acceptEdits", "auto"], "description": "Your mode or a stricter one."},
    "tools": {"type": "array", "items": {"type": "string"}, "description": "Your tools the child may use besides the inherited ones."}
  },
  "required": ["prompt"],
  "additionalProperties": false
}`)

type spawnAgentTool struct{ s Spawner }

// NewSpawnAgent returns spawn_agent, which starts a subagent through s.
func NewSpawnAgent(s Spawner) tools.Tool { return &spawnAgentTool{s: s} }

func (t *spawnAgentTool) Info() tools.Info {
	return tools.Info{Name: "spawn_agent", Description: spawnAgentDescription, Parameters: spawnAgentParams, Source: tools.SourceLocal}
}

// CallTimeout lets a foreground child run as long as its own limits allow.
func (t *spawnAgentTool) CallTimeout(params map[string]any) time.Duration {
	if tools.Bool(params, "background", false) {
		return 0
	}
	return SubagentCallTimeout
}

func (t *spawnAgentTool) Execute(ctx context.Context, params map[string]any) (tools.Result, error) {
	req := SpawnRequest{
		Prompt:         strings.TrimSpace(tools.String(params, "prompt", "")),
		Agent:          strings.TrimSpace(tools.String(params, "agent", "")),
		Model:          strings.TrimSpace(tools.String(params, "model", "")),
		Background:     tools.Bool(params, "background", false),
		MaxIterations:  tools.Int(params, "maxIterations", 0),
		PermissionMode: strings.TrimSpace(tools.String(params, "permissionMode", "")),
		Tools:          tools.Strings(params, "tools"),
	}
	if req.Prompt == "" {
		return tools.Errorf("prompt is empty: give the subagent its task."), nil
	}
	run, err := t.s.Spawn(ctx, req)
	if err != nil {
		return refusalOr(err)
	}
	res := tools.Result{Meta: runMeta(run)}
	if req.Background {
		res.Content = "Started subagent run " + run.RunID + " (agent " + run.Agent + ", mode " + run.Mode + ") in the background. " +
			"Check on it with subagent_status(runId: \"" + run.RunID + "\"); the user is notified when it finishes or needs an approval."
		if len(run.NotGiven) > 0 {
			res.Content += "\nNot given to it: " + strings.Join(run.NotGiven, "; ") + "."
		}
		for _, n := range run.Notes {
			res.Content += "\nNote: " + n + "."
		}
		return res, nil
	}
	res.Content = runReport(run, 40<<10)
	res.IsError = run.State != RunDone
	return res, nil
}
