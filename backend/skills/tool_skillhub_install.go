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

//go:embed skillhub_install.md
var skillhubInstallDescription string

var skillhubInstallParams = json.RawMessage(`{
  "type": "object",
  "properties": {
    "skillId": {"type": "string", "description": "The id skillhub_search returned."}
  },
  "required": ["skillId"],
  "additionalProperties": false
}`)

type skillhubInstallTool struct {
	hub *Hub
	lib *Library
}

// NewSkillHubInstall returns the skillhub_install tool (the seed's
// SkillHubInstallTool). It installs into the hub's folder and reloads lib
// (may be nil) so the skill is available at once. It is not Safe: the
// permission gate asks in every mode but auto.
func NewSkillHubInstall(hub *Hub, lib *Library) tools.Tool {
	return &skillhubInstallTool{hub: hub, lib: lib}
}

func (t *skillhubInstallTool) Info() tools.Info {
	return tools.Info{Name: "skillhub_install", Description: skillhubInstallDescription, Parameters: skillhubInstallParams,
		Source: tools.SourceSkill, OpenWorld: true, Title: "Install a SkillHub skill"}
}

func (t *skillhubInstallTool) Execute(ctx context.Context, params map[string]any) (tools.Result, error) {
	id := strings.TrimSpace(tools.String(params, "skillId", ""))
	if id == "" {
		return tools.Errorf("skillId is empty; pass an id from skillhub_search."), nil
	}
	inst, err := t.hub.Install(ctx, id)
	if err != nil {
		if errors.Is(err, ErrNoIndexes) {
			return tools.Errorf("SkillHub is not set up: %v. Tell the user; do not retry.", err), nil
		}
		return tools.Errorf("%v", err), nil
	}
	meta := map[string]any{"installed": inst}
	var sb strings.Builder
	verb := "Installed"
	if inst.Replaced {
		verb = "Updated"
	}
	fmt.Fprintf(&sb, "%s skill %q", verb, inst.Name)
	if inst.Version != "" {
		fmt.Fprintf(&sb, " (version %s)", inst.Version)
	}
	fmt.Fprintf(&sb, " into %s.", inst.Dir)
	if t.lib != nil {
		changes := t.lib.Reload()
		meta["changes"] = changes
		if sk, ok := t.lib.Get(inst.Name); ok && sk.Dir == inst.Dir {
			fmt.Fprintf(&sb, " It is available now: load it with read_skill(name=%q).", inst.Name)
		} else if ok {
			fmt.Fprintf(&sb, " A %s skill of the same name at %s takes precedence.", sk.Source, sk.Location())
		}
	}
	for _, w := range inst.Warnings {
		sb.WriteString("\nWarning: " + w)
	}
	return tools.Result{Content: sb.String(), Meta: meta}, nil
}
