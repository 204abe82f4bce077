package llm

import (
	"context"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
)

// openAIWebSearchModels are the model families OpenAI's web_search tool
// (Responses API) supports; openAINoWebSearch are exceptions among them.
var (
	openAIWebSearchModels = []string{"gpt-4o", "gpt-4.1", "gpt-5", "o3", "o4-mini", "chatgpt-4o"}
	openAINoWebSearch     = []string{"gpt-4.1-nano", "search-preview", "search-api", "realtime", "audio", "transcribe"}
)

// SupportsWebSearch implements WebSearcher: OpenAI's own API (the openai
// preset, or its host) with a model that supports the web_search tool;
// xAI's API, whose Responses API has a web_search tool for Grok 4 and
// later; Gemini's, through its native generateContent with Google Search
// grounding. Other OpenAI-compatible servers have no native web search.
func (p *openAIProvider) SupportsWebSearch(model string) error {
	if model == "" {
		model = p.ep.model
	}
	if p.isGemini() {
		return p.geminiSupportsWebSearch(model)
	}
	if p.isXAI() {
		if !xaiSearchModel(model) {
			return &IneligibleError{p.ep.name, fmt.Sprintf("model %q has no web_search tool (Grok 4 and later have)", model)}
		}
		return nil
	}
	if p.ep.preset.Name != "openai" && !p.ep.officialHost("api.openai.com") {
		return nativeSearchIneligible(p.ep)
	}
	for _, no := range openAINoWebSearch {
		if strings.Contains(model, no) {
			return &IneligibleError{p.ep.name, fmt.Sprintf("model %s does not support the web_search tool", model)}
		}
	}
	for _, prefix := range openAIWebSearchModels {
		if strings.HasPrefix(model, prefix) {
			return nil
		}
	}
	return &IneligibleError{p.ep.name, fmt.Sprintf("model %q is not known to support the web_search tool", model)}
}

// WebSearch implements WebSearcher with one Responses API call that offers
// the web_search tool and asks for the search's sources: the
// web_search_call items give the queries and sources, the url_citation
// annotations of the answer give titles and the cited text.
func (p *openAIProvider) WebSearch(ctx context.Context, req WebSearchRequest) (*WebSearchResponse, error) {
	model, err := p.ep.modelFor(Request{Model: req.Model})
	if err != nil {
		return nil, err
	}
	if err := p.SupportsWebSearch(model); err != nil {
		return nil, err
	}
	if p.isGemini() {
		return p.geminiWebSearch(ctx, model, req.Query)
	}
	params := responses.ResponseNewParams{
		Model:           model,
		Instructions:    openai.String(webSearchPrompt),
		Input:           responses.ResponseNewParamsInputUnion{OfString: openai.String(req.Query)},
		Tools:           []responses.ToolUnionParam{{OfWebSearch: &responses.WebSearchToolParam{Type: responses.WebSearchToolTypeWebSearch}}},
		Include:         []responses.ResponseIncludable{responses.ResponseIncludableWebSearchCallActionSources},
		MaxOutputTokens: openai.Int(webSearchMaxTokens),
		Store:           openai.Bool(false),
	}
	if p.isXAI() {
		// xAI's Responses API gives the sources as the answer's url_citation
		// annotations; it does not take OpenAI's include of action sources.
		params.Include = nil
	}
	x := &exchange{}
	resp, err := p.responses.New(ctx, params, option.WithMiddleware(x.observe))
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s web search: %w", p.ep.name, ctx.Err())
		}
		e, _ := p.ep.classify(err, x, model)
		return nil, fmt.Errorf("%s web search: %w", p.ep.name, e)
	}
	return openAISearchResponse(resp)
}

// openAISearchResponse reads the search out of a Responses answer. A
// failed web_search_call with nothing found is an error.
func openAISearchResponse(resp *responses.Response) (*WebSearchResponse, error) {
	out := &WebSearchResponse{
		Tool: "web_search", Model: resp.Model,
		Usage: Usage{
			InputTokens:     max(int(resp.Usage.InputTokens-resp.Usage.InputTokensDetails.CachedTokens), 0),
			OutputTokens:    int(resp.Usage.OutputTokens),
			CacheReadTokens: int(resp.Usage.InputTokensDetails.CachedTokens),
		},
	}
	index := map[string]int{}
	add := func(r WebSearchResult) {
		if r.URL == "" {
			return
		}
		if i, ok := index[r.URL]; ok {
			if out.Results[i].Title == "" || out.Results[i].Title == out.Results[i].URL {
				out.Results[i].Title = r.Title
			}
			if out.Results[i].Snippet == "" {
				out.Results[i].Snippet = r.Snippet
			}
			return
		}
		index[r.URL] = len(out.Results)
		out.Results = append(out.Results, r)
	}
	failed := ""
	var text strings.Builder
	for _, item := range resp.Output {
		switch item.Type {
		case "web_search_call":
			if item.Status == "failed" {
				failed = "the web_search call failed on the server"
			}
			if q := item.Action.Query; q != "" {
				out.Queries = append(out.Queries, q)
			}
			out.Queries = append(out.Queries, item.Action.Queries...)
			for _, s := range item.Action.Sources {
				add(WebSearchResult{Title: s.URL, URL: s.URL})
			}
		case "message":
			for _, c := range item.Content {
				if c.Type != "output_text" {
					continue
				}
				runes := []rune(c.Text)
				text.WriteString(c.Text)
				for _, a := range c.Annotations {
					if a.Type != "url_citation" {
						continue
					}
					r := WebSearchResult{Title: a.Title, URL: a.URL}
					r.Snippet = citedSentence(runes, int(a.StartIndex), int(a.EndIndex))
					add(r)
				}
			}
		}
	}
	out.Text = strings.TrimSpace(text.String())
	if failed != "" && len(out.Results) == 0 {
		return out, fmt.Errorf("%s", failed)
	}
	if resp.Error.Message != "" {
		return out, fmt.Errorf("web search failed: %s", resp.Error.Message)
	}
	return out, nil
}

// citedSentence returns the sentence a url_citation annotation ends: the
// annotation covers the inline link itself ("([example.com](…))"), so the
// claim it supports is the text just before it.
func citedSentence(text []rune, start, end int) string {
	if start < 0 || start > end || end > len(text) {
		return ""
	}
	from := max(0, start-400)
	seg := string(text[from:start])
	if i := strings.LastIndexAny(seg, "\n"); i >= 0 {
		seg = seg[i+1:]
	}
	if i := strings.LastIndex(strings.TrimRight(seg, " ("), ". "); i >= 0 {
		seg = seg[i+2:]
	}
	return strings.TrimSpace(strings.TrimRight(strings.TrimSpace(seg), "("))
}

func (p *openAIProvider) isGemini() bool {
	return p.ep.preset.Name == "gemini" || p.ep.officialHost("generativelanguage.googleapis.com")
}

func (p *openAIProvider) isXAI() bool {
	return p.ep.preset.Name == "xai" || p.ep.officialHost("api.x.ai")
}

// xaiSearchModel reports whether a Grok model takes the web_search tool:
// Grok 4 and later ("grok-4", "grok-4-fast", "grok-4.1-fast", "grok-5"…).
func xaiSearchModel(model string) bool {
	rest, ok := strings.CutPrefix(model, "grok-")
	if !ok || rest == "" || rest[0] < '0' || rest[0] > '9' {
		return false
	}
	n := 0
	for _, r := range rest {
		if r < '0' || r > '9' {
			break
		}
		n = n*10 + int(r-'0')
	}
	return n >= 4
}
