package api

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"tinyelf/backend/config"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
)

func TestAgentProfilesThroughTheService(t *testing.T) {
	t.Parallel()
	h := newSvc(t)
	h.addProvider()
	ctx := context.Background()
	list, err := h.svc.ListAgents(ctx, struct{}{})
	if err != nil || len(list) != 1 || list[0].Name != config.DefaultAgent || !list[0].Default {
		t.Fatalf("agents of a fresh install: %+v %v", list, err)
	}
	secret := "Bearer direct-0123456789abcdef"
	saved, err := h.svc.SaveAgent(ctx, SaveAgentArgs{Agent: config.Agent{
		Name: "researcher", Description: " reads and reports ", Prompt: "Cite files.", PermissionMode: "accept-edits",
		AllowedTools: []string{" Read", "Grep", "Read", ""}, MaxIterations: 20, CompactAt: 0.6, Provider: "fake",
		DirectMCPServers: []config.MCPServer{{Name: "notes", Command: "notes-mcp", Env: map[string]string{"NOTES_TOKEN": secret}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	r := saved[1]
	if r.Description != "reads and reports" || r.PermissionMode != "acceptEdits" || strings.Join(r.AllowedTools, ",") != "Read,Grep" || r.Default {
		t.Errorf("saved agent %+v", r)
	}
	if v := r.DirectMCPServers[0].Env["NOTES_TOKEN"]; v == secret || !strings.Contains(v, config.MaskPrefix) {
		t.Errorf("a direct server's secret went back to the UI: %q", v)
	}
	// Saving the masked profile again keeps the stored secret.
	r.Prompt = "Cite files and lines."
	if _, err := h.svc.SaveAgent(ctx, SaveAgentArgs{Agent: r.Agent}); err != nil {
		t.Fatal(err)
	}
	stored, _ := h.svc.settings.Get().Agent("researcher")
	if stored.DirectMCPServers[0].Env["NOTES_TOKEN"] != secret || stored.Prompt != "Cite files and lines." {
		t.Errorf("stored agent %+v", stored)
	}

	bad := []struct {
		name string
		args SaveAgentArgs
		want string
	}{
		{"name with a space", SaveAgentArgs{Agent: config.Agent{Name: "my agent"}}, "no spaces"},
		{"unknown mode", SaveAgentArgs{Agent: config.Agent{Name: "x", PermissionMode: "yolo"}}, "unknown permission mode"},
		{"unknown provider", SaveAgentArgs{Agent: config.Agent{Name: "x", Provider: "nowhere"}}, `no provider "nowhere"`},
		{"compactAt of 1", SaveAgentArgs{Agent: config.Agent{Name: "x", CompactAt: 1}}, "compactAt"},
		{"http direct server", SaveAgentArgs{Agent: config.Agent{Name: "x", DirectMCPServers: []config.MCPServer{{Name: "w", Type: "http", URL: "http://x"}}}}, "stdio"},
		{"rename the default", SaveAgentArgs{Agent: config.Agent{Name: "boss"}, Rename: config.DefaultAgent}, "cannot be renamed"},
		{"rename onto another", SaveAgentArgs{Agent: config.Agent{Name: "researcher"}, Rename: "ghost"}, "already exists"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			if _, err := h.svc.SaveAgent(ctx, c.args); !isCode(err, CodeInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("SaveAgent: %v, want an invalid error saying %q", err, c.want)
			}
		})
	}
	if _, err := h.svc.DeleteAgent(ctx, NameArgs{Name: config.DefaultAgent}); !isCode(err, CodeInvalid) {
		t.Errorf("deleting the default agent: %v", err)
	}
	// The default agent can be edited; it stays first and undeletable.
	if _, err := h.svc.SaveAgent(ctx, SaveAgentArgs{Agent: config.Agent{Name: config.DefaultAgent, Prompt: "Be kind."}}); err != nil {
		t.Fatal(err)
	}
	list, _ = h.svc.ListAgents(ctx, struct{}{})
	if len(list) != 2 || list[0].Name != config.DefaultAgent || list[0].Prompt != "Be kind." {
		t.Errorf("agents %+v", list)
	}
	// A chat picks its agent when it starts, and takes its mode.
	sess, err := h.svc.CreateSession(ctx, CreateSessionArgs{Workspace: h.workspace, Agent: "researcher"})
	if err != nil || sess.Agent != "researcher" || sess.Mode != "acceptEdits" {
		t.Errorf("session of researcher: %+v %v", sess, err)
	}
	if _, err := h.svc.CreateSession(ctx, CreateSessionArgs{Workspace: h.workspace, Agent: "ghost"}); !isCode(err, CodeInvalid) {
		t.Errorf("session of an unknown agent: %v", err)
	}
	if _, err := h.svc.DeleteAgent(ctx, NameArgs{Name: "researcher"}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.DeleteAgent(ctx, NameArgs{Name: "researcher"}); !isCode(err, CodeNotFound) {
		t.Errorf("deleting it twice: %v", err)
	}
}

// A subagent's session is listed under its parent, runs its own profile's
// direct MCP servers, and its events name its parent for the window.
func TestSubagentsThroughTheService(t *testing.T) {
	t.Parallel()
	bin := buildFakeMCP(t)
	h := newSvc(t)
	h.srv.SetDefault(llmtest.Turn{Dynamic: func(req llmtest.Request) llmtest.Turn {
		raw := string(req.Raw)
		switch {
		case strings.Contains(raw, "You are a subagent") && !strings.Contains(raw, `"tool_call_id"`):
			return llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "d1", Name: "mcp__mine__add", Arguments: `{"a":2,"b":3}`}}}
		case strings.Contains(raw, "You are a subagent"):
			return llmtest.Turn{Text: "The sum is 5."}
		case !strings.Contains(raw, `"tool_call_id"`):
			return llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "sp1", Name: "spawn_agent", Arguments: `{"prompt":"add 2 and 3","agent":"calc"}`}}}
		}
		return llmtest.Turn{Text: "The child says 5."}
	}})
	h.addProvider()
	ctx := context.Background()
	if err := h.svc.settings.Update(func(s *config.Settings) error {
		s.Agents = []config.Agent{{Name: "calc", Description: "adds numbers", DirectMCPServers: []config.MCPServer{{Name: "mine", Command: bin}}}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	parent, _ := h.svc.CreateSession(ctx, CreateSessionArgs{Workspace: h.workspace, Mode: "auto"})
	other, _ := h.svc.CreateSession(ctx, CreateSessionArgs{Workspace: h.workspace, Mode: "auto"})
	if _, err := h.svc.SendMessage(ctx, SendArgs{SessionID: parent.ID, Text: "add 2 and 3 with a helper"}); err != nil {
		t.Fatal(err)
	}
	var childEvent bool
	timeout := time.After(30 * time.Second)
	for !childEvent {
		select {
		case ev := <-h.events:
			if ev.Type == string(sessions.EventToolResult) && ev.SessionID != parent.ID {
				childEvent = ev.ParentID == parent.ID && ev.RootID == parent.ID
				if !childEvent {
					t.Fatalf("a child event without its parent: %+v", ev)
				}
			}
		case <-timeout:
			t.Fatal("no tool result of the child")
		}
	}
	h.waitFor(parent.ID, string(sessions.EventTurnEnd))
	list, err := h.svc.ListSessions(ctx, ListSessionsArgs{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 || list[2].Parent != parent.ID || list[2].Agent != "calc" || list[2].ParentCallID != "sp1" {
		t.Fatalf("session list %+v", list)
	}
	for _, it := range list[:2] {
		if it.ID != parent.ID && it.ID != other.ID {
			t.Errorf("top-level sessions first: %+v", list)
		}
	}
	child := list[2]
	view, _ := h.svc.GetSession(ctx, IDArgs{ID: child.ID})
	var sum string
	for _, m := range view.Messages {
		if m.Tool != nil && m.Tool.Name == "mcp__mine__add" {
			sum = m.Tool.Result
		}
	}
	if !strings.Contains(sum, "5") {
		t.Errorf("the child's own direct server: %q", sum)
	}
	runs, _ := h.svc.ListSubagents(ctx, SessionArgs{SessionID: parent.ID})
	if len(runs) != 1 || runs[0].SessionID != child.ID || runs[0].Text != "The sum is 5." {
		t.Errorf("subagents %+v", runs)
	}
	// The child goes with its parent, and comes back with it.
	if _, err := h.svc.DeleteSession(ctx, IDArgs{ID: parent.ID}); err != nil {
		t.Fatal(err)
	}
	if list, _ := h.svc.ListSessions(ctx, ListSessionsArgs{}); len(list) != 1 || list[0].ID != other.ID {
		t.Errorf("after deleting the parent: %+v", list)
	}
	if _, err := h.svc.RestoreSession(ctx, IDArgs{ID: parent.ID}); err != nil {
		t.Fatal(err)
	}
	if list, _ := h.svc.ListSessions(ctx, ListSessionsArgs{}); len(list) != 3 {
		t.Errorf("after restoring the parent: %d sessions", len(list))
	}
	b, _ := json.Marshal(list[2])
	if !strings.Contains(string(b), `"parentId":"`+parent.ID+`"`) {
		t.Errorf("the list item does not carry parentId: %s", b)
	}
}
