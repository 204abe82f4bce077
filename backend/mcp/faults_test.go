package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"tinyelf/backend/config"
)

// TestStartupFaults starts good and broken servers side by side: each
// broken one ends in a clear failed state with its reason and log, and none
// holds up the others.
func TestStartupFaults(t *testing.T) {
	t.Parallel()
	bin := fakeServerBin(t)
	quick := func(s config.MCPServer) config.MCPServer { s.TimeoutSeconds = 1; return s }
	servers := []config.MCPServer{
		fakeServer(t, "good"),
		quick(fakeServer(t, "hang", "-mode", "hang")),
		quick(fakeServer(t, "garbage", "-mode", "garbage")),
		fakeServer(t, "noisy", "-mode", "noisy"),
		fakeServer(t, "exits", "-mode", "exit"),
		{Name: "missing", Command: filepath.Join(t.TempDir(), "no-such-server")},
		{Name: "badcwd", Command: bin, Cwd: filepath.Join(t.TempDir(), "gone")},
		{Name: "unsetvar", Command: bin, Args: []string{"-name", "${TINYELF_TEST_SURELY_UNSET}"}},
		{Name: "nocommand"},
		{Name: "off", Command: bin, Disabled: true},
		fakeServer(t, "good"), // a duplicate name
		{Name: "notonpath", Command: "tinyelf-no-such-mcp-server"},
	}
	start := time.Now()
	svc, _ := startService(t, testOptions(), servers...)
	if d := time.Since(start); d > 6*time.Second {
		t.Errorf("WaitReady took %s; the 1s start timeouts should bound it", d)
	}
	states := svc.States()
	if len(states) != len(servers) {
		t.Fatalf("%d states for %d servers", len(states), len(servers))
	}
	tests := []struct {
		idx    int
		status Status
		errs   []string
		log    []string
	}{
		{0, StatusConnected, nil, []string{"fakeserver good starting"}},
		{1, StatusFailed, []string{"did not answer the MCP handshake within 1s"}, nil},
		{2, StatusFailed, []string{"did not answer the MCP handshake within 1s", "non-JSON text on stdout"}, []string{"stdout: Welcome to fakeserver! This is not JSON."}},
		{3, StatusConnected, nil, []string{"stdout: Welcome to fakeserver! This is not JSON."}},
		{4, StatusFailed, []string{"exited with status 3 before completing the MCP handshake"}, []string{"error: FAKE_API_KEY is not set"}},
		{5, StatusFailed, []string{"no-such-server does not exist"}, nil},
		{6, StatusFailed, []string{"working folder"}, nil},
		{7, StatusFailed, []string{"TINYELF_TEST_SURELY_UNSET is not set"}, nil},
		{8, StatusFailed, []string{"no command is configured"}, nil},
		{9, StatusDisabled, nil, nil},
		{10, StatusFailed, []string{`another server is already named "good"`}, nil},
		{11, StatusFailed, []string{`command "tinyelf-no-such-mcp-server" was not found on PATH`}, nil},
	}
	for _, tc := range tests {
		st := states[tc.idx]
		t.Run(st.Name, func(t *testing.T) {
			if st.Status != tc.status {
				t.Fatalf("status = %s (%s), want %s", st.Status, st.Error, tc.status)
			}
			mustContain(t, st.Error, tc.errs...)
			mustContain(t, strings.Join(st.Stderr, "\n"), tc.log...)
		})
	}
	if good := states[0]; !good.Since.Before(states[1].Since) {
		t.Errorf("the good server connected at %s, after the hanging one failed at %s", good.Since, states[1].Since)
	}
	// Only the connected servers' tools are offered, each once.
	names := toolNames(svc.Tools())
	if !slices.Contains(names, "mcp__good__echo") || !slices.Contains(names, "mcp__noisy__echo") || slices.Contains(names, "mcp__hang__echo") {
		t.Errorf("tools = %v", names)
	}
	res, _ := call(t, svc, "mcp__good__echo", map[string]any{"message": "still fine"})
	if unmarked(t, res.Content) != "Echo: still fine" {
		t.Errorf("good server after the faults: %+v", res)
	}
}

// TestCrashMidCall: the call ends in a clear error, the server's tools go
// away and come back after the automatic restart.
func TestCrashMidCall(t *testing.T) {
	t.Parallel()
	svc, rec := startService(t, testOptions(), fakeServer(t, "crashy"))
	res, _ := call(t, svc, "mcp__crashy__crash", map[string]any{})
	if !res.IsError {
		t.Fatalf("crash result = %+v", res)
	}
	mustContain(t, res.Content, `MCP server "crashy" stopped during the call`, "exited with status 2", "try again")

	lost := waitChange(t, rec, func(c Change) bool { return slices.Contains(c.Removed, "mcp__crashy__echo") })
	if lost.State.Status != StatusRestarting || !strings.Contains(lost.State.Detail, "restarting in") ||
		!strings.Contains(lost.Reason, "connection lost: the server exited with status 2") {
		t.Errorf("change on loss = %+v", lost)
	}
	mustContain(t, strings.Join(lost.State.Stderr, "\n"), "panic: simulated crash")

	waitChange(t, rec, func(c Change) bool {
		return c.State.Status == StatusConnected && slices.Contains(c.Added, "mcp__crashy__echo") && c.State.Attempt == 1
	})
	res, _ = call(t, svc, "mcp__crashy__echo", map[string]any{"message": "back"})
	if unmarked(t, res.Content) != "Echo: back" {
		t.Errorf("after restart: %+v", res)
	}
}

// TestRestartsAreBounded: a server that keeps failing after a crash ends
// failed, with the reason; Restart brings it back once it is fixed.
func TestRestartsAreBounded(t *testing.T) {
	t.Parallel()
	stateDir := t.TempDir()
	opts := testOptions()
	opts.MaxRestarts = 2
	svc, _ := startService(t, opts, fakeServer(t, "once", "-mode", "once", "-state", stateDir))
	stale := registryOf(t, svc.Tools()) // as an engine built before the crash
	call(t, svc, "mcp__once__crash", map[string]any{})
	st := waitState(t, svc, "once", 10*time.Second, hasStatus(StatusFailed))
	mustContain(t, st.Error, "gave up after 2 restarts", "exited with status 4")
	mustContain(t, strings.Join(st.Stderr, "\n"), "refusing to start twice")
	if len(svc.Tools()) != 0 {
		t.Errorf("a failed server offers tools: %v", toolNames(svc.Tools()))
	}
	res := stale.Execute(context.Background(), "c1", "mcp__once__echo", json.RawMessage(`{"message":"x"}`))
	if !res.IsError {
		t.Errorf("a stale tool of a failed server answered: %+v", res)
	}
	mustContain(t, res.Content, `MCP server "once" is failed`, "gave up")

	if err := os.Remove(filepath.Join(stateDir, "started")); err != nil {
		t.Fatal(err)
	}
	if err := svc.Restart("once"); err != nil {
		t.Fatal(err)
	}
	waitState(t, svc, "once", 10*time.Second, hasStatus(StatusConnected))
	if err := svc.Restart("nope"); err == nil {
		t.Error("Restart of an unknown server succeeded")
	}
}

// TestCallTimeoutAndCancel: a slow call is cut by the per-call timeout (and
// the server hears of it), or by the caller's context.
func TestCallTimeoutAndCancel(t *testing.T) {
	t.Parallel()
	opts := testOptions()
	opts.CallTimeout = 300 * time.Millisecond
	svc, _ := startService(t, opts, fakeServer(t, "slowpoke"))
	reg := registryOf(t, svc.Tools())
	args, _ := json.Marshal(map[string]any{"steps": 50, "stepMs": 100})

	res := reg.Execute(context.Background(), "c1", "mcp__slowpoke__slow", args)
	if !res.IsError {
		t.Fatalf("timeout result = %+v", res)
	}
	mustContain(t, res.Content, "did not answer within 300ms")
	st := waitState(t, svc, "slowpoke", 5*time.Second, func(st ServerState) bool {
		return strings.Contains(strings.Join(st.Stderr, "\n"), "slow: cancelled")
	})
	if st.Status != StatusConnected {
		t.Errorf("after a timeout the server is %s", st.Status)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	res = reg.Execute(ctx, "c2", "mcp__slowpoke__slow", args)
	if !res.IsError || !strings.Contains(res.Content, "cancelled") || time.Since(start) > 2*time.Second {
		t.Errorf("cancelled call = %+v after %s", res, time.Since(start))
	}
}
