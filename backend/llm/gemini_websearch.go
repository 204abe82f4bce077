package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// geminiNativeBase returns the Gemini API's own base URL for an endpoint
// that speaks Gemini's OpenAI-compatible dialect (".../v1beta/openai"):
// grounding with Google Search is only offered by the native
// generateContent method beside it. ok is false for other endpoints.
func geminiNativeBase(ep endpoint) (string, bool) {
	if ep.preset.Name != "gemini" && !ep.officialHost("generativelanguage.googleapis.com") {
		return "", false
	}
	base, ok := strings.CutSuffix(strings.TrimRight(ep.baseURL, "/"), "/openai")
	return base, ok
}

// geminiSearchModel reports whether a Gemini model can ground its answers
// with Google Search: the 2.0 family and later (1.5 used another tool).
func geminiSearchModel(model string) bool {
	m := strings.TrimPrefix(model, "models/")
	if !strings.HasPrefix(m, "gemini-") {
		return false
	}
	return !strings.HasPrefix(m, "gemini-1.") && !strings.HasPrefix(m, "gemini-pro") && !strings.Contains(m, "embedding")
}

// geminiSupportsWebSearch is SupportsWebSearch for Gemini's endpoint.
func (p *openAIProvider) geminiSupportsWebSearch(model string) error {
	if _, ok := geminiNativeBase(p.ep); !ok {
		return &IneligibleError{p.ep.name, "grounding with Google Search needs Gemini's own API: the base URL must end in /v1beta/openai"}
	}
	if !geminiSearchModel(model) {
		return &IneligibleError{p.ep.name, fmt.Sprintf("model %q does not ground with Google Search (Gemini 2.0 and later do)", model)}
	}
	return nil
}

// The parts of Gemini's generateContent answer a search reads.
type geminiAnswer struct {
	Candidates []struct {
		Content struct {
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"content"`
		FinishReason      string `json:"finishReason"`
		GroundingMetadata struct {
			WebSearchQueries []string `json:"webSearchQueries"`
			GroundingChunks  []struct {
				Web struct {
					URI   string `json:"uri"`
					Title string `json:"title"`
				} `json:"web"`
			} `json:"groundingChunks"`
			GroundingSupports []struct {
				Segment struct {
					Text string `json:"text"`
				} `json:"segment"`
				GroundingChunkIndices []int `json:"groundingChunkIndices"`
			} `json:"groundingSupports"`
		} `json:"groundingMetadata"`
	} `json:"candidates"`
	PromptFeedback struct {
		BlockReason string `json:"blockReason"`
	} `json:"promptFeedback"`
	UsageMetadata struct {
		PromptTokenCount        int `json:"promptTokenCount"`
		CandidatesTokenCount    int `json:"candidatesTokenCount"`
		CachedContentTokenCount int `json:"cachedContentTokenCount"`
	} `json:"usageMetadata"`
	ModelVersion string `json:"modelVersion"`
}

// geminiAnswerLimit bounds the answer a search call reads.
const geminiAnswerLimit = 4 << 20

// geminiWebSearch runs one generateContent call with the google_search
// tool: the grounding metadata gives the queries the model ran and the
// sources (a redirect URL and the site's name each); the supports give the
// text each source backs.
func (p *openAIProvider) geminiWebSearch(ctx context.Context, model, query string) (*WebSearchResponse, error) {
	base, _ := geminiNativeBase(p.ep)
	body, err := json.Marshal(map[string]any{
		"systemInstruction": map[string]any{"parts": []any{map[string]any{"text": webSearchPrompt}}},
		"contents":          []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": query}}}},
		"tools":             []any{map[string]any{"google_search": map[string]any{}}},
		"generationConfig":  map[string]any{"maxOutputTokens": webSearchMaxTokens},
	})
	if err != nil {
		return nil, err
	}
	endpoint := base + "/models/" + url.PathEscape(strings.TrimPrefix(model, "models/")) + ":generateContent"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%s web search: %w", p.ep.name, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if p.ep.apiKey != "" {
		req.Header.Set("x-goog-api-key", p.ep.apiKey)
	}
	for k, v := range p.ep.headers {
		req.Header.Set(k, v)
	}
	resp, err := p.httpc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s web search: %w", p.ep.name, ctx.Err())
		}
		e, _ := p.ep.classify(err, nil, model)
		return nil, fmt.Errorf("%s web search: %w", p.ep.name, e)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, geminiAnswerLimit))
	if err != nil {
		return nil, fmt.Errorf("%s web search: reading the answer: %w", p.ep.name, err)
	}
	if resp.StatusCode >= 400 {
		return nil, fmt.Errorf("%s web search: %w", p.ep.name, p.ep.apiError(resp.StatusCode, errorMessage(raw, resp.StatusCode), model))
	}
	var a geminiAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s web search: the answer is not Gemini's JSON: %w", p.ep.name, err)
	}
	return geminiSearchResponse(&a, model)
}

// geminiSearchResponse reads the search out of a generateContent answer.
func geminiSearchResponse(a *geminiAnswer, model string) (*WebSearchResponse, error) {
	out := &WebSearchResponse{
		Tool: "google_search", Model: a.ModelVersion,
		Usage: Usage{
			InputTokens:     max(a.UsageMetadata.PromptTokenCount-a.UsageMetadata.CachedContentTokenCount, 0),
			OutputTokens:    a.UsageMetadata.CandidatesTokenCount,
			CacheReadTokens: a.UsageMetadata.CachedContentTokenCount,
		},
	}
	if out.Model == "" {
		out.Model = model
	}
	if a.PromptFeedback.BlockReason != "" {
		return out, fmt.Errorf("web search refused by Gemini: %s", a.PromptFeedback.BlockReason)
	}
	if len(a.Candidates) == 0 {
		return out, fmt.Errorf("web search: Gemini returned no answer")
	}
	c := a.Candidates[0]
	var text strings.Builder
	for _, part := range c.Content.Parts {
		text.WriteString(part.Text)
	}
	out.Text = strings.TrimSpace(text.String())
	g := c.GroundingMetadata
	out.Queries = append(out.Queries, g.WebSearchQueries...)
	snippets := make([]string, len(g.GroundingChunks))
	for _, s := range g.GroundingSupports {
		for _, i := range s.GroundingChunkIndices {
			if i >= 0 && i < len(snippets) && snippets[i] == "" {
				snippets[i] = strings.TrimSpace(s.Segment.Text)
			}
		}
	}
	seen := map[string]bool{}
	for i, ch := range g.GroundingChunks {
		if ch.Web.URI == "" || seen[ch.Web.URI] {
			continue
		}
		seen[ch.Web.URI] = true
		out.Results = append(out.Results, WebSearchResult{Title: ch.Web.Title, URL: ch.Web.URI, Snippet: snippets[i]})
	}
	if len(out.Results) == 0 && c.FinishReason != "" && c.FinishReason != "STOP" && c.FinishReason != "MAX_TOKENS" {
		return out, fmt.Errorf("web search: Gemini stopped (%s) without sources", c.FinishReason)
	}
	return out, nil
}
