package engine

import (
	"context"
	"errors"
	"strings"

	"tinyelf/backend/skills"
)

// Slash commands: user-invocable skills, Markdown command files and MCP
// prompts, as the composer's "/" menu lists them and as a typed
// "/name args" runs them. A typed message reaches the loop through
// SendTyped or RunTyped, which expand it here first.

// CommandError is a typed slash command that could not run (a missing
// argument, a project skill the user denied, an MCP prompt that failed):
// the user's to fix, so a surface shows it as a bad request. Its message
// is the cause's.
type CommandError struct{ err error }

// Error returns the cause's message.
func (e *CommandError) Error() string { return e.err.Error() }

// Unwrap returns the cause.
func (e *CommandError) Unwrap() error { return e.err }

// SlashCommand is one slash command of a workspace; Server names the MCP
// server of a prompt.
type SlashCommand struct {
	*skills.Command
	Server string
}

// SlashCommands returns the slash commands of a workspace ("" for the
// user's and the builtin ones only): its user-invocable skills, the
// Markdown command files and the MCP prompts, sorted by name, and the
// command files that do not load. The folders are checked for changes
// first. Without Options.Skills there are none.
func (e *Engine) SlashCommands(workspace string) ([]SlashCommand, []skills.Invalid) {
	lib := e.freshSkills(workspace)
	if lib == nil {
		return nil, nil
	}
	cmds, invalid := lib.Commands(e.opts.Skills.Prompts)
	servers := map[string]string{}
	if e.opts.MCP != nil {
		for _, p := range e.opts.MCP.User.Prompts() {
			servers[p.Name] = p.Server
		}
	}
	out := make([]SlashCommand, 0, len(cmds))
	for _, c := range cmds {
		out = append(out, SlashCommand{Command: c, Server: servers[c.Name]})
	}
	return out, invalid
}

// freshSkills returns a workspace's skills with their folders checked for
// changes first, nil without Options.Skills.
func (e *Engine) freshSkills(workspace string) *skills.Library {
	sk := e.opts.Skills
	switch {
	case sk == nil:
		return nil
	case sk.Fresh != nil:
		return sk.Fresh(workspace)
	case sk.Library != nil:
		return sk.Library(workspace)
	}
	return nil
}

// SendTyped is SendInput for what the user typed into a session's
// composer: a message that is a slash command ("/review src",
// "/mcp__srv__prompt x=1") runs the command, its rendered text starting the
// turn and its allowed-tools applying to that turn (see ExpandCommand). A
// command that cannot run is a *CommandError, and no turn starts.
func (e *Engine) SendTyped(ctx context.Context, sessionID string, in Input) error {
	if strings.TrimSpace(in.Text) != "" {
		text, opts, err := e.ExpandCommand(ctx, sessionID, in.Text)
		if err != nil {
			return err
		}
		in.Text, in.Options = text, opts
	}
	return e.SendInput(sessionID, in)
}

// RunTyped is RunWith for what the user typed (`tinyelf run -p`): a slash
// command runs as in SendTyped, and RunTyped waits for the turn to end,
// cancelling it when ctx ends.
func (e *Engine) RunTyped(ctx context.Context, sessionID, text string) (TurnResult, error) {
	msg, opts, err := e.ExpandCommand(ctx, sessionID, text)
	if err != nil {
		return TurnResult{}, err
	}
	return e.RunWith(ctx, sessionID, msg, opts)
}

// ExpandCommand turns a typed "/name args" into the message the turn
// starts with and what the command asks of the turn (its allowed-tools,
// the skill it loads). Text that is not a known command is sent as typed:
// "/usr/bin/env is missing" is a message, not a command. A command that
// cannot run is a *CommandError; a session the log does not have, the
// log's error.
func (e *Engine) ExpandCommand(ctx context.Context, sessionID, text string) (string, TurnOptions, error) {
	line := strings.TrimSpace(text)
	if !strings.HasPrefix(line, "/") {
		return text, TurnOptions{}, nil
	}
	if strings.HasPrefix(line, "/mcp__") {
		out, err := e.ExpandPrompt(ctx, text)
		return out, TurnOptions{}, err
	}
	name, args, _ := strings.Cut(line[1:], " ")
	if name == "" || strings.ContainsAny(name, "/\\") {
		return text, TurnOptions{}, nil
	}
	info, err := e.opts.Log.Info(ctx, sessionID)
	if err != nil {
		return "", TurnOptions{}, err
	}
	lib := e.freshSkills(info.Workspace)
	if lib == nil {
		return text, TurnOptions{}, nil
	}
	r, err := lib.RunCommand(ctx, skills.CommandCall{Name: name, Args: strings.TrimSpace(args), SessionID: sessionID, ByUser: true}, e.opts.Skills.Prompts)
	switch {
	case errors.Is(err, skills.ErrUnknownCommand):
		return text, TurnOptions{}, nil
	case err != nil:
		return "", TurnOptions{}, &CommandError{err}
	}
	opts := TurnOptions{AllowedTools: r.AllowedTools, Command: "/" + r.Command.Name, Skill: r.Skill,
		FilterTools: r.Command.Kind == skills.CommandMarkdown && len(r.AllowedTools) > 0}
	// The message keeps what was typed on its first line, so the history
	// shows which command ran; the rendered command follows.
	msg := line + "\n\n<command name=\"/" + r.Command.Name + "\" source=\"" + string(r.Command.Source) + "\">\n" + r.Text + "\n</command>"
	if len(r.AllowedTools) > 0 {
		msg += "\nThe command's allowed-tools apply for the rest of this turn: " + r.AllowedTools.String()
	}
	return msg, opts, nil
}

// ExpandPrompt turns "/mcp__server__prompt args" into the text of that
// prompt of the user's MCP servers; other text, and any text without
// Options.MCP, is returned unchanged. A prompt that cannot run is a
// *CommandError.
func (e *Engine) ExpandPrompt(ctx context.Context, text string) (string, error) {
	if !strings.HasPrefix(strings.TrimSpace(text), "/mcp__") || e.opts.MCP == nil {
		return text, nil
	}
	out, err := e.opts.MCP.User.RunPromptLine(ctx, strings.TrimSpace(text))
	if err != nil {
		return "", &CommandError{err}
	}
	return out, nil
}
