package config

import "testing"

func TestWithEnvironment(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	stored := Settings{Providers: []Provider{{Name: "mine", Kind: "openai", BaseURL: "http://127.0.0.1:11434/v1", Model: "llama3"}}, DefaultProvider: "mine"}

	got := stored.WithEnvironment(env(nil))
	if len(got.Providers) != 1 {
		t.Errorf("no environment added providers: %+v", got.Providers)
	}
	got = stored.WithEnvironment(env(map[string]string{EnvAnthropicKey: "sk-ant", EnvProvider: "anthropic", EnvModel: "claude-sonnet-4-5"}))
	p, ok := got.Provider("")
	if !ok || p.Name != "env-anthropic" || p.Model != "claude-sonnet-4-5" || p.APIKey != "sk-ant" || p.Kind != "anthropic" {
		t.Errorf("default provider from the environment: %+v", p)
	}
	if len(stored.Providers) != 1 || stored.DefaultProvider != "mine" {
		t.Error("WithEnvironment changed the stored settings")
	}
	got = Settings{}.WithEnvironment(env(map[string]string{EnvOpenAIBaseURL: "http://127.0.0.1:9/v1", EnvModel: "m"}))
	if p, ok := got.Provider(""); !ok || p.Preset != "custom" || p.Model != "m" || p.BaseURL != "http://127.0.0.1:9/v1" {
		t.Errorf("custom OpenAI-compatible from the environment: %+v", p)
	}
	got = stored.WithEnvironment(env(map[string]string{EnvModel: "qwen3"}))
	if p, _ := got.Provider(""); p.Name != "mine" || p.Model != "qwen3" {
		t.Errorf("TINYELF_MODEL on the stored default: %+v", p)
	}
}

// TestBaseURLFromTheEnvironment: ANTHROPIC_BASE_URL is honoured, and
// TINYELF_BASE_URL (tinyelf run --base-url) moves whichever provider
// TINYELF_PROVIDER chose, an Anthropic one included.
func TestBaseURLFromTheEnvironment(t *testing.T) {
	t.Parallel()
	const gw = "http://127.0.0.1:9/gateway"
	stored := Settings{Providers: []Provider{
		{Name: "claude", Kind: "anthropic", Preset: "anthropic", APIKey: "sk-ant", Model: "claude-sonnet-4-5"},
		{Name: "gpt", Kind: "openai", Preset: "openai", APIKey: "sk", Model: "gpt-5"},
	}, DefaultProvider: "gpt"}
	tests := []struct {
		name     string
		settings Settings
		env      map[string]string
		want     Provider // Name, Kind, BaseURL and Preset are compared
	}{
		{"ANTHROPIC_BASE_URL with a key", Settings{}, map[string]string{EnvAnthropicKey: "k", EnvAnthropicBaseURL: gw},
			Provider{Name: "env-anthropic", Kind: "anthropic", BaseURL: gw, Preset: "custom"}},
		{"ANTHROPIC_BASE_URL alone (a gateway that needs no key)", Settings{}, map[string]string{EnvAnthropicBaseURL: gw},
			Provider{Name: "env-anthropic", Kind: "anthropic", BaseURL: gw, Preset: "custom"}},
		{"--provider anthropic --base-url, nothing stored", Settings{}, map[string]string{EnvProvider: "anthropic", EnvBaseURL: gw},
			Provider{Name: "env-anthropic", Kind: "anthropic", BaseURL: gw, Preset: "custom"}},
		{"--provider anthropic --base-url with ANTHROPIC_API_KEY", Settings{}, map[string]string{EnvAnthropicKey: "k", EnvProvider: "anthropic", EnvBaseURL: gw},
			Provider{Name: "env-anthropic", Kind: "anthropic", BaseURL: gw, Preset: "custom"}},
		{"--provider claude --base-url moves the stored provider", stored, map[string]string{EnvProvider: "claude", EnvBaseURL: gw},
			Provider{Name: "claude", Kind: "anthropic", BaseURL: gw, Preset: "custom"}},
		{"--provider anthropic finds the stored one by preset", stored, map[string]string{EnvProvider: "anthropic", EnvBaseURL: gw},
			Provider{Name: "claude", Kind: "anthropic", BaseURL: gw, Preset: "custom"}},
		{"--base-url alone is an OpenAI-compatible server", stored, map[string]string{EnvBaseURL: gw},
			Provider{Name: "env-openai", Kind: "openai", BaseURL: gw, Preset: "custom"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := tc.settings.WithEnvironment(func(k string) string { return tc.env[k] }).Provider("")
			if !ok || got.Name != tc.want.Name || got.Kind != tc.want.Kind || got.BaseURL != tc.want.BaseURL || got.Preset != tc.want.Preset {
				t.Errorf("default provider = %+v, want %+v", got, tc.want)
			}
		})
	}
	if stored.Providers[0].BaseURL != "" {
		t.Error("WithEnvironment changed the stored settings")
	}
}
