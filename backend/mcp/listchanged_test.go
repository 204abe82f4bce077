package mcp

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"tinyelf/internal/cputime"
)

// TestListChangedFlood: a server that announces tools/list_changed
// thousands of times in a row gets its list fetched a handful of times, not
// once per notice, and the list it ends with is still seen.
func TestListChangedFlood(t *testing.T) {
	t.Parallel()
	svc, rec := startService(t, testOptions(), fakeServer(t, "flood"))
	const notices = 1500 // one a millisecond: a sustained flood, not a burst the server's queue drops
	before := cpuTime()
	start := time.Now()
	if res, _ := call(t, svc, "mcp__flood__flood", map[string]any{"count": notices, "everyMs": 1}); res.IsError {
		t.Fatalf("flood: %+v", res)
	}
	waitChange(t, rec, func(c Change) bool { return slices.Contains(c.Added, "mcp__flood__final") })
	took, cpu := time.Since(start), cpuTime()-before
	res, _ := call(t, svc, "mcp__flood__listings", map[string]any{})
	listings, err := strconv.Atoi(unmarked(t, res.Content))
	if err != nil {
		t.Fatalf("listings: %+v", res)
	}
	// One at the start, then one per second of flood at most (plus the one
	// after it); a listing per notice would be thousands.
	if limit := 3 + int(took/listChangedMaxWait); listings > limit {
		t.Errorf("the server answered %d tools/list requests for %d notices in %s; want at most %d", listings, notices, took, limit)
	}
	if names := toolNames(svc.Tools()); slices.Contains(names, "mcp__flood__tmp") || !slices.Contains(names, "mcp__flood__final") {
		t.Errorf("tools after the flood: %v", names)
	}
	changes := 0
	for _, c := range rec.all() {
		if c.Reason == "list_changed" {
			changes++
		}
	}
	t.Logf("%d notices: %d listings, %d change events, %s wall, %s CPU in the client (this process)", notices, listings, changes, took.Round(time.Millisecond), cpu.Round(time.Millisecond))
}

func cpuTime() time.Duration { return cputime.Self() }
