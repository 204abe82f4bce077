package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"tinyelf/backend/llm/llmtest"
)

func TestRunCommand(t *testing.T) {
	cliEnv(t)
	ws := t.TempDir()
	srv := llmtest.NewServer(t)
	base := []string{"run", "--workspace", ws, "--base-url", srv.URL, "--model", "test-model"}

	t.Run("text output streams the answer", func(t *testing.T) {
		srv.Push(llmtest.Turn{Text: "All good here."})
		code, stdout, stderr := runCLI(t, append(base, "-p", "how are things?")...)
		if code != 0 || !strings.Contains(stdout, "All good here.") || !strings.Contains(stderr, "tinyelf run --resume") {
			t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
		}
	})
	t.Run("default mode denies a write without --yes", func(t *testing.T) {
		srv.Push(llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "w", Name: "Write", Arguments: `{"path":"a.txt","content":"x"}`}}}, llmtest.Turn{Text: "Could not write."})
		code, _, stderr := runCLI(t, append(base, "-p", "write a.txt")...)
		if code != 0 || !strings.Contains(stderr, "[denied] Write") {
			t.Fatalf("exit %d stderr: %s", code, stderr)
		}
		if _, err := os.Stat(filepath.Join(ws, "a.txt")); err == nil {
			t.Fatal("the write ran without approval")
		}
		last := srv.ChatRequests()[len(srv.ChatRequests())-1]
		if b, _ := json.Marshal(last.Body); !strings.Contains(string(b), "non-interactive") {
			t.Error("the model was not told why")
		}
	})
	t.Run("--yes approves", func(t *testing.T) {
		srv.Push(llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "w", Name: "Write", Arguments: `{"path":"b.txt","content":"yes"}`}}}, llmtest.Turn{Text: "Done."})
		code, _, stderr := runCLI(t, append(base, "--yes", "-p", "write b.txt")...)
		if code != 0 || !strings.Contains(stderr, "[approved by --yes]") {
			t.Fatalf("exit %d stderr: %s", code, stderr)
		}
		if b, _ := os.ReadFile(filepath.Join(ws, "b.txt")); string(b) != "yes" {
			t.Fatalf("b.txt = %q", b)
		}
	})
	t.Run("stream-json prints one event per line", func(t *testing.T) {
		srv.Push(llmtest.Turn{Text: "streamed"})
		code, stdout, _ := runCLI(t, append(base, "--output", "stream-json", "-p", "stream please")...)
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		types := map[string]bool{}
		for _, l := range lines {
			var ev map[string]any
			if err := json.Unmarshal([]byte(l), &ev); err != nil {
				t.Fatalf("not JSON: %q", l)
			}
			types[ev["type"].(string)] = true
		}
		for _, want := range []string{"user.message", "message.delta", "assistant.message", "turn.end", "result"} {
			if !types[want] {
				t.Errorf("no %s line in %v", want, types)
			}
		}
	})
	t.Run("json prints one result", func(t *testing.T) {
		srv.Push(llmtest.Turn{Status: 401, ErrorMessage: "invalid api key"})
		code, stdout, _ := runCLI(t, append(base, "--output", "json", "-p", "fail please")...)
		var res map[string]any
		if err := json.Unmarshal([]byte(stdout), &res); err != nil {
			t.Fatalf("stdout %q", stdout)
		}
		if code != 1 || res["reason"] != "error" || !strings.Contains(res["error"].(string), "401") {
			t.Errorf("exit %d result %v", code, res)
		}
	})
	t.Run("resume continues a session", func(t *testing.T) {
		srv.Push(llmtest.Turn{Text: "first"})
		_, _, stderr := runCLI(t, append(base, "-p", "remember the word kiwi")...)
		id := stderr[strings.Index(stderr, "--resume ")+len("--resume ") : strings.Index(stderr, " -p ...")]
		srv.Push(llmtest.Turn{Echo: true})
		runCLI(t, "run", "--base-url", srv.URL, "--model", "test-model", "--resume", id, "-p", "what was the word?")
		last := srv.ChatRequests()[len(srv.ChatRequests())-1]
		if b, _ := json.Marshal(last.Body); !strings.Contains(string(b), "kiwi") {
			t.Error("the resumed session lost its history")
		}
	})
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no prompt", []string{"run"}, "no prompt"},
		{"bad output", []string{"run", "-p", "x", "--output", "xml"}, "unknown output format"},
		{"bad mode", []string{"run", "-p", "x", "--mode", "yolo"}, "unknown permission mode"},
		{"unknown resume", []string{"run", "-p", "x", "--resume", "nope"}, "cannot resume"},
		{"stray argument", []string{"run", "-p", "x", "extra"}, "unexpected argument"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tc.args...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d stderr %s", code, stderr)
			}
		})
	}
	t.Run("sessions list and show", func(t *testing.T) {
		code, stdout, _ := runCLI(t, "sessions", "list")
		if code != 0 || !strings.Contains(stdout, "remember the word kiwi") {
			t.Fatalf("list: %d %s", code, stdout)
		}
		id := strings.Fields(strings.Split(stdout, "\n")[1])[0]
		if code, out, _ := runCLI(t, "sessions", "show", id); code != 0 || !strings.Contains(out, "kiwi") {
			t.Errorf("show: %d %s", code, out)
		}
		if code, out, _ := runCLI(t, "sessions", "replay", id, "--upto", "3"); code != 0 || !strings.Contains(out, `"seq": 3`) {
			t.Errorf("replay: %d %s", code, out)
		}
		if code, out, _ := runCLI(t, "sessions", "search", "kiwi"); code != 0 || !strings.Contains(out, "[kiwi]") {
			t.Errorf("search: %d %s", code, out)
		}
		if code, _, _ := runCLI(t, "sessions", "show"); code != 2 {
			t.Errorf("show without ID: %d", code)
		}
	})
}

// TestRunBaseURL: --base-url sends the chosen provider's requests to the
// given address, whatever its wire format, and ANTHROPIC_BASE_URL is
// honoured. The scripted server sits behind a path prefix, as a gateway
// would, so a request that arrives proves the whole base URL was used.
func TestRunBaseURL(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		env    map[string]string
		format string
	}{
		{"--base-url alone speaks OpenAI", nil, nil, "openai"},
		{"--provider openai --base-url", []string{"--provider", "openai"}, nil, "openai"},
		{"--provider anthropic --base-url", []string{"--provider", "anthropic"}, nil, "anthropic"},
		{"--provider anthropic --base-url with ANTHROPIC_API_KEY set", []string{"--provider", "anthropic"}, map[string]string{"ANTHROPIC_API_KEY": "sk-ant-test"}, "anthropic"},
		{"ANTHROPIC_BASE_URL", nil, map[string]string{"ANTHROPIC_API_KEY": "sk-ant-test", "ANTHROPIC_BASE_URL": "GATEWAY"}, "anthropic"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cliEnv(t)
			srv := llmtest.NewServer(t, llmtest.Turn{Text: "through the gateway"})
			var hits []string
			var mu sync.Mutex
			gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				hits = append(hits, r.URL.Path)
				mu.Unlock()
				http.StripPrefix("/gateway", srv).ServeHTTP(w, r)
			}))
			t.Cleanup(gw.Close)
			args := []string{"run", "--workspace", t.TempDir(), "--model", "test-model", "-p", "hello"}
			if tc.env["ANTHROPIC_BASE_URL"] == "" {
				args = append(args, "--base-url", gw.URL+"/gateway")
			}
			args = append(args, tc.args...)
			for k, v := range tc.env {
				t.Setenv(k, strings.ReplaceAll(v, "GATEWAY", gw.URL+"/gateway"))
			}
			code, stdout, stderr := runCLI(t, args...)
			if code != 0 || !strings.Contains(stdout, "through the gateway") {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			reqs := srv.ChatRequests()
			if len(reqs) != 1 || reqs[0].Format() != tc.format {
				t.Fatalf("requests %+v, want one in the %s format", reqs, tc.format)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(hits) != 1 || !strings.HasPrefix(hits[0], "/gateway/") {
				t.Errorf("gateway saw %v, want one request under /gateway/", hits)
			}
		})
	}
}
