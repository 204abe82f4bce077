package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// stuckTool ignores its context and blocks until released, like a tool
// stuck in a system call.
type stuckTool struct {
	release chan struct{}
	timeout time.Duration // Timeouter's answer; 0: not a Timeouter's worth
	panics  bool
}

func (s *stuckTool) Info() Info { return Info{Name: "Stuck", ReadOnly: true, Safe: true} }

func (s *stuckTool) Execute(context.Context, map[string]any) (Result, error) {
	if s.panics {
		panic("boom")
	}
	<-s.release
	return Text("finished"), nil
}

type stuckTimeouter struct{ *stuckTool }

func (s stuckTimeouter) CallTimeout(map[string]any) time.Duration { return s.timeout }

func TestRegistryAbandonsStuckCalls(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		tool    func(release chan struct{}) Tool
		timeout time.Duration // the registry's
		cancel  time.Duration // cancel the call's context after this; 0: never
		want    string
		maxWait time.Duration
	}{
		{"deadline", func(r chan struct{}) Tool { return &stuckTool{release: r} }, 100 * time.Millisecond, 0,
			"did not finish within", 2 * time.Second},
		{"cancelled", func(r chan struct{}) Tool { return &stuckTool{release: r} }, time.Hour, 50 * time.Millisecond,
			"was stopped before it finished", 2 * time.Second},
		{"a Timeouter's own timeout wins", func(r chan struct{}) Tool {
			return stuckTimeouter{&stuckTool{release: r, timeout: time.Millisecond}}
		}, time.Hour, 0, "did not finish within 5s", 8 * time.Second},
		{"a panic is still an error result", func(r chan struct{}) Tool { return &stuckTool{release: r, panics: true} }, time.Hour, 0,
			"crashed: boom", 2 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			release := make(chan struct{})
			defer close(release)
			reg := NewRegistry(WithCallTimeout(tc.timeout))
			if err := reg.Register(tc.tool(release)); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel > 0 {
				time.AfterFunc(tc.cancel, cancel)
			}
			start := time.Now()
			res := reg.Execute(ctx, "c1", "Stuck", json.RawMessage(`{}`))
			if d := time.Since(start); d > tc.maxWait {
				t.Errorf("returned after %s", d)
			}
			if !res.IsError || !strings.Contains(res.Content, tc.want) {
				t.Errorf("result %+v, want an error with %q", res, tc.want)
			}
		})
	}
}

// TestRegistryKeepsTheToolsOwnResult: a cancelled tool that returns within
// the grace keeps its own result.
func TestRegistryKeepsTheToolsOwnResult(t *testing.T) {
	t.Parallel()
	reg := NewRegistry(WithCallTimeout(time.Second))
	if err := reg.Register(toolFunc{name: "Polite", fn: func(ctx context.Context) (Result, error) {
		<-ctx.Done()
		return Errorf("stopped politely"), nil
	}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	res := reg.Execute(ctx, "c", "Polite", nil)
	if !strings.Contains(res.Content, "stopped politely") {
		t.Errorf("result %q", res.Content)
	}
}

type toolFunc struct {
	name string
	fn   func(ctx context.Context) (Result, error)
}

func (f toolFunc) Info() Info { return Info{Name: f.name, ReadOnly: true} }
func (f toolFunc) Execute(ctx context.Context, _ map[string]any) (Result, error) {
	return f.fn(ctx)
}
