package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"tinyelf/backend/capabilities"
	"tinyelf/backend/capabilities/captest"
	"tinyelf/backend/config"
	"tinyelf/backend/llm"
	"tinyelf/backend/sessions"
	"tinyelf/backend/tools"
	"tinyelf/internal/cputime"
)

// instantProvider answers at once from a script, so a benchmark measures
// the engine and not a model or a socket.
type instantProvider struct {
	answers func(call int) *llm.Response
	n       int
}

func (p *instantProvider) Name() string { return "instant" }

func (p *instantProvider) Stream(_ context.Context, req llm.Request, on func(llm.StreamEvent)) (*llm.Response, error) {
	r := p.answers(p.n)
	p.n++
	if on != nil && r.Text != "" {
		on(llm.StreamEvent{Type: llm.EventText, Text: r.Text})
	}
	return r, nil
}

func (p *instantProvider) Models(context.Context) ([]llm.ModelInfo, error) { return nil, nil }

type staticSource []tools.Tool

func (s staticSource) Tools(context.Context, SessionInfo) []tools.Tool { return s }

type benchTool struct{ name string }

func (b benchTool) Info() tools.Info {
	return tools.Info{Name: b.name, Description: "a tool that is offered but not called", Source: tools.SourceMCP,
		Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"},"n":{"type":"integer"}},"required":["q"]}`)}
}

func (b benchTool) Execute(context.Context, map[string]any) (tools.Result, error) {
	return tools.Text("ok"), nil
}

// newBenchEngine returns an engine whose sessions see 50 tools (the built-in
// ones plus MCP-like extras), a real session database, and p as the model.
func newBenchEngine(b *testing.B, p llm.Provider) (*Engine, string) {
	return newBenchEngineWith(b, p, nil)
}

// newBenchEngineWith is newBenchEngine with the options changed by edit.
func newBenchEngineWith(b testing.TB, p llm.Provider, edit func(*Options)) (*Engine, string) {
	dir := b.TempDir()
	ws := filepath.Join(dir, "ws")
	os.MkdirAll(ws, 0o755)
	os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	settings, err := config.OpenStore(filepath.Join(dir, config.SettingsFile))
	if err != nil {
		b.Fatal(err)
	}
	settings.Update(func(s *config.Settings) error {
		s.Providers = []config.Provider{{Name: "p", Kind: "openai", BaseURL: "http://127.0.0.1:1/v1", Model: "m"}}
		return nil
	})
	store, err := sessions.Open(context.Background(), filepath.Join(dir, "s.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	var extra staticSource
	builtin, _ := BuildRegistry(BuildOptions{Workspace: ws})
	for i := builtin.Registry.Len(); i < 50; i++ {
		extra = append(extra, benchTool{name: fmt.Sprintf("mcp__bench__tool_%02d", i)})
	}
	builtin.Close()
	o := Options{
		Settings: settings, Log: StoreLog{Store: store},
		Providers:   func(config.Provider) (llm.Provider, error) { return p, nil },
		ToolSources: []ToolSource{extra},
		Getenv:      func(string) string { return "" },
		Approver: ApproverFunc(func(context.Context, ApprovalRequest) (ApprovalAnswer, error) {
			return ApprovalAnswer{Decision: AllowOnce}, nil
		}),
	}
	if edit != nil {
		edit(&o)
	}
	e := New(o)
	id, err := e.NewSession(context.Background(), ws, ModeDefault, "", "", "")
	if err != nil {
		b.Fatal(err)
	}
	return e, id
}

// sessionTurns is how long a benchmark session grows before a fresh one
// starts: each model call re-reads the session's history, so the cost per
// turn depends on its length, and an ever-growing session would make ns/op
// depend on -benchtime.
const sessionTurns = 20

// nextSession starts a fresh session every sessionTurns turns, off the clock.
func nextSession(b *testing.B, e *Engine, id string, turn int) string {
	if turn%sessionTurns != 0 || turn == 0 {
		return id
	}
	b.StopTimer()
	defer b.StartTimer()
	info, err := e.opts.Log.Info(context.Background(), id)
	if err != nil {
		b.Fatal(err)
	}
	next, err := e.NewSession(context.Background(), info.Workspace, ModeDefault, "", "", "")
	if err != nil {
		b.Fatal(err)
	}
	return next
}

// BenchmarkTurnOverhead is one turn (user message, one model answer, no
// tools) with 50 tools visible, in sessions of up to 20 turns: the engine's
// own cost per turn, model time excluded. Goal: under 2 ms.
func BenchmarkTurnOverhead(b *testing.B) {
	p := &instantProvider{answers: func(int) *llm.Response {
		return &llm.Response{Text: "Nothing to do.", StopReason: llm.StopEndTurn, Usage: llm.Usage{InputTokens: 900, OutputTokens: 5}}
	}}
	e, id := newBenchEngine(b, p)
	ctx := context.Background()
	b.ReportAllocs()
	defer reportCPU(b, cpuTime())
	for i := 0; b.Loop(); i++ {
		id = nextSession(b, e, id, i)
		res, err := e.Run(ctx, id, "hello")
		if err != nil || res.Reason != EndDone {
			b.Fatalf("%+v %v", res, err)
		}
	}
}

// BenchmarkTurnWithToolCall is a turn in which the model reads a file and
// then answers: two model calls and one tool call through the pipeline.
func BenchmarkTurnWithToolCall(b *testing.B) {
	p := &instantProvider{answers: func(n int) *llm.Response {
		if n%2 == 0 {
			return &llm.Response{StopReason: llm.StopToolUse, ToolCalls: []llm.ToolCall{{ID: fmt.Sprint("c", n), Name: "Read", Arguments: `{"path":"main.go"}`}}}
		}
		return &llm.Response{Text: "It is an empty main.", StopReason: llm.StopEndTurn}
	}}
	e, id := newBenchEngine(b, p)
	ctx := context.Background()
	b.ReportAllocs()
	defer reportCPU(b, cpuTime())
	for i := 0; b.Loop(); i++ {
		id = nextSession(b, e, id, i)
		res, err := e.Run(ctx, id, "what is in main.go?")
		if err != nil || res.Reason != EndDone {
			b.Fatalf("%+v %v", res, err)
		}
	}
}

// BenchmarkTurnWithCatalog is BenchmarkTurnOverhead with the 191-tool
// fixture catalog (server-everything, server-filesystem and a GitHub-shaped
// server as the user's servers) and 20 skills: discovery's cost per turn
// included. Goal: under 2 ms.
func BenchmarkTurnWithCatalog(b *testing.B) {
	p := &instantProvider{answers: func(int) *llm.Response {
		return &llm.Response{Text: "Nothing to do.", StopReason: llm.StopEndTurn, Usage: llm.Usage{InputTokens: 900, OutputTokens: 5}}
	}}
	cat := capabilities.NewCatalog()
	for _, srv := range captest.Servers {
		ts, err := captest.Tools(srv)
		if err != nil {
			b.Fatal(err)
		}
		es := make([]capabilities.Entry, len(ts))
		for i, t := range ts {
			es[i] = capabilities.ToolEntry(t)
		}
		cat.Replace("mcp:"+srv, es, capabilities.PartitionOptions{Priority: capabilities.PriorityMCP})
	}
	cat.Replace("skill:builtin", fakeSkills(20), capabilities.PartitionOptions{Priority: capabilities.PrioritySkill})
	e, id := newBenchEngineWith(b, p, func(o *Options) { o.Catalog = cat; o.ToolSources = nil })
	ctx := context.Background()
	b.ReportAllocs()
	defer reportCPU(b, cpuTime())
	for i := 0; b.Loop(); i++ {
		id = nextSession(b, e, id, i)
		res, err := e.Run(ctx, id, "hello")
		if err != nil || res.Reason != EndDone {
			b.Fatalf("%+v %v", res, err)
		}
	}
}

// reportCPU reports the CPU the benchmark used per operation since start
// (cpu-ns/op), the figure to compare when the machine is busy.
func reportCPU(b *testing.B, start time.Duration) {
	if b.N > 0 && start > 0 {
		b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
	}
}

func cpuTime() time.Duration { return cputime.Self() }

// spawnProvider answers a parent that spawns one foreground subagent and a
// child that answers at once, and times the spawn_agent call: from the
// parent's answer that makes it to the parent's next request, which carries
// its result. The model itself answers instantly.
type spawnProvider struct {
	mu      sync.Mutex
	sent    time.Time
	spent   time.Duration
	spawned int
}

func (p *spawnProvider) Name() string { return "spawn" }

func (p *spawnProvider) Models(context.Context) ([]llm.ModelInfo, error) { return nil, nil }

func (p *spawnProvider) Stream(_ context.Context, req llm.Request, on func(llm.StreamEvent)) (*llm.Response, error) {
	if strings.Contains(req.System, "You are a subagent") {
		return &llm.Response{Text: "The answer is 42.", StopReason: llm.StopEndTurn, Usage: llm.Usage{InputTokens: 500, OutputTokens: 5}}, nil
	}
	last := req.Messages[len(req.Messages)-1]
	p.mu.Lock()
	defer p.mu.Unlock()
	if last.Role == llm.RoleTool {
		p.spent += time.Since(p.sent)
		p.spawned++
		return &llm.Response{Text: "The child says 42.", StopReason: llm.StopEndTurn}, nil
	}
	p.sent = time.Now()
	return &llm.Response{StopReason: llm.StopToolUse, ToolCalls: []llm.ToolCall{{ID: fmt.Sprint("sp", p.spawned), Name: "spawn_agent", Arguments: `{"prompt":"What is the answer?"}`}}}, nil
}

// BenchmarkSpawnForegroundSubagent is a turn in which the model spawns a
// foreground subagent that answers at once: two parent model calls and the
// child's session, turn and answer. spawn-ns/op is the spawn_agent call
// alone (creating the child's session, building its tools, its turn, the
// result), model time excluded. Goal: under 5 ms.
func BenchmarkSpawnForegroundSubagent(b *testing.B) {
	p := &spawnProvider{}
	e, id := newBenchEngineWith(b, p, nil)
	info, _ := e.opts.Log.Info(context.Background(), id)
	ctx := context.Background()
	b.ReportAllocs()
	defer reportCPU(b, cpuTime())
	for i := 0; b.Loop(); i++ {
		if i%sessionTurns == 0 {
			b.StopTimer()
			var err error
			if id, err = e.NewSession(ctx, info.Workspace, ModeAuto, "", "", ""); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		res, err := e.Run(ctx, id, "ask a helper")
		if err != nil || res.Reason != EndDone || res.Text != "The child says 42." {
			b.Fatalf("%+v %v", res, err)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	b.ReportMetric(float64(p.spent.Nanoseconds())/float64(p.spawned), "spawn-ns/op")
}
