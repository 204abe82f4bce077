package config

import "strings"

// Environment variables that configure a provider without the settings
// store (for `tinyelf run` in scripts and CI).
const (
	EnvOpenAIKey        = "OPENAI_API_KEY"
	EnvOpenAIBaseURL    = "OPENAI_BASE_URL"
	EnvAnthropicKey     = "ANTHROPIC_API_KEY"
	EnvAnthropicBaseURL = "ANTHROPIC_BASE_URL"
	EnvProvider         = "TINYELF_PROVIDER"
	EnvModel            = "TINYELF_MODEL"
	// EnvBaseURL points the chosen provider (TINYELF_PROVIDER, or an
	// OpenAI-compatible server when none is named) at another address: a
	// gateway, a proxy, a local server. `tinyelf run --base-url` sets it.
	EnvBaseURL = "TINYELF_BASE_URL"
)

// EnvBridgeToken gives `tinyelf mcp bridge` its bearer token without
// putting it on the command line (where ps shows it). It is a secret: tools
// and servers TinyElf starts should not inherit it.
const EnvBridgeToken = "TINYELF_BRIDGE_TOKEN"

// WithEnvironment returns the settings with providers from the environment
// added: "env-openai" when OPENAI_API_KEY or OPENAI_BASE_URL is set,
// "env-anthropic" when ANTHROPIC_API_KEY or ANTHROPIC_BASE_URL is set.
// TINYELF_PROVIDER picks the default provider by name (a stored one, one of
// these, or a preset or kind name); TINYELF_BASE_URL then sends that
// provider's requests to another address (with no TINYELF_PROVIDER, to an
// OpenAI-compatible server there), and TINYELF_MODEL overrides its model.
// Stored settings are not changed.
func (s Settings) WithEnvironment(getenv func(string) string) Settings {
	out := clone(s)
	if key, base := getenv(EnvOpenAIKey), getenv(EnvOpenAIBaseURL); key != "" || base != "" {
		out.addEnvProvider(envProvider("openai", key, base))
	}
	if key, base := getenv(EnvAnthropicKey), getenv(EnvAnthropicBaseURL); key != "" || base != "" {
		out.addEnvProvider(envProvider("anthropic", key, base))
	}
	name := strings.TrimSpace(getenv(EnvProvider))
	chosen := -1
	if name != "" {
		chosen = out.providerIndex(name)
		if chosen >= 0 {
			out.DefaultProvider = out.Providers[chosen].Name
		}
	}
	if base := strings.TrimSpace(getenv(EnvBaseURL)); base != "" {
		if chosen < 0 {
			// Nothing of that name yet: a provider of the named kind (an
			// OpenAI-compatible one when none was named) at that address.
			kind := "openai"
			if name == "anthropic" || name == "env-anthropic" {
				kind = "anthropic"
			}
			out.addEnvProvider(envProvider(kind, "", ""))
			chosen = out.providerIndex("env-" + kind)
			out.DefaultProvider = out.Providers[chosen].Name
		}
		p := &out.Providers[chosen]
		p.BaseURL = base
		if p.Preset != "" && p.Preset != "custom" && !sameHost(base, presetHosts[p.Preset]) {
			p.Preset = "custom" // the preset's name would mislabel the address
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

// presetHosts are the vendors' own API hosts: a base URL elsewhere is a
// custom endpoint speaking their format.
var presetHosts = map[string]string{"openai": "api.openai.com", "anthropic": "api.anthropic.com"}

func sameHost(base, host string) bool { return host != "" && strings.Contains(base, host) }

// envProvider is the provider env-<kind> made from a key and a base URL.
func envProvider(kind, key, base string) Provider {
	p := Provider{Name: "env-" + kind, Kind: kind, Preset: kind, APIKey: key, BaseURL: base}
	if base != "" && !sameHost(base, presetHosts[kind]) {
		p.Preset = "custom"
	}
	return p
}

// providerIndex finds a provider by its name, its env- name, or its preset.
func (s *Settings) providerIndex(name string) int {
	for i, p := range s.Providers {
		if p.Name == name || p.Name == "env-"+name {
			return i
		}
	}
	for i, p := range s.Providers {
		if p.Preset == name {
			return i
		}
	}
	return -1
}

func (s *Settings) addEnvProvider(p Provider) {
	for _, old := range s.Providers {
		if old.Name == p.Name {
			return
		}
	}
	s.Providers = append(s.Providers, p)
}
