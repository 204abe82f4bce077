package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tinyelf/backend/config"
	"tinyelf/backend/tools"
)

// The fake stdio server (testdata/fakeserver) is built once per test binary.
var fake struct {
	once sync.Once
	bin  string
	err  error
}

// TestMain removes the fake server's build folder after the tests.
func TestMain(m *testing.M) {
	if os.Getenv(envConformanceClient) != "" && len(os.Args) > 1 {
		os.Exit(conformanceClient(os.Args[len(os.Args)-1]))
	}
	code := m.Run()
	if fake.bin != "" {
		os.RemoveAll(filepath.Dir(fake.bin))
	}
	os.Exit(code)
}

// goTool returns the go command that runs these tests.
func goTool() string {
	if p := filepath.Join(runtime.GOROOT(), "bin", "go"); fileExists(p) {
		return p
	}
	return "go"
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// fakeServerBin builds testdata/fakeserver (once) and returns its path.
func fakeServerBin(t testing.TB) string {
	t.Helper()
	fake.once.Do(func() {
		dir, err := os.MkdirTemp("", "tinyelf-mcp-fake-")
		if err != nil {
			fake.err = err
			return
		}
		bin := filepath.Join(dir, "fakeserver")
		cmd := exec.Command(goTool(), "build", "-o", bin, "./testdata/fakeserver")
		if out, err := cmd.CombinedOutput(); err != nil {
			fake.err = fmt.Errorf("go build ./testdata/fakeserver: %v\n%s", err, out)
			return
		}
		fake.bin = bin
	})
	if fake.err != nil {
		t.Fatal(fake.err)
	}
	return fake.bin
}

// fakeServer returns the config of a fake stdio server.
func fakeServer(t testing.TB, name string, args ...string) config.MCPServer {
	return config.MCPServer{Name: name, Command: fakeServerBin(t), Args: append([]string{"-name", name}, args...)}
}

// testOptions are fast defaults for tests.
func testOptions() Options {
	return Options{StartTimeout: 20 * time.Second, RestartBackoff: 50 * time.Millisecond,
		MaxRestartBackoff: 200 * time.Millisecond, StopGrace: 200 * time.Millisecond}
}

// recorder is a subscriber that keeps every change.
type recorder struct {
	mu      sync.Mutex
	changes []Change
}

func (r *recorder) add(c Change) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.changes = append(r.changes, c)
}

func (r *recorder) all() []Change {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.changes)
}

// startService starts a service over servers, closes it at cleanup and
// waits until every server has settled.
func startService(t testing.TB, opts Options, servers ...config.MCPServer) (*Service, *recorder) {
	t.Helper()
	rec := &recorder{}
	opts.OnChange = rec.add
	svc := NewService(servers, opts)
	svc.Start(context.Background())
	t.Cleanup(func() { svc.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := svc.WaitReady(ctx); err != nil {
		t.Fatalf("servers did not settle: %v; states: %+v", err, svc.States())
	}
	return svc, rec
}

// waitState waits until the named server's state satisfies ok.
func waitState(t testing.TB, svc *Service, name string, timeout time.Duration, ok func(ServerState) bool) ServerState {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		st, found := svc.State(name)
		if found && ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("server %s did not reach the expected state within %s; last: %+v", name, timeout, st)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func hasStatus(s Status) func(ServerState) bool {
	return func(st ServerState) bool { return st.Status == s }
}

// registryOf puts tools in a registry the way the engine does.
func registryOf(t testing.TB, ts []tools.Tool) *tools.Registry {
	t.Helper()
	reg := tools.NewRegistry()
	if err := reg.RegisterAll(ts...); err != nil {
		t.Fatal(err)
	}
	return reg
}

// call runs a tool through a fresh registry with progress collected.
func call(t testing.TB, svc *Service, name string, args any) (tools.CallResult, []string) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var progress []string
	ctx := tools.WithProgress(context.Background(), func(m string) {
		mu.Lock()
		progress = append(progress, m)
		mu.Unlock()
	})
	res := registryOf(t, allTools(svc)).Execute(ctx, "call-1", name, raw)
	mu.Lock()
	defer mu.Unlock()
	return res, slices.Clone(progress)
}

func toolNames(ts []tools.Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Info().Name)
	}
	return out
}

func mustContain(t testing.TB, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("missing %q in:\n%s", w, got)
		}
	}
}

// allTools is what a session sees of one service: its tools and the
// resource tools over it.
func allTools(svc *Service) []tools.Tool {
	return append(svc.Tools(), ResourceTools(svc)...)
}

// unmarked returns what an MCP server wrote, from inside the untrusted
// block TinyElf puts it in; it fails the test when the block is missing.
func unmarked(t testing.TB, s string) string {
	t.Helper()
	head, rest, ok := strings.Cut(s, "\n")
	if !ok || !strings.HasPrefix(head, "<"+untrustedTag+" ") || !strings.HasSuffix(head, ` trust="untrusted">`) {
		t.Fatalf("not marked as untrusted MCP content: %q", s)
	}
	_, body, ok := strings.Cut(rest, "\n\n")
	body, closed := strings.CutSuffix(body, "\n</"+untrustedTag+">")
	if !ok || !closed {
		t.Fatalf("an untrusted block without its intro or end: %q", s)
	}
	return body
}
