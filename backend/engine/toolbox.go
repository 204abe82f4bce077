package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
	"tinyelf/backend/proc"

	"tinyelf/backend/capabilities"
	"tinyelf/backend/config"
	"tinyelf/backend/mcp"
	"tinyelf/backend/notify"
	"tinyelf/backend/skills"
	"tinyelf/backend/tools"
	"tinyelf/backend/usertools"
)

// ToolboxOptions configures a Toolbox; empty fields take the defaults.
type ToolboxOptions struct {
	// DataDir holds the settings (default: DataDir()).
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
	// UserHome reads it.
	Home string
	// SkillTrees are extra builtin skill trees (see BuiltinSkillTrees).
	SkillTrees []skills.BuiltinFS
}

// ToolInfo describes one tool a Toolbox offers.
type ToolInfo struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Safe        bool            `json:"safe"`
	ReadOnly    bool            `json:"readOnly"`
	Source      tools.Source    `json:"source"`
	Parameters  json.RawMessage `json:"parameters"`
	// Server names the MCP server an MCP tool comes from.
	Server string `json:"server,omitempty"`
	// Origin ("common" or "personal"), Kind ("python" or "executable")
	// and Folder describe a user tool's action.
	Origin string `json:"origin,omitempty"`
	Kind   string `json:"kind,omitempty"`
	Folder string `json:"folder,omitempty"`
	// Session marks a tool only a session has (spawn_agent, Sessions*,
	// Notify): `tinyelf tool NAME` runs it in a session of its own.
	Session bool `json:"session,omitempty"`
}

// Toolbox runs the single tool calls a person asks for directly (tinyelf
// tool) through the engine's tool pipeline, the one a model's calls go
// through (see Run). It offers a session's built-in tools and, once
// LoadMCP and LoadUserTools have run, the tools of the user's MCP servers,
// the agent's direct ones and the agent's user tools. A direct call is in
// no session's history: the tools only a session has run through
// RunToolCall instead. A Toolbox is safe for concurrent use once LoadMCP
// has returned; Close it to stop the MCP servers and release the
// workspace.
type Toolbox struct {
	opts     ToolboxOptions
	settings *config.Store
	sess     *Session
	// gate is an engine of the toolbox's own whose pipeline every call
	// goes through, in state, a session that only this process knows (its
	// events stay in log); info is that session as the pipeline sees it.
	gate  *Engine
	state *sessionState
	log   *directLog
	info  SessionInfo
	// trustWarning says why the project hooks' trust answers cannot be
	// read.
	trustWarning string

	userMCP *mcp.Service
	// directMCP runs the agent's direct MCP servers (nil without them).
	directMCP *mcp.Service
	servers   map[string]string // MCP tool name → its server
	// agent is the profile the tools are offered for; agentWarning says
	// when the one asked for does not exist.
	agent        config.Agent
	agentWarning string
	hidden       map[string]string // tool name → why this mode leaves it out
	// children are the Bash commands and MCP servers the toolbox started;
	// Close kills what is left of them.
	children *proc.Children

	// The user tools, once LoadUserTools has run.
	userTools  *usertools.Service
	userAgent  string
	userReport usertools.Report
	userInfo   map[string]userToolInfo
}

// OpenToolbox reads the settings and builds the built-in tools for the
// workspace. It fails when the workspace cannot be opened.
func OpenToolbox(ctx context.Context, o ToolboxOptions) (*Toolbox, error) {
	if o.DataDir == "" {
		dir, err := config.DataDir()
		if err != nil {
			return nil, err
		}
		o.DataDir = dir
	}
	if o.Workspace == "" {
		o.Workspace = "."
	}
	if o.Mode == "" {
		o.Mode = ModeDefault
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	settings, err := config.OpenStore(filepath.Join(o.DataDir, config.SettingsFile))
	if err != nil {
		return nil, err
	}
	t := &Toolbox{opts: o, settings: settings, servers: map[string]string{}, userInfo: map[string]userToolInfo{},
		children: NewChildren(o.DataDir, settings, o.Getenv)}
	agent, ok := settings.Get().Agent(o.Agent)
	if !ok {
		agent, _ = settings.Get().Agent(config.DefaultAgent)
		t.agentWarning = fmt.Sprintf("there is no agent profile %q (Settings → Agents); its tools are offered as the default agent's", o.Agent)
	}
	t.agent = agent
	// The skills tools, as a session has them; nobody is asked about a
	// project skill here (a direct call is not a conversation), so an
	// untrusted one says how to trust it.
	ws, err := filepath.Abs(o.Workspace)
	if err != nil {
		return nil, err
	}
	trust, _ := skills.OpenTrustStore(filepath.Join(o.DataDir, skills.TrustFile))
	skOpts := skills.Options{DataDir: o.DataDir, Home: UserHome(o.Home), Workspace: ws, Builtin: BuiltinSkillTrees(o.SkillTrees)}
	lib := skills.NewLibrary(skOpts, trust)
	hub := skills.NewHub(skOpts.UserSkillsDir(), func() []string { return settings.Get().Skills.Indexes() }, skills.WithEnviron(t.childEnviron), skills.WithChildren(t.children))
	t.openGate(ws)
	sess, err := BuildRegistry(BuildOptions{
		Workspace: o.Workspace, Mode: o.Mode, Unrestricted: o.Unrestricted,
		ExecTimeout: settings.Get().ExecTimeout(),
		Web:         NewWebTools(settings.Get(), o.Getenv, nil, nil, nil),
		Middleware:  t.gate.pipeline(t.state),
		Environ:     t.childEnviron,
		Children:    t.children,
		Skills:      &SkillTools{Library: lib, Hub: hub, SessionID: directSession},
		Roots:       SkillRoots(lib, ws),
	})
	if err != nil {
		return nil, err
	}
	t.sess, t.hidden = sess, sess.Hidden
	// The agent's allowedTools, by the rule its sessions apply (names,
	// trailing-* prefixes, mcp__server for a whole server).
	t.sess.Registry = t.sess.Registry.FilteredFunc(func(info tools.Info) bool { return t.admit(info) })
	return t, nil
}

// ProfileReason is why a tool the agent's allowedTools leave out is not
// offered (Toolbox.Hidden).
const ProfileReason = "its profile does not allow it (allowedTools)"

// admit reports whether the agent's profile allows a tool, recording why
// not.
func (t *Toolbox) admit(info tools.Info) bool {
	if t.allowed(info) {
		return true
	}
	t.hidden[info.Name] = ProfileReason
	return false
}

// allowed reports whether the agent's profile allows a tool.
func (t *Toolbox) allowed(info tools.Info) bool {
	e := capabilities.Entry{Descriptor: capabilities.Descriptor{ID: capabilities.ToolID(info), Name: info.Name, Server: capabilities.ServerOf(info)}}
	return capabilities.AllowedBy(t.agent.AllowedTools, e)
}

// Agent names the agent profile the tools are offered for.
func (t *Toolbox) Agent() string { return t.agent.Name }

// childEnviron is the environment Bash commands and MCP servers start
// from: the user's, without TinyElf's secrets (as a session's is).
func (t *Toolbox) childEnviron() []string {
	return ChildEnviron(t.settings.Get().WithEnvironment(t.opts.Getenv))
}

// Warnings returns the problems met while reading the settings (a corrupt
// file set aside, naming the copy), one sentence each.
func (t *Toolbox) Warnings() []string {
	var out []string
	if w := t.settings.Warning(); w != "" {
		out = append(out, w)
	}
	if t.agentWarning != "" {
		out = append(out, t.agentWarning)
	}
	if t.trustWarning != "" {
		out = append(out, t.trustWarning)
	}
	return out
}

// LoadMCP starts the user's MCP servers and the agent's direct ones,
// waits until each has connected, failed or is disabled (each bounded by
// its own start timeout, or until ctx ends), and adds the connected
// servers' tools, as the agent's sessions get them: in plan mode only
// read-only ones, only those the agent's allowedTools admit, a built-in
// tool wins a name clash and a user server's tool one of a direct server.
// It returns every configured server's state (the user's, then the
// agent's); calling it again does nothing and returns the states anew.
func (t *Toolbox) LoadMCP(ctx context.Context) []mcp.ServerState {
	if t.userMCP != nil {
		return t.mcpStates()
	}
	newService := func(servers []config.MCPServer) *mcp.Service {
		return mcp.NewService(servers, mcp.Options{
			LookupEnv:     func(k string) (string, bool) { v := t.opts.Getenv(k); return v, v != "" },
			ClientVersion: t.opts.Version,
			Environ:       t.childEnviron,
			Children:      t.children,
		})
	}
	servers := t.settings.Get().MCPServers
	t.userMCP = newService(servers)
	direct := t.agent.DirectMCPServers
	if len(direct) > 0 {
		t.directMCP = newService(direct)
	}
	if len(servers) == 0 && len(direct) == 0 {
		return nil
	}
	// The servers live until Close, not until ctx ends: ctx bounds the wait.
	sets := []*mcp.Service{t.userMCP}
	if t.directMCP != nil {
		sets = append(sets, t.directMCP)
	}
	for _, svc := range sets {
		svc.Start(context.WithoutCancel(ctx))
	}
	for _, svc := range sets {
		_ = svc.WaitReady(ctx)
	}
	states := t.mcpStates()
	for _, st := range states {
		for _, n := range st.Tools {
			if _, taken := t.servers[n]; !taken {
				t.servers[n] = st.Name
			}
		}
	}
	reg := t.sess.Registry
	// The servers' tools, then the one resource pair over all of them.
	var all []tools.Tool
	var groups []mcp.ResourceGroup
	for _, svc := range sets {
		all = append(all, svc.Tools()...)
		groups = append(groups, svc)
	}
	for _, tool := range append(all, mcp.ResourceTools(groups...)...) {
		info := tool.Info()
		if reg.Has(info.Name) {
			continue // built-in tools win a name clash, as in the agent's sessions
		}
		if t.opts.Mode == ModePlan && !info.ReadOnly {
			t.hidden[info.Name] = "plan mode allows only read-only tools"
			continue
		}
		if !t.admit(info) {
			continue
		}
		_ = reg.Register(tool) // a tool with a bad schema is left out, as in the agent's sessions
	}
	return states
}

// mcpStates returns the user's servers' states, then the agent's direct
// ones'.
func (t *Toolbox) mcpStates() []mcp.ServerState {
	states := t.userMCP.States()
	if t.directMCP != nil {
		states = append(states, t.directMCP.States()...)
	}
	return states
}

// Tools describes every tool on offer, in the registry's order.
func (t *Toolbox) Tools() []ToolInfo {
	infos := t.sess.Registry.Infos()
	out := make([]ToolInfo, len(infos))
	for i, in := range infos {
		src := in.Source
		if src == "" {
			src = tools.SourceLocal
		}
		out[i] = ToolInfo{Name: in.Name, Description: in.Description, Safe: in.Safe, ReadOnly: in.ReadOnly,
			Source: src, Parameters: in.Parameters, Server: t.servers[in.Name]}
		if u, ok := t.userInfo[in.Name]; ok {
			out[i].Origin, out[i].Kind, out[i].Folder = in.Origin, u.kind, u.folder
		}
	}
	// The tools only a session has, as the agent's sessions get them.
	for _, tool := range SessionTools() {
		in := tool.Info()
		if t.sess.Registry.Has(in.Name) || t.opts.Mode == ModePlan && !in.ReadOnly || !t.allowed(in) {
			continue
		}
		out = append(out, ToolInfo{Name: in.Name, Description: in.Description, Safe: in.Safe, ReadOnly: in.ReadOnly,
			Source: tools.SourceLocal, Parameters: in.Parameters, Session: true})
	}
	return out
}

// Names lists the tools on offer.
func (t *Toolbox) Names() []string { return t.sess.Registry.Names() }

// Has reports whether a tool is on offer.
func (t *Toolbox) Has(name string) bool { return t.sess.Registry.Has(name) }

// Hidden says why a tool exists but is not on offer in this mode.
func (t *Toolbox) Hidden(name string) (string, bool) {
	why, ok := t.hidden[name]
	return why, ok
}

// Inspect returns what the user should know before a call runs (the shell
// guard's warnings); arguments that do not parse give none.
func (t *Toolbox) Inspect(name string, args json.RawMessage) []string {
	tool, ok := t.sess.Registry.Get(name)
	if !ok {
		return nil
	}
	insp, ok := tool.(tools.Inspector)
	if !ok {
		return nil
	}
	var params map[string]any
	if json.Unmarshal(args, &params) != nil {
		return nil
	}
	return insp.Warnings(params)
}

// Close stops the MCP servers, kills what a call left running and
// releases the workspace.
func (t *Toolbox) Close() error {
	sctx, cancel := context.WithTimeout(context.Background(), time.Second)
	t.gate.Shutdown(sctx)
	cancel()
	if t.userMCP != nil {
		_ = t.userMCP.Close()
	}
	if t.directMCP != nil {
		_ = t.directMCP.Close()
	}
	if t.userTools != nil {
		_ = t.userTools.Close()
	}
	t.children.KillAll()
	return t.sess.Close()
}
