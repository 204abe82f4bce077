package llm

import (
	"context"
	"fmt"
	"net/url"
	"strings"
)

// WebSearcher is implemented by providers whose API can search the web
// itself: Anthropic's server-side web_search tool, the web_search tool of
// OpenAI's and xAI's Responses APIs, Gemini's grounding with Google
// Search. Both adapters implement it; SupportsWebSearch
// says whether a given model on the configured endpoint can use it.
type WebSearcher interface {
	// SupportsWebSearch returns nil when model can search natively, or an
	// *IneligibleError saying why not.
	SupportsWebSearch(model string) error
	// WebSearch makes one model call that runs a single web search for the
	// query and returns the sources it found. It makes no retries: the
	// caller falls back to other search services.
	WebSearch(ctx context.Context, req WebSearchRequest) (*WebSearchResponse, error)
}

// WebSearchRequest asks a provider to search the web.
type WebSearchRequest struct {
	// Model is the model that runs the search (default: the config's).
	Model string
	Query string
	// MaxResults is how many sources the caller wants (a hint: providers
	// decide how many they return).
	MaxResults int
}

// WebSearchResponse is what a native search found.
type WebSearchResponse struct {
	// Tool names the server tool ("web_search_20250305", "web_search").
	Tool string
	// Queries are the searches the server ran.
	Queries []string
	Results []WebSearchResult
	// Text is the model's short answer written from the results.
	Text  string
	Usage Usage
	Model string
}

// WebSearchResult is one source a native search returned.
type WebSearchResult struct {
	Title string
	URL   string
	// Snippet is text the model cited from the source, when it cited it.
	Snippet string
	// PageAge is how old the page is, as the provider says ("2 days ago").
	PageAge string
}

// IneligibleError says why a provider or model has no native web search.
type IneligibleError struct {
	Provider string
	Reason   string
}

func (e *IneligibleError) Error() string { return fmt.Sprintf("%s: %s", e.Provider, e.Reason) }

// webSearchPrompt is what the search call asks of the model.
const webSearchPrompt = "You are the web search backend of a coding agent. Run exactly one web search for the user's query, " +
	"then answer in at most three sentences, citing the sources you used."

// webSearchMaxTokens bounds the short answer of a search call.
const webSearchMaxTokens = 1024

// officialHost reports whether the endpoint's base URL is on host.
func (ep endpoint) officialHost(host string) bool {
	u, err := url.Parse(ep.baseURL)
	return err == nil && strings.EqualFold(u.Hostname(), host)
}

// nativeSearchIneligible explains, for an OpenAI-compatible endpoint that
// is not OpenAI itself, why it has no native search in TinyElf.
func nativeSearchIneligible(ep endpoint) *IneligibleError {
	switch ep.preset.Name {
	case "ollama", "lmstudio":
		return &IneligibleError{ep.name, "local models have no web search of their own"}
	}
	return &IneligibleError{ep.name, "this provider has no native web search"}
}
