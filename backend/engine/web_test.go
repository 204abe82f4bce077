package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"tinyelf/backend/config"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
)

// withEnv gives the engine an environment.
func withEnv(env map[string]string) harnessOption {
	return func(h *harness, o *Options) { o.Getenv = func(k string) string { return env[k] } }
}

var allowLocalEnv = withEnv(map[string]string{config.EnvWebAllowLocal: "1"})

// longPage serves an article of about 14 KB on loopback.
func longPage(t *testing.T) *httptest.Server {
	t.Helper()
	var b strings.Builder
	b.WriteString("<html><head><title>Bike lanes</title></head><body><article><h1>Bike lanes</h1>")
	for i := range 100 {
		fmt.Fprintf(&b, "<p>Paragraph %d: the council approved protected bike lanes; parking spaces and bus routes change too.</p>", i)
	}
	b.WriteString("</article></body></html>")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(b.String()))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func toolResults(h *harness, id string) []sessions.ToolResult {
	return logged[sessions.ToolResult](h, id, sessions.EventToolResult)
}

func TestWebFetchSummaryThroughBackgroundModel(t *testing.T) {
	t.Parallel()
	page := longPage(t)
	for _, kind := range wireFormats {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			args := fmt.Sprintf(`{"url":%q,"prompt":"How many parking spaces go?"}`, page.URL+"/news")
			h := newHarness(t, kind, []llmtest.Turn{
				{ToolCalls: []llmtest.ToolCall{call("c1", "WebFetch", args)}},
				{Text: "SUMMARY: 340 parking spaces go."}, // the background model's summary
				{Text: "340 spaces."},
			}, allowLocalEnv)
			if err := h.settings.Update(func(s *config.Settings) error {
				s.Agents = []config.Agent{{Name: "default", BackgroundModel: "bg-model"}}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			id := h.session(ModeDefault)
			if res := h.run(id, "what changes?"); res.Reason != EndDone {
				t.Fatalf("turn: %+v", res)
			}
			reqs := h.srv.ChatRequests()
			if len(reqs) != 3 {
				t.Fatalf("%d model requests, want 3", len(reqs))
			}
			bg := reqs[1]
			if bg.Body["model"] != "bg-model" {
				t.Errorf("summary ran on %v, want the background model", bg.Body["model"])
			}
			mustContain(t, "the summary request", requestText(bg), "How many parking spaces go?", "Paragraph 99", "page_text")
			if reqs[0].Body["model"] != "test-model" || reqs[2].Body["model"] != "test-model" {
				t.Errorf("the session's calls must stay on its model")
			}
			results := toolResults(h, id)
			if len(results) != 1 {
				t.Fatalf("results = %+v", results)
			}
			mustContain(t, "the tool result", results[0].Content, "SUMMARY: 340 parking spaces go.", "summary by fake/bg-model", "untrusted")
			mustContain(t, "what the model saw next", requestText(reqs[2]), "SUMMARY: 340 parking spaces go.")
			// The local page was asked about, with the reason on the card.
			h.mu.Lock()
			asked := h.asked
			h.mu.Unlock()
			if len(asked) != 1 || asked[0].Tool != "WebFetch" || len(asked[0].Warnings) == 0 || !strings.Contains(asked[0].Warnings[0], "loopback") {
				t.Errorf("approvals = %+v", asked)
			}
			usage := logged[sessions.Usage](h, id, sessions.EventUsage)
			found := false
			for _, u := range usage {
				found = found || u.Model == "bg-model"
			}
			if !found {
				t.Errorf("the background call's usage was not logged: %+v", usage)
			}
		})
	}

	t.Run("raw skips the background model", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, "openai", []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("c1", "WebFetch", fmt.Sprintf(`{"url":%q,"raw":true}`, page.URL))}},
			{Text: "done"},
		}, allowLocalEnv)
		id := h.session(ModeDefault)
		h.run(id, "fetch it")
		if n := len(h.srv.ChatRequests()); n != 2 {
			t.Fatalf("%d model requests, want 2 (no summary call)", n)
		}
		mustContain(t, "the tool result", toolResults(h, id)[0].Content, "Paragraph 99")
	})
}

func TestWebFetchLocalApproval(t *testing.T) {
	t.Parallel()
	page := longPage(t)
	args := fmt.Sprintf(`{"url":%q,"raw":true}`, page.URL)
	tests := []struct {
		name     string
		mode     Mode
		opts     []harnessOption
		asked    bool
		refused  string
		answered Decision
	}{
		{name: "acceptEdits still asks", mode: ModeAcceptEdits, opts: []harnessOption{allowLocalEnv}, asked: true, answered: AllowOnce},
		{name: "denied", mode: ModeDefault, opts: []harnessOption{allowLocalEnv}, asked: true, answered: Deny, refused: "denied"},
		{name: "auto mode does not ask", mode: ModeAuto, opts: []harnessOption{allowLocalEnv}},
		{name: "not allowed: refused without asking", mode: ModeDefault, refused: "Settings → Web"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			opts := append(tc.opts, withApprover(func(ApprovalRequest) ApprovalAnswer {
				if tc.answered == "" {
					return ApprovalAnswer{Decision: AllowOnce}
				}
				return ApprovalAnswer{Decision: tc.answered}
			}))
			h := newHarness(t, "anthropic", []llmtest.Turn{{ToolCalls: []llmtest.ToolCall{call("c1", "WebFetch", args)}}, {Text: "ok"}}, opts...)
			id := h.session(tc.mode)
			h.run(id, "fetch")
			h.mu.Lock()
			asked := len(h.asked) > 0
			h.mu.Unlock()
			if asked != tc.asked {
				t.Errorf("asked = %v, want %v", asked, tc.asked)
			}
			res := toolResults(h, id)[0]
			if tc.refused != "" {
				if !res.IsError || !strings.Contains(res.Content, tc.refused) || strings.Contains(res.Content, "Paragraph 99") {
					t.Fatalf("want refusal %q, got %s", tc.refused, res.Content)
				}
				return
			}
			if res.IsError || !strings.Contains(res.Content, "Paragraph 99") {
				t.Fatalf("got %s", res.Content)
			}
		})
	}
}

func TestWebSearchNativeThroughEngine(t *testing.T) {
	t.Parallel()
	search := llmtest.Turn{Text: "Found it.", WebSearches: []llmtest.WebSearch{{Query: "tinyelf", Results: []llmtest.WebSearchResult{
		{Title: "TinyElf docs", URL: "https://docs.example.org/tinyelf", PageAge: "1 day ago", Snippet: "TinyElf is a desktop agent."},
	}}}}
	for _, tc := range []struct{ kind, preset, model, label string }{
		{"anthropic", "anthropic", "claude-sonnet-4-5", "fake web_search_20250305"},
		{"openai", "openai", "gpt-4.1", "fake web_search"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, tc.kind, []llmtest.Turn{
				{ToolCalls: []llmtest.ToolCall{call("c1", "WebSearch", `{"query":"tinyelf","count":3}`)}},
				search,
				{Text: "TinyElf is a desktop agent."},
			})
			if err := h.settings.Update(func(s *config.Settings) error {
				s.Providers[0].Preset, s.Providers[0].Model = tc.preset, tc.model
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			id := h.session(ModeDefault)
			h.run(id, "search")
			reqs := h.srv.ChatRequests()
			if len(reqs) != 3 {
				t.Fatalf("%d requests", len(reqs))
			}
			if got := reqs[1].Get("tools.0.type"); got != "web_search_20250305" && got != "web_search" {
				t.Errorf("the search call offered %v", got)
			}
			if tc.kind == "openai" && reqs[1].Format() != "responses" {
				t.Errorf("OpenAI search went to %s", reqs[1].Path)
			}
			res := toolResults(h, id)[0]
			mustContain(t, "the WebSearch card", res.Content, "TinyElf docs", "https://docs.example.org/tinyelf", "TinyElf is a desktop agent.", tc.label+" (native): success")
			if tc.kind == "anthropic" {
				mustContain(t, "the WebSearch card", res.Content, "Date: 1 day ago")
			}
			if res.Meta["stage"] != "native" || res.Meta["provider"] != tc.label {
				t.Errorf("meta = %v", res.Meta)
			}
		})
	}
}

// TestWebSearchKeysNeverLogged: a provider that echoes its key back in an
// error leaves no trace of it in events, the log or an export.
func TestWebSearchKeysNeverLogged(t *testing.T) {
	t.Parallel()
	const key = "tvly-SUPERSECRET-0123456789"
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(401)
		fmt.Fprintf(w, `{"detail":{"error":"invalid key %s (sent as %s)"}}`, key, r.Header.Get("Authorization"))
	}))
	t.Cleanup(echo.Close)
	h := newHarness(t, "openai", []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{call("c1", "WebSearch", `{"query":"anything"}`)}},
		{Text: "no luck"},
	}, withEnv(map[string]string{"TAVILY_API_KEY": key}))
	if err := h.settings.Update(func(s *config.Settings) error {
		s.Web.Order = []string{"tavily"}
		s.Web.Search = map[string]config.WebSearchProvider{
			"tavily":     {URL: echo.URL},
			"duckduckgo": {Disabled: true},
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	id := h.session(ModeDefault)
	h.run(id, "search")
	res := toolResults(h, id)[0]
	mustContain(t, "the result", res.Content, "tavily (service): failed: HTTP 401", "[redacted]", "Web search is unavailable")

	var all bytes.Buffer
	h.mu.Lock()
	for _, ev := range h.events {
		all.Write(ev.Data)
	}
	h.mu.Unlock()
	for ev, err := range h.store.Events(context.Background(), id, 1, 0) {
		if err != nil {
			t.Fatal(err)
		}
		all.Write(ev.Data)
	}
	if err := h.store.ExportJSON(context.Background(), id, &all); err != nil {
		t.Fatal(err)
	}
	if err := h.store.ExportMarkdown(context.Background(), id, &all); err != nil {
		t.Fatal(err)
	}
	for _, r := range h.srv.ChatRequests() {
		all.Write(r.Raw)
	}
	if bytes.Contains(all.Bytes(), []byte(key)) || bytes.Contains(all.Bytes(), []byte("SUPERSECRET")) {
		t.Fatal("the search key appears in events, the log, an export or what the model was sent")
	}
	var meta map[string]any
	if b, _ := json.Marshal(res.Meta); json.Unmarshal(b, &meta) != nil {
		t.Fatal("meta does not marshal")
	}
}
