package llm_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"tinyelf/backend/llm"
	"tinyelf/backend/llm/llmtest"
)

// wire is one of the two wire formats, with how to configure an adapter for
// it against a fake server.
type wire struct {
	name string
	cfg  func(baseURL string) llm.Config
}

var wires = []wire{
	{"openai", func(u string) llm.Config {
		return llm.Config{Preset: "custom", BaseURL: u, APIKey: "sk-test", Model: "fake-gpt"}
	}},
	{"anthropic", func(u string) llm.Config {
		return llm.Config{Kind: llm.KindAnthropic, BaseURL: u, APIKey: "sk-ant-test", Model: "claude-fake"}
	}},
}

// fastRetry keeps retry tests quick while leaving room for a Retry-After of
// one second.
var fastRetry = llm.RetryPolicy{MaxAttempts: 4, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Second}

// newProvider builds the adapter for w against srv.
func newProvider(t *testing.T, w wire, srv *llmtest.Server, edit ...func(*llm.Config)) llm.Provider {
	t.Helper()
	cfg := w.cfg(srv.URL)
	for _, e := range edit {
		e(&cfg)
	}
	p, err := llm.New(cfg, llm.WithRetryPolicy(fastRetry))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return p
}

// recorder collects stream events. Stream calls it from the calling
// goroutine, but tests read it from others too.
type recorder struct {
	mu     sync.Mutex
	events []llm.StreamEvent
}

func (r *recorder) on(ev llm.StreamEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
}

func (r *recorder) all() []llm.StreamEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]llm.StreamEvent(nil), r.events...)
}

// of returns the events of one type.
func (r *recorder) of(typ llm.EventType) []llm.StreamEvent {
	var out []llm.StreamEvent
	for _, ev := range r.all() {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

// text joins the text deltas.
func (r *recorder) text() string {
	var b strings.Builder
	for _, ev := range r.of(llm.EventText) {
		b.WriteString(ev.Text)
	}
	return b.String()
}

// stream runs one call with a test timeout.
func stream(t *testing.T, p llm.Provider, req llm.Request) (*llm.Response, *recorder, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rec := &recorder{}
	resp, err := p.Stream(ctx, req, rec.on)
	return resp, rec, err
}

// hello is the smallest request.
var hello = llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hello"}}}
