package usertools

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"tinyelf/internal/testutil"
)

func TestDiscoveryMerge(t *testing.T) {
	data := t.TempDir()
	testutil.WriteFile(t, filepath.Join(commonDir(data), "greet.py"), pyTool("greet", "hello", `return "common hello"`, ""), 0)
	testutil.WriteFile(t, filepath.Join(personalDir(data, "default"), "greet.py"), pyTool("greet", "hello", `return "personal hello"`, ""), 0)
	testutil.WriteFile(t, filepath.Join(commonDir(data), "shared_only.py"), pyTool("shared_only", "run", `return "common"`, ""), 0)
	// Named like core tools (Read, WebFetch): skipped and reported.
	testutil.WriteFile(t, filepath.Join(personalDir(data, "default"), "read.py"), pyTool("read", "file", `return "x"`, ""), 0)
	testutil.WriteFile(t, filepath.Join(commonDir(data), "web_fetch.py"), pyTool("web_fetch", "get", `return "x"`, ""), 0)
	// Private helpers are not scanned, even when they would fail.
	testutil.WriteFile(t, filepath.Join(personalDir(data, "default"), "_private.py"), "raise SystemExit('must not be imported')\n", 0)
	testutil.WriteFile(t, filepath.Join(personalDir(data, "default"), ".hidden.py"), "syntax error here\n", 0)
	// Another agent has its own personal tools.
	testutil.WriteFile(t, filepath.Join(personalDir(data, "reviewer"), "lint.py"), pyTool("lint", "check", `return "ok"`, ""), 0)

	var reports []Report
	s := newTestService(t, data, func(o *Options) { o.OnReport = func(r Report) { reports = append(reports, r) } })
	rep := s.Load(context.Background())

	if got, want := rep.Loaded, []string{"greet", "shared_only"}; !slices.Equal(got, want) {
		t.Errorf("loaded %v, want %v", got, want)
	}
	if !slices.Equal(rep.Overrides, []string{"greet"}) {
		t.Errorf("overrides %v", rep.Overrides)
	}
	var skipped []string
	for _, p := range rep.Skipped {
		skipped = append(skipped, p.Tool+": "+p.Message)
	}
	if len(skipped) != 2 || !strings.Contains(strings.Join(skipped, "\n"), "read: its name is taken by the core tool Read") ||
		!strings.Contains(strings.Join(skipped, "\n"), "web_fetch: its name is taken by the core tool WebFetch") {
		t.Errorf("skipped %v", skipped)
	}
	if len(reports) != 1 || len(reports[0].Skipped) != 2 {
		t.Errorf("OnReport got %+v", reports)
	}
	if len(rep.Errors) != 0 {
		t.Errorf("errors %+v", rep.Errors)
	}
	res := call(t, s, "default", "greet_hello", map[string]any{})
	if res.IsError || res.Content != "personal hello" {
		t.Errorf("greet_hello: %+v", res)
	}
	res = call(t, s, "default", "use_tool", map[string]any{"tool_name": "shared_only", "action": "run"})
	if res.IsError || res.Content != "common" {
		t.Errorf("use_tool shared_only: %+v", res)
	}
	names := toolNames(s.Tools(context.Background(), "default"))
	if slices.Contains(names, "lint_check") || slices.Contains(names, "read_file") {
		t.Errorf("default agent's tools %v", names)
	}
	if !slices.Contains(toolNames(s.Tools(context.Background(), "reviewer")), "lint_check") {
		t.Errorf("reviewer lacks its personal tool")
	}
	info := toolByName(s.Tools(context.Background(), "default"), "greet_hello").Info()
	if info.Source != "usertool" || info.Origin != "personal" || info.Safe || info.ReadOnly {
		t.Errorf("info %+v", info)
	}
}

// Files added after start-up are seen only after a refresh.
func TestDiscoveryOnlyAtStartAndRefresh(t *testing.T) {
	data := t.TempDir()
	s := newTestService(t, data)
	if names := toolNames(s.Tools(context.Background(), "default")); !slices.Equal(names, []string{"use_tool", "refresh_tools", "share_tool", "tool_tasks"}) {
		t.Fatalf("empty set: %v", names)
	}
	testutil.WriteFile(t, filepath.Join(personalDir(data, "default"), "late.py"), pyTool("late", "run", `return "late"`, ""), 0)
	if toolByName(s.Tools(context.Background(), "default"), "late_run") != nil {
		t.Fatal("a file added after start-up was picked up without refresh")
	}
	res := call(t, s, "default", "refresh_tools", map[string]any{})
	if res.IsError || !strings.Contains(res.Content, "New actions, callable from your next step (directly or through use_tool): late_run.") {
		t.Fatalf("refresh: %s", res.Content)
	}
	if res := call(t, s, "default", "late_run", map[string]any{}); res.Content != "late" {
		t.Fatalf("late_run: %+v", res)
	}
}

// Every way a tool can fail to load is an error for that tool only.
func TestDiscoveryBrokenTools(t *testing.T) {
	data := t.TempDir()
	dir := personalDir(data, "default")
	testutil.WriteFile(t, filepath.Join(dir, "good.py"), pyTool("good", "run", `return "fine"`, ""), 0)
	testutil.WriteFile(t, filepath.Join(dir, "syntax.py"), "def get_tool_schemas(:\n    pass\n", 0)
	testutil.WriteFile(t, filepath.Join(dir, "hangs.py"), "import time\ntime.sleep(60)\n", 0)
	testutil.WriteFile(t, filepath.Join(dir, "exits.py"), "import os\nos._exit(3)\n", 0)
	testutil.WriteFile(t, filepath.Join(dir, "raises.py"), "raise RuntimeError('no config file')\n", 0)
	testutil.WriteFile(t, filepath.Join(dir, "noschemas.py"), "def dispatch(name, args):\n    return 1\n", 0)
	testutil.WriteFile(t, filepath.Join(dir, "badschema.py"), `
def get_tool_schemas():
    return [
        {"name": "badschema_ok", "description": "fine", "parameters": {"type": "object", "properties": {}}},
        {"name": "badschema_typo", "description": "x", "input_schema": {"type": "object", "properties": {"a": {"type": "strng"}}}},
        {"name": "badschema_array", "description": "x", "input_schema": {"type": "array"}},
        {"name": "bad name!", "description": "x"},
    ]
def dispatch(name, args):
    return name
`, 0)
	testutil.WriteFile(t, filepath.Join(dir, "nohandler.py"), `
def get_tool_schemas():
    return [{"name": "nohandler_run", "description": "x"}]
`, 0)
	testutil.WriteFile(t, filepath.Join(dir, "Bad-Name.tool.json"), `{"schemas": []}`, 0)
	testutil.WriteFile(t, filepath.Join(dir, "manifest.tool.json"), `{not json`, 0)
	testutil.WriteFile(t, filepath.Join(dir, "nocmd.tool.json"), `{"command": ["./missing.sh"], "schemas": [{"name": "nocmd_run", "description": "x"}]}`, 0)

	s := newTestService(t, data, withImport(2*time.Second))
	start := time.Now()
	rep := s.Load(context.Background())
	took := time.Since(start)
	if took > 25*time.Second {
		t.Errorf("discovery took %s with one hanging import", took)
	}
	if !slices.Equal(rep.Loaded, []string{"badschema", "good"}) {
		t.Errorf("loaded %v", rep.Loaded)
	}
	errs := map[string]string{}
	for _, p := range rep.Errors {
		errs[p.Tool] = p.Message
	}
	want := map[string]string{
		"syntax":    "syntax error at line 1",
		"hangs":     "did not finish within 2s",
		"exits":     "importing it ended the Python process (exit status 3",
		"raises":    "RuntimeError: no config file",
		"noschemas": "has no get_tool_schemas()",
		"badschema": "schema badschema_typo: its parameters are not valid JSON Schema",
		"nohandler": "schema nohandler_run has no handler",
		"manifest":  "the manifest is not valid",
		"nocmd":     "does not exist",
	}
	for tool, msg := range want {
		if !strings.Contains(errs[tool], msg) {
			t.Errorf("%s: error %q, want it to contain %q", tool, errs[tool], msg)
		}
	}
	if !strings.Contains(errs["badschema"], `must be a schema of type "object"`) || !strings.Contains(errs["badschema"], `name "bad name!"`) {
		t.Errorf("badschema: %s", errs["badschema"])
	}
	if !strings.Contains(errs["Bad-Name"], "not a valid tool name") {
		t.Errorf("Bad-Name: %q", errs["Bad-Name"])
	}
	if res := call(t, s, "default", "good_run", map[string]any{}); res.Content != "fine" {
		t.Errorf("good_run: %+v", res)
	}
	if res := call(t, s, "default", "badschema_ok", map[string]any{}); res.Content != "badschema_ok" {
		t.Errorf("badschema_ok: %+v", res)
	}
	if res := call(t, s, "default", "use_tool", map[string]any{"tool_name": "syntax", "action": "x"}); !res.IsError || !strings.Contains(res.Content, "failed to load: syntax error") {
		t.Errorf("use_tool on a broken tool: %s", res.Content)
	}
}

// With no python3 on PATH, Python tools fail with that reason and
// executable tools still load.
func TestDiscoveryWithoutPython(t *testing.T) {
	data := t.TempDir()
	bin := t.TempDir()
	testutil.WriteFile(t, filepath.Join(bin, "sh-tool"), "#!/bin/sh\ncat >/dev/null\necho '\"from sh\"'\n", 0o755)
	testutil.WriteFile(t, filepath.Join(personalDir(data, "default"), "pytool.py"), pyTool("pytool", "run", `return 1`, ""), 0)
	testutil.WriteFile(t, filepath.Join(personalDir(data, "default"), "shtool.tool.json"), `{"command": ["`+filepath.Join(bin, "sh-tool")+`"], "schemas": [{"name": "shtool_run", "description": "x"}]}`, 0)
	s := newTestService(t, data, withPython("python3"), withEnv(testEnv{"PATH": bin}))
	rep := s.Load(context.Background())
	if !slices.Equal(rep.Loaded, []string{"shtool"}) || len(rep.Errors) != 1 ||
		!strings.Contains(rep.Errors[0].Message, "python3 was not found on PATH, so Python tools cannot run") {
		t.Fatalf("report %+v", rep)
	}
	if res := call(t, s, "default", "shtool_run", map[string]any{}); res.IsError || res.Content != "from sh" {
		t.Fatalf("shtool_run: %+v", res)
	}
}

// A Node tool described by a manifest.
func TestNodeToolWithManifest(t *testing.T) {
	if _, err := lookPath("node", os.Getenv("PATH")); err != nil {
		t.Skip("node is not installed")
	}
	data := t.TempDir()
	dir := personalDir(data, "default")
	testutil.WriteFile(t, filepath.Join(dir, "hello.js"), `
let input = "";
process.stdin.on("data", d => input += d);
process.stdin.on("end", () => {
  const req = JSON.parse(input);
  if (req.action === "fail") { process.stdout.write(JSON.stringify({error: "asked to fail"})); return; }
  console.error("log line on stderr");
  process.stdout.write(JSON.stringify({greeting: "Hello, " + req.args.who + "!", schema: req.schema, agentDir: req.agent_dir}));
});
`, 0)
	testutil.WriteFile(t, filepath.Join(dir, "hello.tool.json"), `{
  "description": "Greets people.",
  "command": ["node", "hello.js"],
  "schemas": [
    {"name": "hello_greet", "description": "Greets someone.", "input_schema": {"type": "object", "properties": {"who": {"type": "string"}}, "required": ["who"]}},
    {"name": "hello_fail", "description": "Fails."}
  ],
  "profile": {"greet": {"expected_seconds": 10, "read_only": true}}
}`, 0)
	s := newTestService(t, data)
	rep := s.Load(context.Background())
	if !slices.Equal(rep.Loaded, []string{"hello"}) {
		t.Fatalf("report %+v", rep)
	}
	info := toolByName(s.Tools(context.Background(), "default"), "hello_greet").Info()
	if !info.ReadOnly || info.Safe {
		t.Errorf("a read_only action of a folder the agent can write is read-only, and still asks: %+v", info)
	}
	res := call(t, s, "default", "hello_greet", map[string]any{"who": "Ada"})
	if res.IsError || !strings.Contains(res.Content, `"greeting":"Hello, Ada!"`) || !strings.Contains(res.Content, `"schema":"hello_greet"`) ||
		!strings.Contains(res.Content, filepath.Join(data, "agents", "default")) {
		t.Fatalf("hello_greet: %+v", res)
	}
	if st, _ := res.Meta["stderr"].(string); !strings.Contains(st, "log line on stderr") {
		t.Errorf("stderr in meta: %v", res.Meta)
	}
	res = call(t, s, "default", "hello_greet", map[string]any{})
	if !res.IsError || !strings.Contains(res.Content, `missing required parameter "who"`) {
		t.Errorf("validation: %s", res.Content)
	}
	if res := call(t, s, "default", "hello_fail", map[string]any{}); !res.IsError || !strings.Contains(res.Content, "hello_fail failed: asked to fail") {
		t.Errorf("hello_fail: %s", res.Content)
	}
}

// The catalog reads a user tool's details through ActionTool.
func TestActionToolDetails(t *testing.T) {
	data := t.TempDir()
	testutil.WriteFile(t, filepath.Join(commonDir(data), "notes.py"), pyTool("notes", "add", `return 1`, `{"add": {"expected_seconds": 5}}`), 0)
	s := newTestService(t, data)
	var found int
	for _, tool := range s.Tools(context.Background(), "default") {
		at, ok := tool.(ActionTool)
		if !ok {
			continue
		}
		found++
		if d, a := at.Definition(), at.Action(); d.Name != "notes" || d.Origin != OriginCommon || d.Kind != KindPython || a.Name != "add" || a.Profile.Timeout() != 5*time.Second {
			t.Errorf("details %+v %+v", d, a)
		}
	}
	if found != 1 {
		t.Errorf("%d action tools", found)
	}
}

// A personal tool that fails to load does not hide the working common one.
func TestBrokenPersonalKeepsCommon(t *testing.T) {
	data := t.TempDir()
	testutil.WriteFile(t, filepath.Join(commonDir(data), "greet.py"), pyTool("greet", "hello", `return "common"`, ""), 0)
	testutil.WriteFile(t, filepath.Join(personalDir(data, "default"), "greet.py"), "def get_tool_schemas(:\n", 0)
	s := newTestService(t, data)
	rep := s.Load(context.Background())
	if len(rep.Errors) != 1 || !strings.Contains(rep.Errors[0].Message, "the common tool of that name is used: syntax error") || len(rep.Overrides) != 0 {
		t.Fatalf("report %+v", rep)
	}
	if res := call(t, s, "default", "greet_hello", map[string]any{}); res.Content != "common" {
		t.Fatalf("greet_hello: %+v", res)
	}
}
