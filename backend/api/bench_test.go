package api

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"tinyelf/backend/config"
	"tinyelf/backend/llm"
	"tinyelf/backend/notify"
)

// swarmProvider plays a parent that starts `children` background
// subagents in one step, and children that each read a file four times
// (one model call per read, its text streamed word by word) before they
// answer. It answers instantly and is safe for concurrent use: it decides
// from the request alone.
type swarmProvider struct{ children int }

func (p swarmProvider) Name() string                                    { return "swarm" }
func (p swarmProvider) Models(context.Context) ([]llm.ModelInfo, error) { return nil, nil }

func (p swarmProvider) Stream(_ context.Context, req llm.Request, on func(llm.StreamEvent)) (*llm.Response, error) {
	results := 0
	for _, m := range req.Messages {
		if m.Role == llm.RoleTool {
			results++
		}
	}
	say := func(text string) {
		for w := range strings.SplitAfterSeq(text, " ") {
			if on != nil {
				on(llm.StreamEvent{Type: llm.EventText, Text: w})
			}
		}
	}
	usage := llm.Usage{InputTokens: 800, OutputTokens: 12}
	if strings.Contains(req.System, "You are a subagent") {
		if results < 4 {
			text := fmt.Sprintf("Reading the file once more, step %d of four, to be sure.", results+1)
			say(text)
			return &llm.Response{Text: text, Usage: usage, StopReason: llm.StopToolUse,
				ToolCalls: []llm.ToolCall{{ID: fmt.Sprint("r", results), Name: "Read", Arguments: `{"path":"main.go"}`}}}, nil
		}
		say("It is an empty main package.")
		return &llm.Response{Text: "It is an empty main package.", Usage: usage, StopReason: llm.StopEndTurn}, nil
	}
	if results > 0 {
		return &llm.Response{Text: "They are on it.", Usage: usage, StopReason: llm.StopEndTurn}, nil
	}
	calls := make([]llm.ToolCall, p.children)
	for i := range calls {
		calls[i] = llm.ToolCall{ID: fmt.Sprint("sp", i), Name: "spawn_agent",
			Arguments: fmt.Sprintf(`{"prompt":"Task %d: look at main.go","background":true,"tools":["Read"]}`, i)}
	}
	return &llm.Response{Usage: usage, StopReason: llm.StopToolUse, ToolCalls: calls}, nil
}

// BenchmarkBackgroundSubagentsEventLag starts 20 background subagents at
// once, each making five instant model calls with streamed text and four
// Reads, and reads the event bus as the window does (each event encoded
// to JSON, as the SSE stream sends it). max-lag-ms is the longest any
// event took from being stamped to reaching the subscriber, p99-lag-ms
// the 99th percentile, events/op how many there were. Goal: under 50 ms.
func BenchmarkBackgroundSubagentsEventLag(b *testing.B) {
	const children = 20
	dir := b.TempDir()
	ws := filepath.Join(dir, "ws")
	os.MkdirAll(ws, 0o755)
	os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	svc, err := New(context.Background(), Options{
		DataDir: dir, Notifier: &notify.Fake{}, Getenv: func(string) string { return "" }, Version: "bench",
		Providers: func(config.Provider) (llm.Provider, error) { return swarmProvider{children: children}, nil },
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { svc.Close() })
	if _, err := svc.SaveProvider(context.Background(), SaveProviderArgs{Provider: config.Provider{Name: "p", Kind: "openai", BaseURL: "http://127.0.0.1:1/v1", Model: "m"}}); err != nil {
		b.Fatal(err)
	}
	events, stop := svc.bus.Subscribe()
	defer stop()
	var lags []time.Duration
	lagged := 0
	ctx := context.Background()
	for b.Loop() {
		parent, err := svc.CreateSession(ctx, CreateSessionArgs{Workspace: ws, Mode: "auto"})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := svc.SendMessage(ctx, SendArgs{SessionID: parent.ID, Text: "split the work"}); err != nil {
			b.Fatal(err)
		}
		done := map[string]bool{}
		timeout := time.After(2 * time.Minute)
		for len(done) < children {
			select {
			case ev := <-events:
				lags = append(lags, time.Since(ev.Time))
				if _, err := json.Marshal(ev); err != nil {
					b.Fatal(err)
				}
				switch {
				case ev.Type == LaggedEvent:
					lagged++
				case ev.Type == "turn.end" && ev.ParentID == parent.ID:
					done[ev.SessionID] = true
				}
			case <-timeout:
				b.Fatalf("only %d of %d children ended", len(done), children)
			}
		}
	}
	slices.Sort(lags)
	if len(lags) == 0 {
		b.Fatal("no events")
	}
	b.ReportMetric(float64(lags[len(lags)-1].Microseconds())/1000, "max-lag-ms")
	b.ReportMetric(float64(lags[len(lags)*99/100].Microseconds())/1000, "p99-lag-ms")
	b.ReportMetric(float64(len(lags))/float64(b.N), "events/op")
	if lagged > 0 {
		b.Errorf("the subscriber fell behind the bus buffer %d times", lagged)
	}
}
