package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// anthropicNoWebSearch are model families the web_search tool does not
// support.
var anthropicNoWebSearch = []string{"claude-3-haiku", "claude-3-opus", "claude-3-sonnet", "claude-2", "claude-instant"}

// SupportsWebSearch implements WebSearcher: Anthropic's own API (the
// anthropic preset, or its host) with a Claude model from 3.5 on.
// Anthropic-compatible endpoints elsewhere may not run server tools.
func (p *anthropicProvider) SupportsWebSearch(model string) error {
	if model == "" {
		model = p.ep.model
	}
	if p.ep.preset.Name != "anthropic" && !p.ep.officialHost("api.anthropic.com") {
		return &IneligibleError{p.ep.name, "a custom Anthropic-compatible endpoint may not run Anthropic's server-side web search"}
	}
	if !strings.HasPrefix(model, "claude-") {
		return &IneligibleError{p.ep.name, fmt.Sprintf("model %q is not a Claude model known to support web search", model)}
	}
	for _, prefix := range anthropicNoWebSearch {
		if strings.HasPrefix(model, prefix) {
			return &IneligibleError{p.ep.name, fmt.Sprintf("model %s does not support the web search tool", model)}
		}
	}
	return nil
}

// WebSearch implements WebSearcher with one Messages call that offers the
// server-side web_search tool (max_uses 1) and reads back its
// server_tool_use and web_search_tool_result blocks, plus the citations
// of the short answer as snippets.
func (p *anthropicProvider) WebSearch(ctx context.Context, req WebSearchRequest) (*WebSearchResponse, error) {
	model, err := p.ep.modelFor(Request{Model: req.Model})
	if err != nil {
		return nil, err
	}
	if err := p.SupportsWebSearch(model); err != nil {
		return nil, err
	}
	params := anthropic.MessageNewParams{
		Model:     anthropic.Model(model),
		MaxTokens: webSearchMaxTokens,
		System:    []anthropic.TextBlockParam{{Text: webSearchPrompt}},
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(req.Query))},
		Tools: []anthropic.ToolUnionParam{{OfWebSearchTool20250305: &anthropic.WebSearchTool20250305Param{
			MaxUses: anthropic.Int(1),
		}}},
	}
	x := &exchange{}
	msg, err := p.client.Messages.New(ctx, params, option.WithMiddleware(x.observe))
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s web search: %w", p.ep.name, ctx.Err())
		}
		e, _ := p.ep.classify(err, x, model)
		return nil, fmt.Errorf("%s web search: %w", p.ep.name, e)
	}
	return anthropicSearchResponse(msg)
}

// anthropicSearchResponse reads the search out of a message. A
// web_search_tool_result holding an error object is an error.
func anthropicSearchResponse(msg *anthropic.Message) (*WebSearchResponse, error) {
	out := &WebSearchResponse{
		Tool:  "web_search_20250305",
		Model: string(msg.Model),
		Usage: Usage{InputTokens: int(msg.Usage.InputTokens), OutputTokens: int(msg.Usage.OutputTokens),
			CacheReadTokens: int(msg.Usage.CacheReadInputTokens), CacheWriteTokens: int(msg.Usage.CacheCreationInputTokens)},
	}
	cited := map[string]string{}
	var text strings.Builder
	for _, b := range msg.Content {
		switch b.Type {
		case "server_tool_use":
			var in struct {
				Query string `json:"query"`
			}
			if err := json.Unmarshal(b.Input, &in); err == nil && in.Query != "" {
				out.Queries = append(out.Queries, in.Query)
			}
		case "web_search_tool_result":
			c := b.Content
			if c.Type == "web_search_tool_result_error" || c.ErrorCode != "" {
				return out, fmt.Errorf("web search failed on the server: %s", c.ErrorCode)
			}
			for _, r := range c.OfWebSearchResultBlockArray {
				out.Results = append(out.Results, WebSearchResult{Title: r.Title, URL: r.URL, PageAge: r.PageAge})
			}
		case "text":
			text.WriteString(b.Text)
			for _, c := range b.Citations {
				if c.Type == "web_search_result_location" && c.URL != "" && cited[c.URL] == "" {
					cited[c.URL] = strings.TrimSpace(c.CitedText)
				}
			}
		}
	}
	for i := range out.Results {
		out.Results[i].Snippet = cited[out.Results[i].URL]
	}
	out.Text = strings.TrimSpace(text.String())
	return out, nil
}
