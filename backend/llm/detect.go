package llm

import (
	"context"
	"sync"
	"time"
)

// DetectTimeout bounds how long DetectLocal waits for a local server.
const DetectTimeout = 1500 * time.Millisecond

// Detected is a local model server that answered.
type Detected struct {
	// Preset is the preset the server was probed as ("ollama").
	Preset string `json:"preset"`
	// BaseURL is where it answered.
	BaseURL string `json:"baseUrl"`
	// Models are the models it offers (possibly none: Ollama with nothing
	// pulled yet).
	Models []ModelInfo `json:"models"`
}

// DetectLocal asks local model servers for their models (GET /models on
// their OpenAI-compatible API) and returns those that answered, in the order
// probed. With no targets it probes the Local presets (Ollama at
// 127.0.0.1:11434, LM Studio at 127.0.0.1:1234); targets override that, and
// their BaseURL may point anywhere (tests use llmtest). Each probe takes at
// most DetectTimeout; the probes run concurrently and all have ended when
// DetectLocal returns. A server that does not answer is left out, silently.
func DetectLocal(ctx context.Context, targets ...Config) []Detected {
	if len(targets) == 0 {
		for _, p := range presets {
			if p.Local {
				targets = append(targets, Config{Preset: p.Name})
			}
		}
	}
	ctx, cancel := context.WithTimeout(ctx, DetectTimeout)
	defer cancel()

	found := make([]*Detected, len(targets))
	var wg sync.WaitGroup
	for i, cfg := range targets {
		ep, err := cfg.resolve()
		if err != nil {
			continue
		}
		prov, err := New(cfg, WithRetryPolicy(RetryPolicy{MaxAttempts: 1}))
		if err != nil {
			continue
		}
		wg.Go(func() {
			models, err := prov.Models(ctx)
			if err != nil {
				return
			}
			found[i] = &Detected{Preset: ep.preset.Name, BaseURL: ep.baseURL, Models: models}
		})
	}
	wg.Wait()

	var out []Detected
	for _, d := range found {
		if d != nil {
			out = append(out, *d)
		}
	}
	return out
}
