package capabilities

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"tinyelf/backend/capabilities/captest"
	"tinyelf/backend/tools"
)

func TestCatalogPartitionsViewsAndClashes(t *testing.T) {
	c := NewCatalog()
	var changes []Change
	var mu sync.Mutex
	cancel := c.Subscribe(func(ch Change) { mu.Lock(); changes = append(changes, ch); mu.Unlock() })
	defer cancel()
	c.Replace("local", entriesOf(localTools(t)), PartitionOptions{Priority: PriorityLocal})
	gh, _ := captest.Tools("github")
	c.Replace("mcp:github", entriesOf(gh), PartitionOptions{Priority: PriorityMCP, Reason: "MCP server github connected"})
	// A session-only partition with a tool that clashes with a local one.
	clash := fakeNamed{name: "Read", source: tools.SourceUserTool}
	c.Replace("session/s1/extra", []Entry{ToolEntry(clash), ToolEntry(fakeNamed{name: "only_here", source: tools.SourceUserTool})},
		PartitionOptions{Session: "s1", Priority: PriorityUserTool})

	s := c.Snapshot()
	v1, v2 := s.View("s1"), s.View("s2")
	if _, ok := v1.ToolByName("only_here"); !ok {
		t.Error("s1 lacks its own partition")
	}
	if _, ok := v2.ToolByName("only_here"); ok {
		t.Error("s2 sees s1's partition")
	}
	e, _ := v1.ToolByName("Read")
	if e.ID != "local__Read" {
		t.Errorf("Read resolved to %s; local tools must win a clash", e.ID)
	}
	if len(v1.Shadowed) != 1 || v1.Shadowed[0].By != "local__Read" {
		t.Errorf("shadowed: %+v", v1.Shadowed)
	}
	if v1.Key() == v2.Key() {
		t.Error("different views share a key")
	}
	if s.View("s2").Key() != v2.Key() {
		t.Error("the same view has two keys")
	}

	c.Remove("mcp:github", "MCP server github disconnected: EOF")
	if _, ok := c.Snapshot().View("s1").ToolByName("mcp__github__get_issue"); ok {
		t.Error("removed partition still visible")
	}
	if _, ok := s.View("s1").ToolByName("mcp__github__get_issue"); !ok {
		t.Error("an old snapshot changed")
	}
	c.RemoveSession("s1", "session closed")
	if _, ok := c.Snapshot().View("s1").ToolByName("only_here"); ok {
		t.Error("session partition survived RemoveSession")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(changes) != 5 || changes[3].Reason != "MCP server github disconnected: EOF" {
		t.Errorf("changes: %+v", changes)
	}
}

type fakeNamed struct {
	name   string
	source tools.Source
}

func (f fakeNamed) Info() tools.Info {
	return tools.Info{Name: f.name, Description: "A " + f.name + " tool.", Source: f.source, Origin: "personal"}
}
func (f fakeNamed) Execute(ctx context.Context, p map[string]any) (tools.Result, error) {
	return tools.Text("ok"), nil
}

// TestCatalogRefreshDoesNotBlockReaders replaces a 1,000-entry partition
// again and again while readers search; readers must always see a whole
// partition (old or new), never a half-written one.
func TestCatalogRefreshDoesNotBlockReaders(t *testing.T) {
	c := NewCatalog()
	big := func(gen int) []Entry {
		var out []Entry
		for i := range 1000 {
			out = append(out, ToolEntry(fakeNamed{name: fmt.Sprintf("tool_%d_gen%d", i, gen), source: tools.SourceUserTool}))
		}
		return out
	}
	c.Replace("big", big(0), PartitionOptions{})
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				v := c.Snapshot().View("")
				if v.Len() != 1000 {
					t.Errorf("a reader saw %d entries", v.Len())
					return
				}
				if _, _, err := v.Search(Query{Text: "tool 5"}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for gen := 1; gen <= 5; gen++ {
		c.Replace("big", big(gen), PartitionOptions{})
	}
	close(stop)
	wg.Wait()
	if v := c.Snapshot().View(""); !strings.HasSuffix(v.Entries()[0].Name, "gen5") {
		t.Errorf("last write lost: %s", v.Entries()[0].Name)
	}
}

func TestTombstonesKeepTheNewest(t *testing.T) {
	var ts tombstones
	for i := range 3 * maxTombstones {
		ts.set(fmt.Sprint("p", i), fmt.Sprint("gone ", i))
		if i%3 == 0 {
			ts.set("again", fmt.Sprint("again ", i)) // set over and over: one entry, the newest
		}
		if i%5 == 0 {
			ts.drop(fmt.Sprint("p", i)) // re-added
		}
	}
	if len(ts.why) > maxTombstones {
		t.Fatalf("%d reasons kept, want at most %d", len(ts.why), maxTombstones)
	}
	if len(ts.order) > 2*maxTombstones+1 {
		t.Fatalf("the order grew to %d", len(ts.order))
	}
	last := 3*maxTombstones - 1
	if why, ok := ts.get(fmt.Sprint("p", last)); !ok || why != fmt.Sprint("gone ", last) {
		t.Errorf("the newest reason: %q, %v", why, ok)
	}
	if _, ok := ts.get("p1"); ok {
		t.Error("the oldest reason was kept")
	}
	if why, ok := ts.get("again"); !ok || why != fmt.Sprint("again ", 3*maxTombstones-3) {
		t.Errorf("a key set again keeps its newest reason: %q, %v", why, ok)
	}
}
