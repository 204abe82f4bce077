package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tinyelf/backend/tools"
)

// fakeSessions is a SessionReader over a fixed log.
type fakeSessions struct{}

func (fakeSessions) List(ctx context.Context, limit, offset int) ([]SessionSummary, error) {
	return []SessionSummary{{ID: "s1", Title: "Fix the parser", Workspace: "/src/app", UpdatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Messages: 4}}, nil
}

func (fakeSessions) Search(ctx context.Context, q string, limit int) ([]SessionHit, error) {
	return []SessionHit{{SessionID: "s1", SessionTitle: "Fix the parser", Role: "user", Snippet: "the <mark>parser</mark> fails", Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}}, nil
}

func (fakeSessions) History(ctx context.Context, id string, limit int) ([]SessionMessage, error) {
	if id != "s1" {
		return nil, errors.New("no such session")
	}
	return []SessionMessage{{Role: "user", Text: "The parser fails on empty input."}, {Role: "assistant", Text: "Fixed."}}, nil
}

// fakeNotifier records notifications.
type fakeNotifier struct {
	mu   sync.Mutex
	sent []string
}

func (f *fakeNotifier) Notify(ctx context.Context, title, body string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent = append(f.sent, title+": "+body)
	return nil
}

func (f *fakeNotifier) all() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.sent)
}

// progressProvider shows that a provider is one small type: its one tool
// reports progress and echoes.
type progressProvider struct{}

func (progressProvider) Name() string                        { return "progress" }
func (progressProvider) Description() string                 { return "A test provider." }
func (progressProvider) IsEligible(ctx context.Context) bool { return true }
func (progressProvider) Tools(ctx context.Context) ([]tools.Tool, error) {
	return []tools.Tool{funcTool{
		info: tools.Info{Name: "work", Parameters: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)},
		run: func(ctx context.Context, params map[string]any) (tools.Result, error) {
			n := tools.Int(params, "n", 0)
			for i := 1; i <= n; i++ {
				tools.ReportProgress(ctx, "step "+strings.Repeat("I", i))
			}
			if n < 0 {
				panic("negative work")
			}
			return tools.Text("worked"), nil
		},
	}}, nil
}

func testProviders(t *testing.T) (*ProviderRegistry, *fakeNotifier, string) {
	ws := t.TempDir()
	must(t, os.WriteFile(filepath.Join(ws, "README.md"), []byte("# Demo\nhello bridge\n"), 0o644))
	n := &fakeNotifier{}
	return NewProviderRegistry(NewSessionsProvider(fakeSessions{}), NewNotifyProvider(n), NewWorkspaceProvider(ws, nil), progressProvider{}), n, ws
}

// TestBuiltinProviders connects the providers an agent is eligible for
// through in-process clients and runs their tools through a registry.
func TestBuiltinProviders(t *testing.T) {
	t.Parallel()
	reg, notifier, ws := testProviders(t)
	tests := []struct {
		name   string
		caller Caller
		want   []string
	}{
		// Providers in registration order; each server lists its tools by name.
		{"agent", Caller{Agent: "default", SessionID: "x"}, []string{
			"mcp__tinyelf-sessions__history", "mcp__tinyelf-sessions__list", "mcp__tinyelf-sessions__search", "mcp__tinyelf-progress__work"}},
		{"subagent", Caller{Agent: "helper", Subagent: true}, []string{"mcp__tinyelf-progress__work"}},
		{"external", Caller{External: true, Workspace: ws}, []string{
			"mcp__tinyelf-sessions__history", "mcp__tinyelf-sessions__list", "mcp__tinyelf-sessions__search",
			"mcp__tinyelf-notify__notify", "mcp__tinyelf-workspace__glob", "mcp__tinyelf-workspace__grep",
			"mcp__tinyelf-workspace__list_dir", "mcp__tinyelf-workspace__read_file", "mcp__tinyelf-progress__work"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			set, err := reg.Connect(WithCaller(context.Background(), tc.caller))
			must(t, err)
			defer set.Close()
			if got := toolNames(set.Tools()); !slices.Equal(got, tc.want) {
				t.Errorf("tools = %v\nwant    %v", got, tc.want)
			}
		})
	}

	set, err := reg.Connect(WithCaller(context.Background(), Caller{External: true, Workspace: ws}))
	must(t, err)
	r := registryOf(t, set.Tools())
	if info, _ := r.Info("mcp__tinyelf-sessions__search"); !info.ReadOnly || info.Safe || info.Source != tools.SourceMCP {
		t.Errorf("search info = %+v", info)
	}
	if info, _ := r.Info("mcp__tinyelf-notify__notify"); info.ReadOnly {
		t.Errorf("notify info = %+v, want not read-only", info)
	}
	calls := []struct {
		tool     string
		args     string
		isError  bool
		want     string
		progress []string
	}{
		{"mcp__tinyelf-sessions__list", `{}`, false, `s1  2026-01-02 03:04:05  "Fix the parser" (4 messages, in /src/app)`, nil},
		{"mcp__tinyelf-sessions__search", `{"query":"parser"}`, false, "the <mark>parser</mark> fails", nil},
		{"mcp__tinyelf-sessions__history", `{"session_id":"s1"}`, false, "The parser fails on empty input.", nil},
		{"mcp__tinyelf-sessions__history", `{"session_id":"zz"}`, true, "no such session", nil},
		{"mcp__tinyelf-notify__notify", `{"title":"Done","body":"all green"}`, false, "Notification shown.", nil},
		{"mcp__tinyelf-workspace__read_file", `{"path":"README.md"}`, false, "hello bridge", nil},
		{"mcp__tinyelf-workspace__read_file", `{"path":"../outside"}`, true, "outside", nil},
		{"mcp__tinyelf-workspace__grep", `{"pattern":"bridge"}`, false, "README.md", nil},
		{"mcp__tinyelf-progress__work", `{"n":2}`, false, "worked", []string{"step I", "step II"}},
		{"mcp__tinyelf-progress__work", `{"n":-1}`, true, "negative work", nil},
	}
	for _, c := range calls {
		var mu sync.Mutex
		var progress []string
		ctx := tools.WithProgress(context.Background(), func(m string) { mu.Lock(); progress = append(progress, m); mu.Unlock() })
		res := r.Execute(ctx, "b", c.tool, json.RawMessage(c.args))
		if res.IsError != c.isError || !strings.Contains(res.Content, c.want) {
			t.Errorf("%s %s = %+v, want isError %v and %q", c.tool, c.args, res, c.isError, c.want)
		}
		mu.Lock()
		if c.progress != nil && !slices.Equal(progress, c.progress) {
			t.Errorf("%s progress = %q, want %q", c.tool, progress, c.progress)
		}
		mu.Unlock()
	}
	if got := notifier.all(); !slices.Equal(got, []string{"Done: all green"}) {
		t.Errorf("notifications = %q", got)
	}
	set.Close()
	if res := r.Execute(context.Background(), "b", "mcp__tinyelf-sessions__list", nil); !res.IsError || !strings.Contains(res.Content, "closed") {
		t.Errorf("after Close: %+v", res)
	}
	if err := reg.Register(progressProvider{}); err == nil {
		t.Error("a second provider with the same name was accepted")
	}
}
