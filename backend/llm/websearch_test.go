package llm_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"tinyelf/backend/llm"
	"tinyelf/backend/llm/llmtest"
)

var scriptedSearch = llmtest.Turn{
	Text: "Readability extracts the main content of a page.",
	WebSearches: []llmtest.WebSearch{{
		Query: "go readability library",
		Results: []llmtest.WebSearchResult{
			{Title: "readability package - Go Packages", URL: "https://pkg.go.dev/codeberg.org/readeck/go-readability/v2", PageAge: "March 4, 2025",
				Snippet: "Package readability is a Go package that find the main readable content from a HTML page."},
			{Title: "mozilla/readability", URL: "https://github.com/mozilla/readability"},
		},
	}},
}

func webSearcher(t *testing.T, cfg llm.Config) llm.WebSearcher {
	t.Helper()
	p, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ws, ok := p.(llm.WebSearcher)
	if !ok {
		t.Fatalf("%T does not implement WebSearcher", p)
	}
	return ws
}

func search(t *testing.T, ws llm.WebSearcher) (*llm.WebSearchResponse, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return ws.WebSearch(ctx, llm.WebSearchRequest{Query: "go readability library", MaxResults: 5})
}

func TestAnthropicWebSearch(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, scriptedSearch)
	ws := webSearcher(t, llm.Config{Preset: "anthropic", BaseURL: srv.URL, APIKey: "sk-ant-test", Model: "claude-sonnet-4-5"})
	resp, err := search(t, ws)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Queries) != 1 || resp.Queries[0] != "go readability library" {
		t.Errorf("queries = %q", resp.Queries)
	}
	want := []llm.WebSearchResult{
		{Title: "readability package - Go Packages", URL: "https://pkg.go.dev/codeberg.org/readeck/go-readability/v2", PageAge: "March 4, 2025",
			Snippet: "Package readability is a Go package that find the main readable content from a HTML page."},
		{Title: "mozilla/readability", URL: "https://github.com/mozilla/readability"},
	}
	if len(resp.Results) != 2 || resp.Results[0] != want[0] || resp.Results[1] != want[1] {
		t.Errorf("results = %+v", resp.Results)
	}
	if !strings.Contains(resp.Text, "Readability extracts") || resp.Model != "claude-sonnet-4-5" || resp.Usage.OutputTokens == 0 {
		t.Errorf("text %q model %q usage %+v", resp.Text, resp.Model, resp.Usage)
	}
	reqs := srv.ChatRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Get("tools.0.type") != "web_search_20250305" || r.Get("tools.0.name") != "web_search" || r.Get("tools.0.max_uses") != float64(1) {
		t.Errorf("tools = %v", r.Body["tools"])
	}
	if r.Get("messages.0.content.0.text") != "go readability library" || r.Body["stream"] == true {
		t.Errorf("request = %s", r.Raw)
	}

	t.Run("server error code", func(t *testing.T) {
		t.Parallel()
		srv := llmtest.NewServer(t, llmtest.Turn{WebSearches: []llmtest.WebSearch{{Query: "q", ErrorCode: "too_many_requests"}}})
		_, err := search(t, webSearcher(t, llm.Config{Preset: "anthropic", BaseURL: srv.URL, Model: "claude-haiku-4-5"}))
		if err == nil || !strings.Contains(err.Error(), "too_many_requests") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("HTTP error", func(t *testing.T) {
		t.Parallel()
		srv := llmtest.NewServer(t, llmtest.Turn{Status: 400, ErrorMessage: "web search is not enabled for your organization"})
		_, err := search(t, webSearcher(t, llm.Config{Preset: "anthropic", BaseURL: srv.URL, Model: "claude-haiku-4-5"}))
		if err == nil || !strings.Contains(err.Error(), "not enabled") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("the streamed loop ignores server tool blocks", func(t *testing.T) {
		t.Parallel()
		srv := llmtest.NewServer(t, scriptedSearch)
		p, err := llm.New(llm.Config{Preset: "anthropic", BaseURL: srv.URL, Model: "claude-sonnet-4-5"})
		if err != nil {
			t.Fatal(err)
		}
		resp, rec, err := stream(t, p, hello)
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.ToolCalls) != 0 || len(rec.of(llm.EventToolCallDelta)) != 0 || resp.Text != scriptedSearch.Text {
			t.Errorf("server tool blocks leaked into the answer: %+v", resp)
		}
	})
}

func TestOpenAIWebSearch(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, scriptedSearch)
	ws := webSearcher(t, llm.Config{Preset: "openai", BaseURL: srv.URL, APIKey: "sk-test", Model: "gpt-4.1"})
	resp, err := search(t, ws)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Results) != 2 {
		t.Fatalf("results = %+v", resp.Results)
	}
	first := resp.Results[0]
	if first.URL != "https://pkg.go.dev/codeberg.org/readeck/go-readability/v2" || first.Title != "readability package - Go Packages" ||
		first.Snippet != "Package readability is a Go package that find the main readable content from a HTML page." {
		t.Errorf("first = %+v", first)
	}
	if resp.Results[1].URL != "https://github.com/mozilla/readability" {
		t.Errorf("second = %+v", resp.Results[1])
	}
	if len(resp.Queries) != 1 || resp.Queries[0] != "go readability library" || resp.Tool != "web_search" {
		t.Errorf("queries %q tool %q", resp.Queries, resp.Tool)
	}
	reqs := srv.ChatRequests()
	if len(reqs) != 1 || reqs[0].Format() != "responses" {
		t.Fatalf("requests = %+v", reqs)
	}
	r := reqs[0]
	if r.Get("tools.0.type") != "web_search" || r.Get("include.0") != "web_search_call.action.sources" ||
		r.Get("input") != "go readability library" || r.Get("model") != "gpt-4.1" || r.Get("store") != false {
		t.Errorf("request = %s", r.Raw)
	}

	t.Run("xAI: the same Responses call without OpenAI's include", func(t *testing.T) {
		t.Parallel()
		srv := llmtest.NewServer(t, scriptedSearch)
		resp, err := search(t, webSearcher(t, llm.Config{Preset: "xai", BaseURL: srv.URL, APIKey: "xai-test", Model: "grok-4"}))
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Results) != 2 || resp.Results[0].Title != "readability package - Go Packages" {
			t.Errorf("results = %+v", resp.Results)
		}
		reqs := srv.ChatRequests()
		if len(reqs) != 1 || reqs[0].Format() != "responses" || reqs[0].Get("tools.0.type") != "web_search" ||
			reqs[0].Get("include") != nil || reqs[0].Get("model") != "grok-4" {
			t.Fatalf("requests = %+v", reqs)
		}
	})
	t.Run("failed search call", func(t *testing.T) {
		t.Parallel()
		srv := llmtest.NewServer(t, llmtest.Turn{WebSearches: []llmtest.WebSearch{{Query: "q", ErrorCode: "failed"}}})
		_, err := search(t, webSearcher(t, llm.Config{Preset: "openai", BaseURL: srv.URL, Model: "gpt-5"}))
		if err == nil || !strings.Contains(err.Error(), "failed") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestWebSearchEligibility(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		cfg    llm.Config
		reason string // "" when eligible
	}{
		{"anthropic claude 4.5", llm.Config{Preset: "anthropic", Model: "claude-sonnet-4-5"}, ""},
		{"anthropic old claude 3 haiku", llm.Config{Preset: "anthropic", Model: "claude-3-haiku-20240307"}, "does not support"},
		{"anthropic-compatible proxy", llm.Config{Preset: "custom", Kind: llm.KindAnthropic, BaseURL: "http://127.0.0.1:9/", Model: "claude-sonnet-4-5"}, "custom Anthropic-compatible"},
		{"openai gpt-4.1", llm.Config{Preset: "openai", Model: "gpt-4.1"}, ""},
		{"openai gpt-5-mini", llm.Config{Preset: "openai", Model: "gpt-5-mini"}, ""},
		{"openai gpt-4.1-nano", llm.Config{Preset: "openai", Model: "gpt-4.1-nano"}, "does not support"},
		{"openai gpt-3.5", llm.Config{Preset: "openai", Model: "gpt-3.5-turbo"}, "not known to support"},
		{"gemini 2.5", llm.Config{Preset: "gemini", Model: "gemini-2.5-pro"}, ""},
		{"gemini 1.5", llm.Config{Preset: "gemini", Model: "gemini-1.5-pro"}, "does not ground"},
		{"gemini behind a proxy", llm.Config{Preset: "custom", BaseURL: "http://127.0.0.1:9/v1", Model: "gemini-2.5-pro"}, "no native web search"},
		{"xai grok-4", llm.Config{Preset: "xai", Model: "grok-4"}, ""},
		{"xai grok-4.1-fast", llm.Config{Preset: "xai", Model: "grok-4.1-fast"}, ""},
		{"xai grok-3-mini", llm.Config{Preset: "xai", Model: "grok-3-mini"}, "Grok 4 and later"},
		{"xai grok-code-fast", llm.Config{Preset: "xai", Model: "grok-code-fast-1"}, "Grok 4 and later"},
		{"ollama", llm.Config{Preset: "ollama", Model: "qwen3"}, "local models"},
		{"openrouter", llm.Config{Preset: "openrouter", Model: "openai/gpt-5"}, "no native web search"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := webSearcher(t, tc.cfg)
			err := ws.SupportsWebSearch("")
			if tc.reason == "" {
				if err != nil {
					t.Fatalf("want eligible, got %v", err)
				}
				return
			}
			var inel *llm.IneligibleError
			if !errors.As(err, &inel) || !strings.Contains(inel.Reason, tc.reason) {
				t.Fatalf("want ineligible with %q, got %v", tc.reason, err)
			}
		})
	}
}
