package api

import (
	"context"
	"encoding/json"
	"io"

	"tinyelf/backend/capabilities"
	"tinyelf/backend/engine"
	"tinyelf/backend/notify"
	"tinyelf/backend/skills"
	"tinyelf/backend/usertools"
)

// ToolboxOptions configures a Toolbox; empty fields take the defaults.
type ToolboxOptions struct {
	// DataDir holds the settings (default: the data folder).
	DataDir string
	// Workspace is the folder the tools work in (default: the current one).
	Workspace string
	// Mode is the permission mode (default: ModeDefault); plan offers only
	// read-only tools.
	Mode Mode
	// Unrestricted lets the FileSystem tools reach outside the workspace.
	Unrestricted bool
	// Agent is the agent profile the tools are offered for, as its sessions
	// get them: its allowedTools leave the others out, and LoadMCP starts
	// its direct MCP servers too. "" is the default agent; a name with no
	// profile falls back to the default one, as a session's does (Warnings
	// says so).
	Agent string
	// Getenv resolves ${VAR} references in the MCP servers' settings
	// (default: os.Getenv).
	Getenv func(string) string
	// Version introduces TinyElf to MCP servers.
	Version string
	// Notifier shows the notification of a background user tool task that
	// ends (RunUserToolTask); nil means the platform's.
	Notifier notify.Notifier
	// Home is the home folder of the user skills (~/.agents/skills…), as
	// in Options.Home.
	Home string
	// SkillTrees are extra builtin skill trees (as in Options.SkillTrees).
	SkillTrees []skills.BuiltinFS
}

// ToolInfo describes one tool a Toolbox offers.
type ToolInfo struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Safe        bool            `json:"safe"`
	ReadOnly    bool            `json:"readOnly"`
	Source      string          `json:"source"`
	Parameters  json.RawMessage `json:"parameters"`
	// Server names the MCP server an MCP tool comes from.
	Server string `json:"server,omitempty"`
	// Origin ("common" or "personal"), Kind ("python" or "executable")
	// and Folder describe a user tool's action.
	Origin string `json:"origin,omitempty"`
	Kind   string `json:"kind,omitempty"`
	Folder string `json:"folder,omitempty"`
	// Session marks a tool only a session has (spawn_agent, Sessions*,
	// Notify): `tinyelf tool NAME` runs it in a session of its own
	// (Service.RunToolCall).
	Session bool `json:"session,omitempty"`
}

// UserToolReport is what a discovery of user tools found: the tools it
// skipped and those that failed to load, one problem each.
type UserToolReport struct {
	Agent   string            `json:"agent"`
	Skipped []UserToolProblem `json:"skipped,omitempty"`
	Errors  []UserToolProblem `json:"errors,omitempty"`
}

// UserToolProblem is one user tool a discovery skipped or could not load.
type UserToolProblem struct {
	Tool    string `json:"tool"`
	Origin  string `json:"origin"`
	Path    string `json:"path"`
	Message string `json:"message"`
}

func userToolReportOf(r usertools.Report) UserToolReport {
	conv := func(ps []usertools.Problem) []UserToolProblem {
		var out []UserToolProblem
		for _, p := range ps {
			out = append(out, UserToolProblem{Tool: p.Tool, Origin: string(p.Origin), Path: p.Path, Message: p.Message})
		}
		return out
	}
	return UserToolReport{Agent: r.Agent, Skipped: conv(r.Skipped), Errors: conv(r.Errors)}
}

// ErrNoUserToolCLI is returned by RunUserToolCLI for a tool without a
// command-line entry (cli_main, or "cli" in its manifest).
var ErrNoUserToolCLI = usertools.ErrNoCLI

// ProfileReason is why a tool the agent's allowedTools leave out is not
// offered (Toolbox.Hidden).
const ProfileReason = engine.ProfileReason

// ToolSearchName is the name of the tool that searches capabilities; a
// direct call of it searches every tool the toolbox offers.
const ToolSearchName = capabilities.ToolSearchName

// Toolbox runs the single tool calls a person asks for directly (tinyelf
// tool) through the engine's tool pipeline, the one the agent's calls go
// through (engine.Toolbox): validation, visibility, the permission gate
// (asking for a call is the approval of that one call; deny rules and the
// shell guard still refuse), the user's hooks, truncation. It offers a
// session's built-in tools and, once LoadMCP and LoadUserTools have run,
// the MCP servers' and the agent's user tools. It is safe for concurrent
// use once LoadMCP has returned; Close it to stop the MCP servers and
// release the workspace.
type Toolbox struct{ box *engine.Toolbox }

// OpenToolbox reads the settings and builds the built-in tools for the
// workspace. It fails when the workspace cannot be opened.
func OpenToolbox(ctx context.Context, o ToolboxOptions) (*Toolbox, error) {
	box, err := engine.OpenToolbox(ctx, engine.ToolboxOptions{
		DataDir: o.DataDir, Workspace: o.Workspace, Mode: engine.Mode(o.Mode), Unrestricted: o.Unrestricted,
		Agent: o.Agent, Getenv: o.Getenv, Version: o.Version, Notifier: o.Notifier, Home: o.Home, SkillTrees: o.SkillTrees,
	})
	if err != nil {
		return nil, err
	}
	return &Toolbox{box}, nil
}

// Agent names the agent profile the tools are offered for.
func (t *Toolbox) Agent() string { return t.box.Agent() }

// Warnings returns the problems met while reading the settings (a corrupt
// file set aside, naming the copy), one sentence each.
func (t *Toolbox) Warnings() []string { return t.box.Warnings() }

// LoadMCP starts the user's MCP servers and the agent's direct ones,
// waits until each has connected, failed or is disabled (each bounded by
// its own start timeout, or until ctx ends), and adds the connected
// servers' tools as the agent's sessions get them. It returns every
// configured server's state (the user's, then the agent's); calling it
// again does nothing and returns the states anew.
func (t *Toolbox) LoadMCP(ctx context.Context) []MCPServerState {
	return mcpStatesOf(t.box.LoadMCP(ctx))
}

// LoadUserTools discovers an agent's user tools and adds them as the
// agent's sessions get them, and returns what the discovery found;
// calling it again returns the first report.
func (t *Toolbox) LoadUserTools(ctx context.Context, agent string) UserToolReport {
	return userToolReportOf(t.box.LoadUserTools(ctx, agent))
}

// Tools describes every tool on offer, in the registry's order, then the
// tools only a session has.
func (t *Toolbox) Tools() []ToolInfo {
	infos := t.box.Tools()
	out := make([]ToolInfo, len(infos))
	for i, in := range infos {
		out[i] = ToolInfo{Name: in.Name, Description: in.Description, Safe: in.Safe, ReadOnly: in.ReadOnly, Source: string(in.Source),
			Parameters: in.Parameters, Server: in.Server, Origin: in.Origin, Kind: in.Kind, Folder: in.Folder, Session: in.Session}
	}
	return out
}

// Names lists the tools on offer.
func (t *Toolbox) Names() []string { return t.box.Names() }

// Has reports whether a tool is on offer.
func (t *Toolbox) Has(name string) bool { return t.box.Has(name) }

// Hidden says why a tool exists but is not on offer in this mode or to
// this agent.
func (t *Toolbox) Hidden(name string) (string, bool) { return t.box.Hidden(name) }

// Inspect returns what the user should know before a call runs (the shell
// guard's warnings); arguments that do not parse give none.
func (t *Toolbox) Inspect(name string, args json.RawMessage) []string {
	return t.box.Inspect(name, args)
}

// Run runs one call through the pipeline and returns its whole result; a
// refused or failed call is an error result, never a Go error.
func (t *Toolbox) Run(ctx context.Context, name string, args json.RawMessage) ToolCallResult {
	return toolCallResultOf(t.box.Run(ctx, name, args))
}

// UserTools describes the loaded agent's user tools with their folders
// (LoadUserTools first).
func (t *Toolbox) UserTools(ctx context.Context) usertools.Listing { return t.box.UserTools(ctx) }

// HasUserTool reports whether a user tool of that name (the file name,
// not a schema name) is loaded.
func (t *Toolbox) HasUserTool(ctx context.Context, name string) bool {
	return t.box.HasUserTool(ctx, name)
}

// RunUserToolCLI runs a user tool's command-line entry with argv and the
// given streams (the seed's animaworks-tool) and returns its exit status;
// a tool without one is ErrNoUserToolCLI.
func (t *Toolbox) RunUserToolCLI(ctx context.Context, tool string, argv []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	return t.box.RunUserToolCLI(ctx, tool, argv, stdin, stdout, stderr)
}

// RunUserToolAction runs one action of a user tool through the pipeline,
// as use_tool: asking for it is the approval, a gated action still needs
// its permission.
func (t *Toolbox) RunUserToolAction(ctx context.Context, tool, action string, args map[string]any) ToolCallResult {
	return toolCallResultOf(t.box.RunUserToolAction(ctx, tool, action, args))
}

// SubmitUserTool queues a background task of a background-eligible action
// for RunUserToolTask to run in another process. Refusals (unknown tool,
// not background-eligible, gated and not allowed, bad arguments) are
// errors to show the user.
func (t *Toolbox) SubmitUserTool(ctx context.Context, tool, action string, args map[string]any) (usertools.Task, error) {
	return t.box.SubmitUserTool(ctx, tool, action, args)
}

// RunUserToolTask runs a queued task until it ends (or ctx does), with a
// desktop notification at the end (when the settings allow them), and
// returns its final record. It needs no LoadUserTools.
func (t *Toolbox) RunUserToolTask(ctx context.Context, id string) (usertools.Task, error) {
	return t.box.RunUserToolTask(ctx, id)
}

// UserToolTasks returns the background tasks of the loaded agent (all:
// every agent's), newest first.
func (t *Toolbox) UserToolTasks(all bool) []usertools.Task { return t.box.UserToolTasks(all) }

// Close stops the MCP servers, kills what a call left running and
// releases the workspace.
func (t *Toolbox) Close() error { return t.box.Close() }

// IsSessionTool reports whether a tool is one only a session has
// (spawn_agent, subagent_*, Sessions*, Notify): `tinyelf tool` runs it with
// Service.RunToolCall, in a session of its own.
func IsSessionTool(name string) bool { return engine.IsSessionTool(name) }
