package capabilities

import (
	"slices"
	"strings"
	"testing"

	"tinyelf/backend/capabilities/captest"
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
}
