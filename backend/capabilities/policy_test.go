package capabilities

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"tinyelf/backend/tools"
)

func state(t *testing.T, vs *VisibleSet, name string) Decision {
	t.Helper()
	e, d, ok := vs.Lookup(name)
	if !ok {
		t.Fatalf("%s is not in the view", name)
	}
	if d.ID != e.ID {
		t.Fatalf("decision of %s has id %s", name, d.ID)
	}
	return d
}

func TestPolicyDefersMCPToolsOverTheThreshold(t *testing.T) {
	v := fixtureCatalog(t).Snapshot().View("s1")
	vs := Compute(v, Inputs{Mode: "default", ContextWindow: 200_000}, NewDiscovery())
	if !vs.Deferring {
		t.Fatalf("not deferring: %s", vs.DeferReason)
	}
	for _, n := range []string{"Read", "Grep", "Glob", "ListDir", "ToolSearch"} {
		if d := state(t, vs, n); d.State != StateVisible || !strings.Contains(d.Reason, "always visible") {
			t.Errorf("%s: %+v", n, d)
		}
	}
	for _, n := range []string{"Write", "Edit", "Bash"} {
		if d := state(t, vs, n); d.State != StateVisible {
			t.Errorf("%s: %+v", n, d)
		}
	}
	for _, n := range []string{"mcp__github__create_pull_request", "mcp__everything__echo", "Notify"} {
		if d := state(t, vs, n); d.State != StateDeferred || !strings.Contains(d.Reason, "over the threshold") {
			t.Errorf("%s: %+v", n, d)
		}
	}
	idx := vs.IndexText()
	if !strings.Contains(idx, "ToolSearch") || !strings.Contains(idx, "MCP server github (152 tools") || !strings.Contains(idx, "list_directory_with_sizes") {
		t.Errorf("index text lacks the deferred tools:\n%s", idx)
	}
	for _, def := range vs.Definitions() {
		if strings.HasPrefix(def.Name, "mcp__") {
			t.Errorf("deferred MCP tool %s sent with its schema", def.Name)
		}
	}
}

func TestPolicyThresholdModes(t *testing.T) {
	c := NewCatalog()
	c.Replace("local", entriesOf(localTools(t)), PartitionOptions{})
	v := c.Snapshot().View("")
	small := Compute(v, Inputs{Mode: "default", ContextWindow: 200_000}, NewDiscovery())
	if small.Deferring {
		t.Fatalf("the local tools alone should fit: %s", small.DeferReason)
	}
	if d := state(t, small, "Notify"); d.State != StateVisible {
		t.Errorf("Notify: %+v", d)
	}
	// A threshold the local tools exceed switches deferral on.
	tiny := Compute(v, Inputs{Mode: "default", ContextWindow: 200_000, Settings: Settings{Threshold: 0.001}}, NewDiscovery())
	if !tiny.Deferring || state(t, tiny, "Notify").State != StateDeferred {
		t.Errorf("threshold 0.001: deferring=%v %s", tiny.Deferring, tiny.DeferReason)
	}
	always := Compute(v, Inputs{Mode: "default", Settings: Settings{Defer: DeferAlways}}, NewDiscovery())
	if !always.Deferring || state(t, always, "Notify").State != StateDeferred || state(t, always, "Bash").State != StateVisible {
		t.Errorf("always: %s", always.DeferReason)
	}
	big := fixtureCatalog(t).Snapshot().View("")
	never := Compute(big, Inputs{Mode: "default", Settings: Settings{Defer: DeferNever}}, NewDiscovery())
	if never.Deferring || len(never.Tools) != 191 {
		t.Errorf("never: deferring=%v, %d tools visible", never.Deferring, len(never.Tools))
	}
}

func TestPolicyPlanModeHidesWriteToolsAndSearchSkipsThem(t *testing.T) {
	v := fixtureCatalog(t).Snapshot().View("")
	in := Inputs{Mode: "plan"}
	vs := Compute(v, in, NewDiscovery())
	for _, n := range []string{"Write", "Edit", "Bash", "mcp__github__create_pull_request", "mcp__filesystem__write_file"} {
		if d := state(t, vs, n); d.State != StateHidden || !strings.Contains(d.Reason, "plan mode") {
			t.Errorf("%s: %+v", n, d)
		}
	}
	if d := state(t, vs, "mcp__github__get_pull_request"); d.State == StateHidden {
		t.Errorf("a read-only MCP tool is hidden in plan mode: %+v", d)
	}
	res, err := Find(v, in, vs, SearchRequest{Query: "write a file create pull request edit", Limit: 25})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range res.Items {
		if e, ok := v.ByID(it.ID); ok && e.Kind == KindTool && !e.ReadOnly {
			t.Errorf("plan-mode search returned %s, which writes", it.Name)
		}
	}
}

func TestPolicyDenyRuleHidesAndSearchIsNoAuthorization(t *testing.T) {
	v := fixtureCatalog(t).Snapshot().View("")
	in := Inputs{Mode: "auto", Blocked: func(name string) string {
		if name == "mcp__github__delete_repository" {
			return "a deny rule (mcp__github__delete_repository) forbids it"
		}
		return ""
	}}
	vs := Compute(v, in, NewDiscovery())
	if d := state(t, vs, "mcp__github__delete_repository"); d.State != StateHidden || !strings.Contains(d.Reason, "deny rule") {
		t.Errorf("denied tool: %+v", d)
	}
	res, err := Find(v, in, vs, SearchRequest{Query: "delete the repository permanently"})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range res.Items {
		if it.Name == "mcp__github__delete_repository" {
			t.Fatalf("search returned a denied tool: %+v", res.Items)
		}
	}
	d := NewDiscovery()
	d.Promote("mcp__github__delete_repository", "asked for by name")
	if st := state(t, Compute(v, in, d), "mcp__github__delete_repository"); st.State != StateHidden {
		t.Errorf("a promotion overrode a deny rule: %+v", st)
	}
}

func TestPolicyAllowedTools(t *testing.T) {
	v := fixtureCatalog(t).Snapshot().View("")
	vs := Compute(v, Inputs{Mode: "default", Allowed: []string{"Read", "mcp__github__*"}}, NewDiscovery())
	if d := state(t, vs, "Bash"); d.State != StateHidden || !strings.Contains(d.Reason, "allowedTools") {
		t.Errorf("Bash: %+v", d)
	}
	if d := state(t, vs, "mcp__github__get_issue"); d.State == StateHidden {
		t.Errorf("an allowed MCP tool is hidden: %+v", d)
	}
	if d := state(t, vs, "mcp__everything__echo"); d.State != StateHidden {
		t.Errorf("echo: %+v", d)
	}
	if d := state(t, vs, "ToolSearch"); d.State != StateVisible {
		t.Errorf("ToolSearch: %+v", d)
	}
}

// A subagent sees only what its parent passed on, with that reason; its
// ToolSearch stays and finds only within the inherited set; its own
// profile still narrows the set.
func TestPolicyInheritedTools(t *testing.T) {
	v := fixtureCatalog(t).Snapshot().View("")
	in := Inputs{Mode: "default", Inherited: []string{"Read", "mcp__github"}}
	vs := Compute(v, in, NewDiscovery())
	for _, n := range []string{"Bash", "Write", "mcp__everything__echo"} {
		if d := state(t, vs, n); d.State != StateHidden || d.Cause != CauseInherit || d.Reason != InheritReason {
			t.Errorf("%s: %+v", n, d)
		}
	}
	for _, n := range []string{"Read", "ToolSearch", "mcp__github__get_issue"} {
		if d := state(t, vs, n); d.State == StateHidden {
			t.Errorf("%s is hidden from the subagent: %+v", n, d)
		}
	}
	res, err := Find(v, in, vs, SearchRequest{Query: "echo a message back", Kind: "tool"})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range res.Items {
		if !strings.HasPrefix(it.Name, "mcp__github__") && it.Name != "Read" {
			t.Errorf("a subagent's search found %s, which its parent did not pass on", it.Name)
		}
	}
	if !vs.Inputs.Subagent || len(vs.Inputs.InheritedTools) != 2 {
		t.Errorf("the inputs record does not show the inheritance: %+v", vs.Inputs)
	}
	// An empty inheritance is still one: nothing but ToolSearch.
	none := Compute(v, Inputs{Mode: "default", Inherited: []string{}}, NewDiscovery())
	if names := none.ToolNames(); len(names) != 1 || names[0] != "ToolSearch" {
		t.Errorf("empty inheritance shows %v", names)
	}
	// The subagent's own profile narrows what was inherited.
	both := Compute(v, Inputs{Mode: "default", Inherited: []string{"Read", "mcp__github"}, Allowed: []string{"Read"}}, NewDiscovery())
	if d := state(t, both, "mcp__github__get_issue"); d.State != StateHidden || d.Cause != CauseProfile {
		t.Errorf("profile over inheritance: %+v", d)
	}
}

func TestPolicyPromotionDemotionAndMentions(t *testing.T) {
	v := fixtureCatalog(t).Snapshot().View("")
	in := Inputs{Mode: "default"}
	d := NewDiscovery()
	vs := Compute(v, in, d)
	res, err := Find(v, in, vs, SearchRequest{Query: "get the logs of a failed CI job"})
	if err != nil || len(res.Items) == 0 {
		t.Fatalf("search: %v %+v", err, res)
	}
	promoted := d.PromoteHits(res)
	if len(promoted) == 0 {
		t.Fatal("nothing promoted")
	}
	next := Compute(v, in, d)
	dec := state(t, next, promoted[0])
	if dec.State != StateVisible || !strings.Contains(dec.Reason, `found by ToolSearch "get the logs of a failed CI job"`) {
		t.Errorf("promoted tool: %+v", dec)
	}
	// Three invalid calls in a row demote it; a new search brings it back.
	for range DemoteAfter {
		d.NoteCall(promoted[0], true)
	}
	if dec := state(t, Compute(v, in, d), promoted[0]); dec.State != StateDeferred || !strings.Contains(dec.Reason, "invalid arguments 3 times") {
		t.Errorf("demotion: %+v", dec)
	}
	d.PromoteHits(res)
	if dec := state(t, Compute(v, in, d), promoted[0]); dec.State != StateVisible {
		t.Errorf("after a new search: %+v", dec)
	}
	// A tool the task names is visible at once.
	m := Compute(v, Inputs{Mode: "default", Task: "use list_check_runs to see what failed"}, NewDiscovery())
	if dec := state(t, m, "mcp__github__list_check_runs"); dec.State != StateVisible || !strings.Contains(dec.Reason, "names list_check_runs") {
		t.Errorf("mention: %+v", dec)
	}
}

func TestPolicyNearlyFullContextDefersCommonTools(t *testing.T) {
	c := NewCatalog()
	c.Replace("local", entriesOf(localTools(t)), PartitionOptions{})
	vs := Compute(c.Snapshot().View(""), Inputs{Mode: "default", ContextWindow: 100_000, ContextUsed: 95_000}, NewDiscovery())
	if !vs.Deferring || !strings.Contains(vs.DeferReason, "nearly full") {
		t.Fatalf("%v %s", vs.Deferring, vs.DeferReason)
	}
	if d := state(t, vs, "Bash"); d.State != StateDeferred {
		t.Errorf("Bash: %+v", d)
	}
	if d := state(t, vs, "Read"); d.State != StateVisible {
		t.Errorf("Read: %+v", d)
	}
}

type brokenTool struct{}

func (brokenTool) Info() tools.Info {
	return tools.Info{Name: "mcp__bad__thing", Description: "[MCP server bad] Does a thing.", Source: tools.SourceMCP, Origin: "bad",
		Parameters: json.RawMessage(`{"type":"string"}`)}
}
func (brokenTool) Execute(context.Context, map[string]any) (tools.Result, error) {
	return tools.Text("x"), nil
}

func TestPolicyBrokenDescriptorIsListedNotOffered(t *testing.T) {
	c := fixtureCatalog(t)
	c.Replace("mcp:bad", []Entry{ToolEntry(brokenTool{})}, PartitionOptions{Priority: PriorityMCP})
	v := c.Snapshot().View("")
	vs := Compute(v, Inputs{Mode: "default", Settings: Settings{Defer: DeferNever}}, NewDiscovery())
	d := state(t, vs, "mcp__bad__thing")
	if d.State != StateHidden || !strings.Contains(d.Reason, "cannot be offered: its parameters schema must be of type object") {
		t.Errorf("broken: %+v", d)
	}
	res, err := Find(v, Inputs{Mode: "default"}, vs, SearchRequest{Query: "thing"})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range res.Items {
		if it.Name == "mcp__bad__thing" {
			t.Error("search returned a broken tool")
		}
	}
}

func TestSkillsAreIndexedNotPreloaded(t *testing.T) {
	c := fixtureCatalog(t)
	c.Replace("skill:builtin", skillEntries(20), PartitionOptions{Priority: PrioritySkill})
	v := c.Snapshot().View("")
	d := NewDiscovery()
	vs := Compute(v, Inputs{Mode: "default"}, d)
	idx := vs.IndexText()
	if !strings.Contains(idx, "test-fix — Fix failing tests") || strings.Contains(idx, "steps…") {
		t.Errorf("skill index:\n%s", idx)
	}
	if st := state2(vs, "skill__test-fix"); st.State != StateDeferred {
		t.Errorf("test-fix: %+v", st)
	}
	d.NoteLoaded("skill__test-fix")
	vs = Compute(v, Inputs{Mode: "default"}, d)
	if st := state2(vs, "skill__test-fix"); st.State != StateVisible || !strings.Contains(vs.IndexText(), "test-fix (loaded)") {
		t.Errorf("loaded: %+v\n%s", st, vs.IndexText())
	}
}

func state2(vs *VisibleSet, id string) Decision {
	d, _ := vs.Decision(id)
	return d
}
