package api

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"
	"tinyelf/backend/proc"

	"tinyelf/backend/capabilities"
	"tinyelf/backend/config"
	"tinyelf/backend/engine"
	"tinyelf/backend/hooks"
	"tinyelf/backend/mcp"
	"tinyelf/backend/notify"
	"tinyelf/backend/secretstore"
	"tinyelf/backend/sessions"
	"tinyelf/backend/skills"
	"tinyelf/backend/usertools"
)

// EnvNoKeyring, set to 1, keeps secrets out of the OS keyring (in the
// encrypted secrets file of the data folder).
const EnvNoKeyring = "TINYELF_NO_KEYRING"

// SessionsFile is the session database's name inside the data folder.
const SessionsFile = "sessions.db"

// trashRetention is how long deleted sessions can be restored.
const trashRetention = 30 * 24 * time.Hour

// Options configures a Service.
type Options struct {
	// DataDir holds settings.json and sessions.db; empty means DataDir().
	DataDir string
	// Notifier shows desktop notifications; nil means the platform's.
	Notifier notify.Notifier
	// Approver answers approvals; nil means the interactive one (the UI
	// answers through Approve).
	Approver Approver
	// Background marks every turn as background work (tinyelf run).
	Background bool
	// Getenv reads provider settings from the environment; nil: os.Getenv.
	Getenv func(string) string
	// Providers overrides how providers are made (tests); nil: the real ones.
	Providers engine.ProviderFactory
	// Version is the app's version string.
	Version string
	// Surface says where the service runs (SurfaceDesktop, SurfaceServe,
	// SurfaceCLI); the catalog lists the surface's own abilities.
	Surface string
	// IdleTimeout is how long an idle session keeps its tools and its
	// direct MCP servers running (engine.Options.IdleTimeout).
	IdleTimeout time.Duration
	// OpenFolder shows a folder in the file manager; nil: the platform's.
	OpenFolder func(dir string) error
	// Home is the home folder whose ~/.agents/skills, ~/.claude/skills and
	// ~/.claude/commands hold user skills and commands: "" means the
	// user's own, "-" none (tests).
	Home string
	// TrustProjectSkills trusts every project skill without asking and
	// without saving an answer (`tinyelf run --yes`).
	TrustProjectSkills bool
	// NoSkillTrustPrompt says nobody can be asked whether a project skill
	// may guide the agent (`tinyelf run` without --yes): project skills not
	// trusted yet are listed but not loadable, with how to trust them.
	NoSkillTrustPrompt bool
	// TrustProjectHooks runs a workspace's project hooks without asking
	// and without saving an answer (`tinyelf run --yes`).
	TrustProjectHooks bool
	// NoHookTrustPrompt says nobody can be asked whether a workspace's
	// project hooks may run (`tinyelf run` without --yes): untrusted ones
	// do not run, and the session's log says how to trust them.
	NoHookTrustPrompt bool
	// SkillTrees are extra builtin skill trees, after TinyElf's own and
	// the ones its packages bring (tool-creator is always there).
	SkillTrees []skills.BuiltinFS
	// Titles names sessions after their first answer with the agent's
	// background model (engine.Options.Titles): the window and the browser
	// want it, a one-shot `tinyelf run` does not.
	Titles bool
	// NoKeyring keeps the OAuth tokens of MCP servers in TinyElf's
	// encrypted secrets file even when an OS keyring answers (tests; users
	// set TINYELF_NO_KEYRING=1).
	NoKeyring bool
	// DefaultWorkspace is the folder a chat works in when the user chose
	// none; empty means config.DefaultWorkspace (TinyElf in the documents
	// folder). Tests point it into a temporary folder.
	DefaultWorkspace string
}

// The surfaces a Service runs in.
const (
	SurfaceDesktop = "desktop"
	SurfaceServe   = "serve"
	SurfaceCLI     = "cli"
)

// Service is what the UI (window or browser) and the CLI call. It owns the
// settings store, the session store, the engine and the event bus. It is
// safe for concurrent use; Close it on exit.
type Service struct {
	opts     Options
	settings *config.Store
	store    *sessions.Store
	engine   *engine.Engine
	bus      *Bus
	policy   *notify.Policy
	// userMCP runs the user's MCP servers.
	userMCP *mcp.Service
	// tokens keeps their OAuth sign-ins (OS keyring or encrypted file);
	// signIns are the sign-ins waiting for the browser.
	tokens  mcp.TokenStores
	signIns *signIns

	// children are the Bash commands and MCP servers this process started;
	// they are killed on Close, and recorded for the start-up cleanup.
	children  *proc.Children
	userTools *usertools.Service
	// catalog holds every capability; the engine computes visible sets
	// from it.
	catalog *capabilities.Catalog
	// skills are the user's, the builtin and the workspaces' skills;
	// skillsAPI offers them to the UI.
	skills    *engine.SkillService
	skillsAPI *Skills
	// hooksAPI offers the user's hooks to Settings → Hooks.
	hooksAPI *Hooks

	// noticeDismissed is set once the user dismissed the settings notice.
	noticeDismissed atomic.Bool
	// models caches the providers' model lists for the model picker.
	models modelCache
}

// New opens the data folder's stores and starts the service. An empty
// Options.DataDir means DataDir().
func New(ctx context.Context, opts Options) (*Service, error) {
	if opts.DataDir == "" {
		dir, err := config.DataDir()
		if err != nil {
			return nil, err
		}
		opts.DataDir = dir
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Notifier == nil {
		opts.Notifier = notify.New()
	}
	settings, err := config.OpenStore(filepath.Join(opts.DataDir, config.SettingsFile))
	if err != nil {
		return nil, err
	}
	store, err := sessions.Open(ctx, filepath.Join(opts.DataDir, SessionsFile))
	if err != nil {
		return nil, fmt.Errorf("open the session history: %w", err)
	}
	if _, err := store.Purge(ctx, time.Now().Add(-trashRetention)); err != nil {
		store.Close()
		return nil, fmt.Errorf("empty the session trash: %w", err)
	}
	// What a TinyElf that crashed or was killed left running dies first.
	childRoot := filepath.Join(opts.DataDir, proc.ChildrenFolder)
	_, _ = proc.ReapOrphans(childRoot) // a failed cleanup must not keep TinyElf from starting
	s := &Service{opts: opts, settings: settings, store: store, bus: NewBus(), children: engine.NewChildren(opts.DataDir, settings, opts.Getenv), catalog: capabilities.NewCatalog()}
	s.catalog.Replace("surface", channelEntries(opts), capabilities.PartitionOptions{Priority: capabilities.PriorityOther, Reason: "the surface's abilities"})
	s.policy = notify.NewPolicy(opts.Notifier, settings.Get().NotificationsOn())
	s.policy.SetRules(notifyRules(settings.Get()))
	s.tokens = mcp.SecretTokens(secretstore.Open(opts.DataDir, secretstore.Options{NoKeyring: opts.NoKeyring || os.Getenv(EnvNoKeyring) == "1"}))
	s.signIns = newSignIns()
	// The user's servers start once the engine can take their changes:
	// each one reaches the catalog first, then the UI.
	s.userMCP = mcp.NewService(settings.Get().MCPServers, mcp.Options{
		OnChange:      func(c mcp.Change) { s.engine.MCPChanged(c); s.publishMCP("", c); s.notifyMCPFailure(c) },
		LookupEnv:     s.lookupEnv,
		ClientVersion: opts.Version,
		Environ:       s.childEnviron,
		Children:      s.children,
		TokenStores:   s.tokens,
	})
	s.userTools, err = usertools.New(usertools.Options{
		DataDir:          opts.DataDir,
		CoreNames:        engine.CoreToolNames(),
		Credentials:      func() map[string]config.Credential { return s.settings.Get().Credentials },
		AgentCredentials: func(agent string) map[string]config.Credential { return s.settings.Get().AgentCredentials(agent) },
		Getenv:           opts.Getenv,
		Notifier:         s.policy,
		OnReport:         func(r usertools.Report) { s.publishUserTools(LiveUserTools, r) },
		OnTask: func(t usertools.Task) {
			s.publishUserTools(LiveToolTask, t)
			s.notifyTaskEnded(t)
		},
		Children: s.children,
	})
	if err != nil {
		_ = s.userMCP.Close()
		store.Close()
		return nil, err
	}
	s.userTools.Load(ctx) // the start-up scan of seed 002
	s.skills = engine.NewSkillService(engine.SkillServiceOptions{
		DataDir: opts.DataDir, Home: engine.UserHome(opts.Home), Builtin: engine.BuiltinSkillTrees(opts.SkillTrees),
		TrustProject: opts.TrustProjectSkills, NoPrompt: opts.NoSkillTrustPrompt,
		Indexes:  func() []string { return s.settings.Get().Skills.Indexes() },
		Environ:  s.childEnviron,
		Children: s.children,
		Catalog:  s.catalog,
		OnChange: s.publishSkills,
	})
	s.skillsAPI = &Skills{settings: settings, svc: s.skills, children: s.children, sessionWorkspace: func(ctx context.Context, id string) (string, error) {
		return s.commandWorkspace(ctx, id, "")
	}}
	hookTrust, err := hooks.OpenTrustStore(filepath.Join(opts.DataDir, hooks.TrustFile))
	if err != nil {
		s.skills.Close()
		_ = s.userTools.Close()
		_ = s.userMCP.Close()
		store.Close()
		return nil, err
	}
	s.hooksAPI = &Hooks{settings: settings, trust: hookTrust, runner: &hooks.Runner{Children: s.children, Environ: s.childEnviron},
		sessionWorkspace: func(ctx context.Context, id string) (string, error) { return s.commandWorkspace(ctx, id, "") }}
	var approver engine.Approver
	if opts.Approver != nil {
		approver = engineApprover{opts.Approver}
	}
	s.engine = engine.New(engine.Options{
		Settings:    settings,
		Log:         engine.StoreLog{Store: store},
		Providers:   opts.Providers,
		Notifier:    s.policy,
		Notices:     s.policy,
		Sink:        func(ev engine.Event) { s.bus.Publish(eventOf(ev)) },
		Approver:    approver,
		Background:  opts.Background,
		Getenv:      opts.Getenv,
		IdleTimeout: opts.IdleTimeout,
		// Step 10 of the registry builder: the three MCP loading paths
		// (the user's servers, the builtin providers, the agents' direct
		// servers) and the user tools of seed 002.
		MCP: &engine.MCPOptions{
			User: s.userMCP,
			Providers: mcp.NewProviderRegistry(
				mcp.NewSessionsProvider(engine.SessionReader(store)),
				mcp.NewNotifyProvider(s.policy),
			),
			OnDirectChange: s.publishMCP,
		},
		UserTools: s.userTools,
		// Steps 5, 6 and 9: the skills tools; the project skills of each
		// session's workspace are its own catalog partition.
		Skills:            s.skills.EngineSkills(),
		CapabilitySources: []engine.CapabilitySource{s.skills},
		Catalog:           s.catalog,
		Children:          s.children,
		Titles:            opts.Titles,
		Hooks: &engine.HookOptions{Trust: hookTrust, TrustProject: opts.TrustProjectHooks, NoTrustPrompt: opts.NoHookTrustPrompt,
			TranscriptDir: filepath.Join(opts.DataDir, TranscriptsFolder)},
	})
	s.userMCP.Start(context.WithoutCancel(ctx)) // returns at once; servers come up in the background
	s.skills.Start()
	return s, nil
}

// childEnviron is the environment Bash commands, MCP servers and hooks
// start from: the user's, without TinyElf's secrets as the current
// settings name them.
func (s *Service) childEnviron() []string {
	return engine.ChildEnviron(s.settings.Get().WithEnvironment(s.opts.Getenv))
}

// mapErr turns store and engine errors into service errors.
func mapErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, sessions.ErrNotFound):
		return &Error{Code: CodeNotFound, Message: err.Error()}
	case errors.Is(err, engine.ErrBusy):
		return &Error{Code: CodeBusy, Message: err.Error()}
	case errors.Is(err, sessions.ErrInvalidEvent), errors.Is(err, engine.ErrUnknownAgent):
		return &Error{Code: CodeInvalid, Message: err.Error()}
	}
	var ce *engine.CommandError
	if errors.As(err, &ce) {
		return &Error{Code: CodeInvalid, Message: err.Error()}
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return err
}
