package agent

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"tinyelf/backend/tools"
)

//go:embed subagent_list.md
var subagentListDescription string

var noParams = json.RawMessage(`{"type": "object", "properties": {}, "additionalProperties": false}`)

type subagentListTool struct{ s Spawner }

// NewSubagentList returns subagent_list, the calling session's subagents.
func NewSubagentList(s Spawner) tools.Tool { return &subagentListTool{s: s} }

func (t *subagentListTool) Info() tools.Info {
	return tools.Info{Name: "subagent_list", Description: subagentListDescription, Parameters: noParams, ReadOnly: true, Source: tools.SourceLocal}
}

func (t *subagentListTool) Execute(ctx context.Context, _ map[string]any) (tools.Result, error) {
	runs, err := t.s.Runs(ctx)
	if err != nil {
		return refusalOr(err)
	}
	if len(runs) == 0 {
		return tools.Text("You have started no subagents in this session."), nil
	}
	var b strings.Builder
	active := 0
	for _, r := range runs {
		if !r.Over() {
			active++
		}
	}
	fmt.Fprintf(&b, "%d subagents, %d still working:\n", len(runs), active)
	for _, r := range runs {
		b.WriteString(runLine(r))
		b.WriteByte('\n')
	}
	return tools.Result{Content: b.String(), Meta: map[string]any{"runs": len(runs), "active": active}}, nil
}
