package api

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tinyelf/backend/config"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
)

// buildFakeMCP builds the MCP package's fake stdio server.
func buildFakeMCP(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "fakemcp")
	out, err := exec.Command("go", "build", "-o", bin, "../mcp/testdata/fakeserver").CombinedOutput()
	if err != nil {
		t.Fatalf("build the fake MCP server: %v\n%s", err, out)
	}
	return bin
}

func TestMCPThroughTheService(t *testing.T) {
	t.Parallel()
	bin := buildFakeMCP(t)
	h := newSvc(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "m1", Name: "mcp__fake__echo", Arguments: `{"message":"ping"}`}}},
		llmtest.Turn{Text: "It echoed."},
		llmtest.Turn{Echo: true},
	)
	h.addProvider()
	ctx := context.Background()
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"fake":   map[string]any{"command": bin},
		"broken": map[string]any{"command": filepath.Join(t.TempDir(), "missing-binary")},
		"bad":    map[string]any{"type": "carrier-pigeon", "url": "x"},
	}})
	res, err := h.svc.ImportMCPConfig(ctx, ImportMCPArgs{Content: string(cfg)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Report.Imported) != 2 || len(res.Report.Skipped) != 1 {
		t.Fatalf("import report %+v", res.Report)
	}
	// States become visible, the broken server with its error.
	deadline := time.Now().Add(30 * time.Second)
	var list []MCPServerView
	for time.Now().Before(deadline) {
		list, _ = h.svc.ListMCPServers(ctx, struct{}{})
		if len(list) == 2 && string(list[0].State.Status) != "starting" && string(list[1].State.Status) != "starting" {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	byName := map[string]MCPServerView{}
	for _, v := range list {
		byName[v.Config.Name] = v
	}
	if st := byName["fake"].State; st.Status != "connected" || len(byName["fake"].Tools) == 0 {
		t.Fatalf("fake server: %+v tools %v", st, byName["fake"].Tools)
	}
	if st := byName["broken"].State; st.Status != "failed" || st.Error == "" {
		t.Errorf("broken server should fail with an error: %+v", st)
	}

	sess, _ := h.svc.CreateSession(ctx, CreateSessionArgs{Workspace: h.workspace, Mode: "auto"})
	h.svc.SendMessage(ctx, SendArgs{SessionID: sess.ID, Text: "echo ping through MCP"})
	h.waitFor(sess.ID, string(sessions.EventTurnEnd))
	view, _ := h.svc.GetSession(ctx, IDArgs{ID: sess.ID})
	found := false
	for _, m := range view.Messages {
		if m.Tool != nil && m.Tool.Name == "mcp__fake__echo" {
			found = strings.Contains(m.Tool.Result, "Echo: ping")
		}
	}
	if !found {
		b, _ := json.Marshal(view.Messages)
		t.Errorf("the MCP call did not go through the pipeline: %s", b)
	}

	// A prompt as a slash command.
	prompts, _ := h.svc.ListMCPPrompts(ctx, struct{}{})
	if len(prompts) == 0 {
		t.Fatal("no prompts")
	}
	if _, err := h.svc.SendMessage(ctx, SendArgs{SessionID: sess.ID, Text: "/mcp__fake__greet name=Ada style=formal"}); err != nil {
		t.Fatal(err)
	}
	h.waitFor(sess.ID, string(sessions.EventTurnEnd))
	last := h.srv.ChatRequests()[len(h.srv.ChatRequests())-1]
	if !strings.Contains(last.LastUserText(), "Please greet Ada in a formal way.") {
		t.Errorf("slash command not expanded: %q", last.LastUserText())
	}
	if _, err := h.svc.SendMessage(ctx, SendArgs{SessionID: sess.ID, Text: "/mcp__fake__nope"}); !isCode(err, CodeInvalid) {
		t.Errorf("unknown prompt: %v", err)
	}
	// ExpandCommand checks a command without sending it, as the UI does
	// before it starts a session for one.
	before := len(h.srv.ChatRequests())
	for _, tc := range []struct{ text, want, code string }{
		{"/mcp__fake__greet name=Ada", "Please greet Ada in a casual way.", ""},
		{"just text", "just text", ""},
		{"/mcp__fake__greet", "", CodeInvalid},
		{"/mcp__fake__nope", "", CodeInvalid},
		{"  ", "", CodeInvalid},
	} {
		got, err := h.svc.ExpandCommand(ctx, ExpandArgs{Text: tc.text})
		if tc.code != "" {
			if !isCode(err, tc.code) {
				t.Errorf("ExpandCommand(%q) = %+v, %v; want %s", tc.text, got, err, tc.code)
			}
			continue
		}
		if err != nil || !strings.Contains(got.Text, tc.want) {
			t.Errorf("ExpandCommand(%q) = %+v, %v; want %q", tc.text, got, err, tc.want)
		}
	}
	if n := len(h.srv.ChatRequests()); n != before {
		t.Errorf("ExpandCommand reached the model (%d requests, were %d)", n, before)
	}

	// Disabling the server removes its tools.
	if _, err := h.svc.SetMCPServerEnabled(ctx, EnableArgs{Name: "fake", Enabled: false}); err != nil {
		t.Fatal(err)
	}
	for _, tool := range h.svc.userMCP.Tools() {
		if strings.HasPrefix(tool.Info().Name, "mcp__fake__") {
			t.Errorf("a disabled server still offers %s", tool.Info().Name)
		}
	}
	if _, err := h.svc.RemoveMCPServer(ctx, NameArgs{Name: "broken"}); err != nil {
		t.Fatal(err)
	}
	if list, _ := h.svc.ListMCPServers(ctx, struct{}{}); len(list) != 1 {
		t.Errorf("after removal: %+v", list)
	}
}

func TestDirectMCPServersFollowTheSession(t *testing.T) {
	t.Parallel()
	bin := buildFakeMCP(t)
	h := newSvc(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "d1", Name: "mcp__mine__add", Arguments: `{"a":2,"b":3}`}}},
		llmtest.Turn{Text: "5"},
		llmtest.Turn{Text: "no tools for you"},
	)
	h.addProvider()
	ctx := context.Background()
	err := h.svc.settings.Update(func(s *config.Settings) error {
		s.Agents = []config.Agent{{Name: "calc", DirectMCPServers: []config.MCPServer{{Name: "mine", Command: bin}}}}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	calc, _ := h.svc.CreateSession(ctx, CreateSessionArgs{Workspace: h.workspace, Mode: "auto", Agent: "calc"})
	h.svc.SendMessage(ctx, SendArgs{SessionID: calc.ID, Text: "add 2 and 3"})
	h.waitFor(calc.ID, string(sessions.EventTurnEnd))
	reqs := h.srv.ChatRequests()
	if b, _ := json.Marshal(reqs[0].Body["tools"]); !strings.Contains(string(b), "mcp__mine__add") {
		t.Fatalf("the agent's own server's tools were not offered: %s", b)
	}
	view, _ := h.svc.GetSession(ctx, IDArgs{ID: calc.ID})
	var result string
	for _, m := range view.Messages {
		if m.Tool != nil && m.Tool.Name == "mcp__mine__add" {
			result = m.Tool.Result
		}
	}
	if !strings.Contains(result, "5") {
		t.Errorf("direct MCP call result %q", result)
	}
	// Another agent's session does not see them.
	other, _ := h.svc.CreateSession(ctx, CreateSessionArgs{Workspace: h.workspace, Mode: "auto"})
	h.svc.SendMessage(ctx, SendArgs{SessionID: other.ID, Text: "hi"})
	h.waitFor(other.ID, string(sessions.EventTurnEnd))
	last := h.srv.ChatRequests()[len(h.srv.ChatRequests())-1]
	if b, _ := json.Marshal(last.Body["tools"]); strings.Contains(string(b), "mcp__mine__") {
		t.Error("a direct server leaked into another agent's session")
	}
	// Deleting the session stops its server: the one child process this
	// service runs (the engine's test checks the sources' own records).
	if n := h.svc.children.Live(); n != 1 {
		t.Fatalf("%d child processes running, want the direct server alone", n)
	}
	h.svc.DeleteSession(ctx, IDArgs{ID: calc.ID})
	if n := h.svc.children.Live(); n != 0 {
		t.Errorf("%d child processes still running after the session was deleted", n)
	}
}

// TestMCPToolsGroupedByServer: Settings → MCP lists under each server the
// tools it offers, and only those, even when one server's name starts
// another's (git, github).
func TestMCPToolsGroupedByServer(t *testing.T) {
	t.Parallel()
	bin := buildFakeMCP(t)
	h := newSvc(t)
	ctx := context.Background()
	for _, name := range []string{"git", "github"} {
		if _, err := h.svc.SaveMCPServer(ctx, SaveMCPServerArgs{Server: config.MCPServer{Name: name, Command: bin, Args: []string{"-name", name}}}); err != nil {
			t.Fatal(err)
		}
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := h.svc.userMCP.WaitReady(wctx); err != nil {
		t.Fatal(err)
	}
	list, err := h.svc.ListMCPServers(ctx, struct{}{})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range list {
		if v.State.Status != "connected" || len(v.Tools) == 0 {
			t.Fatalf("server %s: %+v, tools %v", v.Config.Name, v.State, v.Tools)
		}
		for _, n := range v.Tools {
			if !strings.HasPrefix(n, "mcp__"+v.Config.Name+"__") {
				t.Errorf("server %s lists %s, a tool of another server", v.Config.Name, n)
			}
		}
	}
}

// TestIdleSessionsReleaseTheirServers: a session left idle stops its
// direct MCP servers and closes its builtin connections, and gets them
// back at its next turn.
func TestIdleSessionsReleaseTheirServers(t *testing.T) {
	t.Parallel()
	bin := buildFakeMCP(t)
	h := newSvcWith(t, func(o *Options) { o.IdleTimeout = 100 * time.Millisecond },
		llmtest.Turn{Text: "first"}, llmtest.Turn{Text: "second"})
	h.addProvider()
	ctx := context.Background()
	err := h.svc.settings.Update(func(s *config.Settings) error {
		s.Agents = []config.Agent{{Name: "calc", DirectMCPServers: []config.MCPServer{{Name: "mine", Command: bin}}}}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sess, _ := h.svc.CreateSession(ctx, CreateSessionArgs{Workspace: h.workspace, Mode: "auto", Agent: "calc"})
	// The direct server is this service's only child process; the
	// builtin connections are in-process (the engine's test checks both
	// sources' own records).
	h.svc.SendMessage(ctx, SendArgs{SessionID: sess.ID, Text: "one"})
	h.waitFor(sess.ID, string(sessions.EventTurnEnd))
	deadline := time.Now().Add(15 * time.Second)
	for h.svc.children.Live() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("after the idle timeout the session's direct server still runs (%d child processes)", h.svc.children.Live())
		}
		time.Sleep(10 * time.Millisecond)
	}
	h.svc.SendMessage(ctx, SendArgs{SessionID: sess.ID, Text: "two"})
	h.waitFor(sess.ID, string(sessions.EventTurnEnd))
	reqs := h.srv.ChatRequests()
	if b, _ := json.Marshal(reqs[len(reqs)-1].Body["tools"]); !strings.Contains(string(b), "mcp__mine__add") {
		t.Errorf("the session's servers did not come back: %s", b)
	}
}

// TestOneResourcePairForUserAndDirectServers: a session that sees the
// user's servers and its agent's direct servers gets one resource tool
// pair reaching both, not a pair per service of which the last hides the
// others.
func TestOneResourcePairForUserAndDirectServers(t *testing.T) {
	t.Parallel()
	bin := buildFakeMCP(t)
	h := newSvc(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "l", Name: "list_mcp_resources", Arguments: `{}`}}},
		llmtest.Turn{Text: "listed"},
	)
	h.addProvider()
	ctx := context.Background()
	if _, err := h.svc.SaveMCPServer(ctx, SaveMCPServerArgs{Server: config.MCPServer{Name: "notes", Command: bin, Args: []string{"-name", "notes"}}}); err != nil {
		t.Fatal(err)
	}
	err := h.svc.settings.Update(func(s *config.Settings) error {
		s.Agents = []config.Agent{{Name: "calc", DirectMCPServers: []config.MCPServer{{Name: "mine", Command: bin}}}}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := h.svc.userMCP.WaitReady(wctx); err != nil {
		t.Fatal(err)
	}
	sess, _ := h.svc.CreateSession(ctx, CreateSessionArgs{Workspace: h.workspace, Mode: "auto", Agent: "calc"})
	h.svc.SendMessage(ctx, SendArgs{SessionID: sess.ID, Text: "what resources are there?"})
	h.waitFor(sess.ID, string(sessions.EventTurnEnd))
	b, _ := json.Marshal(h.srv.ChatRequests()[0].Body["tools"])
	if n := strings.Count(string(b), `"list_mcp_resources"`); n != 1 {
		t.Errorf("list_mcp_resources offered %d times", n)
	}
	view, _ := h.svc.GetSession(ctx, IDArgs{ID: sess.ID})
	var listing string
	for _, m := range view.Messages {
		if m.Tool != nil && m.Tool.Name == "list_mcp_resources" {
			listing = m.Tool.Result
		}
	}
	if !strings.Contains(listing, "notes:") || !strings.Contains(listing, "mine:") {
		t.Errorf("the listing does not reach both servers:\n%s", listing)
	}
}

// TestMCPElicitationAndSampling: an MCP tool's elicitation is a card in
// the chat, answered with the form's values (the rest from the defaults;
// the values are not logged); its sampling request is a card showing the
// server and the token limit, and once allowed the session's model
// answers it.
func TestMCPElicitationAndSampling(t *testing.T) {
	t.Parallel()
	bin := buildFakeMCP(t)
	h := newSvc(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "e1", Name: "mcp__ask__ask_name", Arguments: `{}`}}},
		llmtest.Turn{Text: "Got it."},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "s1", Name: "mcp__ask__summarize", Arguments: `{}`}}},
		llmtest.Turn{Text: "A cat sat."}, // the sampling request
		llmtest.Turn{Text: "Summarized."},
	)
	h.addProvider()
	ctx := context.Background()
	if _, err := h.svc.SaveMCPServer(ctx, SaveMCPServerArgs{Server: config.MCPServer{Name: "ask", Command: bin, Args: []string{"-mode", "ask"}}}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		list, _ := h.svc.ListMCPServers(ctx, struct{}{})
		if len(list) == 1 && list[0].State.Status == "connected" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the ask server did not connect: %+v", list)
		}
		time.Sleep(20 * time.Millisecond)
	}
	sess, _ := h.svc.CreateSession(ctx, CreateSessionArgs{Workspace: h.workspace, Mode: "auto"})
	if _, err := h.svc.SendMessage(ctx, SendArgs{SessionID: sess.ID, Text: "who am I?"}); err != nil {
		t.Fatal(err)
	}
	var a sessions.ApprovalAsked
	json.Unmarshal(h.waitFor(sess.ID, string(sessions.EventApprovalAsked)).Data, &a)
	if a.Kind != "elicitation" || a.Server != "ask" || a.Question != "Who are you?" || !strings.Contains(string(a.Schema), `"default":"Ada"`) {
		t.Fatalf("elicitation card %+v", a)
	}
	if _, err := h.svc.Approve(ctx, ApproveArgs{SessionID: sess.ID, CallID: a.CallID, Decision: "allow_once", Content: map[string]any{"name": "Grace-Hopper-1906"}}); err != nil {
		t.Fatal(err)
	}
	h.waitFor(sess.ID, string(sessions.EventTurnEnd))
	if got := toolResult(t, h, sess.ID, "mcp__ask__ask_name"); got != "name=Grace-Hopper-1906 age=36 color=green subscribe=false" {
		t.Errorf("the tool read %q", got)
	}
	for ev, err := range h.svc.store.Events(ctx, sess.ID, 0, 0) {
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(ev.Data), "Grace-Hopper-1906") && ev.Type != sessions.EventToolResult {
			t.Errorf("the form's value is logged in %s: %s", ev.Type, ev.Data)
		}
	}

	if _, err := h.svc.SendMessage(ctx, SendArgs{SessionID: sess.ID, Text: "summarize"}); err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(h.waitFor(sess.ID, string(sessions.EventApprovalAsked)).Data, &a)
	if a.Kind != "sampling" || a.Server != "ask" || a.MaxTokens != 64 || !strings.Contains(a.Arguments, "the cat sat on the mat") {
		t.Fatalf("sampling card %+v", a)
	}
	if _, err := h.svc.Approve(ctx, ApproveArgs{SessionID: sess.ID, CallID: a.CallID, Decision: "allow_once"}); err != nil {
		t.Fatal(err)
	}
	h.waitFor(sess.ID, string(sessions.EventTurnEnd))
	if got := toolResult(t, h, sess.ID, "mcp__ask__summarize"); got != "summary by test-model: A cat sat." {
		t.Errorf("the tool read %q", got)
	}
	reqs := h.srv.ChatRequests()
	if sys := reqs[3].System(); sys != "You summarize." || !strings.Contains(reqs[3].LastUserText(), "the cat sat") {
		t.Errorf("the sampling request reached the model as system %q, user %q", sys, reqs[3].LastUserText())
	}
}

// toolResult returns what the last call of a tool returned in a session.
func toolResult(t *testing.T, h *svcHarness, sessionID, tool string) string {
	t.Helper()
	view, _ := h.svc.GetSession(context.Background(), IDArgs{ID: sessionID})
	got := ""
	for _, m := range view.Messages {
		if m.Tool != nil && m.Tool.Name == tool {
			got = m.Tool.Result
		}
	}
	// The server's own text, inside the untrusted block MCP results reach
	// the model in.
	if i := strings.Index(got, "\n\n"); strings.HasPrefix(got, "<mcp_content ") && i >= 0 {
		got = strings.TrimSuffix(got[i+2:], "\n</mcp_content>")
	}
	return got
}
