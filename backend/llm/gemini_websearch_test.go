package llm_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"tinyelf/backend/llm"
)

// geminiGrounded is a generateContent answer grounded with Google Search,
// in the shape Gemini's API documents: the sources are redirect URLs with
// the site's name as the title, the supports tie answer text to them.
const geminiGrounded = `{
  "candidates": [{
    "content": {"role": "model", "parts": [{"text": "go-readability extracts the main content of a page. "}, {"text": "Mozilla's Readability is the original."}]},
    "finishReason": "STOP",
    "groundingMetadata": {
      "webSearchQueries": ["go readability library"],
      "searchEntryPoint": {"renderedContent": "<style></style><div>…</div>"},
      "groundingChunks": [
        {"web": {"uri": "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AAA", "title": "pkg.go.dev"}},
        {"web": {"uri": "https://vertexaisearch.cloud.google.com/grounding-api-redirect/BBB", "title": "github.com"}},
        {"web": {"uri": "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AAA", "title": "pkg.go.dev"}}
      ],
      "groundingSupports": [
        {"segment": {"startIndex": 0, "endIndex": 51, "text": "go-readability extracts the main content of a page."}, "groundingChunkIndices": [0, 2]},
        {"segment": {"startIndex": 52, "endIndex": 89, "text": "Mozilla's Readability is the original."}, "groundingChunkIndices": [1]}
      ]
    }
  }],
  "usageMetadata": {"promptTokenCount": 40, "candidatesTokenCount": 30, "totalTokenCount": 70},
  "modelVersion": "gemini-2.5-flash"
}`

// fakeGemini answers generateContent at /v1beta/models/M:generateContent
// with answer and status, recording each request's path, key and body.
type fakeGemini struct {
	mu     sync.Mutex
	paths  []string
	keys   []string
	bodies []map[string]any
}

func newFakeGemini(t *testing.T, status int, answer string) (*fakeGemini, string) {
	t.Helper()
	f := &fakeGemini{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(b, &body)
		f.mu.Lock()
		f.paths = append(f.paths, r.Method+" "+r.URL.Path)
		f.keys = append(f.keys, r.Header.Get("x-goog-api-key"))
		f.bodies = append(f.bodies, body)
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, answer)
	}))
	t.Cleanup(srv.Close)
	return f, srv.URL + "/v1beta/openai/"
}

func TestGeminiWebSearch(t *testing.T) {
	t.Parallel()
	f, base := newFakeGemini(t, 200, geminiGrounded)
	ws := webSearcher(t, llm.Config{Preset: "gemini", BaseURL: base, APIKey: "AIza-test", Model: "gemini-2.5-flash"})
	if err := ws.SupportsWebSearch(""); err != nil {
		t.Fatalf("gemini-2.5-flash ineligible: %v", err)
	}
	resp, err := search(t, ws)
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.WebSearchResult{
		{Title: "pkg.go.dev", URL: "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AAA", Snippet: "go-readability extracts the main content of a page."},
		{Title: "github.com", URL: "https://vertexaisearch.cloud.google.com/grounding-api-redirect/BBB", Snippet: "Mozilla's Readability is the original."},
	}
	if len(resp.Results) != 2 || resp.Results[0] != want[0] || resp.Results[1] != want[1] {
		t.Errorf("results = %+v", resp.Results)
	}
	if resp.Tool != "google_search" || len(resp.Queries) != 1 || resp.Queries[0] != "go readability library" ||
		resp.Model != "gemini-2.5-flash" || resp.Usage.InputTokens != 40 || resp.Usage.OutputTokens != 30 ||
		!strings.HasPrefix(resp.Text, "go-readability extracts") {
		t.Errorf("response = %+v", resp)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.paths) != 1 || f.paths[0] != "POST /v1beta/models/gemini-2.5-flash:generateContent" || f.keys[0] != "AIza-test" {
		t.Fatalf("requests = %q keys %q", f.paths, f.keys)
	}
	body := f.bodies[0]
	tools, _ := body["tools"].([]any)
	if len(tools) != 1 || tools[0].(map[string]any)["google_search"] == nil {
		t.Errorf("tools = %v", body["tools"])
	}
	if !strings.Contains(mustJSON(body["contents"]), "go readability library") || body["systemInstruction"] == nil {
		t.Errorf("body = %v", body)
	}
}

func TestGeminiWebSearchErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		status int
		answer string
		want   string
	}{
		{"bad key", 400, `[{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}]`, "API key not valid"},
		{"quota", 429, `{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}`, "exhausted"},
		{"blocked prompt", 200, `{"promptFeedback":{"blockReason":"SAFETY"}}`, "SAFETY"},
		{"no candidates", 200, `{"candidates":[]}`, "no answer"},
		{"not JSON", 200, `<html>proxy error</html>`, "not Gemini's JSON"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, base := newFakeGemini(t, tc.status, tc.answer)
			_, err := search(t, webSearcher(t, llm.Config{Preset: "gemini", BaseURL: base, APIKey: "k", Model: "gemini-2.5-pro"}))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	t.Run("an answer without sources is an empty search, not an error", func(t *testing.T) {
		t.Parallel()
		_, base := newFakeGemini(t, 200, `{"candidates":[{"content":{"parts":[{"text":"I know this."}]},"finishReason":"STOP"}]}`)
		resp, err := search(t, webSearcher(t, llm.Config{Preset: "gemini", BaseURL: base, Model: "gemini-2.5-pro"}))
		if err != nil || len(resp.Results) != 0 || resp.Text != "I know this." {
			t.Fatalf("resp %+v err %v", resp, err)
		}
	})
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
