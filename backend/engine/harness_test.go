package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"tinyelf/backend/config"
	"tinyelf/backend/llm"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
)

// wireFormats are the provider kinds every loop scenario runs against.
var wireFormats = []string{llm.KindOpenAI, llm.KindAnthropic}

// harness is one engine wired to a real session store, a settings file and
// the llmtest fake provider, all in temp folders.
type harness struct {
	t         *testing.T
	kind      string
	srv       *llmtest.Server
	dir       string // data folder
	workspace string
	settings  *config.Store
	store     *sessions.Store
	engine    *Engine

	mu       sync.Mutex
	events   []Event
	approver func(ApprovalRequest) ApprovalAnswer
	asked    []ApprovalRequest
}

type harnessOption func(*harness, *Options)

// withApprover answers approvals with fn (and records them).
func withApprover(fn func(ApprovalRequest) ApprovalAnswer) harnessOption {
	return func(h *harness, o *Options) { h.approver = fn }
}

// interactive leaves approvals to Engine.Answer, as the desktop does.
func interactive() harnessOption {
	return func(h *harness, o *Options) { h.approver = nil; o.Approver = nil }
}

func newHarness(t *testing.T, kind string, turns []llmtest.Turn, opts ...harnessOption) *harness {
	t.Helper()
	h := &harness{t: t, kind: kind, srv: llmtest.NewServer(t, turns...), dir: t.TempDir()}
	h.workspace = filepath.Join(h.dir, "ws")
	if err := os.MkdirAll(h.workspace, 0o755); err != nil {
		t.Fatal(err)
	}
	var err error
	h.settings, err = config.OpenStore(filepath.Join(h.dir, config.SettingsFile))
	if err != nil {
		t.Fatal(err)
	}
	err = h.settings.Update(func(s *config.Settings) error {
		s.Providers = []config.Provider{{Name: "fake", Kind: kind, BaseURL: h.srv.URL, APIKey: "test-key", Model: "test-model"}}
		s.DefaultProvider = "fake"
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	h.store, err = sessions.Open(context.Background(), filepath.Join(h.dir, "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.store.Close() })
	h.approver = func(ApprovalRequest) ApprovalAnswer { return ApprovalAnswer{Decision: AllowOnce} }
	o := Options{
		Settings: h.settings,
		Log:      StoreLog{Store: h.store},
		Providers: func(p config.Provider) (llm.Provider, error) {
			return llm.New(ProviderConfig(p), llm.WithRetryPolicy(llm.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 20 * time.Millisecond}))
		},
		Sink:   h.sink,
		Getenv: func(string) string { return "" },
		Now:    func() time.Time { return time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC) },
	}
	o.Approver = ApproverFunc(func(ctx context.Context, req ApprovalRequest) (ApprovalAnswer, error) {
		h.mu.Lock()
		h.asked = append(h.asked, req)
		fn := h.approver
		h.mu.Unlock()
		return fn(req), nil
	})
	for _, opt := range opts {
		opt(h, &o)
	}
	h.engine = New(o)
	return h
}

// restart simulates quitting and reopening the app: a new engine on the
// same settings file and session database, talking to a new fake model.
func (h *harness) restart(turns []llmtest.Turn) {
	h.t.Helper()
	h.srv = llmtest.NewServer(h.t, turns...)
	var err error
	if h.settings, err = config.OpenStore(filepath.Join(h.dir, config.SettingsFile)); err != nil {
		h.t.Fatal(err)
	}
	if err := h.settings.Update(func(s *config.Settings) error { s.Providers[0].BaseURL = h.srv.URL; return nil }); err != nil {
		h.t.Fatal(err)
	}
	o := h.engine.opts
	o.Settings = h.settings
	h.engine = New(o)
	h.mu.Lock()
	h.asked, h.events = nil, nil
	h.mu.Unlock()
}

func (h *harness) sink(ev Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, ev)
}

// session starts a session in the harness workspace.
func (h *harness) session(mode Mode) string {
	h.t.Helper()
	id, err := h.engine.NewSession(context.Background(), h.workspace, mode, "", "", "")
	if err != nil {
		h.t.Fatal(err)
	}
	return id
}

// run runs one turn to its end.
func (h *harness) run(id, text string) TurnResult {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := h.engine.Run(ctx, id, text)
	if err != nil {
		h.t.Fatal(err)
	}
	return res
}

// logged returns the session's logged events of one type, decoded into T.
func logged[T any](h *harness, id string, typ sessions.EventType) []T {
	h.t.Helper()
	var out []T
	for ev, err := range h.store.Events(context.Background(), id, 1, 0) {
		if err != nil {
			h.t.Fatal(err)
		}
		if ev.Type != typ {
			continue
		}
		var v T
		if err := json.Unmarshal(ev.Data, &v); err != nil {
			h.t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

func (h *harness) writeFile(name, content string) {
	h.t.Helper()
	p := filepath.Join(h.workspace, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

// toolNames returns the names of the tools offered in a recorded request.
func toolNames(req llmtest.Request) []string {
	tools, _ := req.Body["tools"].([]any)
	var names []string
	for _, t := range tools {
		m, _ := t.(map[string]any)
		if fn, ok := m["function"].(map[string]any); ok {
			names = append(names, fn["name"].(string))
		} else if n, ok := m["name"].(string); ok {
			names = append(names, n)
		}
	}
	return names
}

// requestText flattens a recorded request's messages into text, so tests
// can look for what the model was shown whatever the wire format.
func requestText(req llmtest.Request) string {
	b, _ := json.Marshal(req.Body["messages"])
	return string(b)
}

func call(id, name, args string) llmtest.ToolCall {
	return llmtest.ToolCall{ID: id, Name: name, Arguments: args}
}

func contains(haystack []string, needle string) bool {
	for _, s := range haystack {
		if s == needle {
			return true
		}
	}
	return false
}

func mustContain(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s does not contain %q:\n%s", what, sub, s)
		}
	}
}
