package api

import (
	"context"
	"errors"
	"strings"

	"tinyelf/backend/engine"
	"tinyelf/backend/skills"
)

// Slash commands: user-invocable skills, Markdown command files and MCP
// prompts, as the composer's "/" menu lists them and as a typed
// "/name args" runs them.

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
	lib := s.skills.fresh(ws)
	cmds, invalid := lib.Commands(mcpPrompts{s.userMCP})
	servers := map[string]string{}
	for _, p := range s.userMCP.Prompts() {
		servers[p.Name] = p.Server
	}
	out := CommandList{Commands: make([]CommandInfo, 0, len(cmds))}
	for _, c := range cmds {
		out.Commands = append(out.Commands, CommandInfo{Name: c.Name, Description: c.Description, ArgumentHint: c.ArgumentHint,
			Kind: string(c.Kind), Source: string(c.Source), Arguments: c.Arguments, AllowedTools: c.AllowedTools.String(),
			Server: servers[c.Name]})
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

// expandCommand turns a typed "/name args" into the message the turn
// starts with and what the command asks of the turn (its allowed-tools,
// the skill it loads). Text that is not a known command is sent as typed:
// "/usr/bin/env is missing" is a message, not a command.
func (s *Service) expandCommand(ctx context.Context, sessionID, text string) (string, engine.TurnOptions, error) {
	line := strings.TrimSpace(text)
	if !strings.HasPrefix(line, "/") {
		return text, engine.TurnOptions{}, nil
	}
	if strings.HasPrefix(line, "/mcp__") {
		out, err := s.expandSlash(ctx, text)
		return out, engine.TurnOptions{}, err
	}
	name, args, _ := strings.Cut(line[1:], " ")
	if name == "" || strings.ContainsAny(name, "/\\") {
		return text, engine.TurnOptions{}, nil
	}
	ws, err := s.commandWorkspace(ctx, sessionID, "")
	if err != nil {
		return "", engine.TurnOptions{}, err
	}
	lib := s.skills.fresh(ws)
	r, err := lib.RunCommand(ctx, skills.CommandCall{Name: name, Args: strings.TrimSpace(args), SessionID: sessionID, ByUser: true}, mcpPrompts{s.userMCP})
	switch {
	case errors.Is(err, skills.ErrUnknownCommand):
		return text, engine.TurnOptions{}, nil
	case err != nil:
		return "", engine.TurnOptions{}, invalidf("%v", err)
	}
	opts := engine.TurnOptions{AllowedTools: r.AllowedTools, Command: "/" + r.Command.Name, Skill: r.Skill,
		FilterTools: r.Command.Kind == skills.CommandMarkdown && len(r.AllowedTools) > 0}
	// The message keeps what was typed on its first line, so the history
	// shows which command ran; the rendered command follows.
	msg := line + "\n\n<command name=\"/" + r.Command.Name + "\" source=\"" + string(r.Command.Source) + "\">\n" + r.Text + "\n</command>"
	if len(r.AllowedTools) > 0 {
		msg += "\nThe command's allowed-tools apply for the rest of this turn: " + r.AllowedTools.String()
	}
	return msg, opts, nil
}
