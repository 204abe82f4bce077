package engine

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"tinyelf/backend/config"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/mcp"
)

// buildFakeMCP builds the MCP package's fake stdio server.
func buildFakeMCP(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "fakemcp")
	out, err := exec.Command("go", "build", "-o", bin, "../mcp/testdata/fakeserver").CombinedOutput()
	if err != nil {
		t.Fatalf("build the fake MCP server: %v\n%s", err, out)
	}
	return bin
}

// withMCP gives the harness's engine its own MCP sources: no user servers,
// the builtin sessions provider, and the agents' direct servers.
func withMCP(idle time.Duration) harnessOption {
	return func(h *harness, o *Options) {
		user := mcp.NewService(nil, mcp.Options{})
		h.t.Cleanup(func() { _ = user.Close() })
		o.MCP = &MCPOptions{User: user, Providers: mcp.NewProviderRegistry(mcp.NewSessionsProvider(SessionReader(h.store)))}
		o.IdleTimeout = idle
	}
}

// TestDirectServersFollowTheSession: an agent's direct server starts for
// its session only, is offered there, and stops when the session's
// sources are released (a deleted session) or the engine shuts down.
func TestDirectServersFollowTheSession(t *testing.T) {
	t.Parallel()
	bin := buildFakeMCP(t)
	h := newHarness(t, wireFormats[0], []llmtest.Turn{{Text: "ok"}, {Text: "other"}}, withMCP(-1))
	if err := h.settings.Update(func(s *config.Settings) error {
		s.Agents = []config.Agent{{Name: "calc", DirectMCPServers: []config.MCPServer{{Name: "mine", Command: bin}}}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	calc, err := h.engine.NewSession(ctx, h.workspace, ModeAuto, "calc", "", "")
	if err != nil {
		t.Fatal(err)
	}
	h.run(calc, "add")
	if names := toolNames(h.srv.ChatRequests()[0]); !slices.Contains(names, "mcp__mine__add") {
		t.Fatalf("the agent's own server's tools were not offered: %v", names)
	}
	other := h.session(ModeAuto)
	h.run(other, "hi")
	if names := toolNames(h.srv.ChatRequests()[1]); slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "mcp__mine__") }) {
		t.Errorf("a direct server leaked into another agent's session: %v", names)
	}
	running := func() int {
		h.engine.own.direct.mu.Lock()
		defer h.engine.own.direct.mu.Unlock()
		return len(h.engine.own.direct.svcs)
	}
	if n := running(); n != 1 {
		t.Fatalf("%d direct services running, want 1", n)
	}
	if h.engine.own.builtin.set(calc) == nil || h.engine.own.builtin.set(other) == nil {
		t.Fatal("a session has no builtin connections")
	}
	h.engine.ReleaseSources(calc)
	if n := running(); n != 0 {
		t.Errorf("%d direct services still running after the session's sources were released", n)
	}
	if h.engine.own.builtin.set(calc) != nil {
		t.Error("the released session still holds builtin connections")
	}
	h.engine.Shutdown(ctx)
	if h.engine.own.builtin.set(other) != nil {
		t.Error("Shutdown left a session's builtin connections open")
	}
}

// TestIdleSessionsReleaseTheirSources: a session left idle stops its
// direct MCP servers and closes its builtin connections, and gets them
// back at its next turn.
func TestIdleSessionsReleaseTheirSources(t *testing.T) {
	t.Parallel()
	bin := buildFakeMCP(t)
	h := newHarness(t, wireFormats[0], []llmtest.Turn{{Text: "first"}, {Text: "second"}}, withMCP(100*time.Millisecond))
	if err := h.settings.Update(func(s *config.Settings) error {
		s.Agents = []config.Agent{{Name: "calc", DirectMCPServers: []config.MCPServer{{Name: "mine", Command: bin}}}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	id, err := h.engine.NewSession(context.Background(), h.workspace, ModeAuto, "calc", "", "")
	if err != nil {
		t.Fatal(err)
	}
	held := func() (direct, builtin bool) {
		return h.engine.own.direct.service(id) != nil, h.engine.own.builtin.set(id) != nil
	}
	h.run(id, "one")
	deadline := time.Now().Add(15 * time.Second)
	for d, b := held(); d || b; d, b = held() {
		if time.Now().After(deadline) {
			t.Fatalf("after the idle timeout the session still holds direct servers %v, builtin connections %v", d, b)
		}
		time.Sleep(10 * time.Millisecond)
	}
	h.run(id, "two")
	reqs := h.srv.ChatRequests()
	if names := toolNames(reqs[len(reqs)-1]); !slices.Contains(names, "mcp__mine__add") {
		t.Errorf("the session's servers did not come back: %v", names)
	}
	if d, b := held(); !d || !b {
		t.Errorf("after its next turn the session holds direct servers %v, builtin connections %v", d, b)
	}
}
