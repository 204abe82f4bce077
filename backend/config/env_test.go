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
