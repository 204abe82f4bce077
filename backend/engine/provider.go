package engine

import (
	"time"

	"tinyelf/backend/config"
	"tinyelf/backend/llm"
)

// ProviderConfig turns a provider's settings into the llm package's config.
func ProviderConfig(p config.Provider) llm.Config {
	return llm.Config{Name: p.Name, Kind: p.Kind, Preset: p.Preset, BaseURL: p.BaseURL, APIKey: p.APIKey, Model: p.Model,
		StallTimeout: time.Duration(p.StallTimeoutSeconds) * time.Second}
}

// NewProvider is the production ProviderFactory.
func NewProvider(p config.Provider) (llm.Provider, error) {
	return llm.New(ProviderConfig(p))
}
