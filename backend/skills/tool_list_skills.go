package skills

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"tinyelf/backend/tools"
)

//go:embed list_skills.md
var listSkillsDescription string

type listSkillsTool struct{ lib *Library }

// NewListSkills returns the list_skills tool: every skill found, with its
// source and status (the seed's SkillsTool).
func NewListSkills(lib *Library) tools.Tool { return &listSkillsTool{lib: lib} }

func (t *listSkillsTool) Info() tools.Info {
	return tools.Info{Name: "list_skills", Description: listSkillsDescription,
		Parameters: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
		ReadOnly:   true, Safe: true, Source: tools.SourceSkill, Title: "List skills"}
}

func (t *listSkillsTool) Execute(ctx context.Context, params map[string]any) (tools.Result, error) {
	entries := t.lib.List()
	if len(entries) == 0 {
		return tools.Result{Content: "No skills are installed.", Meta: map[string]any{"skills": entries}}, nil
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d skills:\n", len(entries))
	for _, e := range entries {
		fmt.Fprintf(&sb, "- %s [%s, %s]", e.Name, e.Source, e.Status)
		if e.Description != "" {
			sb.WriteString(": " + capRunes(strings.Join(strings.Fields(e.Description), " "), 300))
		}
		if e.Reason != "" {
			sb.WriteString(" — " + e.Reason)
		}
		if e.ArgumentHint != "" && e.UserInvocable {
			fmt.Fprintf(&sb, " (/%s %s)", e.Name, e.ArgumentHint)
		}
		sb.WriteByte('\n')
	}
	return tools.Result{Content: sb.String(), Meta: map[string]any{"skills": entries}}, nil
}
