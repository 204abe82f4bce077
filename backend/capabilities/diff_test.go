package capabilities

import (
	"slices"
	"strings"
	"testing"

	"tinyelf/backend/capabilities/captest"
	"tinyelf/backend/tools"
)

func TestDiffSets(t *testing.T) {
	c := fixtureCatalog(t)
	d := NewDiscovery()
	// Deferral always on keeps the other servers deferred when github
	// goes (with auto, the rest would then fit and become visible).
	in := Inputs{Mode: "default", Settings: Settings{Defer: DeferAlways}}
	first := Compute(c.Snapshot().View("s"), in, d)
	initial := DiffSets(nil, first)
	if !slices.Contains(initial.Added, "Read") || len(initial.Removed) != 0 {
		t.Errorf("first diff: added %v removed %v", initial.Added, initial.Removed)
	}
	for _, it := range initial.Items {
		if it.To == StateVisible && it.Kind == KindTool && it.Hash == "" {
			t.Errorf("visible %s without a schema hash", it.Name)
		}
	}
	if same := DiffSets(first, Compute(c.Snapshot().View("s"), in, d)); !same.Empty() {
		t.Errorf("no change, yet %+v", same.Items)
	}

	// A ToolSearch hit moves a tool from deferred to visible.
	d.Promote("mcp__github__get_job_logs", `found by ToolSearch "ci logs"`)
	second := Compute(c.Snapshot().View("s"), in, d)
	diff := DiffSets(first, second)
	if len(diff.Items) != 1 || diff.Items[0].Change != ChangeChanged || diff.Items[0].From != StateDeferred ||
		diff.Items[0].To != StateVisible || !strings.Contains(diff.Items[0].Reason, "ci logs") || diff.Added[0] != "mcp__github__get_job_logs" {
		t.Errorf("promotion diff: %+v", diff)
	}

	// A server disconnecting removes its tools with its reason.
	c.Remove("mcp:github", "MCP server github disconnected: EOF")
	third := Compute(c.Snapshot().View("s"), in, d)
	gone := DiffSets(second, third)
	if !slices.Contains(gone.Removed, "mcp__github__get_job_logs") || !slices.Contains(gone.Reasons, "MCP server github disconnected: EOF") {
		t.Errorf("disconnect diff: removed %v reasons %v", gone.Removed, gone.Reasons)
	}
	for _, it := range gone.Items {
		if it.Change != ChangeRemoved || !strings.HasPrefix(it.Name, "mcp__github__") {
			t.Errorf("unexpected item %+v", it)
		}
	}

	// Plan mode hides the write tools: removed, with plan mode's reason.
	plan := Compute(c.Snapshot().View("s"), Inputs{Mode: "plan", Settings: in.Settings}, d)
	pd := DiffSets(third, plan)
	if !slices.Contains(pd.Removed, "Write") || !strings.Contains(strings.Join(pd.Reasons, "|"), "plan mode") {
		t.Errorf("plan diff: %+v", pd.Removed)
	}

	// A server that changes a tool's schema shows as changed.
	ev, _ := captest.Tools("everything")
	c.Replace("mcp:everything", entriesOf(ev[1:]), PartitionOptions{Priority: PriorityMCP, Reason: "MCP server everything changed its tool list"})
	changed := DiffSets(third, Compute(c.Snapshot().View("s"), in, d))
	if len(changed.Items) != 1 || changed.Items[0].Name != "mcp__everything__echo" || changed.Items[0].Reason != "MCP server everything changed its tool list" {
		t.Errorf("list change: %+v", changed.Items)
	}

	// A server that connects mid-session: its tools say where they came
	// from as well as why they are shown or deferred.
	base := Compute(c.Snapshot().View("s"), in, d)
	c.Replace("mcp:github", entriesOf(githubTools(t)), PartitionOptions{Priority: PriorityMCP, Reason: "MCP server github connected"})
	connected := Compute(c.Snapshot().View("s"), in, d)
	back := DiffSets(base, connected)
	for _, it := range back.Items {
		want := "MCP server github connected (deferred to the index: deferral is always on)"
		if it.Name == "mcp__github__get_job_logs" {
			want = `MCP server github connected (found by ToolSearch "ci logs")`
		}
		if it.Change != ChangeAdded || it.Reason != want {
			t.Errorf("reconnect item %+v, want reason %q", it, want)
		}
	}
	if len(back.Items) != 152 {
		t.Errorf("reconnect diff has %d items, want github's 152", len(back.Items))
	}
	// Tools the catalog had, shown now, only get the policy's reason.
	again := DiffSets(connected, Compute(c.Snapshot().View("s"), Inputs{Mode: "default", Settings: Settings{Defer: DeferNever}}, d))
	if len(again.Items) == 0 || strings.Contains(strings.Join(again.Reasons, "|"), "connected") {
		t.Errorf("known tools' reasons name their source's change: %v", again.Reasons)
	}
}

func githubTools(t *testing.T) []tools.Tool {
	t.Helper()
	ts, err := captest.Tools("github")
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// Two calls over the same view with nothing changed diff to nothing, by the
// quick comparison or the full one alike; a change still shows.
func TestDiffSetsOfTheSameView(t *testing.T) {
	c := fixtureCatalog(t)
	c.Replace("skill:builtin", skillEntries(3), PartitionOptions{Priority: PrioritySkill})
	d := NewDiscovery()
	in := Inputs{Mode: "default", Task: "fix the failing tests", ContextWindow: 200_000}
	v := c.Snapshot().View("s")
	first := Compute(v, in, d)
	d.SetLast(first)
	again := Compute(v, in, d)
	if diff := DiffSets(first, again); !diff.Empty() {
		t.Fatalf("nothing changed, yet the diff is %+v", diff.Items)
	}
	d.Promote("mcp__github__get_job_logs", "found by ToolSearch")
	promoted := Compute(v, in, d)
	diff := DiffSets(again, promoted)
	if diff.Empty() || !slices.Contains(diff.Added, "mcp__github__get_job_logs") {
		t.Fatalf("a promoted tool is not in the diff: %+v", diff)
	}
}
