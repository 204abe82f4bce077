package api

import (
	"context"

	"tinyelf/backend/skills"
)

// Slash commands as the composer's "/" menu lists them; a typed one runs
// in the engine (SendMessage, engine.SendTyped).

// CommandInfo is one slash command of the composer's "/" menu.
type CommandInfo struct {
	// Name is the command without its "/".
	Name         string `json:"name"`
	Description  string `json:"description,omitempty"`
	ArgumentHint string `json:"argumentHint,omitempty"`
	// Kind is "skill", "markdown" or "mcp".
	Kind string `json:"kind"`
	// Source is "user", "project", "builtin" or "mcp".
	Source    string                  `json:"source"`
	Arguments []skills.PromptArgument `json:"arguments,omitempty"`
	// AllowedTools are the command's allowed-tools as written.
	AllowedTools string `json:"allowedTools,omitempty"`
	// Server is the MCP server of a prompt.
	Server string `json:"server,omitempty"`
}

// CommandsArgs names the session (or, with no session, the workspace)
// whose commands are listed.
type CommandsArgs struct {
	SessionID string `json:"sessionId,omitempty"`
	Workspace string `json:"workspace,omitempty"`
}

// CommandList is every slash command, and the command files that do not
// load (with why).
type CommandList struct {
	Commands []CommandInfo `json:"commands"`
	Invalid  []SkillInfo   `json:"invalid,omitempty"`
}

// ListCommands returns the slash commands of a session's workspace: its
// user-invocable skills, the Markdown command files and the MCP prompts,
// sorted by name.
func (s *Service) ListCommands(ctx context.Context, a CommandsArgs) (CommandList, error) {
	ws, err := s.commandWorkspace(ctx, a.SessionID, a.Workspace)
	if err != nil {
		return CommandList{}, err
	}
	cmds, invalid := s.engine.SlashCommands(ws)
	out := CommandList{Commands: make([]CommandInfo, 0, len(cmds))}
	for _, c := range cmds {
		out.Commands = append(out.Commands, CommandInfo{Name: c.Name, Description: c.Description, ArgumentHint: c.ArgumentHint,
			Kind: string(c.Kind), Source: string(c.Source), Arguments: c.Arguments, AllowedTools: c.AllowedTools.String(),
			Server: c.Server})
	}
	for _, inv := range invalid {
		out.Invalid = append(out.Invalid, SkillInfo{Entry: skills.Entry{Name: inv.Name, Source: inv.Source,
			Status: skills.StatusInvalid, Dir: inv.Dir, Location: inv.Problem.File, Reason: inv.Problem.String()}})
	}
	return out, nil
}

// commandWorkspace is the workspace of a session, or dir.
func (s *Service) commandWorkspace(ctx context.Context, sessionID, dir string) (string, error) {
	if sessionID == "" {
		return dir, nil
	}
	sess, err := s.store.Get(ctx, sessionID)
	if err != nil {
		return "", mapErr(err)
	}
	return sess.Workspace, nil
}
