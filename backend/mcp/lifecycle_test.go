package mcp

import (
	"context"
	"slices"
	"testing"
	"time"

	"tinyelf/backend/config"
)

// TestStartDoesNotBlock: Start returns at once while a server hangs in its
// handshake, WaitReady honours its context, and Close ends the attempt.
func TestStartDoesNotBlock(t *testing.T) {
	t.Parallel()
	svc := NewService([]config.MCPServer{fakeServer(t, "slow", "-mode", "hang")}, testOptions())
	start := time.Now()
	svc.Start(context.Background())
	if d := time.Since(start); d > 2*time.Second { // a blocking Start would wait out the hang
		t.Errorf("Start took %s", d)
	}
	if st, _ := svc.State("slow"); st.Status != StatusStarting {
		t.Errorf("state = %+v, want starting", st)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := svc.WaitReady(ctx); err == nil {
		t.Error("WaitReady returned without an error while the server hangs")
	}
	start = time.Now()
	must(t, svc.Close())
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Close took %s", d)
	}
	if st, _ := svc.State("slow"); st.Status != StatusDisconnected {
		t.Errorf("after Close: %+v", st)
	}
	must(t, svc.Close()) // twice is fine
}

// TestUpdate applies configuration edits: unchanged servers keep running,
// changed ones restart, removed ones stop and lose their tools.
func TestUpdate(t *testing.T) {
	t.Parallel()
	a, b := fakeServer(t, "a"), fakeServer(t, "b")
	svc, rec := startService(t, testOptions(), a, b)
	aSince := mustState(t, svc, "a").Since

	b2 := b
	b2.Args = append(slices.Clone(b.Args), "-delay", "1ms")
	c := fakeServer(t, "c")
	svc.Update([]config.MCPServer{a, b2, c})
	must(t, svc.WaitReady(context.Background()))
	if st := mustState(t, svc, "a"); !st.Since.Equal(aSince) || st.Status != StatusConnected {
		t.Errorf("unchanged server was touched: %+v", st)
	}
	for _, n := range []string{"b", "c"} {
		if st := mustState(t, svc, n); st.Status != StatusConnected {
			t.Errorf("%s = %+v", n, st)
		}
	}

	svc.Update([]config.MCPServer{c})
	if names := toolNames(svc.Tools()); slices.Contains(names, "mcp__a__echo") || !slices.Contains(names, "mcp__c__echo") {
		t.Errorf("tools after removing a and b: %v", names)
	}
	if len(svc.States()) != 1 {
		t.Errorf("states = %+v", svc.States())
	}
	waitChange(t, rec, func(ch Change) bool { return ch.Server == "a" && slices.Contains(ch.Removed, "mcp__a__echo") })
}

func mustState(t *testing.T, svc *Service, name string) ServerState {
	t.Helper()
	st, ok := svc.State(name)
	if !ok {
		t.Fatalf("no state for %s", name)
	}
	return st
}
