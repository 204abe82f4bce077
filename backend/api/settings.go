package api

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"tinyelf/backend/capabilities"
	"tinyelf/backend/config"
	"tinyelf/backend/engine"
	"tinyelf/backend/llm"
)

// ProviderView is a provider as the UI sees it: the API key is never sent
// back, only whether one is set and its last characters.
type ProviderView struct {
	config.Provider
	APIKeySet  bool   `json:"apiKeySet"`
	APIKeyHint string `json:"apiKeyHint,omitempty"`
	// FromEnv marks a provider that comes from environment variables; it
	// cannot be edited in the UI.
	FromEnv bool `json:"fromEnv,omitempty"`
}

// SettingsView is the settings as the UI sees them.
type SettingsView struct {
	Providers           []ProviderView     `json:"providers"`
	DefaultProvider     string             `json:"defaultProvider"`
	Mode                string             `json:"mode"`
	Rules               []config.Rule      `json:"rules"`
	Notifications       bool               `json:"notifications"`
	Theme               string             `json:"theme"`
	Language            string             `json:"language"`
	RestrictToWorkspace bool               `json:"restrictToWorkspace"`
	ExecTimeoutSeconds  int                `json:"execTimeoutSeconds"`
	StallTimeoutSeconds int                `json:"stallTimeoutSeconds"`
	LastWorkspace       string             `json:"lastWorkspace"`
	MCPServers          []config.MCPServer `json:"mcpServers"`
	Agents              []config.Agent     `json:"agents"`
	// Discovery is the tool-deferral setting with its defaults filled in.
	Discovery config.Discovery `json:"discovery"`
}

// AppState is what the UI needs at start: whether to show first-run setup,
// and any problem met while loading.
type AppState struct {
	Version     string   `json:"version"`
	DataDir     string   `json:"dataDir"`
	HasProvider bool     `json:"hasProvider"`
	Warnings    []string `json:"warnings"`
	Home        string   `json:"home"`
	// DefaultWorkspace is the folder a new chat works in when the user
	// chose none (created when the first such chat starts).
	DefaultWorkspace string `json:"defaultWorkspace"`
	// SettingsNotice is set while the user has not dismissed the news that
	// the settings file could not be read and was set aside.
	SettingsNotice *SettingsNotice `json:"settingsNotice,omitempty"`
}

// State reports the app's state for the first screen.
func (s *Service) State(context.Context, struct{}) (AppState, error) {
	st := s.settings.Get().WithEnvironment(s.opts.Getenv)
	_, has := st.Provider("")
	warnings := []string{}
	if _, recovered := s.settings.Recovered(); !recovered && s.settings.Warning() != "" {
		warnings = append(warnings, s.settings.Warning()) // a recovery is the SettingsNotice instead
	}
	home, _ := homeDir()
	def, _ := s.defaultWorkspace()
	return AppState{Version: s.opts.Version, DataDir: s.opts.DataDir, HasProvider: has, Warnings: warnings, Home: home,
		DefaultWorkspace: def, SettingsNotice: s.settingsNotice()}, nil
}

// GetSettings returns the settings without secrets.
func (s *Service) GetSettings(context.Context, struct{}) (SettingsView, error) {
	stored := s.settings.Get()
	eff := stored.WithEnvironment(s.opts.Getenv)
	v := SettingsView{
		DefaultProvider: eff.DefaultProvider, Mode: stored.Permissions.Mode, Rules: stored.Permissions.Rules,
		Notifications: stored.NotificationsOn(), Theme: stored.Theme, Language: stored.Language,
		RestrictToWorkspace: stored.Restricted(), ExecTimeoutSeconds: int(stored.ExecTimeout() / time.Second),
		StallTimeoutSeconds: int(stored.StallTimeout() / time.Second),
		LastWorkspace:       stored.LastWorkspace, MCPServers: stored.MCPServers, Agents: stored.Agents,
		Discovery: discoveryView(stored.Discovery),
	}
	if v.Mode == "" {
		v.Mode = string(engine.ModeDefault)
	}
	if v.Theme == "" {
		v.Theme = "system"
	}
	if p, ok := eff.Provider(""); ok && v.DefaultProvider == "" {
		v.DefaultProvider = p.Name
	}
	for _, p := range eff.Providers {
		pv := ProviderView{Provider: p, APIKeySet: p.APIKey != "", FromEnv: !slices.ContainsFunc(stored.Providers, func(q config.Provider) bool { return q.Name == p.Name })}
		if n := len(p.APIKey); n > 8 {
			pv.APIKeyHint = "…" + p.APIKey[n-4:]
		}
		pv.APIKey = ""
		v.Providers = append(v.Providers, pv)
	}
	if v.Providers == nil {
		v.Providers = []ProviderView{}
	}
	if v.Rules == nil {
		v.Rules = []config.Rule{}
	}
	if v.MCPServers == nil {
		v.MCPServers = []config.MCPServer{}
	}
	for i := range v.MCPServers {
		v.MCPServers[i] = config.MaskMCPServer(v.MCPServers[i])
	}
	if v.Agents == nil {
		v.Agents = []config.Agent{}
	}
	for i := range v.Agents {
		for j := range v.Agents[i].DirectMCPServers {
			v.Agents[i].DirectMCPServers[j] = config.MaskMCPServer(v.Agents[i].DirectMCPServers[j])
		}
		v.Agents[i].Credentials = nil // secrets, never sent back
	}
	return v, nil
}

var providerName = regexp.MustCompile(`^[\p{L}\p{N}][\p{L}\p{N} ._-]{0,63}$`)

// SaveProviderArgs adds or replaces a provider. An empty APIKey keeps the
// stored key unless ClearKey is set. Rename, when set, is the provider's
// previous name.
type SaveProviderArgs struct {
	Provider    config.Provider `json:"provider"`
	ClearKey    bool            `json:"clearKey,omitempty"`
	Rename      string          `json:"rename,omitempty"`
	MakeDefault bool            `json:"makeDefault,omitempty"`
}

// SaveProvider adds or updates a provider.
func (s *Service) SaveProvider(_ context.Context, a SaveProviderArgs) (SettingsView, error) {
	p := a.Provider
	p.Name = strings.TrimSpace(p.Name)
	p.BaseURL = strings.TrimSpace(p.BaseURL)
	p.Model = strings.TrimSpace(p.Model)
	if !providerName.MatchString(p.Name) {
		return SettingsView{}, invalidf("a provider needs a name of letters, digits, spaces, dots, dashes or underscores")
	}
	if p.Preset != "" {
		pre, ok := llm.LookupPreset(p.Preset)
		if !ok {
			return SettingsView{}, invalidf("unknown preset %q", p.Preset)
		}
		if p.Kind == "" {
			p.Kind = pre.Kind
		}
	}
	if p.Kind != llm.KindOpenAI && p.Kind != llm.KindAnthropic {
		return SettingsView{}, invalidf("provider kind must be %q or %q", llm.KindOpenAI, llm.KindAnthropic)
	}
	if _, err := llm.New(engine.ProviderConfig(p)); err != nil && !strings.Contains(err.Error(), "model") {
		return SettingsView{}, invalidf("%v", err)
	}
	err := s.settings.Update(func(st *config.Settings) error {
		old := a.Rename
		if old == "" {
			old = p.Name
		}
		i := slices.IndexFunc(st.Providers, func(q config.Provider) bool { return q.Name == old })
		if a.Rename != "" && a.Rename != p.Name && slices.ContainsFunc(st.Providers, func(q config.Provider) bool { return q.Name == p.Name }) {
			return invalidf("a provider named %q already exists", p.Name)
		}
		if i >= 0 {
			if p.APIKey == "" && !a.ClearKey {
				p.APIKey = st.Providers[i].APIKey
			}
			st.Providers[i] = p
			if st.DefaultProvider == old {
				st.DefaultProvider = p.Name
			}
		} else {
			st.Providers = append(st.Providers, p)
		}
		if a.MakeDefault || st.DefaultProvider == "" {
			st.DefaultProvider = p.Name
		}
		return nil
	})
	if err != nil {
		return SettingsView{}, mapErr(err)
	}
	return s.GetSettings(context.Background(), struct{}{})
}

// NameArgs names a provider, server or agent.
type NameArgs struct {
	Name string `json:"name"`
}

// DeleteProvider removes a provider.
func (s *Service) DeleteProvider(_ context.Context, a NameArgs) (SettingsView, error) {
	err := s.settings.Update(func(st *config.Settings) error {
		n := len(st.Providers)
		st.Providers = slices.DeleteFunc(st.Providers, func(p config.Provider) bool { return p.Name == a.Name })
		if len(st.Providers) == n {
			return notFoundf("no provider named %q", a.Name)
		}
		if st.DefaultProvider == a.Name {
			st.DefaultProvider = ""
			if len(st.Providers) > 0 {
				st.DefaultProvider = st.Providers[0].Name
			}
		}
		return nil
	})
	if err != nil {
		return SettingsView{}, mapErr(err)
	}
	return s.GetSettings(context.Background(), struct{}{})
}

// providerFor returns a provider's settings: the named stored (or
// environment) one, with unsaved edits from p applied when given.
func (s *Service) providerFor(a TestProviderArgs) (config.Provider, error) {
	eff := s.settings.Get().WithEnvironment(s.opts.Getenv)
	var p config.Provider
	if a.Name != "" {
		var ok bool
		if p, ok = eff.Provider(a.Name); !ok {
			return config.Provider{}, notFoundf("no provider named %q", a.Name)
		}
	}
	if a.Provider != nil {
		key := p.APIKey
		p = *a.Provider
		if p.APIKey == "" {
			p.APIKey = key
		}
	}
	if p.Kind == "" && p.Preset != "" {
		if pre, ok := llm.LookupPreset(p.Preset); ok {
			p.Kind = pre.Kind
		}
	}
	return p, nil
}

// TestProviderArgs names a stored provider and/or carries unsaved settings.
type TestProviderArgs struct {
	Name     string           `json:"name,omitempty"`
	Provider *config.Provider `json:"provider,omitempty"`
}

// TestResult is the outcome of a connection test.
type TestResult struct {
	OK      bool            `json:"ok"`
	Message string          `json:"message"`
	Models  []llm.ModelInfo `json:"models"`
}

// TestProvider checks that a provider answers, by listing its models.
func (s *Service) TestProvider(ctx context.Context, a TestProviderArgs) (TestResult, error) {
	p, err := s.providerFor(a)
	if err != nil {
		return TestResult{}, err
	}
	prov, err := s.makeProvider(p)
	if err != nil {
		return TestResult{OK: false, Message: err.Error(), Models: []llm.ModelInfo{}}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	models, err := prov.Models(ctx)
	if err != nil {
		return TestResult{OK: false, Message: err.Error(), Models: []llm.ModelInfo{}}, nil
	}
	if models == nil {
		models = []llm.ModelInfo{}
	}
	return TestResult{OK: true, Message: fmt.Sprintf("%d models available.", len(models)), Models: models}, nil
}

func (s *Service) makeProvider(p config.Provider) (llm.Provider, error) {
	if s.opts.Providers != nil {
		return s.opts.Providers(p)
	}
	if p.Model == "" {
		p.Model = "-" // listing models needs none
	}
	return engine.NewProvider(p)
}

// Presets lists the provider presets for the setup screens.
func (s *Service) Presets(context.Context, struct{}) ([]llm.Preset, error) {
	return llm.Presets(), nil
}

// DetectLocal looks for model servers on this machine (Ollama, LM Studio).
func (s *Service) DetectLocal(ctx context.Context, _ struct{}) ([]llm.Detected, error) {
	found := llm.DetectLocal(ctx)
	if found == nil {
		found = []llm.Detected{}
	}
	return found, nil
}

// PreferencesArgs changes preferences; nil fields stay as they are.
type PreferencesArgs struct {
	Notifications       *bool   `json:"notifications,omitempty"`
	Theme               *string `json:"theme,omitempty"`
	Language            *string `json:"language,omitempty"`
	RestrictToWorkspace *bool   `json:"restrictToWorkspace,omitempty"`
	ExecTimeoutSeconds  *int    `json:"execTimeoutSeconds,omitempty"`
	StallTimeoutSeconds *int    `json:"stallTimeoutSeconds,omitempty"`
	Mode                *string `json:"mode,omitempty"`
	DefaultProvider     *string `json:"defaultProvider,omitempty"`
	// Discovery sets tool deferral: its mode ("auto", "always", "never")
	// and threshold (a share of the context window, 0.01–1; 0 means the
	// default); both are validated.
	Discovery *config.Discovery `json:"discovery,omitempty"`
}

// UpdatePreferences changes preferences.
func (s *Service) UpdatePreferences(_ context.Context, a PreferencesArgs) (SettingsView, error) {
	err := s.settings.Update(func(st *config.Settings) error {
		if a.Notifications != nil {
			st.Notifications = a.Notifications
		}
		if a.Theme != nil {
			if !slices.Contains([]string{"system", "light", "dark"}, *a.Theme) {
				return invalidf("theme must be system, light or dark")
			}
			st.Theme = *a.Theme
		}
		if a.Language != nil {
			if !slices.Contains([]string{"", "en", "ja"}, *a.Language) {
				return invalidf("language must be en or ja (or empty to follow the system)")
			}
			st.Language = *a.Language
		}
		if a.RestrictToWorkspace != nil {
			st.RestrictToWorkspace = a.RestrictToWorkspace
		}
		if a.ExecTimeoutSeconds != nil {
			if *a.ExecTimeoutSeconds < 1 || *a.ExecTimeoutSeconds > 600 {
				return invalidf("the command timeout must be between 1 and 600 seconds")
			}
			st.ExecTimeoutSeconds = *a.ExecTimeoutSeconds
		}
		if a.StallTimeoutSeconds != nil {
			if *a.StallTimeoutSeconds < 5 || *a.StallTimeoutSeconds > 3600 {
				return invalidf("the model stall timeout must be between 5 and 3600 seconds")
			}
			st.StallTimeoutSeconds = *a.StallTimeoutSeconds
		}
		if a.Mode != nil {
			m, err := engine.ParseMode(*a.Mode)
			if err != nil {
				return invalidf("%v", err)
			}
			st.Permissions.Mode = string(m)
		}
		if a.DefaultProvider != nil {
			st.DefaultProvider = *a.DefaultProvider
		}
		if a.Discovery != nil {
			d, err := checkDiscovery(*a.Discovery)
			if err != nil {
				return err
			}
			st.Discovery = d
		}
		return nil
	})
	if err != nil {
		return SettingsView{}, mapErr(err)
	}
	s.policy.SetEnabled(s.settings.Get().NotificationsOn())
	return s.GetSettings(context.Background(), struct{}{})
}

// Deferral threshold bounds, as shares of the context window.
const (
	minDeferThreshold = 0.01
	maxDeferThreshold = 1.0
)

// checkDiscovery validates a tool-deferral setting and stores it in the
// settings' form: "auto" and the default threshold are kept as empty
// values, so the defaults can change with later versions.
func checkDiscovery(d config.Discovery) (config.Discovery, error) {
	m, err := capabilities.ParseDeferMode(d.Defer)
	if err != nil {
		return config.Discovery{}, invalidf("%v", err)
	}
	if d.Threshold != 0 && (d.Threshold < minDeferThreshold || d.Threshold > maxDeferThreshold || math.IsNaN(d.Threshold)) {
		return config.Discovery{}, invalidf("the deferral threshold must be between 1%% and 100%% of the context window (got %g%%)", d.Threshold*100)
	}
	out := config.Discovery{Threshold: d.Threshold}
	if m != capabilities.DeferAuto {
		out.Defer = string(m)
	}
	if out.Threshold == capabilities.DefaultThreshold {
		out.Threshold = 0
	}
	return out, nil
}

// discoveryView fills in a stored deferral setting's defaults.
func discoveryView(d config.Discovery) config.Discovery {
	m, err := capabilities.ParseDeferMode(d.Defer)
	if err != nil {
		m = capabilities.DeferAuto // the engine treats an unknown value as auto
	}
	d.Defer = string(m)
	if d.Threshold <= 0 || d.Threshold > 1 {
		d.Threshold = capabilities.DefaultThreshold
	}
	return d
}

// AddRuleArgs is a permission rule to add.
type AddRuleArgs struct {
	Tool    string `json:"tool"`
	Pattern string `json:"pattern,omitempty"`
	Action  string `json:"action"`
}

// ListRules returns the persisted permission rules.
func (s *Service) ListRules(context.Context, struct{}) ([]config.Rule, error) {
	r := s.settings.Rules()
	if r == nil {
		r = []config.Rule{}
	}
	return r, nil
}

// AddRule persists a permission rule.
func (s *Service) AddRule(_ context.Context, a AddRuleArgs) (config.Rule, error) {
	r, err := engine.NormalizeRule(config.Rule{Tool: a.Tool, Pattern: a.Pattern, Action: a.Action})
	if err == nil {
		r, err = s.settings.AddRule(r)
	}
	if err != nil {
		return config.Rule{}, invalidf("%v", err)
	}
	return r, nil
}

// IDOnly names a rule.
type IDOnly struct {
	ID string `json:"id"`
}

// RemoveRule deletes a permission rule.
func (s *Service) RemoveRule(_ context.Context, a IDOnly) (struct{}, error) {
	ok, err := s.settings.RemoveRule(a.ID)
	if err != nil {
		return struct{}{}, err
	}
	if !ok {
		return struct{}{}, notFoundf("no rule with ID %q", a.ID)
	}
	return struct{}{}, nil
}

// FocusArgs tells whether the UI's window has the focus.
type FocusArgs struct {
	Focused bool `json:"focused"`
}

// SetFocused records whether the window is focused (notifications are
// shown only when it is not).
func (s *Service) SetFocused(_ context.Context, a FocusArgs) (struct{}, error) {
	s.policy.SetFocused(a.Focused)
	return struct{}{}, nil
}
