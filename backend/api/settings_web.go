package api

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"tinyelf/backend/config"
	"tinyelf/backend/engine"
	webtools "tinyelf/backend/web"
)

// WebProviderView is a search provider as Settings → Web shows it: its key
// never leaves the backend, only whether one is set, where it comes from
// and its last characters.
type WebProviderView struct {
	Name string `json:"name"`
	// NeedsKey and NeedsURL say what the provider needs to be tried.
	NeedsKey bool `json:"needsKey"`
	NeedsURL bool `json:"needsUrl"`
	// KeyEnv is the environment variable read when no key is saved.
	KeyEnv     string `json:"keyEnv,omitempty"`
	KeySet     bool   `json:"keySet"`
	KeyHint    string `json:"keyHint,omitempty"`
	KeyFromEnv bool   `json:"keyFromEnv,omitempty"`
	// URL is the saved URL (SearXNG's instance, or an endpoint override).
	URL        string `json:"url"`
	URLFromEnv bool   `json:"urlFromEnv,omitempty"`
	Disabled   bool   `json:"disabled"`
	// Ready says whether WebSearch would try it.
	Ready bool `json:"ready"`
}

// WebSettingsView is Settings → Web.
type WebSettingsView struct {
	AllowLocal bool `json:"allowLocal"`
	// AllowLocalFromEnv is set when TINYELF_WEB_ALLOW_LOCAL=1 allows local
	// addresses whatever the switch says.
	AllowLocalFromEnv bool              `json:"allowLocalFromEnv"`
	NativeSearch      bool              `json:"nativeSearch"`
	Providers         []WebProviderView `json:"providers"` // in search order
}

// GetWebSettings returns the Web tools' settings without secrets.
func (s *Service) GetWebSettings(context.Context, struct{}) (WebSettingsView, error) {
	w := s.settings.Get().Web
	v := WebSettingsView{
		AllowLocal:        w.AllowLocal,
		AllowLocalFromEnv: strings.TrimSpace(s.getenv(config.EnvWebAllowLocal)) == "1",
		NativeSearch:      w.NativeSearchOn(),
		Providers:         []WebProviderView{},
	}
	resolved := engine.NewWebTools(config.Settings{Web: w}, s.getenv, nil, nil, nil).Search.Providers
	for i, name := range w.SearchOrder() {
		saved := w.Search[name]
		env := webtools.SearchKeyEnv[name]
		pv := WebProviderView{
			Name: name, Disabled: saved.Disabled, URL: saved.URL,
			NeedsKey: name == webtools.SearchTavily || name == webtools.SearchBrave || name == webtools.SearchJina,
			NeedsURL: name == webtools.SearchSearXNG,
		}
		if name != webtools.SearchSearXNG && env != "" {
			pv.KeyEnv = env
		}
		key := resolved[i].Key
		pv.KeySet = key != ""
		pv.KeyFromEnv = saved.APIKey == "" && key != ""
		if n := len(key); n > 8 {
			pv.KeyHint = "…" + key[n-4:]
		}
		if name == webtools.SearchSearXNG && saved.URL == "" && resolved[i].URL != "" {
			pv.URL, pv.URLFromEnv = resolved[i].URL, true
		}
		pv.Ready = !pv.Disabled && (!pv.NeedsKey || pv.KeySet) && (!pv.NeedsURL || pv.URL != "")
		v.Providers = append(v.Providers, pv)
	}
	return v, nil
}

func (s *Service) getenv(k string) string {
	if s.opts.Getenv == nil {
		return ""
	}
	return s.opts.Getenv(k)
}

// WebProviderEdit changes one search provider; nil and empty fields stay
// as they are. An empty APIKey keeps the saved key unless ClearKey is set.
type WebProviderEdit struct {
	APIKey   string  `json:"apiKey,omitempty"`
	ClearKey bool    `json:"clearKey,omitempty"`
	URL      *string `json:"url,omitempty"`
	Disabled *bool   `json:"disabled,omitempty"`
}

// SaveWebArgs changes Settings → Web; nil fields stay as they are.
type SaveWebArgs struct {
	AllowLocal   *bool `json:"allowLocal,omitempty"`
	NativeSearch *bool `json:"nativeSearch,omitempty"`
	// Order, when given, is the providers' new order (unknown names are
	// refused; missing ones follow in the default order).
	Order     []string                   `json:"order,omitempty"`
	Providers map[string]WebProviderEdit `json:"providers,omitempty"`
}

// SaveWebSettings changes the Web tools' settings. Sessions pick the change
// up at their next model call.
func (s *Service) SaveWebSettings(_ context.Context, a SaveWebArgs) (WebSettingsView, error) {
	for _, n := range a.Order {
		if !slices.Contains(config.WebSearchProviderNames, n) {
			return WebSettingsView{}, invalidf("unknown search provider %q (known: %s)", n, strings.Join(config.WebSearchProviderNames, ", "))
		}
	}
	for name, e := range a.Providers {
		if !slices.Contains(config.WebSearchProviderNames, name) {
			return WebSettingsView{}, invalidf("unknown search provider %q", name)
		}
		if e.URL != nil && strings.TrimSpace(*e.URL) != "" {
			u, err := url.Parse(strings.TrimSpace(*e.URL))
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return WebSettingsView{}, invalidf("the %s URL must be an http:// or https:// address", name)
			}
		}
		if strings.ContainsAny(e.APIKey, " \t\r\n") {
			return WebSettingsView{}, invalidf("the %s API key contains spaces or line breaks; paste the key alone", name)
		}
	}
	err := s.settings.Update(func(st *config.Settings) error {
		w := &st.Web
		if a.AllowLocal != nil {
			w.AllowLocal = *a.AllowLocal
		}
		if a.NativeSearch != nil {
			on := *a.NativeSearch
			w.NativeSearch = &on
		}
		if a.Order != nil {
			w.Order = config.Web{Order: a.Order}.SearchOrder()
		}
		for name, e := range a.Providers {
			if w.Search == nil {
				w.Search = map[string]config.WebSearchProvider{}
			}
			p := w.Search[name]
			switch {
			case e.ClearKey:
				p.APIKey = ""
			case e.APIKey != "":
				p.APIKey = e.APIKey
			}
			if e.URL != nil {
				p.URL = strings.TrimSpace(*e.URL)
			}
			if e.Disabled != nil {
				p.Disabled = *e.Disabled
			}
			w.Search[name] = p
		}
		return nil
	})
	if err != nil {
		return WebSettingsView{}, mapErr(err)
	}
	return s.GetWebSettings(context.Background(), struct{}{})
}

// TestWebSearchArgs names the provider to test ("" tests the whole order).
type TestWebSearchArgs struct {
	Provider string `json:"provider,omitempty"`
	Query    string `json:"query,omitempty"`
}

// WebSearchTestResult is the outcome of a search test.
type WebSearchTestResult struct {
	OK       bool                     `json:"ok"`
	Message  string                   `json:"message"`
	Attempts []webtools.SearchAttempt `json:"attempts"`
	Results  []webtools.SearchResult  `json:"results"`
}

// TestWebSearch runs a real search with the saved settings (one provider,
// or the service's whole order; never the model's native search) and says
// what happened. Keys never appear in the answer.
func (s *Service) TestWebSearch(ctx context.Context, a TestWebSearchArgs) (WebSearchTestResult, error) {
	if a.Provider != "" && !slices.Contains(config.WebSearchProviderNames, a.Provider) {
		return WebSearchTestResult{}, invalidf("unknown search provider %q", a.Provider)
	}
	query := strings.TrimSpace(a.Query)
	if query == "" {
		query = "TinyElf desktop AI agent"
	}
	web := engine.NewWebTools(s.settings.Get(), s.getenv, nil, nil, nil)
	opts := webtools.SearchOptions{NativeOff: true}
	for _, p := range web.Search.Providers {
		if a.Provider == "" || p.Name == a.Provider {
			if a.Provider != "" {
				p.Disabled = false // testing a provider that is switched off is allowed
			}
			opts.Providers = append(opts.Providers, p)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out := webtools.SearchWeb(ctx, opts, query, 3)
	// The native stage is switched off for the test; leave it out.
	attempts := slices.DeleteFunc(out.Attempts, func(a webtools.SearchAttempt) bool {
		return a.Stage == webtools.StageNative || a.Stage == webtools.StageUnavailable
	})
	res := WebSearchTestResult{Attempts: attempts, Results: out.Results}
	switch {
	case len(out.Results) > 0:
		res.OK, res.Message = true, fmt.Sprintf("%s found %d results.", out.Provider, len(out.Results))
	case len(attempts) > 0 && attempts[len(attempts)-1].Reason != "":
		last := attempts[len(attempts)-1]
		res.Message = fmt.Sprintf("%s: %s", last.Provider, last.Reason)
	default:
		res.Message = "No results."
	}
	if res.Attempts == nil {
		res.Attempts = []webtools.SearchAttempt{}
	}
	return res, nil
}
