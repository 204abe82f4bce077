package api

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"sync"
	"time"

	"tinyelf/backend/config"
	"tinyelf/backend/engine"
	"tinyelf/backend/llm"
	"tinyelf/backend/sessions"
)

// Model lists are asked for at most this often per provider; a failed
// listing is tried again sooner.
const (
	modelListTTL      = 10 * time.Minute
	modelListRetryTTL = 30 * time.Second
	modelListTimeout  = 8 * time.Second
)

// modelCache keeps each provider's model list, keyed by what the list
// depends on (kind, base URL, key), so the picker opens at once. It is safe
// for concurrent use; the zero value is ready.
type modelCache struct {
	mu      sync.Mutex
	entries map[string]modelEntry
}

type modelEntry struct {
	models []llm.ModelInfo
	err    string
	until  time.Time
}

// cacheKey identifies a provider's listing; the key enters only as a hash.
func cacheKey(p config.Provider) string {
	sum := sha256.Sum256([]byte(strings.Join([]string{p.Name, p.Kind, p.Preset, p.BaseURL, p.APIKey}, "\x00")))
	return hex.EncodeToString(sum[:])
}

func (c *modelCache) get(key string, now time.Time) (modelEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	return e, ok && now.Before(e.until)
}

func (c *modelCache) put(key string, e modelEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[string]modelEntry{}
	}
	c.entries[key] = e
}

// ListModelsArgs asks for the models a chat can use: SessionID's (or, for a
// new chat, Agent's) current model is marked; Refresh skips the cache.
type ListModelsArgs struct {
	SessionID string `json:"sessionId,omitempty"`
	Agent     string `json:"agent,omitempty"`
	Refresh   bool   `json:"refresh,omitempty"`
}

// ModelChoice is one model the picker offers.
type ModelChoice struct {
	Provider      string `json:"provider"`
	Model         string `json:"model"`
	ContextWindow int    `json:"contextWindow,omitempty"`
	// Images says whether the model takes images (engine.AcceptsImages).
	Images bool `json:"images"`
	// Recent marks the models the user chose lately (listed first).
	Recent bool `json:"recent,omitempty"`
	// Default marks the agent's own model.
	Default bool `json:"default,omitempty"`
}

// ModelList is what the model picker shows.
type ModelList struct {
	Models []ModelChoice `json:"models"`
	// Current is the session's model, or for a new chat the agent's.
	Current config.ModelRef `json:"current"`
	// Problems says, by provider, why its list could not be read; its
	// configured model is offered anyway.
	Problems map[string]string `json:"problems,omitempty"`
}

// ListModels returns every configured provider's models (from their model
// lists, cached), recent ones first, with the chat's current model and the
// agent's default marked.
func (s *Service) ListModels(ctx context.Context, a ListModelsArgs) (ModelList, error) {
	st := s.settings.Get().WithEnvironment(s.opts.Getenv)
	def := agentDefault(st, a.Agent)
	out := ModelList{Models: []ModelChoice{}, Current: def}
	if a.SessionID != "" {
		sess, err := s.store.Get(ctx, a.SessionID)
		if err != nil {
			return ModelList{}, mapErr(err)
		}
		def = agentDefault(st, sess.Agent)
		out.Current = config.ModelRef{Provider: sess.Provider, Model: sess.Model}
		if p, ok := st.Provider(sess.Provider); ok && out.Current.Provider == "" {
			out.Current.Provider = p.Name
		}
	}
	lists := s.providerModels(ctx, st.Providers, a.Refresh)
	byProvider := map[string]config.Provider{}
	var all []ModelChoice
	for i, p := range st.Providers {
		byProvider[p.Name] = p
		ids := []string{}
		if p.Model != "" {
			ids = append(ids, p.Model)
		}
		for _, m := range lists[i].models {
			ids = append(ids, m.ID)
		}
		if lists[i].err != "" {
			if out.Problems == nil {
				out.Problems = map[string]string{}
			}
			out.Problems[p.Name] = lists[i].err
		}
		slices.Sort(ids[min(1, len(ids)):])
		for _, id := range slices.Compact(ids) {
			if slices.ContainsFunc(all, func(c ModelChoice) bool { return c.Provider == p.Name && c.Model == id }) {
				continue
			}
			all = append(all, s.choice(p, id))
		}
	}
	// The current model and the agent's default are offered even when no
	// list names them (a model that was renamed, a list that failed).
	for _, ref := range []config.ModelRef{out.Current, def} {
		if p, ok := byProvider[ref.Provider]; ok && ref.Model != "" &&
			!slices.ContainsFunc(all, func(c ModelChoice) bool { return c.Provider == ref.Provider && c.Model == ref.Model }) {
			all = append(all, s.choice(p, ref.Model))
		}
	}
	for i := range all {
		all[i].Default = all[i].Provider == def.Provider && all[i].Model == def.Model
	}
	for _, r := range st.RecentModels {
		if i := slices.IndexFunc(all, func(c ModelChoice) bool { return c.Provider == r.Provider && c.Model == r.Model }); i >= 0 {
			c := all[i]
			c.Recent = true
			out.Models = append(out.Models, c)
			all = slices.Delete(all, i, i+1)
		}
	}
	out.Models = append(out.Models, all...)
	return out, nil
}

func (s *Service) choice(p config.Provider, model string) ModelChoice {
	cw := llm.ContextWindow(model)
	if p.ContextWindow > 0 && model == p.Model {
		cw = p.ContextWindow
	}
	return ModelChoice{Provider: p.Name, Model: model, ContextWindow: cw, Images: engine.AcceptsImages(p, model)}
}

// agentDefault is the model an agent's new sessions use.
func agentDefault(st config.Settings, agent string) config.ModelRef {
	var ref config.ModelRef
	if a, ok := st.Agent(agent); ok {
		ref = config.ModelRef{Provider: a.Provider, Model: a.Model}
	}
	if p, ok := st.Provider(ref.Provider); ok {
		ref.Provider = p.Name
		if ref.Model == "" {
			ref.Model = p.Model
		}
	}
	return ref
}

// providerModels lists each provider's models, in parallel, from the cache
// where it is fresh.
func (s *Service) providerModels(ctx context.Context, providers []config.Provider, refresh bool) []modelEntry {
	out := make([]modelEntry, len(providers))
	var wg sync.WaitGroup
	now := time.Now()
	for i, p := range providers {
		key := cacheKey(p)
		if e, ok := s.models.get(key, now); ok && !refresh {
			out[i] = e
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := s.listProvider(ctx, p)
			out[i] = e
			s.models.put(key, e)
		}()
	}
	wg.Wait()
	return out
}

func (s *Service) listProvider(ctx context.Context, p config.Provider) modelEntry {
	prov, err := s.makeProvider(p)
	if err != nil {
		return modelEntry{err: err.Error(), until: time.Now().Add(modelListRetryTTL)}
	}
	ctx, cancel := context.WithTimeout(ctx, modelListTimeout)
	defer cancel()
	models, err := prov.Models(ctx)
	if err != nil {
		return modelEntry{err: err.Error(), until: time.Now().Add(modelListRetryTTL)}
	}
	return modelEntry{models: models, until: time.Now().Add(modelListTTL)}
}

// SetModelArgs switches a session to another model.
type SetModelArgs struct {
	SessionID string `json:"sessionId"`
	Provider  string `json:"provider"`
	Model     string `json:"model"`
}

// SetModel switches a session to another provider and model: the log
// records a model.changed event, and the session's next turn uses it (a
// turn running now finishes on the old one). The model goes first in the
// recent models.
func (s *Service) SetModel(ctx context.Context, a SetModelArgs) (sessions.Session, error) {
	model := strings.TrimSpace(a.Model)
	if model == "" {
		return sessions.Session{}, invalidf("choose a model")
	}
	p, ok := s.settings.Get().WithEnvironment(s.opts.Getenv).Provider(a.Provider)
	if !ok || a.Provider == "" {
		return sessions.Session{}, invalidf("there is no provider named %q: set it up in Settings → Providers", a.Provider)
	}
	_, err := s.store.Append(ctx, a.SessionID, sessions.NewEvent(sessions.EventModelChanged, sessions.ModelChanged{Provider: p.Name, Model: model}))
	if err == nil {
		s.rememberModel(p.Name, model)
	}
	return s.changed(ctx, a.SessionID, err)
}

// rememberModel puts a chosen model first in the recent models.
func (s *Service) rememberModel(provider, model string) {
	_ = s.settings.Update(func(st *config.Settings) error {
		st.UseModel(config.ModelRef{Provider: provider, Model: model})
		return nil
	})
}
