package config

import "strings"

// Environment variables that configure a provider without the settings
// store (for `tinyelf run` in scripts and CI).
const (
	EnvOpenAIKey     = "OPENAI_API_KEY"
	EnvOpenAIBaseURL = "OPENAI_BASE_URL"
	EnvAnthropicKey  = "ANTHROPIC_API_KEY"
	EnvProvider      = "TINYELF_PROVIDER"
	EnvModel         = "TINYELF_MODEL"
)

// WithEnvironment returns the settings with providers from the environment
// added: "env-openai" when OPENAI_API_KEY or OPENAI_BASE_URL is set,
// "env-anthropic" when ANTHROPIC_API_KEY is set. TINYELF_PROVIDER picks the
// default provider by name (a stored one or one of these) and TINYELF_MODEL
// overrides the default provider's model. Stored settings are not changed.
func (s Settings) WithEnvironment(getenv func(string) string) Settings {
	out := clone(s)
	if key, base := getenv(EnvOpenAIKey), getenv(EnvOpenAIBaseURL); key != "" || base != "" {
		p := Provider{Name: "env-openai", Kind: "openai", Preset: "openai", APIKey: key, BaseURL: base}
		if base != "" && !strings.Contains(base, "api.openai.com") {
			p.Preset = "custom"
		}
		out.addEnvProvider(p)
	}
	if key := getenv(EnvAnthropicKey); key != "" {
		out.addEnvProvider(Provider{Name: "env-anthropic", Kind: "anthropic", Preset: "anthropic", APIKey: key})
	}
	if name := strings.TrimSpace(getenv(EnvProvider)); name != "" {
		for _, p := range out.Providers {
			if p.Name == name || p.Name == "env-"+name || p.Preset == name {
				out.DefaultProvider = p.Name
				break
			}
		}
	}
	if model := strings.TrimSpace(getenv(EnvModel)); model != "" {
		if p, ok := out.Provider(""); ok {
			for i := range out.Providers {
				if out.Providers[i].Name == p.Name {
					out.Providers[i].Model = model
				}
			}
		}
	}
	return out
}

func (s *Settings) addEnvProvider(p Provider) {
	for _, old := range s.Providers {
		if old.Name == p.Name {
			return
		}
	}
	s.Providers = append(s.Providers, p)
}
