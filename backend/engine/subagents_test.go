package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tinyelf/backend/capabilities"
	"tinyelf/backend/config"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
	"tinyelf/backend/tools"
	"tinyelf/backend/tools/agent"
	"tinyelf/internal/testutil"
)

// actors scripts a conversation between sessions on one fake server: a
// request goes to the first actor whose marker (a word of its prompt) its
// first user message holds, any other to the parent ("").
type actors struct {
	mu    sync.Mutex
	turns map[string][]llmtest.Turn
	order []string // subagent markers, deepest first
	got   map[string][]llmtest.Request
}

func newActors(parent []llmtest.Turn, children ...any) *actors {
	a := &actors{turns: map[string][]llmtest.Turn{"": parent}, got: map[string][]llmtest.Request{}}
	for i := 0; i+1 < len(children); i += 2 {
		marker := children[i].(string)
		a.order = append(a.order, marker)
		a.turns[marker] = children[i+1].([]llmtest.Turn)
	}
	return a
}

// install makes the harness's server answer through the actors.
func (a *actors) install(h *harness) {
	h.srv.SetDefault(llmtest.Turn{Dynamic: a.turn})
}

func (a *actors) actorOf(req llmtest.Request) string {
	first := firstUserMessage(req)
	for _, m := range a.order {
		if strings.Contains(first, m) {
			return m
		}
	}
	return ""
}

// firstUserMessage returns the first user message of a request as JSON
// text (a subagent's is its prompt), in either wire format.
func firstUserMessage(req llmtest.Request) string {
	for _, m := range req.Messages() {
		if m["role"] == "user" {
			b, _ := json.Marshal(m["content"])
			return string(b)
		}
	}
	return ""
}

func (a *actors) turn(req llmtest.Request) llmtest.Turn {
	who := a.actorOf(req)
	a.mu.Lock()
	a.got[who] = append(a.got[who], req)
	list := a.turns[who]
	if len(list) == 0 {
		a.mu.Unlock()
		return llmtest.Turn{Text: fmt.Sprintf("(the script has no turn left for %q)", who)}
	}
	a.turns[who] = list[1:]
	t := list[0]
	a.mu.Unlock()
	if t.Dynamic != nil {
		return t.Dynamic(req)
	}
	return t
}

// push adds turns for an actor.
func (a *actors) push(who string, turns ...llmtest.Turn) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.turns[who] = append(a.turns[who], turns...)
}

func (a *actors) requests(who string) []llmtest.Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.got[who])
}

// notices records what the engine tells the user.
type notices struct {
	mu   sync.Mutex
	list []notice
}

type notice struct {
	kind, title, text string
	background        bool
}

func (n *notices) add(kind, title, text string, bg bool) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.list = append(n.list, notice{kind, title, text, bg})
	return nil
}
func (n *notices) TurnEnded(_ context.Context, title, summary string, bg bool) error {
	return n.add("ended", title, summary, bg)
}
func (n *notices) TurnFailed(_ context.Context, title, reason string, bg bool) error {
	return n.add("failed", title, reason, bg)
}
func (n *notices) ApprovalWaiting(_ context.Context, title, tool string, bg bool) error {
	return n.add("approval", title, tool, bg)
}
func (n *notices) all() []notice {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.list)
}

func withNotices(n *notices) harnessOption {
	return func(h *harness, o *Options) { o.Notices = n }
}

func withLimits(l SubagentLimits) harnessOption {
	return func(h *harness, o *Options) { o.Subagents = l }
}

func withSources(src ...ToolSource) harnessOption {
	return func(h *harness, o *Options) { o.ToolSources = src }
}

// mcpTool is an MCP-like tool of a fake server.
type mcpTool struct {
	name     string
	readOnly bool
}

func (m mcpTool) Info() tools.Info {
	return tools.Info{Name: m.name, Description: "a tool of a fake MCP server", Source: tools.SourceMCP, ReadOnly: m.readOnly,
		Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)}
}

func (m mcpTool) Execute(_ context.Context, p map[string]any) (tools.Result, error) {
	return tools.Text(m.name + " says: issue #7 is open"), nil
}

func (h *harness) agents(list ...config.Agent) {
	h.t.Helper()
	if err := h.settings.Update(func(s *config.Settings) error { s.Agents = list; return nil }); err != nil {
		h.t.Fatal(err)
	}
}

// children returns a session's subagent sessions, oldest first.
func (h *harness) children(parent string) []sessions.Session {
	h.t.Helper()
	list, err := h.store.List(context.Background(), sessions.ListOptions{Parent: parent})
	if err != nil {
		h.t.Fatal(err)
	}
	slices.Reverse(list)
	return list
}

// spawnResult returns the result of a session's spawn_agent call.
func spawnResult(h *harness, id, callID string) sessions.ToolResult {
	h.t.Helper()
	for _, r := range toolResults(h, id) {
		if r.CallID == callID {
			return r
		}
	}
	h.t.Fatalf("no result for call %s in session %s", callID, id)
	return sessions.ToolResult{}
}

func (h *harness) eventsOf(id, typ string) []Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []Event
	for _, ev := range h.events {
		if ev.SessionID == id && (typ == "" || ev.Type == typ) {
			out = append(out, ev)
		}
	}
	return out
}

func TestSubagentForeground(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		a := newActors([]llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("sp1", "spawn_agent", `{"prompt":"TASK-A: find the failing test","tools":["Read"]}`)}},
			{Text: "The failing test is foo_test.go."},
		}, "TASK-A", []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("c1", "mcp__issues__search", `{"q":"failing"}`)}},
			{Text: "It is foo_test.go, see issue #7."},
		})
		h := newHarness(t, kind, nil, withSources(fixedSource{[]tools.Tool{mcpTool{name: "mcp__issues__search", readOnly: true}}}))
		a.install(h)
		parent := h.session(ModeDefault)
		res := h.run(parent, "Why does CI fail?")
		if res.Reason != EndDone || res.Text != "The failing test is foo_test.go." {
			t.Fatalf("parent result %+v", res)
		}
		kids := h.children(parent)
		if len(kids) != 1 {
			t.Fatalf("children %+v", kids)
		}
		child := kids[0]
		if child.ParentCallID != "sp1" || child.Agent != config.DefaultAgent || child.Mode != string(ModeDefault) || child.Background {
			t.Errorf("child session %+v", child)
		}
		if !slices.Equal(child.Inherited, []string{"mcp__issues__search", "Read"}) {
			t.Errorf("inherited %v, want the MCP tool and Read", child.Inherited)
		}
		r := spawnResult(h, parent, "sp1")
		mustContain(t, "spawn_agent result", r.Content, "It is foo_test.go, see issue #7.", "finished after 2 model calls", "tokens in")
		if r.IsError {
			t.Errorf("spawn result is an error: %s", r.Content)
		}
		meta, _ := r.Meta[agent.SubagentMetaKey].(map[string]any)
		if meta["sessionId"] != child.ID || meta["state"] != agent.RunDone {
			t.Errorf("result meta %+v", r.Meta)
		}
		// The child was shown only what it inherited, and told what it is.
		reqs := a.requests("TASK-A")
		if len(reqs) != 2 {
			t.Fatalf("%d child requests", len(reqs))
		}
		names := toolNames(reqs[0])
		for _, n := range []string{"Read", "ToolSearch", "mcp__issues__search"} {
			if !contains(names, n) {
				t.Errorf("the child was not offered %s: %v", n, names)
			}
		}
		for _, n := range []string{"Write", "Bash", "Edit", "spawn_agent", "Grep"} {
			if contains(names, n) {
				t.Errorf("the child was offered %s, which it did not inherit: %v", n, names)
			}
		}
		mustContain(t, "child system prompt", systemText(reqs[0]), "You are a subagent")
		// Its own log holds its capability diffs and calls.
		if diffs := logged[sessions.CapabilityDiff](h, child.ID, sessions.EventCapabilityDiff); len(diffs) == 0 || !contains(diffs[0].Visible, "mcp__issues__search") {
			t.Errorf("child diffs %+v", diffs)
		}
		var inputs capabilities.InputsRecord
		diffs := logged[sessions.CapabilityDiff](h, child.ID, sessions.EventCapabilityDiff)
		if err := json.Unmarshal(diffs[0].Inputs, &inputs); err != nil || !inputs.Subagent {
			t.Errorf("the child's diff inputs do not say it is a subagent: %s", diffs[0].Inputs)
		}
		// Its events carry the link to its parent, for the parent's window.
		evs := h.eventsOf(child.ID, string(sessions.EventToolIntent))
		if len(evs) != 1 || evs[0].ParentID != parent || evs[0].RootID != parent {
			t.Errorf("child events %+v", evs)
		}
		// The MCP call asked in the child's name.
		h.mu.Lock()
		asked := slices.Clone(h.asked)
		h.mu.Unlock()
		if len(asked) != 2 || asked[0].Tool != "spawn_agent" || asked[1].Tool != "mcp__issues__search" || asked[1].SessionID != child.ID {
			t.Errorf("approvals %+v", asked)
		}
		// The parent's tool card followed the child.
		var states []string
		for _, ev := range h.eventsOf(parent, LiveSubagent) {
			var p struct {
				CallID string         `json:"callId"`
				Run    map[string]any `json:"run"`
			}
			_ = json.Unmarshal(ev.Data, &p)
			if p.CallID != "sp1" || p.Run["sessionId"] != child.ID {
				t.Errorf("subagent update %s", ev.Data)
			}
			states = append(states, fmt.Sprint(p.Run["state"], ":", p.Run["progress"]))
		}
		if len(states) < 3 || states[len(states)-1] != "done:" || !slices.Contains(states, "running:running mcp__issues__search") {
			t.Errorf("subagent updates %v", states)
		}
	})
}

func TestSubagentBackgroundNotifiesAndReports(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		a := newActors([]llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("sp1", "spawn_agent", `{"prompt":"TASK-B: summarise the README","background":true}`)}},
			{Text: "It runs in the background."},
		}, "TASK-B", []llmtest.Turn{{Text: "The README explains the build."}})
		n := &notices{}
		h := newHarness(t, kind, nil, withNotices(n))
		a.install(h)
		parent := h.session(ModeAuto)
		if res := h.run(parent, "Summarise the README, in the background"); res.Reason != EndDone {
			t.Fatalf("parent result %+v", res)
		}
		r := spawnResult(h, parent, "sp1")
		mustContain(t, "spawn_agent result", r.Content, "in the background", "subagent_status")
		runs := h.engine.Subagents().RunsOf(parent)
		if len(runs) != 1 || !runs[0].Background {
			t.Fatalf("runs %+v", runs)
		}
		runID := runs[0].RunID
		testutil.WaitFor(t, "the background child ends", func() bool { return h.engine.Subagents().RunsOf(parent)[0].Over() })
		if got := h.engine.Subagents().RunsOf(parent)[0]; got.State != agent.RunDone || got.Text != "The README explains the build." {
			t.Errorf("run %+v", got)
		}
		testutil.WaitFor(t, "the user is notified", func() bool {
			return slices.ContainsFunc(n.all(), func(x notice) bool {
				return x.kind == "ended" && x.background && strings.Contains(x.title, "subagent") && strings.Contains(x.text, "README explains")
			})
		})
		// The parent asks after it later.
		a.push("",
			llmtest.Turn{ToolCalls: []llmtest.ToolCall{call("st1", "subagent_status", fmt.Sprintf(`{"runId":%q}`, runID)), call("ls1", "subagent_list", `{}`)}},
			llmtest.Turn{Text: "It is done."})
		if res := h.run(parent, "How is it going?"); res.Reason != EndDone {
			t.Fatalf("second turn %+v", res)
		}
		mustContain(t, "subagent_status", spawnResult(h, parent, "st1").Content, "The README explains the build.", "finished after 1 model calls")
		mustContain(t, "subagent_list", spawnResult(h, parent, "ls1").Content, runID, "1 subagents, 0 still working", "done")
		unknown := spawnRunStatus(t, h, parent, "nope")
		mustContain(t, "status of an unknown run", unknown, "no subagent run")
	})
}

// spawnRunStatus asks for a run's status through the tool, as the parent's
// model would.
func spawnRunStatus(t *testing.T, h *harness, parent, runID string) string {
	t.Helper()
	s := h.engine.peek(parent)
	tt := &turn{e: h.engine, s: s, info: SessionInfo{ID: parent}}
	res, err := agent.NewSubagentStatus(h.engine.Subagents()).Execute(withTurn(context.Background(), tt), map[string]any{"runId": runID})
	if err != nil {
		t.Fatal(err)
	}
	return res.Content
}

func TestSubagentInheritance(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		a := newActors([]llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("sp1", "spawn_agent", `{"prompt":"TASK-C: look around","tools":["Write","Grep","Nope"]}`)}},
			{Text: "ok"},
		}, "TASK-C", []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("w1", "Write", `{"path":"x.txt","content":"hi"}`)}},
			{Text: "I could not write."},
		})
		src := fixedSource{[]tools.Tool{mcpTool{name: "mcp__issues__search", readOnly: true}, mcpTool{name: "mcp__issues__delete"}}}
		h := newHarness(t, kind, nil, withSources(src))
		a.install(h)
		h.agents(config.Agent{Name: "lead", AllowedTools: []string{"Read", "Grep", "spawn_agent", "mcp__issues__search"}})
		parent, err := h.engine.NewSession(context.Background(), h.workspace, ModeAuto, "lead", "", "")
		if err != nil {
			t.Fatal(err)
		}
		if res := h.run(parent, "look"); res.Reason != EndDone {
			t.Fatalf("parent %+v", res)
		}
		child := h.children(parent)[0]
		if !slices.Equal(child.Inherited, []string{"mcp__issues__search", "Grep"}) {
			t.Errorf("inherited %v", child.Inherited)
		}
		r := spawnResult(h, parent, "sp1")
		mustContain(t, "spawn result", r.Content, "Not given to it: Write (you do not have it: this agent's profile does not allow it (allowedTools)); Nope (there is no such tool)")
		names := toolNames(a.requests("TASK-C")[0])
		slices.Sort(names)
		if !slices.Equal(names, []string{"Grep", "ToolSearch", "mcp__issues__search"}) {
			t.Errorf("child offered %v", names)
		}
		// A call to a tool it did not inherit is explained, not unknown.
		w := spawnResult(h, child.ID, "w1")
		mustContain(t, "child's Write", w.Content, capabilities.InheritReason)
		if _, err := os.Stat(filepath.Join(h.workspace, "x.txt")); err == nil {
			t.Error("the child wrote a file with a tool it did not inherit")
		}
		vs, err := h.engine.Preview(context.Background(), child.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, d, ok := vs.Lookup("mcp__issues__delete"); !ok || d.Cause != capabilities.CauseInherit {
			t.Errorf("the parent's hidden MCP tool in the child: %+v", d)
		}
	})
}

func TestSubagentModesAndProfiles(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		a := newActors([]llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{
				call("sp1", "spawn_agent", `{"prompt":"TASK-D1 plan it","permissionMode":"plan"}`),
				call("sp2", "spawn_agent", `{"prompt":"TASK-D2 run free","permissionMode":"auto"}`),
				call("sp3", "spawn_agent", `{"prompt":"TASK-D3 cheap one","agent":"cheap"}`),
				call("sp4", "spawn_agent", `{"prompt":"TASK-D4 other model","model":"other-model"}`),
				call("sp5", "spawn_agent", `{"prompt":"TASK-D5","agent":"ghost"}`),
			}},
			{Text: "done"},
		}, "TASK-D1", []llmtest.Turn{{Text: "planned"}},
			"TASK-D3", []llmtest.Turn{{Text: "cheap answer"}},
			"TASK-D4", []llmtest.Turn{{Text: "other answer"}})
		h := newHarness(t, kind, nil)
		a.install(h)
		h.agents(config.Agent{Name: "cheap", Description: "a quick helper", Model: "cheap-model", PermissionMode: "auto", Prompt: "Be brief."})
		parent := h.session(ModeAcceptEdits)
		if res := h.run(parent, "go"); res.Reason != EndDone {
			t.Fatalf("parent %+v", res)
		}
		modes := map[string]string{}
		for _, c := range h.children(parent) {
			modes[c.ParentCallID] = c.Mode
		}
		if modes["sp1"] != "plan" || modes["sp3"] != "acceptEdits" || modes["sp4"] != "acceptEdits" || len(modes) != 3 {
			t.Errorf("child modes %v", modes)
		}
		mustContain(t, "looser mode", spawnResult(h, parent, "sp2").Content, "permissionMode auto is looser than this session's (acceptEdits)")
		mustContain(t, "profile's mode", spawnResult(h, parent, "sp3").Content, "cheap answer", "the profile's mode auto is looser than yours, so the child runs in acceptEdits")
		mustContain(t, "unknown agent", spawnResult(h, parent, "sp5").Content, `no agent profile "ghost"`, "cheap (a quick helper)")
		if r := spawnResult(h, parent, "sp2"); !r.IsError {
			t.Errorf("a refused spawn is not an error result: %+v", r)
		}
		// The profile's model and prompt, and a model asked for by name.
		if m := a.requests("TASK-D3")[0].Body["model"]; m != "cheap-model" {
			t.Errorf("cheap child ran on %v", m)
		}
		mustContain(t, "cheap child's prompt", systemText(a.requests("TASK-D3")[0]), "Be brief.")
		if m := a.requests("TASK-D4")[0].Body["model"]; m != "other-model" {
			t.Errorf("TASK-D4 ran on %v", m)
		}
		if m := a.requests("TASK-D1")[0].Body["model"]; m != "test-model" {
			t.Errorf("TASK-D1 ran on %v, want the parent's model", m)
		}
	})
}

func TestSubagentDepthLimit(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		// The default limit is 2: a grandchild may not spawn again.
		a := newActors([]llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("sp1", "spawn_agent", `{"prompt":"TASK-E1 delegate further","tools":["spawn_agent"]}`)}},
			{Text: "done"},
		}, "TASK-E1", []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("sp2", "spawn_agent", `{"prompt":"TASK-E2 deeper","tools":["spawn_agent"]}`)}},
			{Text: "child answer"},
		}, "TASK-E2", []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("sp3", "spawn_agent", `{"prompt":"TASK-E3 deepest"}`)}},
			{Text: "grandchild answer"},
		})
		h := newHarness(t, kind, nil)
		a.install(h)
		parent := h.session(ModeAuto)
		if res := h.run(parent, "go"); res.Reason != EndDone {
			t.Fatalf("parent %+v", res)
		}
		child := h.children(parent)[0]
		grand := h.children(child.ID)
		if len(grand) != 1 || !slices.Contains(grand[0].Inherited, "spawn_agent") {
			t.Fatalf("grandchildren %+v", grand)
		}
		mustContain(t, "grandchild", spawnResult(h, child.ID, "sp2").Content, "grandchild answer")
		r := spawnResult(h, grand[0].ID, "sp3")
		if !r.IsError || !strings.Contains(r.Content, "subagents may nest only 2 deep, and this session is already at depth 2") {
			t.Errorf("depth refusal %+v", r)
		}
		if len(h.children(grand[0].ID)) != 0 {
			t.Errorf("a third level was spawned")
		}
		// The grandchild's events reach the top-level window.
		evs := h.eventsOf(grand[0].ID, string(sessions.EventTurnEnd))
		if len(evs) != 1 || evs[0].ParentID != child.ID || evs[0].RootID != parent {
			t.Errorf("grandchild events %+v", evs)
		}
	})
	forEachFormat(t, func(t *testing.T, kind string) {
		a := newActors([]llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("sp1", "spawn_agent", `{"prompt":"TASK-F1","tools":["spawn_agent"]}`)}},
			{Text: "done"},
		}, "TASK-F1", []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("sp2", "spawn_agent", `{"prompt":"TASK-F2"}`)}},
			{Text: "I did it myself."},
		})
		h := newHarness(t, kind, nil, withLimits(SubagentLimits{MaxDepth: 1}))
		a.install(h)
		parent := h.session(ModeAuto)
		if res := h.run(parent, "go"); res.Reason != EndDone {
			t.Fatalf("parent %+v", res)
		}
		child := h.children(parent)[0]
		r := spawnResult(h, child.ID, "sp2")
		if !r.IsError || !strings.Contains(r.Content, "subagents may nest only 1 deep, and this session is already at depth 1") {
			t.Errorf("depth refusal %+v", r)
		}
		if len(h.children(child.ID)) != 0 {
			t.Error("a grandchild was spawned past the limit")
		}
	})
}

func TestSubagentsRunInParallelBounded(t *testing.T) {
	for _, bound := range []int{2, DefaultParallel} {
		t.Run(fmt.Sprint("parallel ", bound), func(t *testing.T) {
			forEachFormat(t, func(t *testing.T, kind string) {
				var mu sync.Mutex
				inflight, peak, arrived := 0, 0, 0
				child := func(answer string) llmtest.Turn {
					return llmtest.Turn{Dynamic: func(llmtest.Request) llmtest.Turn {
						mu.Lock()
						inflight++
						arrived++
						peak = max(peak, inflight)
						mu.Unlock()
						// Wait until as many as may run together are here (or
						// every child is), so a serial run would show peak 1.
						deadline := time.Now().Add(10 * time.Second)
						for time.Now().Before(deadline) {
							mu.Lock()
							ok := inflight >= min(bound, 3) || arrived == 3
							mu.Unlock()
							if ok {
								break
							}
							time.Sleep(2 * time.Millisecond)
						}
						mu.Lock()
						inflight--
						mu.Unlock()
						return llmtest.Turn{Text: answer}
					}}
				}
				a := newActors([]llmtest.Turn{
					{ToolCalls: []llmtest.ToolCall{
						call("sp1", "spawn_agent", `{"prompt":"TASK-P1"}`),
						call("sp2", "spawn_agent", `{"prompt":"TASK-P2"}`),
						call("sp3", "spawn_agent", `{"prompt":"TASK-P3"}`),
					}},
					{Text: "all three answered"},
				}, "TASK-P1", []llmtest.Turn{child("one")}, "TASK-P2", []llmtest.Turn{child("two")}, "TASK-P3", []llmtest.Turn{child("three")})
				h := newHarness(t, kind, nil, withLimits(SubagentLimits{Parallel: bound}))
				a.install(h)
				parent := h.session(ModeAuto)
				if res := h.run(parent, "go"); res.Reason != EndDone {
					t.Fatalf("parent %+v", res)
				}
				mu.Lock()
				got := peak
				mu.Unlock()
				if want := min(bound, 3); got != want {
					t.Errorf("%d children ran at once, want %d", got, want)
				}
				for i, want := range []string{"one", "two", "three"} {
					mustContain(t, "result", spawnResult(h, parent, fmt.Sprintf("sp%d", i+1)).Content, want)
				}
			})
		})
	}
}

func TestSubagentCancelCascades(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		a := newActors([]llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{
				call("bg", "spawn_agent", `{"prompt":"TASK-H1 in the background","background":true}`),
				call("fg", "spawn_agent", `{"prompt":"TASK-H2 in the foreground"}`),
			}},
		}, "TASK-H1", []llmtest.Turn{{Text: "working", Hang: true}},
			"TASK-H2", []llmtest.Turn{{Text: "working", Hang: true}})
		h := newHarness(t, kind, nil)
		a.install(h)
		parent := h.session(ModeAuto)
		if err := h.engine.Send(parent, "go"); err != nil {
			t.Fatal(err)
		}
		testutil.WaitFor(t, "both children run", func() bool {
			return len(a.requests("TASK-H1")) == 1 && len(a.requests("TASK-H2")) == 1
		})
		h.engine.Cancel(parent)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := h.engine.Wait(ctx, parent); err != nil {
			t.Fatal(err)
		}
		testutil.WaitFor(t, "both children end", func() bool {
			runs := h.engine.Subagents().RunsOf(parent)
			return len(runs) == 2 && runs[0].Over() && runs[1].Over()
		})
		for _, r := range h.engine.Subagents().RunsOf(parent) {
			if r.State != agent.RunCancelled {
				t.Errorf("run %s (background %v) ended %s", r.RunID, r.Background, r.State)
			}
			ends := logged[sessions.TurnEnd](h, r.SessionID, sessions.EventTurnEnd)
			if len(ends) != 1 || ends[0].Reason != EndCancelled {
				t.Errorf("child %s turn ends %+v", r.SessionID, ends)
			}
		}
	})
}

func TestSubagentApprovalAnsweredForTheChild(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		a := newActors([]llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("sp1", "spawn_agent", `{"prompt":"TASK-W write the notes","tools":["Write"]}`)}},
			{Text: "The child wrote them."},
		}, "TASK-W", []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("w1", "Write", `{"path":"notes.txt","content":"hello"}`)}},
			{Text: "Written."},
		})
		n := &notices{}
		h := newHarness(t, kind, nil, interactive(), withNotices(n))
		a.install(h)
		parent := h.session(ModeDefault)
		if err := h.engine.Send(parent, "write notes"); err != nil {
			t.Fatal(err)
		}
		answer := func(session, callID string) Event {
			var asked Event
			testutil.WaitFor(t, "approval of "+callID, func() bool {
				h.mu.Lock()
				defer h.mu.Unlock()
				for _, ev := range h.events {
					if ev.Type == string(sessions.EventApprovalAsked) && strings.Contains(string(ev.Data), `"callId":"`+callID+`"`) {
						asked = ev
						return true
					}
				}
				return false
			})
			if asked.SessionID != session {
				t.Fatalf("approval of %s asked in %s, want %s", callID, asked.SessionID, session)
			}
			if err := h.engine.Answer(asked.SessionID, callID, ApprovalAnswer{Decision: AllowOnce}); err != nil {
				t.Fatal(err)
			}
			return asked
		}
		answer(parent, "sp1")
		var child string
		testutil.WaitFor(t, "the child exists", func() bool {
			kids := h.children(parent)
			if len(kids) == 1 {
				child = kids[0].ID
			}
			return child != ""
		})
		ev := answer(child, "w1")
		if ev.ParentID != parent || ev.RootID != parent {
			t.Errorf("the child's approval does not name its parent: %+v", ev)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := h.engine.Wait(ctx, parent); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(filepath.Join(h.workspace, "notes.txt")); err != nil || string(b) != "hello" {
			t.Errorf("notes.txt: %q %v", b, err)
		}
		if !slices.ContainsFunc(n.all(), func(x notice) bool {
			return x.kind == "approval" && x.text == "Write" && strings.Contains(x.title, "subagent")
		}) {
			t.Errorf("no approval notice names the subagent: %+v", n.all())
		}
		// A foreground child's end is not announced: the parent's is.
		if slices.ContainsFunc(n.all(), func(x notice) bool { return x.kind == "ended" && strings.Contains(x.title, "subagent") }) {
			t.Errorf("a foreground child's end was announced: %+v", n.all())
		}
	})
}

func TestSubagentMaxIterationsAndFailure(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		a := newActors([]llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{
				call("sp1", "spawn_agent", `{"prompt":"TASK-M1 search forever","maxIterations":1,"tools":["Grep"]}`),
				call("sp2", "spawn_agent", `{"prompt":"TASK-M2 will fail"}`),
			}},
			{Text: "done"},
		}, "TASK-M1", []llmtest.Turn{
			{Text: "Looking.", ToolCalls: []llmtest.ToolCall{call("g1", "Grep", `{"pattern":"x"}`)}},
		}, "TASK-M2", []llmtest.Turn{{Status: 400, ErrorMessage: "model not found"}})
		h := newHarness(t, kind, nil)
		a.install(h)
		parent := h.session(ModeAuto)
		if res := h.run(parent, "go"); res.Reason != EndDone {
			t.Fatalf("parent %+v", res)
		}
		r := spawnResult(h, parent, "sp1")
		if !r.IsError {
			t.Errorf("max iterations is not an error result")
		}
		mustContain(t, "max iterations", r.Content, "stopped after 1 model calls (its maxIterations) before it finished", "Looking.")
		f := spawnResult(h, parent, "sp2")
		if !f.IsError {
			t.Errorf("failure is not an error result")
		}
		mustContain(t, "failure", f.Content, "The subagent failed:", "model not found")
	})
}

// A top-level session's profile: allowedTools hides the rest with the
// reason, the profile's mode starts its sessions, an unknown profile is
// refused.
func TestAgentProfiles(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		h := newHarness(t, kind, []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("b1", "Bash", `{"command":"ls"}`)}},
			{Text: "ok"},
		})
		h.agents(config.Agent{Name: "reader", AllowedTools: []string{"Read", "Grep"}, PermissionMode: "plan", Model: "reader-model"})
		id, err := h.engine.NewSession(context.Background(), h.workspace, "", "reader", "", "")
		if err != nil {
			t.Fatal(err)
		}
		info, _ := h.engine.opts.Log.Info(context.Background(), id)
		if info.Mode != ModePlan || info.Model != "reader-model" {
			t.Errorf("session of the reader profile: %+v", info)
		}
		if res := h.run(id, "list files"); res.Reason != EndDone {
			t.Fatalf("result %+v", res)
		}
		names := toolNames(h.srv.ChatRequests()[0])
		slices.Sort(names)
		if !slices.Equal(names, []string{"Grep", "Read", "ToolSearch"}) {
			t.Errorf("offered %v", names)
		}
		r := toolResults(h, id)[0]
		mustContain(t, "Bash of the reader", r.Content, "not available in this session", "allowedTools")
		if _, err := h.engine.NewSession(context.Background(), h.workspace, "", "ghost", "", ""); err == nil || !strings.Contains(err.Error(), "reader") {
			t.Errorf("unknown agent: %v", err)
		}
	})
}

func TestVisibleOfACapabilityDiff(t *testing.T) {
	for _, c := range []struct {
		data string
		want []string
		bad  bool
	}{
		{`{"added":["Read"],"visible":["Read","Grep"],"items":[{"id":"x","name":"Read"}]}`, []string{"Read", "Grep"}, false},
		{`{"visible":[]}`, []string{}, false},
		{`{"added":["Read"]}`, nil, false},
		{`[]`, nil, true},
		{`{"visible":[1]}`, nil, true},
	} {
		got, err := visibleOf([]byte(c.data))
		if (err != nil) != c.bad || !c.bad && !slices.Equal(got, c.want) {
			t.Errorf("visibleOf(%s) = %q, %v", c.data, got, err)
		}
	}
}
