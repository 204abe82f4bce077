package usertools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tinyelf/backend/tools"
	"tinyelf/backend/tools/fs"
	"tinyelf/internal/testutil"
)

func boolPtr(b bool) *bool { return &b }

func TestShareTool(t *testing.T) {
	data := t.TempDir()
	testutil.WriteFile(t, filepath.Join(personalDir(data, "default"), "notes.py"), pyTool("notes", "add", `return "added"`, ""), 0)
	testutil.WriteFile(t, filepath.Join(personalDir(data, "default"), "hello.sh"), "#!/bin/sh\ncat >/dev/null\necho '\"hi\"'\n", 0o755)
	testutil.WriteFile(t, filepath.Join(personalDir(data, "default"), "hello.tool.json"), `{"command": ["./hello.sh"], "schemas": [{"name": "hello_run", "description": "x"}]}`, 0)
	s := newTestService(t, data)
	info := toolByName(s.Tools(context.Background(), "default"), "share_tool").Info()
	if info.Safe || info.ReadOnly {
		t.Fatalf("share_tool must ask: %+v", info)
	}

	res := call(t, s, "default", "share_tool", map[string]any{"tool_name": "notes"})
	if !res.IsError || !strings.Contains(res.Content, "share_tool needs tool_creation.shared, which is off") {
		t.Fatalf("without permission: %s", res.Content)
	}
	if _, err := os.Stat(filepath.Join(commonDir(data), "notes.py")); !os.IsNotExist(err) {
		t.Fatalf("shared without permission: %v", err)
	}

	if err := s.SavePermissions("default", Permissions{ToolCreation: ToolCreation{Shared: boolPtr(true)}}); err != nil {
		t.Fatal(err)
	}
	res = call(t, s, "default", "share_tool", map[string]any{"tool_name": "notes"})
	if res.IsError || !strings.Contains(res.Content, "Shared notes: copied notes.py into "+commonDir(data)) {
		t.Fatalf("with permission: %s", res.Content)
	}
	res = call(t, s, "default", "share_tool", map[string]any{"tool_name": "notes"})
	if !res.IsError || !strings.Contains(res.Content, "already has") {
		t.Fatalf("second share: %s", res.Content)
	}
	if res := call(t, s, "default", "share_tool", map[string]any{"tool_name": "notes", "overwrite": true}); res.IsError {
		t.Fatalf("overwrite: %s", res.Content)
	}
	res = call(t, s, "default", "share_tool", map[string]any{"tool_name": "hello"})
	if res.IsError || !strings.Contains(res.Content, "hello.tool.json, hello.sh") {
		t.Fatalf("share an executable: %s", res.Content)
	}
	if st, err := os.Stat(filepath.Join(commonDir(data), "hello.sh")); err != nil || st.Mode().Perm()&0o100 == 0 {
		t.Fatalf("the program lost its mode: %v %v", st, err)
	}
	if res := call(t, s, "default", "share_tool", map[string]any{"tool_name": "missing"}); !res.IsError || !strings.Contains(res.Content, "no personal tool missing") {
		t.Fatalf("missing: %s", res.Content)
	}
	// Another agent sees the shared tools only after its own refresh, as
	// common tools.
	if toolByName(s.Tools(context.Background(), "reviewer"), "notes_add") != nil {
		t.Fatal("another agent saw the shared tool before refreshing")
	}
	call(t, s, "reviewer", "refresh_tools", map[string]any{})
	other := s.Tools(context.Background(), "reviewer")
	for _, name := range []string{"notes_add", "hello_run"} {
		tool := toolByName(other, name)
		if tool == nil || tool.Info().Origin != "common" {
			t.Fatalf("reviewer's %s: %v", name, tool)
		}
	}
	if res := call(t, s, "reviewer", "hello_run", map[string]any{}); res.Content != "hi" {
		t.Fatalf("shared hello_run: %+v", res)
	}
}

// Writes into the tool folders follow tool_creation, whether or not the
// workspace is restricted; the agent cannot edit its own permissions.
func TestToolFolderWrites(t *testing.T) {
	for _, restrict := range []bool{true, false} {
		t.Run(map[bool]string{true: "restricted", false: "unrestricted"}[restrict], func(t *testing.T) {
			data := t.TempDir()
			s := newTestService(t, data)
			ws, err := fs.OpenWorkspace(t.TempDir(), restrict, s.Roots("default")...)
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			reg := tools.NewRegistry()
			if err := reg.Register(fs.NewWrite(ws)); err != nil {
				t.Fatal(err)
			}
			write := func(path string) tools.CallResult {
				args, _ := json.Marshal(map[string]any{"path": path, "content": "x = 1\n"})
				return reg.Execute(context.Background(), "w", "Write", args)
			}
			personal := filepath.Join(personalDir(data, "default"), "mine.py")
			common := filepath.Join(commonDir(data), "ours.py")
			perms := filepath.Join(data, "agents", "default", PermissionsFile)

			if res := write(personal); res.IsError {
				t.Fatalf("personal write with the default permissions: %s", res.Content)
			}
			if res := write(common); !res.IsError || !strings.Contains(res.Content, "tool_creation.shared is off") {
				t.Fatalf("common write without shared: %s", res.Content)
			}
			if res := write(perms); !res.IsError || !strings.Contains(res.Content, "read-only for the agent") {
				t.Fatalf("the agent wrote its own permissions: %s", res.Content)
			}
			if err := s.SavePermissions("default", Permissions{ToolCreation: ToolCreation{Personal: boolPtr(false), Shared: boolPtr(true)}}); err != nil {
				t.Fatal(err)
			}
			if res := write(personal); !res.IsError || !strings.Contains(res.Content, "tool_creation.personal is off for agent default") {
				t.Fatalf("personal write with personal off: %s", res.Content)
			}
			if res := write(common); res.IsError {
				t.Fatalf("common write with shared on: %s", res.Content)
			}
		})
	}
}

// A read-only action runs without asking only when the agent cannot
// rewrite it; a write into its folder since it was loaded holds it until
// the next refresh.
func TestReadOnlyToolsTheAgentCannotRewrite(t *testing.T) {
	data := t.TempDir()
	testutil.WriteFile(t, filepath.Join(personalDir(data, "default"), "peek.py"), pyTool("peek", "run", `return "peeked"`, `{"run": {"read_only": True}}`), 0)
	testutil.WriteFile(t, filepath.Join(commonDir(data), "look.py"), pyTool("look", "run", `return "looked"`, `{"run": {"read_only": True}}`), 0)
	s := newTestService(t, data)
	if err := s.SavePermissions("default", Permissions{ToolCreation: ToolCreation{Personal: boolPtr(false)}}); err != nil {
		t.Fatal(err)
	}
	safe := func(name string) bool { return toolByName(s.Tools(context.Background(), "default"), name).Info().Safe }
	if !safe("peek_run") || !safe("look_run") {
		t.Fatalf("with personal creation off, read-only tools are safe: peek %v, look %v", safe("peek_run"), safe("look_run"))
	}
	// The user turns tool creation on; the agent rewrites the tool.
	if err := s.SavePermissions("default", Permissions{}); err != nil {
		t.Fatal(err)
	}
	ws, err := fs.OpenWorkspace(t.TempDir(), true, s.Roots("default")...)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	f, err := ws.OpenFile(filepath.Join(personalDir(data, "default"), "peek.py"), os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(pyTool("peek", "run", `return "rewritten"`, `{"run": {"read_only": True}}`))
	f.Close()
	if res := call(t, s, "default", "peek_run", map[string]any{}); !res.IsError || !strings.Contains(res.Content, "Call refresh_tools") {
		t.Fatalf("a safe tool rewritten since it was loaded: %s", res.Content)
	}
	if res := call(t, s, "default", "look_run", map[string]any{}); res.IsError {
		t.Fatalf("a common tool is not held by a personal write: %s", res.Content)
	}
	call(t, s, "default", "refresh_tools", map[string]any{})
	if safe("peek_run") {
		t.Fatal("after the refresh, a tool the agent can rewrite still runs without asking")
	}
	if res := call(t, s, "default", "peek_run", map[string]any{}); res.Content != "rewritten" {
		t.Fatalf("after the refresh: %+v", res)
	}
}
