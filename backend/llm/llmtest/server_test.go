package llmtest_test

import (
	"errors"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"tinyelf/backend/llm/llmtest"
	"tinyelf/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// post sends a raw chat request and returns the status and body.
func post(t *testing.T, url, body string, header map[string]string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatal(err)
	}
	return res.StatusCode, res.Header, string(b)
}

var created = regexp.MustCompile(`"created":\d+`)

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	got = created.ReplaceAllString(got, `"created":0`)
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// turn is a script with text, two calls and usage.
var turn = llmtest.Turn{
	Text: "Let me look.",
	ToolCalls: []llmtest.ToolCall{
		{ID: "call_1", Name: "read", Arguments: `{"path":"README.md"}`},
		{ID: "call_2", Name: "glob", ArgChunks: []string{`{"pattern":`, `"*.go"}`}},
	},
	Usage: &llmtest.Usage{Input: 120, Output: 30, CacheRead: 100, CacheWrite: 20},
}

func TestWireFormats(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, path, body, golden string
		header                   map[string]string
	}{
		{"openai with usage", "/v1/chat/completions", `{"model":"gpt-x","stream":true,"stream_options":{"include_usage":true},"messages":[]}`, "openai_usage.sse", nil},
		{"openai without usage", "/chat/completions", `{"model":"gpt-x","stream":true,"messages":[]}`, "openai.sse", nil},
		{"anthropic", "/v1/messages", `{"model":"claude-x","stream":true,"max_tokens":10,"messages":[]}`, "anthropic.sse", map[string]string{"anthropic-version": "2023-06-01"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, turn)
			status, h, body := post(t, strings.TrimSuffix(srv.URL, "/v1")+tc.path, tc.body, tc.header)
			if status != 200 || h.Get("Content-Type") != "text/event-stream" {
				t.Fatalf("status %d, Content-Type %q, want 200 text/event-stream", status, h.Get("Content-Type"))
			}
			golden(t, tc.golden, body)
		})
	}
}

func TestErrorsAndScriptEnd(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t,
		llmtest.Turn{Status: 429, RetryAfter: "2", Header: map[string]string{"retry-after-ms": "2000"}},
		llmtest.Turn{Status: 400, Body: `{"error":"raw"}`},
	)
	openai := srv.URL + "/chat/completions"
	body := `{"model":"m","stream":true,"messages":[]}`

	status, h, got := post(t, openai, body, nil)
	if status != 429 || h.Get("Retry-After") != "2" || h.Get("Retry-After-Ms") != "2000" {
		t.Errorf("got %d with Retry-After %q / ms %q, want 429 with both headers", status, h.Get("Retry-After"), h.Get("Retry-After-Ms"))
	}
	if !strings.Contains(got, `"message":"Too Many Requests"`) {
		t.Errorf("429 body = %s, want an OpenAI error body", got)
	}
	if status, _, got = post(t, openai, body, nil); status != 400 || strings.TrimSpace(got) != `{"error":"raw"}` {
		t.Errorf("got %d %s, want the raw 400 body", status, got)
	}
	status, _, got = post(t, srv.URL+"/messages", body, nil)
	if status != 500 || !strings.Contains(got, llmtest.NoTurnLeft) || !strings.Contains(got, `"type":"error"`) {
		t.Errorf("got %d %s, want a 500 Anthropic error saying %q", status, got, llmtest.NoTurnLeft)
	}
	if status, _, _ = post(t, srv.URL+"/completions", body, nil); status != 404 {
		t.Errorf("unknown path answered %d, want 404", status)
	}
	if n := len(srv.Requests()); n != 4 {
		t.Errorf("recorded %d requests, want 4", n)
	}
}

func TestCutDropsTheConnection(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Turn{Chunks: []string{"a", "b", "c"}, CutAfter: 2})
	_, _, got := post(t, srv.URL+"/chat/completions", `{"model":"m","stream":true}`, nil)
	if !strings.Contains(got, `"content":"b"`) || strings.Contains(got, `"content":"c"`) || strings.Contains(got, "[DONE]") {
		t.Errorf("cut stream = %s, want a and b only, no [DONE]", got)
	}
}

func TestDynamicEchoAndRecording(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Turn{Dynamic: func(r llmtest.Request) llmtest.Turn {
		return llmtest.Turn{Text: "model was " + r.Body["model"].(string)}
	}})
	srv.SetDefault(llmtest.Turn{Echo: true})

	_, _, got := post(t, srv.URL+"/chat/completions", `{"model":"m1","stream":true}`, nil)
	if !strings.Contains(got, `"content":"was "`) || !strings.Contains(got, `"content":"m1"`) {
		t.Errorf("dynamic turn = %s, want it to stream the request's model", got)
	}
	anthropic := `{"model":"m2","stream":true,"messages":[` +
		`{"role":"user","content":"first"},{"role":"assistant","content":"ok"},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x"},{"type":"text","text":"echo me"}]}]}`
	for range 2 { // the default repeats
		_, _, got = post(t, srv.URL+"/messages", anthropic, map[string]string{"X-Test": "yes"})
		if !strings.Contains(got, `"text":"echo "`) || !strings.Contains(got, `"text":"me"`) {
			t.Errorf("echo turn = %s, want the last user text", got)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("recorded %d requests, want 3", len(reqs))
	}
	r := reqs[1]
	if r.Method != "POST" || r.Path != "/v1/messages" || r.Format() != "anthropic" || r.Header.Get("X-Test") != "yes" {
		t.Errorf("recorded %s %s (%s) with X-Test %q", r.Method, r.Path, r.Format(), r.Header.Get("X-Test"))
	}
	if got := r.Get("messages.2.content.0.tool_use_id"); got != "t" {
		t.Errorf("Get(messages.2.content.0.tool_use_id) = %v, want t", got)
	}
	if got := r.Get("messages.9.role"); got != nil {
		t.Errorf("Get past the end = %v, want nil", got)
	}
	if r.LastUserText() != "echo me" {
		t.Errorf("LastUserText = %q, want %q", r.LastUserText(), "echo me")
	}
}

func TestHangEndsWithTheServer(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(llmtest.Turn{Text: "waiting", Hang: true})
	done := make(chan string, 1)
	seen := make(chan struct{}) // the client has read the text sent before the hang
	go func() {
		res, err := http.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(`{"model":"m","stream":true}`))
		if err != nil {
			close(seen)
			done <- err.Error()
			return
		}
		defer res.Body.Close()
		var got strings.Builder
		buf := make([]byte, 512)
		signalled := false
		for {
			n, err := res.Body.Read(buf)
			got.Write(buf[:n])
			if !signalled && strings.Contains(got.String(), "waiting") {
				signalled = true
				close(seen)
			}
			if err != nil {
				break
			}
		}
		if !signalled {
			close(seen)
		}
		done <- got.String()
	}()
	select {
	case <-seen:
	case <-time.After(10 * time.Second):
		t.Fatal("the text before the hang never arrived")
	}
	closed := make(chan struct{})
	go func() { srv.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(3 * time.Second):
		t.Fatal("Close blocked on a hanging stream")
	}
	if got := <-done; !strings.Contains(got, "waiting") {
		t.Errorf("client read %q, want the text sent before the hang", got)
	}
}

// TestPauseHoldsUntilResume: a PauseAfter turn stops after its deltas and
// goes on to the end once Resume is posted.
func TestPauseHoldsUntilResume(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Turn{Chunks: []string{"one ", "two ", "three"}, PauseAfter: 2})
	res, err := http.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(`{"model":"m","stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var mu sync.Mutex
	var got strings.Builder
	done := make(chan error, 1)
	go func() {
		buf := make([]byte, 512)
		for {
			n, err := res.Body.Read(buf)
			mu.Lock()
			got.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				done <- err
				return
			}
		}
	}()
	read := func() string {
		mu.Lock()
		defer mu.Unlock()
		return got.String()
	}
	testutil.WaitFor(t, "the stream pauses after two deltas", func() bool {
		return srv.Paused() == 1 && strings.Contains(read(), `"content":"two "`)
	})
	if s := read(); strings.Contains(s, "three") || strings.Contains(s, "[DONE]") {
		t.Fatalf("a paused stream sent more than its first two deltas:\n%s", s)
	}
	if status, _, _ := post(t, srv.URL+"/_llmtest/resume", "", nil); status != http.StatusNoContent {
		t.Fatalf("POST /_llmtest/resume = %d, want 204", status)
	}
	select {
	case err := <-done:
		if !errors.Is(err, io.EOF) {
			t.Fatalf("reading the resumed stream: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stream did not end after Resume")
	}
	if s := read(); !strings.Contains(s, `"content":"three"`) || !strings.Contains(s, "[DONE]") {
		t.Errorf("resumed stream = %s, want the rest and [DONE]", s)
	}
	if n := srv.Paused(); n != 0 {
		t.Errorf("Paused() = %d after the stream ended", n)
	}
}

// TestRoutesLeaveTheScriptAlone checks that a request whose system prompt
// a route names gets the route's answer, in both wire formats, however
// often it comes, while the script's turns still go to the other requests
// in order.
func TestRoutesLeaveTheScriptAlone(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Turn{Text: "first"}, llmtest.Turn{Text: "second"})
	srv.AddRoute(llmtest.Route{System: "You name chat sessions", Turn: llmtest.Turn{Text: "Greeting"}})
	base := strings.TrimSuffix(srv.URL, "/v1")
	anthropic := map[string]string{"anthropic-version": "2023-06-01"}
	titleOpenAI := `{"model":"m","stream":true,"messages":[{"role":"system","content":"You name chat sessions."},{"role":"user","content":"hi"}]}`
	titleAnthropic := `{"model":"m","stream":true,"max_tokens":9,"system":[{"type":"text","text":"You name chat sessions."}],"messages":[{"role":"user","content":"hi"}]}`
	chat := `{"model":"m","stream":true,"messages":[{"role":"system","content":"You are an agent."},{"role":"user","content":"hi"}]}`
	for i, step := range []struct {
		body   string
		header map[string]string
		want   string
	}{
		{titleOpenAI, nil, "Greeting"},
		{chat, nil, "first"},
		{titleAnthropic, anthropic, "Greeting"},
		{titleOpenAI, nil, "Greeting"},
		{chat, nil, "second"},
	} {
		path := "/v1/chat/completions"
		if step.header != nil {
			path = "/v1/messages"
		}
		status, _, body := post(t, base+path, step.body, step.header)
		if status != 200 || !strings.Contains(body, step.want) {
			t.Fatalf("request %d: status %d, body %q, want %q in it", i, status, body, step.want)
		}
	}
	if srv.Pending() != 0 {
		t.Errorf("%d scripted turns left, want 0", srv.Pending())
	}
	if got := srv.ChatRequests()[2].System(); got != "You name chat sessions." {
		t.Errorf("System() of the Anthropic request = %q", got)
	}
}

func TestParseScript(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		turns    int
		def      bool
		check    func(t *testing.T, s llmtest.Script)
	}{
		{"bare list", `[{"text":"hi","chunkDelayMs":25,"pauseAfter":1},{"status":429,"retryAfter":"1"}]`, 2, false, func(t *testing.T, s llmtest.Script) {
			if s.Turns[0].ChunkDelay != 25*time.Millisecond || s.Turns[0].PauseAfter != 1 || s.Turns[1].Status != 429 {
				t.Errorf("turns = %+v", s.Turns)
			}
		}},
		{"document", `{"turns":[{"toolCalls":[{"name":"read","arguments":"{}"}]}],"default":{"echo":true},"models":["a"],"routes":[{"system":"name","turn":{"text":"T","chunkDelayMs":5}}]}`, 1, true, func(t *testing.T, s llmtest.Script) {
			if s.Turns[0].ToolCalls[0].Name != "read" || !s.Default.Echo || s.Models[0] != "a" ||
				len(s.Routes) != 1 || s.Routes[0].System != "name" || s.Routes[0].Turn.Text != "T" || s.Routes[0].Turn.ChunkDelay != 5*time.Millisecond {
				t.Errorf("script = %+v", s)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := llmtest.ParseScript([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Turns) != tc.turns || (s.Default != nil) != tc.def {
				t.Fatalf("script = %+v, want %d turns, default %v", s, tc.turns, tc.def)
			}
			tc.check(t, s)
		})
	}
	if _, err := llmtest.ParseScript([]byte(`{"turns": 3}`)); err == nil {
		t.Errorf("ParseScript accepted a malformed script")
	}
}
