package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tinyelf/backend/capabilities"
	"tinyelf/backend/config"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
)

// A deferred tool called by its exact name runs in that same step, through
// the permission gate, and its loading is a capability diff with the
// reason; the call does not count towards demotion, so two invalid calls
// after it do not set the tool aside (before, the "not loaded" answer was
// the first of three).
func TestDeferredToolCalledByNameRunsAtOnce(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		const name = "mcp__github__get_issue"
		cat := capabilities.NewCatalog()
		h := newHarness(t, kind, []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("n", name, `{"owner":"o","repo":"r","issue_number":1}`)}},
			{ToolCalls: []llmtest.ToolCall{call("b1", name, `{"owner":"o"}`)}},
			{ToolCalls: []llmtest.ToolCall{call("b2", name, `{"owner":"o"}`)}},
			{Text: "Read it."},
		}, withFixtureCatalog(cat, 0))
		id := h.session(ModeAuto)
		if res := h.run(id, "look at issue 1"); res.Reason != EndDone {
			t.Fatalf("turn %+v", res)
		}
		reqs := h.srv.ChatRequests()
		if contains(toolNames(reqs[0]), name) {
			t.Fatalf("the test needs %s deferred in the first request: %v", name, toolNames(reqs[0]))
		}
		rs := logged[sessions.ToolResult](h, id, sessions.EventToolResult)
		if len(rs) != 3 {
			t.Fatalf("results %+v", rs)
		}
		if rs[0].IsError || !strings.Contains(rs[0].Content, "get_issue ok") {
			t.Errorf("the deferred tool called by name did not run in that step: %+v", rs[0])
		}
		for _, r := range rs[1:] {
			if !r.IsError || !strings.Contains(r.Content, "Invalid arguments") {
				t.Errorf("an invalid call was not refused as such: %+v", r)
			}
			if strings.Contains(r.Content, "set aside") {
				t.Errorf("the deferred call counted towards demotion: %s", r.Content)
			}
		}
		for i, req := range reqs[1:] {
			if !contains(toolNames(req), name) {
				t.Errorf("request %d does not offer %s after it was called by name: %v", i+1, name, toolNames(req))
			}
		}

		// The diff that loaded it is logged before the call's result, with
		// the reason.
		var diffSeq, resultSeq int64
		for ev, err := range h.store.Events(t.Context(), id, 1, 0) {
			if err != nil {
				t.Fatal(err)
			}
			switch ev.Type {
			case sessions.EventCapabilityDiff:
				if strings.Contains(string(ev.Data), reasonCalledByName) && diffSeq == 0 {
					diffSeq = ev.Seq
				}
			case sessions.EventToolResult:
				if resultSeq == 0 {
					resultSeq = ev.Seq
				}
			}
		}
		if diffSeq == 0 || diffSeq > resultSeq {
			t.Errorf("no capability diff with reason %q before the result (diff at %d, result at %d)", reasonCalledByName, diffSeq, resultSeq)
		}
		for _, d := range logged[sessions.CapabilityDiff](h, id, sessions.EventCapabilityDiff) {
			for _, it := range d.Items {
				if it.Name == name && it.Reason == reasonCalledByName && (it.To != string(capabilities.StateVisible) || !contains(d.Added, name) || it.Hash == "") {
					t.Errorf("the diff does not say the tool became visible: %+v in %+v", it, d)
				}
			}
		}
		checkReplay(t, h, id, 4)
	})
}

// Knowing a name is no way past visibility or permission: a tool the mode
// hides and one a deny rule forbids do not run when called by name, and
// both calls count towards demotion as invalid calls.
func TestHiddenAndDeniedToolsCalledByNameDoNotRun(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		const denied = "mcp__github__get_issue" // read-only: plan mode keeps it
		cat := capabilities.NewCatalog()
		h := newHarness(t, kind, []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{
				call("w", "Write", `{"path":"new.txt","content":"x"}`),
				call("d", denied, `{"owner":"o","repo":"r","issue_number":1}`),
			}},
			{Text: "I may not."},
		}, withFixtureCatalog(cat, 0))
		if _, err := h.settings.AddRule(config.Rule{Tool: denied, Action: config.RuleDeny}); err != nil {
			t.Fatal(err)
		}
		id := h.session(ModePlan)
		h.run(id, "write and file")
		rs := logged[sessions.ToolResult](h, id, sessions.EventToolResult)
		if len(rs) != 2 {
			t.Fatalf("results %+v", rs)
		}
		if !rs[0].IsError || !strings.Contains(rs[0].Content, "not available") {
			t.Errorf("Write in plan mode: %+v", rs[0])
		}
		if _, err := os.Stat(filepath.Join(h.workspace, "new.txt")); err == nil {
			t.Error("a hidden tool called by name ran")
		}
		if !rs[1].IsError || !strings.Contains(rs[1].Content, "Permission denied") || strings.Contains(rs[1].Content, "get_issue ok") {
			t.Errorf("a denied tool called by name: %+v", rs[1])
		}
		for _, d := range logged[sessions.CapabilityDiff](h, id, sessions.EventCapabilityDiff) {
			for _, it := range d.Items {
				if it.Reason == reasonCalledByName {
					t.Errorf("a hidden or denied tool was loaded: %+v", it)
				}
			}
		}
		h.engine.mu.Lock()
		st := h.engine.sessions[id]
		h.engine.mu.Unlock()
		ds := st.discoveryState()
		for _, n := range []string{"Write", denied} {
			if got := ds.NoteCall(n, true); got != 2 {
				t.Errorf("%s: the call by name did not count as invalid (count after one more: %d, want 2)", n, got)
			}
		}
		checkReplay(t, h, id, 2)
	})
}

// A deferred tool loaded by its name still goes through the permission
// gate: in default mode a tool that changes things asks first, and a
// denial stops it.
func TestDeferredToolCalledByNameAsksFirst(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		const name = "mcp__github__create_issue"
		cat := capabilities.NewCatalog()
		h := newHarness(t, kind, []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("c", name, `{"owner":"o","repo":"r","title":"t"}`)}},
			{Text: "Not filed."},
		}, withFixtureCatalog(cat, 0), withApprover(func(ApprovalRequest) ApprovalAnswer {
			return ApprovalAnswer{Decision: Deny, Reason: "not now"}
		}))
		id := h.session(ModeDefault)
		h.run(id, "file an issue")
		if contains(toolNames(h.srv.ChatRequests()[0]), name) {
			t.Fatalf("the test needs %s deferred", name)
		}
		h.mu.Lock()
		asked := len(h.asked)
		h.mu.Unlock()
		rs := logged[sessions.ToolResult](h, id, sessions.EventToolResult)
		if asked != 1 || len(rs) != 1 || !rs[0].IsError || strings.Contains(rs[0].Content, "create_issue ok") {
			t.Errorf("asked %d times; results %+v", asked, rs)
		}
		checkReplay(t, h, id, 2)
	})
}
