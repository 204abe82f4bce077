package config

import (
	"slices"
	"strings"
)

// EnvWebAllowLocal set to "1" lets WebFetch reach local and private
// addresses, as Web.AllowLocal does (for scripts and tests).
const EnvWebAllowLocal = "TINYELF_WEB_ALLOW_LOCAL"

// WebSearchProviderNames are the WebSearchService's providers in their
// default order.
var WebSearchProviderNames = []string{"tavily", "brave", "jina", "searxng", "duckduckgo"}

// Web is the Web tools' configuration.
type Web struct {
	// AllowLocal lets WebFetch reach loopback, private, link-local and
	// metadata addresses; each such request then needs the user's approval.
	AllowLocal bool `json:"allowLocal,omitempty"`
	// NativeSearch uses the model provider's own web search first; on
	// unless set to false.
	NativeSearch *bool `json:"nativeSearch,omitempty"`
	// Order is the order the search providers are tried in. Providers it
	// leaves out follow in the default order.
	Order []string `json:"order,omitempty"`
	// Search holds each search provider's settings by name.
	Search map[string]WebSearchProvider `json:"search,omitempty"`
}

// WebSearchProvider is one search provider's settings.
type WebSearchProvider struct {
	// APIKey is the provider's key (Tavily, Brave, Jina; optional for
	// SearXNG). Empty means the provider's environment variable.
	APIKey string `json:"apiKey,omitempty"`
	// URL is SearXNG's base URL; for the others it overrides the API
	// endpoint (a proxy).
	URL string `json:"url,omitempty"`
	// Disabled leaves the provider out.
	Disabled bool `json:"disabled,omitempty"`
}

// NativeSearchOn reports whether the provider's native search is used.
func (w Web) NativeSearchOn() bool { return w.NativeSearch == nil || *w.NativeSearch }

// LocalAllowed reports whether local addresses are allowed, by the
// settings or by TINYELF_WEB_ALLOW_LOCAL=1.
func (w Web) LocalAllowed(getenv func(string) string) bool {
	return w.AllowLocal || strings.TrimSpace(getenv(EnvWebAllowLocal)) == "1"
}

// SearchOrder returns every known provider once: those of Order first (in
// that order, unknown names dropped), then the rest in the default order.
func (w Web) SearchOrder() []string {
	out := make([]string, 0, len(WebSearchProviderNames))
	for _, n := range w.Order {
		n = strings.ToLower(strings.TrimSpace(n))
		if slices.Contains(WebSearchProviderNames, n) && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	for _, n := range WebSearchProviderNames {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}
