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

//go:embed slash_command.md
var slashCommandDescription string

var slashCommandParams = json.RawMessage(`{
  "type": "object",
  "properties": {
    "command": {"type": "string", "description": "The command's name, with or without the leading /."},
    "args": {"type": "string", "description": "Optional argument string, as typed after the command; quote arguments with spaces."}
  },
  "required": ["command"],
  "additionalProperties": false
}`)

// SlashCommandOptions configures the slash_command tool.
type SlashCommandOptions struct {
	// Prompts offers MCP prompts as commands (may be nil).
	Prompts PromptSource
	// SessionID returns the calling session's ID for ${CLAUDE_SESSION_ID}
	// (may be nil).
	SessionID func(ctx context.Context) string
}

type slashCommandTool struct {
	lib  *Library
	opts SlashCommandOptions
}

// NewSlashCommand returns the slash_command tool (the seed's
// SlashCommandTool). Its result is the rendered command for the model to
// follow; Meta carries "command", "kind", "source", and when the command
// asks for them "allowedTools" (AllowedTools: the engine pre-approves them
// for a skill, filters the registry for a Markdown command), "model",
// "context": "fork" with "agent", and CapabilityLoadedKey for a skill.
func NewSlashCommand(lib *Library, opts SlashCommandOptions) tools.Tool {
	return &slashCommandTool{lib: lib, opts: opts}
}

func (t *slashCommandTool) Info() tools.Info {
	return tools.Info{Name: "slash_command", Description: slashCommandDescription, Parameters: slashCommandParams,
		ReadOnly: true, Safe: true, Source: tools.SourceSkill, Title: "Run a slash command"}
}

func (t *slashCommandTool) Execute(ctx context.Context, params map[string]any) (tools.Result, error) {
	call := CommandCall{Name: tools.String(params, "command", ""), Args: tools.String(params, "args", "")}
	if t.opts.SessionID != nil {
		call.SessionID = t.opts.SessionID(ctx)
	}
	r, err := t.lib.RunCommand(ctx, call, t.opts.Prompts)
	switch {
	case errors.Is(err, ErrUnknownCommand):
		cmds, _ := t.lib.Commands(t.opts.Prompts)
		names := make([]string, len(cmds))
		for i, c := range cmds {
			names[i] = "/" + c.Name
		}
		if len(names) == 0 {
			return tools.Errorf("%v: there are no slash commands.", err), nil
		}
		return tools.Errorf("%v. Available commands: %s.", err, strings.Join(names, ", ")), nil
	case errors.Is(err, ErrNeedsTrust), errors.Is(err, ErrDenied):
		return tools.Errorf("%v", err), nil
	case err != nil:
		return tools.Errorf("%v", err), nil
	}
	c := r.Command
	meta := map[string]any{"command": c.Name, "kind": string(c.Kind), "source": string(c.Source)}
	var sb strings.Builder
	fmt.Fprintf(&sb, "<command name=%q source=%q>\n%s\n</command>", "/"+c.Name, c.Source, r.Text)
	if len(r.AllowedTools) > 0 {
		meta["allowedTools"] = r.AllowedTools
		fmt.Fprintf(&sb, "\nThe command's allowed-tools apply for the rest of this turn: %s", r.AllowedTools.String())
	} else if len(c.AllowedTools) > 0 {
		fmt.Fprintf(&sb, "\n(The command's allowed-tools %s were not applied: it comes from this workspace.)", c.AllowedTools.String())
	}
	if r.Model != "" {
		meta["model"] = r.Model
	}
	if r.Fork {
		meta["context"], meta["agent"] = ContextFork, r.Agent
	}
	if r.Skill != nil {
		meta[CapabilityLoadedKey] = map[string]any{"id": r.Skill.ID(), "kind": "skill", "source": string(r.Skill.Source)}
	}
	return tools.Result{Content: sb.String(), Meta: meta}, nil
}
