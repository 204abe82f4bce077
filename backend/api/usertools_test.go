package api

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tinyelf/backend/engine"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
	"tinyelf/backend/usertools"
	"tinyelf/internal/testutil"
)

func TestUserToolsThroughTheService(t *testing.T) {
	t.Parallel()
	h := newSvc(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "u1", Name: "hello_run", Arguments: `{"who":"Ada"}`}}},
		llmtest.Turn{Text: "Greeted."},
	)
	h.addProvider()
	ctx := context.Background()
	data := h.svc.opts.DataDir
	personal := filepath.Join(data, "agents", "default", "tools")
	testutil.WriteFile(t, filepath.Join(personal, "hello.sh"), "#!/bin/sh\nread -r line\necho \"{\\\"got\\\": $line}\"\n", 0o755)
	testutil.WriteFile(t, filepath.Join(personal, "hello.tool.json"), `{"command": ["./hello.sh"], "schemas": [{"name": "hello_run", "description": "Greets.", "input_schema": {"type": "object", "properties": {"who": {"type": "string"}}}}]}`, 0o644)
	testutil.WriteFile(t, filepath.Join(personal, "grep.tool.json"), `{"command": ["./hello.sh"], "schemas": [{"name": "grep_run", "description": "x"}]}`, 0o644)

	raw, err := h.svc.Call(ctx, "RefreshUserTools", json.RawMessage(`{"agent":"default"}`))
	if err != nil {
		t.Fatal(err)
	}
	var l usertools.Listing
	if err := json.Unmarshal(raw, &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Tools) != 1 || l.Tools[0].Name != "hello" || l.Tools[0].Kind != usertools.KindExecutable || l.Tools[0].Origin != usertools.OriginPersonal {
		t.Fatalf("listing %s", raw)
	}
	if len(l.Skipped) != 1 || !strings.Contains(l.Skipped[0].Message, "core tool Grep") {
		t.Fatalf("skipped %+v", l.Skipped)
	}
	// The report reaches the UI as a live event.
	for {
		ev := <-h.events
		if ev.Type == LiveUserTools {
			if !strings.Contains(string(ev.Data), "core tool Grep") {
				t.Fatalf("report event %s", ev.Data)
			}
			break
		}
	}

	// A session of the agent gets the tool, in auto mode without asking.
	sess, err := h.svc.CreateSession(ctx, CreateSessionArgs{Workspace: h.workspace, Mode: "auto"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.SendMessage(ctx, SendArgs{SessionID: sess.ID, Text: "greet Ada"}); err != nil {
		t.Fatal(err)
	}
	h.waitFor(sess.ID, string(sessions.EventTurnEnd))
	var result sessions.ToolResult
	var skipped []sessions.Error
	for ev, err := range h.svc.store.Events(ctx, sess.ID, 1, 0) {
		if err == nil && ev.Type == sessions.EventToolResult {
			_ = json.Unmarshal(ev.Data, &result)
		}
		if err == nil && ev.Type == sessions.EventError {
			var e sessions.Error
			_ = json.Unmarshal(ev.Data, &e)
			skipped = append(skipped, e)
		}
	}
	if result.IsError || !strings.Contains(result.Content, `"args":{"who":"Ada"}`) {
		t.Fatalf("hello_run in a session: %+v", result)
	}
	// The skipped tool is in the session's log too, where the user can
	// read it later (the live event is gone by then).
	if len(skipped) != 1 || skipped[0].Kind != "tool_skipped" || !strings.Contains(skipped[0].Message, "Skipped grep (personal, "+filepath.Join(personal, "grep.tool.json")+"): its name is taken by the core tool Grep") {
		t.Fatalf("error events %+v, want the skipped grep", skipped)
	}

	// Share needs tool_creation.shared.
	if _, err := h.svc.Call(ctx, "ShareUserTool", json.RawMessage(`{"name":"hello"}`)); !isCode(err, CodeInvalid) || !strings.Contains(err.Error(), "tool_creation.shared") {
		t.Fatalf("share without permission: %v", err)
	}
	if _, err := h.svc.Call(ctx, "SaveToolPermissions", json.RawMessage(`{"agent":"default","permissions":{"tool_creation":{"shared":true}}}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.Call(ctx, "ShareUserTool", json.RawMessage(`{"name":"hello"}`)); err != nil {
		t.Fatalf("share: %v", err)
	}
	if _, err := os.Stat(filepath.Join(data, "common_tools", "hello.tool.json")); err != nil {
		t.Fatal(err)
	}

	// A vault secret is stored but never returned.
	if _, err := h.svc.Call(ctx, "SetToolSecret", json.RawMessage(`{"name":"HELLO_TOKEN","value":"hv-secret-1"}`)); err != nil {
		t.Fatal(err)
	}
	raw, _ = h.svc.Call(ctx, "ListUserTools", json.RawMessage(`{}`))
	if !strings.Contains(string(raw), `"vaultNames":["HELLO_TOKEN"]`) || strings.Contains(string(raw), "hv-secret-1") {
		t.Fatalf("listing after SetToolSecret: %s", raw)
	}

	// Opening a folder goes through the desktop's opener.
	var opened string
	h.svc.opts.OpenFolder = func(dir string) error { opened = dir; return nil }
	raw, err = h.svc.Call(ctx, "OpenToolsFolder", json.RawMessage(`{"which":"common"}`))
	if err != nil || opened != filepath.Join(data, "common_tools") || !strings.Contains(string(raw), `"opened":true`) {
		t.Fatalf("open folder: %s %v (opened %q)", raw, err, opened)
	}

	// A direct call, as `tinyelf tool hello run` makes it.
	raw, err = h.svc.Call(ctx, "RunUserTool", json.RawMessage(`{"tool":"hello","action":"run","args":{"who":"Bo"}}`))
	if err != nil || !strings.Contains(string(raw), `\"who\":\"Bo\"`) {
		t.Fatalf("RunUserTool: %s %v", raw, err)
	}
}

func TestCoreToolNames(t *testing.T) {
	names := strings.Join(engine.CoreToolNames(), " ")
	for _, n := range []string{"Read", "Write", "Bash", "Notify", "SessionsYield", "WebFetch", "WebSearch"} {
		if !strings.Contains(" "+names+" ", " "+n+" ") {
			t.Errorf("core names %q lack %s", names, n)
		}
	}
}
