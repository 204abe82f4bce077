package config

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"tinyelf/internal/atomicfile"
)

// SettingsVersion is the version of the settings file this build writes.
// Version 2 writes Bash rule patterns in Claude Code's notation ("git
// status:*" for a prefix, "git status" for exactly that command); version 1
// patterns were all prefixes and are read as such (see migrate).
const SettingsVersion = 2

// Settings is everything the user configures. The zero value of each field
// means "the default", so an old or partial file loads cleanly.
type Settings struct {
	Version int `json:"version"`

	// Providers are the model connections the user set up.
	Providers []Provider `json:"providers,omitempty"`
	// DefaultProvider names the provider new sessions use.
	DefaultProvider string `json:"defaultProvider,omitempty"`

	// Agents are agent profiles; "default" always exists (see Agent).
	Agents []Agent `json:"agents,omitempty"`

	// Permissions holds the default mode and the persisted rules.
	Permissions Permissions `json:"permissions"`

	// MCPServers are the user's MCP servers.
	MCPServers []MCPServer `json:"mcpServers,omitempty"`

	// Notifications is on unless set to false.
	Notifications *bool `json:"notifications,omitempty"`
	// Theme is "system" (default), "light" or "dark".
	Theme string `json:"theme,omitempty"`
	// Language is "" (follow the system), "en" or "ja".
	Language string `json:"language,omitempty"`

	// RestrictToWorkspace confines the FileSystem tools to the workspace; on
	// unless set to false.
	RestrictToWorkspace *bool `json:"restrictToWorkspace,omitempty"`
	// ExecTimeoutSeconds is the Bash tool's default timeout (0: 120).
	ExecTimeoutSeconds int `json:"execTimeoutSeconds,omitempty"`
	// CompactAt is the share of the model's context window past which the
	// history is compacted (0: 0.8).
	CompactAt float64 `json:"compactAt,omitempty"`
	// StallTimeoutSeconds gives up a model's streamed answer that sends
	// nothing for this long (0: 120); a provider's own setting wins.
	StallTimeoutSeconds int `json:"stallTimeoutSeconds,omitempty"`

	// Discovery tunes capability discovery (tool deferral) for every agent
	// that does not set its own.
	Discovery Discovery `json:"discovery,omitzero"`

	// LastWorkspace is the folder the user worked in last.
	LastWorkspace string `json:"lastWorkspace,omitempty"`

	// Notify chooses which events notify (Settings → Notifications); an
	// unset field means on, except Always (off: only while away).
	Notify NotifySettings `json:"notify,omitzero"`
	// RecentModels are the models the user chose last, newest first.
	RecentModels []ModelRef `json:"recentModels,omitempty"`
	// Window is the desktop window's size and place when it last closed.
	Window *WindowState `json:"window,omitempty"`

	// Web configures WebFetch and WebSearch (Settings → Web).
	Web Web `json:"web,omitzero"`

	// Skills configures skills and SkillHub (Settings → Skills).
	Skills Skills `json:"skills,omitzero"`

	// Hooks is the user's hooks section in Claude Code's shape ({"PreToolUse":
	// [{"matcher": "Bash", "hooks": [{"type": "command", "command": ...}]}]}),
	// kept as written: package hooks reads it, reporting what it cannot use,
	// so a hook TinyElf does not understand never makes the settings file
	// unreadable, and saving other settings keeps it as it was.
	Hooks json.RawMessage `json:"hooks,omitempty"`

	// Credentials are the secrets user tools ask for, by credential name
	// (seed 002's config.json "credentials"); the first place a user tool's
	// credential is looked for. They are never sent back to the UI.
	Credentials map[string]Credential `json:"credentials,omitempty"`
}

// Credential is one named credential: an API key, or several named keys.
type Credential struct {
	APIKey string            `json:"apiKey,omitempty"`
	Keys   map[string]string `json:"keys,omitempty"`
}

// NotifySettings are the user's notification choices; nil is the default.
type NotifySettings struct {
	TurnFinished    *bool `json:"turnFinished,omitempty"`
	ApprovalWaiting *bool `json:"approvalWaiting,omitempty"`
	BackgroundDone  *bool `json:"backgroundDone,omitempty"`
	MCPFailed       *bool `json:"mcpFailed,omitempty"`
	Sound           *bool `json:"sound,omitempty"`
	// Always notifies also while TinyElf's window has the focus.
	Always *bool `json:"always,omitempty"`
}

// On returns the value of a choice that defaults to on.
func On(b *bool) bool { return b == nil || *b }

// ModelRef names a model of a provider.
type ModelRef struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
}

// MaxRecentModels bounds Settings.RecentModels.
const MaxRecentModels = 8

// UseModel puts m first in RecentModels, keeping at most MaxRecentModels.
func (s *Settings) UseModel(m ModelRef) {
	list := []ModelRef{m}
	for _, r := range s.RecentModels {
		if r != m && len(list) < MaxRecentModels {
			list = append(list, r)
		}
	}
	s.RecentModels = list
}

// WindowState is where the desktop window was and how large (in screen
// pixels), so it opens there again.
type WindowState struct {
	X         int  `json:"x"`
	Y         int  `json:"y"`
	Width     int  `json:"width"`
	Height    int  `json:"height"`
	Maximised bool `json:"maximised,omitempty"`
}

// Discovery tunes when tools are deferred to a one-line index that
// ToolSearch loads from (capabilities.Settings mirrors it).
type Discovery struct {
	// Defer is "auto" (the default: defer when the tool definitions would
	// take more than Threshold of the context window), "always" or "never".
	Defer string `json:"defer,omitempty"`
	// Threshold is that share of the window (0: 0.10).
	Threshold float64 `json:"threshold,omitempty"`
}

// Provider is one model connection.
type Provider struct {
	// Name identifies the provider in settings and sessions.
	Name string `json:"name"`
	// Kind is the wire format: "openai" (OpenAI-compatible) or "anthropic".
	Kind string `json:"kind"`
	// Preset is the llm preset it was made from ("openai", "ollama", ...).
	Preset  string `json:"preset,omitempty"`
	BaseURL string `json:"baseUrl,omitempty"`
	APIKey  string `json:"apiKey,omitempty"`
	// Model is the model new sessions use.
	Model string `json:"model,omitempty"`
	// ContextWindow overrides the model's known context window (tokens).
	ContextWindow int `json:"contextWindow,omitempty"`
	// StallTimeoutSeconds overrides the settings' stallTimeoutSeconds for
	// this provider (a slow local model may need longer).
	StallTimeoutSeconds int `json:"stallTimeoutSeconds,omitempty"`
	// Images says whether this provider's models take images; unset, TinyElf
	// decides by the model's name (llm.AcceptsImages).
	Images *bool `json:"images,omitempty"`
}

// DefaultAgent names the agent profile that always exists: sessions that
// name no agent (or one that was deleted) use it, and it cannot be deleted.
const DefaultAgent = "default"

// Agent is an agent profile: who the agent is (its prompt), what it runs on
// (provider, model, background model), what it may use (allowedTools,
// directMcpServers, permissionMode) and how long it may go on
// (maxIterations, compactAt).
type Agent struct {
	Name string `json:"name"`
	// Description says what the agent is for; the UI and spawn_agent's
	// list of agents show it.
	Description string `json:"description,omitempty"`
	// Prompt is added to the system prompt.
	Prompt string `json:"prompt,omitempty"`
	// AllowedTools, when not empty, limits the agent to these tools: names,
	// trailing-* prefixes ("mcp__github__*") or "mcp__server" for all of a
	// server's tools. The others are hidden with that reason.
	AllowedTools []string `json:"allowedTools,omitempty"`
	// PermissionMode is the mode the agent's new sessions start in (plan,
	// default, acceptEdits, auto); empty takes the settings' mode. A
	// subagent never gets a looser mode than its parent's.
	PermissionMode string `json:"permissionMode,omitempty"`
	// CompactAt is the share of the context window past which the agent's
	// history is compacted (0: the settings' compactAt).
	CompactAt float64 `json:"compactAt,omitempty"`
	// MaxIterations bounds the model calls of one turn (0: 50).
	MaxIterations int `json:"maxIterations,omitempty"`
	// Provider and Model override the defaults for this agent.
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	// BackgroundProvider and BackgroundModel run the agent's background
	// calls (WebFetch summaries, compaction summaries); an empty
	// BackgroundModel means the session's own model, an empty
	// BackgroundProvider the session's provider. Sessions are titled from
	// their first message, without a model call.
	BackgroundProvider string `json:"backgroundProvider,omitempty"`
	BackgroundModel    string `json:"backgroundModel,omitempty"`
	// DirectMCPServers are stdio MCP servers started for this agent's
	// sessions only.
	DirectMCPServers []MCPServer `json:"directMcpServers,omitempty"`
	// Discovery overrides the settings' tool deferral for this agent; its
	// empty fields take the settings' values.
	Discovery Discovery `json:"discovery,omitzero"`
	// Credentials are secrets this agent's user tools get in place of the
	// Settings credentials of the same name (seed 002's per-agent
	// credentials: one agent posts as its own account). Like the Settings
	// ones they are set in the settings file and never sent back to the UI.
	Credentials map[string]Credential `json:"credentials,omitempty"`
}

// AgentCredentials returns the credentials an agent profile sets for its
// own user tools (nil when it sets none or does not exist).
func (s Settings) AgentCredentials(name string) map[string]Credential {
	a, _ := s.Agent(name)
	return a.Credentials
}

// Permissions holds the default permission mode and the persisted rules.
type Permissions struct {
	// Mode is the default mode of new sessions (empty: "default").
	Mode  string `json:"mode,omitempty"`
	Rules []Rule `json:"rules,omitempty"`
}

// Rule allows or denies a tool without asking. For Bash, Pattern is a
// command in Claude Code's notation: "git status:*" allows that command with
// any further arguments, "git status" exactly that command, and an allow
// rule never covers a command that writes to a file, sets environment
// variables or uses an argument that makes it run other code. For other
// tools it is empty (the whole tool).
type Rule struct {
	ID        string    `json:"id"`
	Tool      string    `json:"tool"`
	Pattern   string    `json:"pattern,omitempty"`
	Action    string    `json:"action"` // "allow" or "deny"
	CreatedAt time.Time `json:"createdAt"`
}

// The rule actions.
const (
	RuleAllow = "allow"
	RuleDeny  = "deny"
)

// MCPServer is an MCP server configuration.
type MCPServer struct {
	Name     string            `json:"name"`
	Type     string            `json:"type,omitempty"` // "stdio" (default), "http", "sse"
	Command  string            `json:"command,omitempty"`
	Args     []string          `json:"args,omitempty"`
	Env      map[string]string `json:"env,omitempty"`
	Cwd      string            `json:"cwd,omitempty"`
	URL      string            `json:"url,omitempty"`
	Headers  map[string]string `json:"headers,omitempty"`
	Disabled bool              `json:"disabled,omitempty"`
	// TimeoutSeconds bounds start-up (0: 30).
	TimeoutSeconds int `json:"timeoutSeconds,omitempty"`
	// OAuth tunes the sign-in of an http or sse server that asks for one;
	// nil discovers everything (the tokens themselves are never here: they
	// live in the OS keyring or TinyElf's encrypted secrets file).
	OAuth *MCPOAuth `json:"oauth,omitempty"`
}

// MCPOAuth is an MCP server's OAuth client settings. Values may use
// ${VAR} like the rest of the server's settings.
type MCPOAuth struct {
	// ClientID and ClientSecret are a client registered for TinyElf with
	// the server's authorization server; empty means dynamic registration
	// (or a client ID metadata document).
	ClientID     string `json:"clientId,omitempty"`
	ClientSecret string `json:"clientSecret,omitempty"`
	// AuthMethod is how that client authenticates at the token endpoint
	// ("client_secret_basic", "client_secret_post", "none"); empty picks
	// from the server's metadata.
	AuthMethod string `json:"authMethod,omitempty"`
	// Scopes, when set, are asked for instead of what the server suggests.
	Scopes []string `json:"scopes,omitempty"`
	// Grant is "authorization_code" (default: the user signs in in the
	// browser) or "client_credentials" (a machine-to-machine server: the
	// client's own credentials get the tokens).
	Grant string `json:"grant,omitempty"`
}

// DiscoveryFor returns the tool-deferral settings of an agent: its own
// values where it has them, the settings' otherwise.
func (s Settings) DiscoveryFor(a Agent) Discovery {
	d := s.Discovery
	if a.Discovery.Defer != "" {
		d.Defer = a.Discovery.Defer
	}
	if a.Discovery.Threshold > 0 {
		d.Threshold = a.Discovery.Threshold
	}
	return d
}

// NotificationsOn reports whether desktop notifications are enabled.
func (s Settings) NotificationsOn() bool { return s.Notifications == nil || *s.Notifications }

// Restricted reports whether restrictToWorkspace is on.
func (s Settings) Restricted() bool { return s.RestrictToWorkspace == nil || *s.RestrictToWorkspace }

// ExecTimeout returns the Bash tool's default timeout.
func (s Settings) ExecTimeout() time.Duration {
	if s.ExecTimeoutSeconds <= 0 {
		return 2 * time.Minute
	}
	return time.Duration(s.ExecTimeoutSeconds) * time.Second
}

// StallTimeout returns how long a streamed model answer may send nothing
// before it is given up (stallTimeoutSeconds, default 120 s).
func (s Settings) StallTimeout() time.Duration {
	if s.StallTimeoutSeconds <= 0 {
		return DefaultStallTimeout
	}
	return time.Duration(s.StallTimeoutSeconds) * time.Second
}

// DefaultStallTimeout is the stall timeout when the settings set none.
const DefaultStallTimeout = 120 * time.Second

// CompactThreshold returns the share of the context window that triggers
// compaction.
func (s Settings) CompactThreshold() float64 {
	if s.CompactAt <= 0 || s.CompactAt >= 1 {
		return 0.8
	}
	return s.CompactAt
}

// Provider returns the named provider, or the default one for "".
func (s Settings) Provider(name string) (Provider, bool) {
	if name == "" {
		name = s.DefaultProvider
	}
	if name == "" && len(s.Providers) > 0 {
		return s.Providers[0], true
	}
	for _, p := range s.Providers {
		if p.Name == name {
			return p, true
		}
	}
	return Provider{}, false
}

// Agent returns the named agent profile; "" and "default" give the default
// agent, which exists even when not configured.
func (s Settings) Agent(name string) (Agent, bool) {
	if name == "" {
		name = DefaultAgent
	}
	for _, a := range s.Agents {
		if a.Name == name {
			return a, true
		}
	}
	if name == DefaultAgent {
		return Agent{Name: DefaultAgent, Description: "The general agent new chats use."}, true
	}
	return Agent{}, false
}

// AgentList returns every agent profile, the default one first (as
// configured, or its built-in form when the file has none).
func (s Settings) AgentList() []Agent {
	def, _ := s.Agent(DefaultAgent)
	out := []Agent{def}
	for _, a := range s.Agents {
		if a.Name != DefaultAgent {
			out = append(out, a)
		}
	}
	return out
}

// CompactThresholdFor returns the share of the context window that
// triggers compaction for an agent: its own compactAt, else the settings'.
func (s Settings) CompactThresholdFor(a Agent) float64 {
	if a.CompactAt > 0 && a.CompactAt < 1 {
		return a.CompactAt
	}
	return s.CompactThreshold()
}

var agentName = regexp.MustCompile(`^[\p{L}\p{N}][\p{L}\p{N}._-]{0,63}$`)

// ValidateAgent checks what the settings file can check of a profile: a
// name of letters, digits, dots, dashes and underscores (no spaces, so
// `run --agent NAME` and spawn_agent can name it), no negative limits, a
// compactAt below 1, and direct MCP servers that are named stdio servers.
// The permission mode is the engine's to check.
func ValidateAgent(a Agent) error {
	switch {
	case !agentName.MatchString(a.Name):
		return fmt.Errorf("an agent needs a name of letters, digits, dots, dashes or underscores (no spaces), up to 64 characters; %q is not one", a.Name)
	case a.MaxIterations < 0:
		return fmt.Errorf("maxIterations cannot be negative (0 means the default of 50)")
	case a.CompactAt < 0 || a.CompactAt >= 1:
		return fmt.Errorf("compactAt is a share of the context window between 0 and 1 (0 means the settings' value), not %v", a.CompactAt)
	}
	seen := map[string]bool{}
	for _, m := range a.DirectMCPServers {
		switch {
		case strings.TrimSpace(m.Name) == "":
			return fmt.Errorf("every direct MCP server needs a name")
		case seen[m.Name]:
			return fmt.Errorf("two direct MCP servers are named %q", m.Name)
		case m.Type != "" && m.Type != "stdio":
			return fmt.Errorf("direct MCP server %s: an agent's own servers are stdio servers (add %s servers in Settings → MCP)", m.Name, m.Type)
		case strings.TrimSpace(m.Command) == "":
			return fmt.Errorf("direct MCP server %s needs a command", m.Name)
		}
		seen[m.Name] = true
	}
	return nil
}

// Store loads and saves the settings file. It is safe for concurrent use,
// also across processes (the window and a `tinyelf run` at the same time):
// every Update re-reads the file under a lock before applying its change and
// writes it atomically before it returns, and Get picks up changes another
// process saved.
type Store struct {
	path string

	mu       sync.Mutex
	settings Settings
	encoded  []byte    // settings as JSON, the source of Get's copies (nil: not made yet)
	stamp    fileStamp // of the file settings were last read from or written to
	// Warning explains a problem met while loading (a corrupt file that was
	// set aside); empty when the file loaded cleanly.
	warning string
	// recovered is set when the file did not parse and was set aside.
	recovered *Recovery
}

// Recovery describes a settings file that could not be read when the store
// opened: it was renamed aside, never deleted, and the defaults are in use.
type Recovery struct {
	// Path is the settings file.
	Path string `json:"path"`
	// Aside is where the unreadable file now is.
	Aside string `json:"aside"`
	// Err says why it could not be read.
	Err string `json:"error"`
}

// SettingsFile is the settings file's name inside the data folder.
const SettingsFile = "settings.json"

// OpenStore loads the settings file at path. A missing file gives the
// defaults. A file that does not parse is renamed aside (never deleted) and
// the defaults are used; Warning then says where the old file went.
func OpenStore(path string) (*Store, error) {
	s := &Store{path: path}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		s.settings = Settings{Version: SettingsVersion}
		return s, nil
	case err != nil:
		return nil, fmt.Errorf("read settings %s: %w", path, err)
	}
	if err := json.Unmarshal(b, &s.settings); err != nil {
		aside, rerr := setAside(path)
		if rerr != nil {
			return nil, fmt.Errorf("settings %s are corrupt (%v) and could not be set aside: %w", path, err, rerr)
		}
		s.settings = Settings{Version: SettingsVersion}
		s.recovered = &Recovery{Path: path, Aside: aside, Err: err.Error()}
		s.warning = fmt.Sprintf("The settings file %s could not be read (%v); it was kept as %s and the defaults are in use.", path, err, aside)
		return s, nil
	}
	s.stamp = stampOf(path)
	migrate(&s.settings)
	if s.settings.Version > SettingsVersion {
		s.warning = fmt.Sprintf("The settings file was written by a newer TinyElf (version %d); unknown settings will be dropped when you save.", s.settings.Version)
	}
	return s, nil
}

// setAside renames the file at path to a name beside it that no earlier
// copy uses, so a second corrupt file never overwrites the first one's copy.
func setAside(path string) (string, error) {
	base := fmt.Sprintf("%s.corrupt-%s", path, time.Now().UTC().Format("20060102T150405Z"))
	aside := base
	for i := 2; ; i++ {
		if _, err := os.Lstat(aside); errors.Is(err, fs.ErrNotExist) {
			break
		}
		aside = fmt.Sprintf("%s-%d", base, i)
	}
	return aside, os.Rename(path, aside)
}

// Recovered reports the settings file that could not be read when the store
// opened and was set aside, if that happened.
func (s *Store) Recovered() (Recovery, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.recovered == nil {
		return Recovery{}, false
	}
	return *s.recovered, true
}

// Path returns the settings file's path.
func (s *Store) Path() string { return s.path }

// Warning returns the problem met while loading, if any.
func (s *Store) Warning() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.warning
}

// fileStamp identifies a version of the settings file cheaply.
type fileStamp struct {
	mod  time.Time
	size int64
}

func stampOf(path string) fileStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{fi.ModTime(), fi.Size()}
}

// reload re-reads the file when another process changed it. A file that
// does not parse (half-written by a foreign tool) is ignored: the settings
// in memory stay. Callers hold s.mu.
func (s *Store) reload() {
	st := stampOf(s.path)
	if st == s.stamp || st == (fileStamp{}) {
		return
	}
	b, err := os.ReadFile(s.path)
	if err != nil {
		return
	}
	var fresh Settings
	if json.Unmarshal(b, &fresh) == nil {
		migrate(&fresh)
		s.settings, s.stamp, s.encoded = fresh, st, nil
	}
}

// Get returns a deep copy of the current settings.
func (s *Store) Get() Settings {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reload()
	if s.encoded == nil {
		s.encoded = encode(s.settings)
	}
	return decodeCopy(s.encoded)
}

// Update applies fn to a copy of the settings and saves the result. When fn
// or the save fails, nothing changes.
func (s *Store) Update(fn func(*Settings) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	unlock, err := LockFile(s.path + ".lock")
	if err != nil {
		return fmt.Errorf("save settings: %w", err)
	}
	defer unlock()
	s.reload()
	next := clone(s.settings)
	if err := fn(&next); err != nil {
		return err
	}
	next.Version = SettingsVersion
	if err := WriteJSONAtomic(s.path, next); err != nil {
		return fmt.Errorf("save settings: %w", err)
	}
	s.settings, s.stamp, s.encoded = next, stampOf(s.path), nil
	return nil
}

// migrate brings settings read from an older file to this version's shape:
// version 1 Bash patterns were command prefixes, written "git status:*" now.
func migrate(st *Settings) {
	if st.Version >= 2 {
		return
	}
	for i, r := range st.Permissions.Rules {
		if r.Tool == "Bash" && r.Pattern != "" && !strings.HasSuffix(r.Pattern, ":*") {
			st.Permissions.Rules[i].Pattern = strings.TrimSpace(r.Pattern) + ":*"
		}
	}
}

func clone(in Settings) Settings { return decodeCopy(encode(in)) }

func encode(in Settings) []byte {
	b, err := json.Marshal(in)
	if err != nil {
		panic(fmt.Sprintf("settings do not marshal: %v", err)) // only plain data lives in Settings
	}
	return b
}

// decodeCopy makes a deep copy of settings from their JSON.
func decodeCopy(b []byte) Settings {
	var out Settings
	if err := json.Unmarshal(b, &out); err != nil {
		panic(fmt.Sprintf("settings do not unmarshal: %v", err))
	}
	return out
}

// WriteJSONAtomic writes v as indented JSON to path in one step
// (atomicfile.WriteFile) with mode 0600 (the settings hold API keys),
// creating the folder when missing: readers never see half a file, and a
// failed write leaves the old file and no temporary.
func WriteJSONAtomic(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(b, '\n'), 0o600)
}

// NewID returns a short random identifier for rules and the like.
func NewID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
