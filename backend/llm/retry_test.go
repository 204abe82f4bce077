package llm_test

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"tinyelf/backend/llm"
	"tinyelf/backend/llm/llmtest"
)

func TestRetryThenSuccess(t *testing.T) {
	t.Parallel()
	ok := llmtest.Turn{Text: "recovered"}
	tests := []struct {
		name    string
		failure llmtest.Turn
		delay   time.Duration // the wait announced; 0: any backoff
	}{
		{"429 with retry-after-ms", llmtest.Turn{Status: 429, Header: map[string]string{"retry-after-ms": "30"}}, 30 * time.Millisecond},
		{"429 with Retry-After seconds", llmtest.Turn{Status: 429, RetryAfter: "1"}, time.Second},
		{"500", llmtest.Turn{Status: 500}, 0},
		{"529 overloaded", llmtest.Turn{Status: 529, ErrorMessage: "Overloaded"}, 0},
		{"connection dropped before any output", llmtest.Turn{Text: "lost", CutAfter: -1}, 0},
		{"connection dropped before the answer", llmtest.Turn{Drop: true}, 0},
	}
	for _, w := range wires {
		for _, tc := range tests {
			t.Run(w.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				srv := llmtest.NewServer(t, tc.failure, ok)
				resp, rec, err := stream(t, newProvider(t, w, srv), hello)
				if err != nil {
					t.Fatalf("Stream: %v", err)
				}
				if resp.Text != "recovered" {
					t.Errorf("Text = %q, want the second answer", resp.Text)
				}
				if got := rec.text(); got != "recovered" {
					t.Errorf("streamed text = %q, want only the second answer's", got)
				}
				retries := rec.of(llm.EventRetry)
				if len(retries) != 1 {
					t.Fatalf("retry events = %+v, want 1", retries)
				}
				if retries[0].Err == "" {
					t.Errorf("retry event says nothing about why")
				}
				if tc.delay != 0 && retries[0].Delay != tc.delay {
					t.Errorf("retry delay = %v, want the server's %v", retries[0].Delay, tc.delay)
				}
				if tc.delay == 0 && (retries[0].Delay <= 0 || retries[0].Delay > fastRetry.MaxDelay) {
					t.Errorf("retry delay = %v, want a backoff within (0, %v]", retries[0].Delay, fastRetry.MaxDelay)
				}
				if n := len(srv.ChatRequests()); n != 2 {
					t.Errorf("made %d requests, want 2", n)
				}
			})
		}
	}
}

func TestErrorsAreClear(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		turn     llmtest.Turn
		noKey    bool
		status   int
		message  string   // in APIError.Message
		hint     []string // in APIError.Hint
		attempts int
	}{
		{
			name: "401 bad key", turn: llmtest.Turn{Status: 401, ErrorMessage: "Incorrect API key provided"},
			status: 401, message: "Incorrect API key provided", hint: []string{"API key", "Settings"}, attempts: 1,
		},
		{
			name: "401 without a key", turn: llmtest.Turn{Status: 401}, noKey: true,
			status: 401, hint: []string{"no API key", "Settings"}, attempts: 1,
		},
		{
			name: "403", turn: llmtest.Turn{Status: 403, ErrorMessage: "forbidden"},
			status: 403, hint: []string{"API key", "Settings"}, attempts: 1,
		},
		{
			name: "404 unknown model", turn: llmtest.Turn{Status: 404, ErrorMessage: "model not found"},
			status: 404, message: "model not found", hint: []string{"unknown model", "base URL"}, attempts: 1,
		},
		{
			name: "400 passes the API's message", turn: llmtest.Turn{Status: 400, ErrorMessage: "messages.1: tool_use ids must be unique"},
			status: 400, message: "messages.1: tool_use ids must be unique", attempts: 1,
		},
		{
			name: "400 with a body of another shape", turn: llmtest.Turn{Status: 400, Body: `{"error":"context length exceeded"}`},
			status: 400, message: "context length exceeded", attempts: 1,
		},
		{
			name: "404 with a plain text body", turn: llmtest.Turn{Status: 404, Body: "404 page not found"},
			status: 404, message: "404 page not found", hint: []string{"base URL"}, attempts: 1,
		},
		{
			name: "503 until the attempts run out", turn: llmtest.Turn{Status: 503},
			status: 503, hint: []string{"try again later"}, attempts: 4,
		},
		{
			name: "429 asking for a wait beyond MaxDelay is not retried", turn: llmtest.Turn{Status: 429, RetryAfter: "3600"},
			status: 429, hint: []string{"rate limited"}, attempts: 1,
		},
	}
	for _, w := range wires {
		for _, tc := range tests {
			t.Run(w.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				srv := llmtest.NewServer(t)
				srv.SetDefault(tc.turn)
				p := newProvider(t, w, srv, func(c *llm.Config) {
					if tc.noKey {
						c.APIKey = ""
					}
				})
				resp, rec, err := stream(t, p, hello)
				var apiErr *llm.APIError
				if !errors.As(err, &apiErr) {
					t.Fatalf("err = %v (%T), want an *llm.APIError", err, err)
				}
				if resp != nil {
					t.Errorf("resp = %+v, want nil with an API error", resp)
				}
				if apiErr.Status != tc.status {
					t.Errorf("Status = %d, want %d", apiErr.Status, tc.status)
				}
				if !strings.Contains(apiErr.Message, tc.message) {
					t.Errorf("Message = %q, want it to contain %q", apiErr.Message, tc.message)
				}
				for _, h := range tc.hint {
					if !strings.Contains(apiErr.Hint, h) {
						t.Errorf("Hint = %q, want it to mention %q", apiErr.Hint, h)
					}
				}
				if n := len(srv.ChatRequests()); n != tc.attempts {
					t.Errorf("made %d requests, want %d", n, tc.attempts)
				}
				if n := len(rec.of(llm.EventRetry)); n != tc.attempts-1 {
					t.Errorf("saw %d retry events, want %d", n, tc.attempts-1)
				}
			})
		}
	}
}

func TestConnectionRefused(t *testing.T) {
	t.Parallel()
	// A port that was free a moment ago: nothing listens there now.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()

	tests := []struct {
		name string
		cfg  llm.Config
		want []string
	}{
		{"ollama", llm.Config{Preset: "ollama", BaseURL: "http://" + addr + "/v1", Model: "llama3.1"},
			[]string{"cannot reach http://" + addr + "/v1", "connection refused", "is Ollama running?"}},
		{"custom openai", llm.Config{Preset: "custom", BaseURL: "http://" + addr + "/v1", Model: "m"},
			[]string{"cannot reach http://" + addr + "/v1", "connection refused"}},
		{"anthropic", llm.Config{Kind: llm.KindAnthropic, BaseURL: "http://" + addr, Model: "claude-fake"},
			[]string{"cannot reach http://" + addr, "connection refused"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := llm.New(tc.cfg, llm.WithRetryPolicy(fastRetry))
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, rec, err := stream(t, p, hello)
			var connErr *llm.ConnError
			if !errors.As(err, &connErr) {
				t.Fatalf("err = %v (%T), want an *llm.ConnError", err, err)
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if n := len(rec.of(llm.EventRetry)); n != 0 {
				t.Errorf("retried a refused connection %d times, want no retry", n)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %v to report a refused connection", d)
			}
			if _, err := p.Models(t.Context()); !errors.As(err, &connErr) {
				t.Errorf("Models err = %v, want an *llm.ConnError", err)
			}
		})
	}
}

func TestModelsErrors(t *testing.T) {
	t.Parallel()
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t)
			p := newProvider(t, w, srv, func(c *llm.Config) { c.BaseURL = srv.URL + "/nowhere" })
			_, err := p.Models(t.Context())
			var apiErr *llm.APIError
			if !errors.As(err, &apiErr) || apiErr.Status != 404 || !strings.Contains(apiErr.Hint, "base URL") {
				t.Errorf("err = %v, want a 404 *llm.APIError with a base URL hint", err)
			}
		})
	}
}

func TestNotAModelServer(t *testing.T) {
	t.Parallel()
	// A web server that answers every path with a page.
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<html>hello</html>")
	}))
	t.Cleanup(page.Close)
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			p, err := llm.New(w.cfg(page.URL+"/v1"), llm.WithRetryPolicy(fastRetry))
			if err != nil {
				t.Fatal(err)
			}
			_, rec, err := stream(t, p, hello)
			if err == nil || !strings.Contains(err.Error(), "not a stream") || !strings.Contains(err.Error(), "base URL") {
				t.Errorf("err = %v, want one saying the base URL does not serve a stream", err)
			}
			if n := len(rec.of(llm.EventRetry)); n != 0 {
				t.Errorf("retried %d times, want none", n)
			}
		})
	}
}
