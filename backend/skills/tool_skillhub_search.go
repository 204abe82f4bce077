package skills

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"tinyelf/backend/tools"
)

//go:embed skillhub_search.md
var skillhubSearchDescription string

var skillhubSearchParams = json.RawMessage(`{
  "type": "object",
  "properties": {
    "query": {"type": "string", "description": "Words describing the skill you look for; empty lists everything."}
  },
  "required": ["query"],
  "additionalProperties": false
}`)

type skillhubSearchTool struct{ hub *Hub }

// NewSkillHubSearch returns the skillhub_search tool (the seed's
// SkillHubSearchTool).
func NewSkillHubSearch(hub *Hub) tools.Tool { return &skillhubSearchTool{hub: hub} }

func (t *skillhubSearchTool) Info() tools.Info {
	return tools.Info{Name: "skillhub_search", Description: skillhubSearchDescription, Parameters: skillhubSearchParams,
		ReadOnly: true, Safe: true, Source: tools.SourceSkill, OpenWorld: true, Title: "Search SkillHub"}
}

func (t *skillhubSearchTool) Execute(ctx context.Context, params map[string]any) (tools.Result, error) {
	query := strings.TrimSpace(tools.String(params, "query", ""))
	res, err := t.hub.Search(ctx, query, 20)
	if err != nil {
		if errors.Is(err, ErrNoIndexes) {
			return tools.Errorf("SkillHub is not set up: %v. Tell the user; do not retry.", err), nil
		}
		return tools.Errorf("SkillHub search failed: %v", err), nil
	}
	var sb strings.Builder
	if len(res.Entries) == 0 {
		fmt.Fprintf(&sb, "No SkillHub skill matches %q.\n", query)
	} else {
		fmt.Fprintf(&sb, "%d SkillHub skills:\n", len(res.Entries))
		for _, e := range res.Entries {
			fmt.Fprintf(&sb, "- id %s: %s", e.ID, e.Name)
			if e.Version != "" {
				sb.WriteString(" " + e.Version)
			}
			if e.Description != "" {
				sb.WriteString(" — " + capRunes(strings.Join(strings.Fields(e.Description), " "), 300))
			}
			sb.WriteByte('\n')
		}
	}
	for _, p := range res.Problems {
		sb.WriteString("Note: " + p + "\n")
	}
	return tools.Result{Content: sb.String(), Meta: map[string]any{"entries": res.Entries, "problems": res.Problems}}, nil
}
