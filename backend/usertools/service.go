package usertools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"tinyelf/backend/config"
	"tinyelf/backend/proc"
	"tinyelf/backend/tools"
	"tinyelf/backend/tools/fs"
)

// Folders of the data folder user tools live in.
const (
	CommonToolsDir = "common_tools"
	AgentsDir      = "agents"
	PersonalDir    = "tools"
	cacheDir       = "cache/usertools"
	tasksDir       = "state/tool_tasks"
)

// Names of the tools the service adds next to the user tools. They count as
// core tools: a user tool cannot take their names.
const (
	UseToolName      = "use_tool"
	RefreshToolsName = "refresh_tools"
	ShareToolName    = "share_tool"
	ToolTasksName    = "tool_tasks"
)

func controlNames() []string {
	return []string{UseToolName, RefreshToolsName, ShareToolName, ToolTasksName}
}

// Notifier shows a desktop notification when a background task finishes
// (*notify.Policy satisfies it).
type Notifier interface {
	Notify(ctx context.Context, title, body string) error
}

// Options configures a Service.
type Options struct {
	// DataDir is TinyElf's data folder.
	DataDir string
	// CoreNames are the built-in tools' names: a user tool named like one
	// is skipped (and reported).
	CoreNames []string
	// Credentials returns the Settings credentials, where a credential is
	// looked for first (after the agent's own); nil means none.
	Credentials func() map[string]config.Credential
	// AgentCredentials returns the credentials an agent profile sets for
	// its own tool calls, which win over the Settings ones; nil means none.
	AgentCredentials func(agent string) map[string]config.Credential
	// Getenv reads TinyElf's environment: the last credential source, and
	// the few variables a tool process inherits (PATH, HOME, LANG…). Nil
	// means os.Getenv.
	Getenv func(string) string
	// Notifier is told when a background task ends; nil sends nothing.
	Notifier Notifier
	// Python is the interpreter's name or path (default python3), looked
	// up on the tool environment's PATH.
	Python string
	// ImportTimeout bounds importing one module for its schemas (default
	// DefaultImportTimeout).
	ImportTimeout time.Duration
	// OnReport receives the report of every discovery (start-up, refresh),
	// for the UI and the log; it must not block.
	OnReport func(Report)
	// OnTask receives a background task whenever its state changes; it
	// must not block.
	OnTask func(Task)
	// Children starts every tool process (and the Python hosts) and keeps
	// them from outliving TinyElf; nil starts each in its own process group
	// and records nothing.
	Children *proc.Children
	// ProcessPerCall starts a new Python interpreter for every call
	// instead of forking one from a warm host (the default on Unix). Both
	// give each call a process of its own; the fork costs several times
	// less (BenchmarkCall).
	ProcessPerCall bool
}

// Service discovers, merges and runs user tools (seed 002): common tools
// in <data dir>/common_tools, each agent's personal tools in
// <data dir>/agents/<agent>/tools. It scans a folder when an agent's tools
// are first asked for (start-up) and again only on Refresh (the
// refresh_tools tool, the Settings button): files added in between are
// not seen, as the seed says. It is safe for concurrent use; Close it to
// stop background tasks.
type Service struct {
	opts  Options
	py    *pyHost
	creds *Credentials
	vault *Vault
	tasks *taskList
	// writes counts the agents' writes into the tool folders.
	writes writeCounter

	mu      sync.Mutex
	fork    *forkServer   // nil until the first Python call
	forkFor string        // the interpreter fork runs
	common  []*Definition // nil until first scanned
	scanned bool
	sets    map[string]*toolSet
	// scanMu serializes scans, so two sessions starting at once scan once.
	scanMu sync.Mutex
}

// New returns a service over the data folder. It creates the common tools
// folder, writes the Python host into the cache and loads the background
// task list (tasks a previous run left unfinished are marked interrupted).
func New(opts Options) (*Service, error) {
	if opts.DataDir == "" {
		return nil, errors.New("user tools: no data folder")
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if err := os.MkdirAll(filepath.Join(opts.DataDir, CommonToolsDir), 0o755); err != nil {
		return nil, fmt.Errorf("create the common tools folder: %w", err)
	}
	py, err := newPyHost(filepath.Join(opts.DataDir, cacheDir), opts.Python, opts.ImportTimeout, opts.Children)
	if err != nil {
		return nil, err
	}
	vault := NewVault(opts.DataDir)
	s := &Service{
		opts: opts, py: py, vault: vault,
		creds: &Credentials{
			settings: opts.Credentials, agent: opts.AgentCredentials, vault: vault, getenv: opts.Getenv,
			sharedFile: filepath.Join(opts.DataDir, SharedCredentialDir, SharedCredentials),
		},
		sets: map[string]*toolSet{},
	}
	s.tasks, err = newTaskList(filepath.Join(opts.DataDir, tasksDir), opts.Notifier, opts.OnTask)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Close stops running background tasks (they are recorded as interrupted)
// and waits for them.
func (s *Service) Close() error {
	s.tasks.close()
	s.mu.Lock()
	fork := s.fork
	s.fork = nil
	s.mu.Unlock()
	if fork != nil {
		fork.close()
	}
	return nil
}

// forkPID returns the fork server's process ID (0 when none runs), for the
// benchmarks' CPU accounting.
func (s *Service) forkPID() int {
	s.mu.Lock()
	fork := s.fork
	s.mu.Unlock()
	if fork == nil {
		return 0
	}
	return fork.pid()
}

// forkServerFor returns the fork server of an interpreter, replacing one
// that runs another (PATH changed).
func (s *Service) forkServerFor(python string) *forkServer {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fork != nil && s.forkFor == python {
		return s.fork
	}
	if s.fork != nil {
		go s.fork.close()
	}
	s.fork, s.forkFor = newForkServer(s.py.argv(python, "zygote"), s.toolEnv("", nil, ""), s.opts.Children), python
	return s.fork
}

// CommonDir returns the common tools folder.
func (s *Service) CommonDir() string { return filepath.Join(s.opts.DataDir, CommonToolsDir) }

// AgentDir returns an agent's folder (the seed's anima_dir), or an error
// for a name that cannot be a folder name.
func (s *Service) AgentDir(agent string) (string, error) {
	if agent == "" {
		agent = "default"
	}
	if strings.ContainsAny(agent, `/\`+"\x00") || !filepath.IsLocal(agent) || strings.HasPrefix(agent, ".") {
		return "", fmt.Errorf("the agent name %q cannot be used as a folder name, so it has no personal tools", agent)
	}
	return filepath.Join(s.opts.DataDir, AgentsDir, agent), nil
}

// PersonalDir returns an agent's personal tools folder.
func (s *Service) PersonalDir(agent string) (string, error) {
	dir, err := s.AgentDir(agent)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, PersonalDir), nil
}

// Vault returns the encrypted credential store.
func (s *Service) Vault() *Vault { return s.vault }

// Tools returns an agent's tools: use_tool, refresh_tools, share_tool,
// tool_tasks, and one tool per loaded action ({tool}_{action}). The values
// stay the same until the next refresh, so the engine can tell when the
// set changed. The first call for an agent scans its folders.
func (s *Service) Tools(ctx context.Context, agent string) []tools.Tool {
	return s.set(ctx, agent).tools
}

// Report returns what the agent's discovery found (the start-up scan, or
// the last refresh), scanning first when the agent is new.
func (s *Service) Report(ctx context.Context, agent string) Report {
	return s.set(ctx, agent).report
}

// Load scans the common tools and the default agent's tools, as TinyElf
// does at start-up; later calls change nothing.
func (s *Service) Load(ctx context.Context) Report {
	return s.set(ctx, "default").report
}

// set returns the agent's tool set, discovering it on first use.
func (s *Service) set(ctx context.Context, agent string) *toolSet {
	if agent == "" {
		agent = "default"
	}
	// A scan finishes even when the turn that asked is stopped: its result
	// is kept for every later turn. Each import has its own timeout.
	ctx = context.WithoutCancel(ctx)
	s.mu.Lock()
	set, ok := s.sets[agent]
	s.mu.Unlock()
	if ok {
		return set
	}
	s.scanMu.Lock()
	defer s.scanMu.Unlock()
	s.mu.Lock()
	set, ok = s.sets[agent]
	scanned, common := s.scanned, s.common
	s.mu.Unlock()
	if ok {
		return set
	}
	if !scanned {
		common = s.scanFolder(ctx, s.CommonDir(), OriginCommon)
	}
	return s.install(ctx, agent, common)
}

// install scans the agent's personal tools, merges them with common and
// makes the result the agent's set. The caller holds scanMu.
func (s *Service) install(ctx context.Context, agent string, common []*Definition) *toolSet {
	var personal []*Definition
	var dirErr string
	if dir, err := s.PersonalDir(agent); err != nil {
		dirErr = err.Error()
	} else {
		personal = s.scanFolder(ctx, dir, OriginPersonal)
	}
	defs, rep := merge(agent, common, personal, append(slices.Clone(s.opts.CoreNames), controlNames()...))
	if dirErr != "" {
		rep.Errors = append(rep.Errors, Problem{Tool: "", Origin: OriginPersonal, Message: dirErr})
	}
	rep.At = time.Now()
	set := newToolSet(s, agent, defs, rep)
	s.mu.Lock()
	s.common, s.scanned = common, true
	s.sets[agent] = set
	s.mu.Unlock()
	if s.opts.OnReport != nil {
		s.opts.OnReport(set.report)
	}
	return set
}

// Refresh rescans the common tools and the agent's personal tools and
// replaces the agent's set (the seed's refresh_tools). Other agents keep
// theirs until they refresh or TinyElf restarts.
func (s *Service) Refresh(ctx context.Context, agent string) Report {
	if agent == "" {
		agent = "default"
	}
	ctx = context.WithoutCancel(ctx)
	s.scanMu.Lock()
	defer s.scanMu.Unlock()
	common := s.scanFolder(ctx, s.CommonDir(), OriginCommon)
	return s.install(ctx, agent, common).report
}

// RefreshAll rescans every folder and replaces every agent's set (the
// Settings button), returning the reports by agent.
func (s *Service) RefreshAll(ctx context.Context) []Report {
	ctx = context.WithoutCancel(ctx)
	s.scanMu.Lock()
	defer s.scanMu.Unlock()
	common := s.scanFolder(ctx, s.CommonDir(), OriginCommon)
	s.mu.Lock()
	agents := make([]string, 0, len(s.sets)+1)
	for a := range s.sets {
		agents = append(agents, a)
	}
	s.mu.Unlock()
	if !slices.Contains(agents, "default") {
		agents = append(agents, "default")
	}
	slices.Sort(agents)
	var out []Report
	for _, a := range agents {
		out = append(out, s.install(ctx, a, common).report)
	}
	return out
}

// Roots returns the folders an agent's FileSystem tools reach besides the
// workspace: its agent folder, read-only (it holds permissions.json, which
// only the user changes), its personal tools folder, writable while
// tool_creation.personal allows, and the common tools folder, writable
// while tool_creation.shared allows. The folders are created if missing.
func (s *Service) Roots(agent string) []fs.Root {
	agentDir, err := s.AgentDir(agent)
	if err != nil {
		return nil
	}
	personal := filepath.Join(agentDir, PersonalDir)
	if err := os.MkdirAll(personal, 0o755); err != nil {
		return nil
	}
	return []fs.Root{
		{Dir: agentDir, Reason: "this agent's folder; its permissions.json is changed by the user in Settings → Tools, not by the agent"},
		{Dir: personal, Writable: true, Reason: "this agent's personal tools folder (seed 002: write <name>.py here, then call refresh_tools)",
			Gate: func(string) error { return s.noteWrite(agentDir, agent, OriginPersonal) }},
		{Dir: s.CommonDir(), Writable: true, Reason: "the common tools folder shared by every agent",
			Gate: func(string) error { return s.noteWrite(agentDir, agent, OriginCommon) }},
	}
}

// noteWrite is the gate of a write by the agent into a tool folder: it
// applies tool_creation and, when the write may go ahead, counts it, so a
// tool the agent may have just rewritten is not run without asking as a
// read-only one (see actionTool.Execute).
func (s *Service) noteWrite(agentDir, agent string, origin Origin) error {
	if err := s.creationAllowed(agentDir, origin == OriginCommon); err != nil {
		return err
	}
	s.writes.note(agent, origin)
	return nil
}

// creationAllowed applies tool_creation to a write into a tool folder.
func (s *Service) creationAllowed(agentDir string, shared bool) error {
	p, err := LoadPermissions(agentDir)
	if err != nil {
		return fmt.Errorf("writing tools is refused because the agent's permissions cannot be read: %v", err)
	}
	switch {
	case shared && !p.SharedAllowed():
		return fmt.Errorf("writing into the common tools folder is not allowed: tool_creation.shared is off for agent %s (the user can turn it on in Settings → Tools → Permissions); write the tool into your personal tools folder instead", filepath.Base(agentDir))
	case !shared && !p.PersonalAllowed():
		return fmt.Errorf("writing into your personal tools folder is not allowed: tool_creation.personal is off for agent %s (the user can turn it on in Settings → Tools → Permissions)", filepath.Base(agentDir))
	}
	return nil
}

// Permissions returns an agent's permissions file.
func (s *Service) Permissions(agent string) (Permissions, error) {
	dir, err := s.AgentDir(agent)
	if err != nil {
		return Permissions{}, err
	}
	return LoadPermissions(dir)
}

// SavePermissions writes an agent's permissions file. Gated actions and
// tool creation follow it from the next call on.
func (s *Service) SavePermissions(agent string, p Permissions) error {
	dir, err := s.AgentDir(agent)
	if err != nil {
		return err
	}
	return SavePermissions(dir, p)
}

// toolEnv builds a tool process's environment: the few variables of
// TinyElf's environment every program needs, the agent's folder, and the
// credentials found for the call — nothing else of TinyElf's environment.
func (s *Service) toolEnv(agentDir string, creds []resolvedCredential, tool string) []string {
	env := baseEnv(s.opts.Getenv)
	if agentDir != "" {
		env = append(env, "TINYELF_AGENT_DIR="+agentDir)
	}
	if tool != "" {
		env = append(env, "TINYELF_TOOL="+tool)
	}
	return append(env, credentialEnv(creds)...)
}

// writeCounter counts the writes agents made into the tool folders: per
// agent into its personal folder, and into the common folder by anyone.
// It is safe for concurrent use.
type writeCounter struct {
	mu       sync.Mutex
	personal map[string]int
	common   int
}

func (w *writeCounter) note(agent string, origin Origin) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if origin == OriginCommon {
		w.common++
		return
	}
	if w.personal == nil {
		w.personal = map[string]int{}
	}
	w.personal[agent]++
}

// count returns the writes that can have changed the agent's tools of an
// origin.
func (w *writeCounter) count(agent string, origin Origin) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	if origin == OriginCommon {
		return w.common
	}
	return w.personal[agent]
}
