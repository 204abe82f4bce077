package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"tinyelf/backend/capabilities"
	"tinyelf/backend/capabilities/captest"
	"tinyelf/backend/config"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
	"tinyelf/backend/tools"
)

// The seed's five tests of capability discovery (seed 003 §十四), and the
// rest of what the issue asks, through the real engine and llmtest in both
// wire formats.

// withFixtureCatalog gives the engine a catalog holding the fixture MCP
// servers (everything, filesystem and the GitHub-shaped one) as the user's
// servers, and optionally skills.
func withFixtureCatalog(cat *capabilities.Catalog, skills int) harnessOption {
	return func(h *harness, o *Options) {
		for _, srv := range captest.Servers {
			ts, err := captest.Tools(srv)
			if err != nil {
				h.t.Fatal(err)
			}
			es := make([]capabilities.Entry, len(ts))
			for i, t := range ts {
				es[i] = capabilities.ToolEntry(t)
			}
			cat.Replace("mcp:"+srv, es, capabilities.PartitionOptions{Priority: capabilities.PriorityMCP, Reason: "MCP server " + srv + " connected"})
		}
		if skills > 0 {
			cat.Replace("skill:builtin", fakeSkills(skills), capabilities.PartitionOptions{Priority: capabilities.PrioritySkill})
			o.ToolSources = append(o.ToolSources, staticSource{readSkillTool{cat}})
		}
		o.Catalog = cat
	}
}

const skillBodyMark = "BODY-OF-SKILL"

func fakeSkills(n int) []capabilities.Entry {
	var out []capabilities.Entry
	all := captest.Skills(n)
	for _, name := range captest.SkillNames(n) {
		desc := all[name]
		out = append(out, capabilities.Entry{Descriptor: capabilities.Descriptor{
			ID: "skill__" + name, Kind: capabilities.KindSkill, Name: name, Title: name, Summary: desc, Description: desc,
			Source: "skill:builtin", Risk: capabilities.RiskLow, ReadOnly: true,
		}, LoadDetail: func(context.Context) (capabilities.Detail, error) {
			return capabilities.Detail{Body: skillBodyMark + " of " + name + ": reproduce first."}, nil
		}})
	}
	return out
}

// readSkillTool stands in for the skills package's read_skill: it loads a
// skill's body from the catalog and marks the load for the engine.
type readSkillTool struct{ cat *capabilities.Catalog }

func (readSkillTool) Info() tools.Info {
	return tools.Info{Name: "read_skill", Description: "Load a skill's instructions.", ReadOnly: true, Safe: true,
		Parameters: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)}
}

func (r readSkillTool) Execute(ctx context.Context, p map[string]any) (tools.Result, error) {
	name := tools.String(p, "name", "")
	e, ok := r.cat.Snapshot().View("").ByID("skill__" + name)
	if !ok {
		return tools.Errorf("no skill %q", name), nil
	}
	d, err := e.Load(ctx)
	if err != nil {
		return tools.Result{}, err
	}
	res := tools.Text(d.Body)
	res.Meta = map[string]any{"capabilityLoaded": map[string]any{"id": e.ID, "kind": "skill", "source": e.Source}}
	return res, nil
}

// systemText returns a recorded request's system prompt in either format.
func systemText(req llmtest.Request) string {
	switch sys := req.Body["system"].(type) {
	case string:
		return sys
	case []any:
		var sb strings.Builder
		for _, b := range sys {
			if m, ok := b.(map[string]any); ok {
				sb.WriteString(fmt.Sprint(m["text"]))
			}
		}
		return sb.String()
	}
	msgs, _ := req.Body["messages"].([]any)
	for _, m := range msgs {
		if mm, ok := m.(map[string]any); ok && mm["role"] == "system" {
			b, _ := json.Marshal(mm["content"])
			return string(b)
		}
	}
	return ""
}

func checkReplay(t *testing.T, h *harness, id string, wantCalls int) *sessions.CapabilityReplay {
	t.Helper()
	rep, err := h.store.ReplayCapabilities(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Mismatches != 0 || len(rep.Calls) != wantCalls {
		t.Fatalf("replay: %d mismatches, %d calls (want %d): %+v", rep.Mismatches, len(rep.Calls), wantCalls, rep.Calls)
	}
	reqs := h.srv.ChatRequests()
	for i, c := range rep.Calls {
		if got := toolNames(reqs[i]); !slices.Equal(got, c.Visible) {
			t.Errorf("call %d: replay rebuilt %v, the request had %v", i, c.Visible, got)
		}
	}
	return rep
}

// 1. Skills are not preloaded: only index lines are in the request, the
// body arrives when the model loads it, and the load is recorded.
func TestDiscoverySkillsAreNotPreloaded(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		cat := capabilities.NewCatalog()
		h := newHarness(t, kind, []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("k", "read_skill", `{"name":"test-fix"}`)}},
			{Text: "Following test-fix."},
		}, withFixtureCatalog(cat, 20))
		id := h.session(ModeDefault)
		h.run(id, "fix the failing tests")
		reqs := h.srv.ChatRequests()
		sys0 := systemText(reqs[0])
		if !strings.Contains(sys0, "test-fix — Fix failing tests") || !strings.Contains(sys0, "code-review") {
			t.Errorf("first request lacks the skill index:\n%s", sys0)
		}
		if strings.Contains(sys0, skillBodyMark) || strings.Contains(requestText(reqs[0]), skillBodyMark) {
			t.Error("a skill body was preloaded")
		}
		if !strings.Contains(requestText(reqs[1]), skillBodyMark+" of test-fix") {
			t.Error("the loaded body did not reach the model")
		}
		loads := logged[sessions.CapabilityLoaded](h, id, sessions.EventCapabilityLoad)
		if len(loads) != 1 || loads[0].ID != "skill__test-fix" || loads[0].CallID != "k" {
			t.Errorf("capability.loaded: %+v", loads)
		}
		if !strings.Contains(systemText(reqs[1]), "test-fix (loaded)") {
			t.Error("the index does not mark the loaded skill")
		}
		checkReplay(t, h, id, 2)
	})
}

// 1b. The same test with the real skills package (skills_test.go wires it): the builtin test-fix and
// code-review skills are only index lines in the first request, the body
// arrives when the model loads test-fix, the load is recorded and marked
// in the index, and replay matches what was sent.
func TestSkillsRealAreNotPreloaded(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		env := &skillEnv{}
		h := newHarness(t, kind, []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("k", "read_skill", `{"name":"test-fix"}`)}},
			{Text: "Following test-fix."},
		}, withSkills(env))
		id := h.session(ModeDefault)
		h.run(id, "fix the failing tests")
		reqs := h.srv.ChatRequests()
		sys0 := systemText(reqs[0])
		mustContain(t, "the first system prompt", sys0, "test-fix — Fix failing tests", "code-review — ", "call read_skill")
		const bodyMark = "Reproduce before touching anything" // a heading of test-fix's body
		if strings.Contains(sys0, bodyMark) || strings.Contains(requestText(reqs[0]), bodyMark) {
			t.Error("a skill body was preloaded")
		}
		if !contains(toolNames(reqs[0]), "read_skill") || !contains(toolNames(reqs[0]), "list_skills") {
			t.Errorf("the skills tools are not offered: %v", toolNames(reqs[0]))
		}
		if !strings.Contains(requestText(reqs[1]), bodyMark) {
			t.Error("the loaded body did not reach the model")
		}
		loads := logged[sessions.CapabilityLoaded](h, id, sessions.EventCapabilityLoad)
		if len(loads) != 1 || loads[0].ID != "skill__test-fix" || loads[0].CallID != "k" || loads[0].Source != "builtin" {
			t.Errorf("capability.loaded: %+v", loads)
		}
		if !strings.Contains(systemText(reqs[1]), "test-fix (loaded)") {
			t.Error("the index does not mark the loaded skill")
		}
		checkReplay(t, h, id, 2)
	})
}

// 2. Plan mode hides write tools, and ToolSearch does not return them.
func TestDiscoveryPlanModeHidesWriteTools(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		cat := capabilities.NewCatalog()
		h := newHarness(t, kind, []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("s", "ToolSearch", `{"query":"write a file, create a pull request, delete a branch","limit":25}`)}},
			{Text: "Planned."},
		}, withFixtureCatalog(cat, 0))
		id := h.session(ModePlan)
		h.run(id, "plan a release")
		res := logged[sessions.ToolResult](h, id, sessions.EventToolResult)
		if len(res) != 1 || res[0].IsError {
			t.Fatalf("search result %+v", res)
		}
		for _, w := range []string{"mcp__github__create_pull_request", "mcp__github__delete_branch", "mcp__filesystem__write_file", "Write"} {
			if strings.Contains(res[0].Content, w+" [") {
				t.Errorf("plan-mode search returned %s:\n%s", w, res[0].Content)
			}
		}
		for i, req := range h.srv.ChatRequests() {
			for _, n := range toolNames(req) {
				if n == "Write" || n == "Edit" || n == "Bash" || n == "mcp__github__create_pull_request" {
					t.Errorf("request %d offered %s in plan mode", i, n)
				}
			}
		}
		checkReplay(t, h, id, 2)
	})
}

// 3. An MCP disconnect removes its tools with a recorded diff, and the next
// request lacks them. On the way: a deferred tool found by ToolSearch is
// called successfully on the next step.
func TestDiscoveryMCPDisconnectRemovesTools(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		cat := capabilities.NewCatalog()
		h := newHarness(t, kind, []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("s", "ToolSearch", `{"query":"logs of the failed CI job"}`)}},
			{ToolCalls: []llmtest.ToolCall{call("l", "mcp__github__get_job_logs", `{"owner":"o","repo":"r","run_id":7}`)}},
			{Dynamic: func(llmtest.Request) llmtest.Turn {
				cat.Remove("mcp:github", "MCP server github disconnected: EOF")
				return llmtest.Turn{ToolCalls: []llmtest.ToolCall{call("x", "Read", `{"path":"a.txt"}`)}}
			}},
			{Text: "done"},
		}, withFixtureCatalog(cat, 0))
		h.writeFile("a.txt", "hello")
		id := h.session(ModeAuto)
		h.run(id, "why did CI fail?")
		reqs := h.srv.ChatRequests()
		if contains(toolNames(reqs[0]), "mcp__github__get_job_logs") {
			t.Error("the GitHub tool was visible before it was found")
		}
		if !strings.Contains(systemText(reqs[0]), "MCP server github (152 tools") {
			t.Errorf("no index of the deferred server:\n%s", systemText(reqs[0]))
		}
		if !contains(toolNames(reqs[1]), "mcp__github__get_job_logs") || !contains(toolNames(reqs[2]), "mcp__github__get_job_logs") {
			t.Errorf("the found tool was not loaded: %v", toolNames(reqs[1]))
		}
		if contains(toolNames(reqs[3]), "mcp__github__get_job_logs") {
			t.Error("the disconnected server's tool was still offered")
		}
		results := logged[sessions.ToolResult](h, id, sessions.EventToolResult)
		if len(results) < 2 || results[1].IsError || !strings.HasPrefix(results[1].Content, "get_job_logs ok") {
			t.Fatalf("the found tool's call: %+v", results)
		}
		diffs := logged[sessions.CapabilityDiff](h, id, sessions.EventCapabilityDiff)
		var found, removed bool
		for _, d := range diffs {
			for _, it := range d.Items {
				if it.Name == "mcp__github__get_job_logs" && it.To == "visible" && strings.Contains(it.Reason, `found by ToolSearch "logs of the failed CI job"`) {
					found = true
				}
				if it.Name == "mcp__github__get_job_logs" && it.Change == "removed" && it.Reason == "MCP server github disconnected: EOF" {
					removed = true
				}
			}
		}
		if !found || !removed {
			t.Errorf("diffs lack the search (%v) or the disconnect (%v): %+v", found, removed, diffs)
		}
		checkReplay(t, h, id, 4)
	})
}

// 4. A search is not an authorization: a tool a deny rule blocks is not
// returned or made visible, and a call anyway is refused by the permission
// gate with an observation.
func TestDiscoverySearchIsNotAuthorization(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		cat := capabilities.NewCatalog()
		h := newHarness(t, kind, []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("s", "ToolSearch", `{"query":"delete the repository permanently"}`)}},
			{ToolCalls: []llmtest.ToolCall{call("d", "mcp__github__delete_repository", `{"owner":"o","repo":"r"}`)}},
			{Text: "I may not."},
		}, withFixtureCatalog(cat, 0))
		if _, err := h.settings.AddRule(config.Rule{Tool: "mcp__github__delete_repository", Action: config.RuleDeny}); err != nil {
			t.Fatal(err)
		}
		id := h.session(ModeAuto)
		h.run(id, "clean up the old repository")
		results := logged[sessions.ToolResult](h, id, sessions.EventToolResult)
		if len(results) != 2 {
			t.Fatalf("results %+v", results)
		}
		if strings.Contains(results[0].Content, "mcp__github__delete_repository") {
			t.Errorf("search returned the denied tool:\n%s", results[0].Content)
		}
		if !results[1].IsError || !strings.Contains(results[1].Content, "Permission denied") || !strings.Contains(results[1].Content, "deny rule") {
			t.Errorf("the call was not refused by the gate: %+v", results[1])
		}
		for i, req := range h.srv.ChatRequests() {
			if contains(toolNames(req), "mcp__github__delete_repository") {
				t.Errorf("request %d offered the denied tool", i)
			}
		}
		answers := logged[sessions.ApprovalAnswered](h, id, sessions.EventApprovalAnswered)
		if len(answers) != 1 || answers[0].Decision != string(Deny) || answers[0].By != "rule" {
			t.Errorf("the gate's decision was not recorded: %+v", answers)
		}
	})
}

// 5. Replay restores each call's visible set and it equals what was sent,
// also across a restart of the app.
func TestDiscoveryReplayEqualsWhatWasSent(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		cat := capabilities.NewCatalog()
		h := newHarness(t, kind, []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("s", "ToolSearch", `{"query":"create an issue"}`)}},
			{ToolCalls: []llmtest.ToolCall{call("i", "mcp__github__create_issue", `{"owner":"o","repo":"r","title":"t"}`)}},
			{Text: "Filed."},
		}, withFixtureCatalog(cat, 5))
		id := h.session(ModeAuto)
		h.run(id, "file it")
		checkReplay(t, h, id, 3)

		// Reopened, the session still offers what it had found, and logs
		// no diff when nothing changed while it was closed.
		diffsBefore := len(logged[sessions.CapabilityDiff](h, id, sessions.EventCapabilityDiff))
		h.restart([]llmtest.Turn{{Text: "again"}})
		h.run(id, "and now?")
		if n := len(logged[sessions.CapabilityDiff](h, id, sessions.EventCapabilityDiff)); n != diffsBefore {
			t.Errorf("reopening logged %d new diffs, want none", n-diffsBefore)
		}
		if !contains(toolNames(h.srv.ChatRequests()[0]), "mcp__github__create_issue") {
			t.Errorf("the found tool was lost on reopening: %v", toolNames(h.srv.ChatRequests()[0]))
		}
		rep, err := h.store.ReplayCapabilities(context.Background(), id)
		if err != nil || rep.Mismatches != 0 || len(rep.Calls) != 4 {
			t.Errorf("replay after restart: %v %+v", err, rep)
		}
	})
}

// The deferral switches on at the configured threshold.
func TestDiscoveryThresholdFromSettings(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		h := newHarness(t, kind, []llmtest.Turn{{Text: "a"}, {Text: "b"}, {Text: "c"}})
		id := h.session(ModeDefault)
		h.run(id, "hi")
		if !contains(toolNames(h.srv.ChatRequests()[0]), "SessionsYield") {
			t.Fatalf("the local tools alone should all be sent: %v", toolNames(h.srv.ChatRequests()[0]))
		}
		if err := h.settings.Update(func(s *config.Settings) error { s.Discovery.Threshold = 0.001; return nil }); err != nil {
			t.Fatal(err)
		}
		h.run(id, "again")
		names := toolNames(h.srv.ChatRequests()[1])
		if contains(names, "SessionsYield") || !contains(names, "Read") || !strings.Contains(systemText(h.srv.ChatRequests()[1]), "SessionsYield") {
			t.Errorf("threshold 0.001 should defer SessionsYield to the index: %v", names)
		}
		if err := h.settings.Update(func(s *config.Settings) error {
			s.Discovery = config.Discovery{Defer: "never", Threshold: 0.001}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		h.run(id, "and again")
		if !contains(toolNames(h.srv.ChatRequests()[2]), "SessionsYield") {
			t.Error("never should send everything")
		}
		checkReplay(t, h, id, 3)
	})
}

// Bad input never breaks the turn: an empty query, a 10 KB query, a bad
// regex, a call to a deferred tool by name (which loads and runs it), and a
// server whose tool has a broken schema.
func TestDiscoveryBadInput(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		cat := capabilities.NewCatalog()
		long, _ := json.Marshal(map[string]any{"query": strings.Repeat("pull request ", 800)})
		h := newHarness(t, kind, []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{
				call("e", "ToolSearch", `{"query":"   "}`),
				call("l", "ToolSearch", string(long)),
				call("r", "ToolSearch", `{"query":"pull(","regex":true}`),
				call("n", "mcp__github__get_issue", `{"owner":"o","repo":"r","issue_number":1}`),
			}},
			{ToolCalls: []llmtest.ToolCall{call("n2", "mcp__github__get_issue", `{"owner":"o","repo":"r","issue_number":1}`)}},
			{Text: "ok"},
		}, withFixtureCatalog(cat, 0), func(h *harness, o *Options) {
			o.ToolSources = append(o.ToolSources, staticSource{brokenMCPTool{}})
		})
		id := h.session(ModeAuto)
		if res := h.run(id, "look"); res.Reason != EndDone {
			t.Fatalf("turn %+v", res)
		}
		rs := logged[sessions.ToolResult](h, id, sessions.EventToolResult)
		want := []struct {
			err  bool
			text string
		}{{true, "query is empty"}, {false, "cut to its first"}, {true, "does not compile"},
			{false, "get_issue ok"}, {false, "get_issue ok"}}
		if len(rs) != len(want) {
			t.Fatalf("results %+v", rs)
		}
		for i, w := range want {
			if rs[i].IsError != w.err || !strings.Contains(rs[i].Content, w.text) {
				t.Errorf("result %d: %+v, want error=%v containing %q", i, rs[i], w.err, w.text)
			}
		}
		diffs := logged[sessions.CapabilityDiff](h, id, sessions.EventCapabilityDiff)
		var broken bool
		for _, it := range diffs[0].Items {
			broken = broken || it.Name == "mcp__bad__thing"
		}
		if broken {
			t.Error("a broken tool entered the visible set")
		}
		checkReplay(t, h, id, 3)
	})
}

type brokenMCPTool struct{}

func (brokenMCPTool) Info() tools.Info {
	return tools.Info{Name: "mcp__bad__thing", Description: "[MCP server bad] Does a thing.", Source: tools.SourceMCP, Origin: "bad",
		Parameters: json.RawMessage(`{"type":"array"}`)}
}
func (brokenMCPTool) Execute(context.Context, map[string]any) (tools.Result, error) {
	return tools.Text("should not run"), nil
}

// A tool whose definition changed while the session was closed shows as
// changed in the reopened session's first diff, and replay still matches.
func TestDiscoveryReopenedSessionDiffsAgainstItsLog(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		cat := capabilities.NewCatalog()
		h := newHarness(t, kind, []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("s", "ToolSearch", `{"query":"echo a message"}`)}},
			{Text: "found"},
		}, withFixtureCatalog(cat, 0))
		id := h.session(ModeAuto)
		h.run(id, "find echo")
		if !contains(toolNames(h.srv.ChatRequests()[1]), "mcp__everything__echo") {
			t.Fatalf("echo not loaded: %v", toolNames(h.srv.ChatRequests()[1]))
		}
		// The server comes back with a new description for echo.
		ev, _ := captest.Tools("everything")
		es := make([]capabilities.Entry, len(ev))
		for i, tool := range ev {
			if tool.Info().Name == "mcp__everything__echo" {
				tool = renamedDesc{tool}
			}
			es[i] = capabilities.ToolEntry(tool)
		}
		cat.Replace("mcp:everything", es, capabilities.PartitionOptions{Priority: capabilities.PriorityMCP, Reason: "MCP server everything reconnected"})
		h.restart([]llmtest.Turn{{Text: "again"}})
		h.run(id, "and now?")
		diffs := logged[sessions.CapabilityDiff](h, id, sessions.EventCapabilityDiff)
		last := diffs[len(diffs)-1]
		if len(last.Items) != 1 || last.Items[0].Name != "mcp__everything__echo" || last.Items[0].Change != "changed" {
			t.Errorf("reopened diff: %+v", last.Items)
		}
		rep, err := h.store.ReplayCapabilities(context.Background(), id)
		if err != nil || rep.Mismatches != 0 || len(rep.Calls) != 3 {
			t.Errorf("replay: %v %+v", err, rep)
		}
	})
}

type renamedDesc struct{ tools.Tool }

func (r renamedDesc) Info() tools.Info {
	i := r.Tool.Info()
	i.Description += " (now with a better description)"
	return i
}
