package usertools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"tinyelf/backend/config"
	"tinyelf/internal/testutil"
)

func TestGatedAction(t *testing.T) {
	data := t.TempDir()
	testutil.WriteFile(t, filepath.Join(personalDir(data, "default"), "mail.py"), `
EXECUTION_PROFILE = {"send": {"gated": True}, "draft": {"read_only": True}}
def get_tool_schemas():
    return [{"name": "mail_send", "description": "Sends mail.", "input_schema": {"type": "object", "properties": {"to": {"type": "string"}}}},
            {"name": "mail_draft", "description": "Drafts mail."}]
def dispatch(name, args):
    return "sent to " + args.get("to", "?") if name == "mail_send" else "drafted"
`, 0)
	s := newTestService(t, data)
	for _, via := range []struct {
		name string
		tool string
		args map[string]any
	}{
		{"direct", "mail_send", map[string]any{"to": "ada@example.com"}},
		{"use_tool", "use_tool", map[string]any{"tool_name": "mail", "action": "send", "args": map[string]any{"to": "ada@example.com"}}},
	} {
		t.Run(via.name, func(t *testing.T) {
			if err := os.RemoveAll(filepath.Join(data, "agents", "default", PermissionsFile)); err != nil {
				t.Fatal(err)
			}
			res := call(t, s, "default", via.tool, via.args)
			if !res.IsError || !strings.Contains(res.Content, "mail_send is a gated action") || !strings.Contains(res.Content, "auto mode included") {
				t.Fatalf("without a permission entry: %s", res.Content)
			}
			// Other entries, or the tool's bare name, do not open the gate.
			if err := s.SavePermissions("default", Permissions{ExternalTools: []string{"mail", "mail_draft"}}); err != nil {
				t.Fatal(err)
			}
			if res := call(t, s, "default", via.tool, via.args); !res.IsError {
				t.Fatalf("allowed by a non-matching entry: %s", res.Content)
			}
			if err := s.SavePermissions("default", Permissions{ExternalTools: []string{"mail_send"}}); err != nil {
				t.Fatal(err)
			}
			if res := call(t, s, "default", via.tool, via.args); res.IsError || res.Content != "sent to ada@example.com" {
				t.Fatalf("with the entry: %+v", res)
			}
		})
	}
	// A permissions file that does not parse refuses rather than guesses.
	testutil.WriteFile(t, filepath.Join(data, "agents", "default", PermissionsFile), "{oops", 0)
	if res := call(t, s, "default", "mail_send", map[string]any{}); !res.IsError || !strings.Contains(res.Content, "cannot be read") {
		t.Fatalf("corrupt permissions: %s", res.Content)
	}
	if res := call(t, s, "default", "mail_draft", map[string]any{}); res.IsError {
		t.Fatalf("an ungated action: %s", res.Content)
	}
}

// Tools that misbehave: each gets a clear error result, and TinyElf's
// memory stays bounded.
func TestMisbehavingTools(t *testing.T) {
	data := t.TempDir()
	dir := personalDir(data, "default")
	testutil.WriteFile(t, filepath.Join(dir, "slow.py"), pyTool("slow", "wait", `
time.sleep(300)
return "never"`, `{"wait": {"expected_seconds": 2}}`), 0)
	// A tool that starts a child of its own and hangs.
	testutil.WriteFile(t, filepath.Join(dir, "spawns.sh"), "#!/bin/sh\nsleep 300 &\necho $! > \"$TINYELF_AGENT_DIR/child.pid\"\nwait\n", 0o755)
	testutil.WriteFile(t, filepath.Join(dir, "spawns.tool.json"), `{"command": ["./spawns.sh"], "schemas": [{"name": "spawns_run", "description": "x"}], "profile": {"run": {"expected_seconds": 2}}}`, 0)
	testutil.WriteFile(t, filepath.Join(dir, "crash.py"), pyTool("crash", "run", `
print("about to crash", file=sys.stderr)
os._exit(9)`, ""), 0)
	testutil.WriteFile(t, filepath.Join(dir, "raises.py"), pyTool("raises", "run", `raise ValueError("the city is unknown")`, ""), 0)
	testutil.WriteFile(t, filepath.Join(dir, "chatty.py"), pyTool("chatty", "run", `
print("debug output that is not the result")
return {"ok": True}`, ""), 0)
	testutil.WriteFile(t, filepath.Join(dir, "huge.py"), pyTool("huge", "run", `return "x" * (100 * 1024 * 1024)`, ""), 0)
	testutil.WriteFile(t, filepath.Join(dir, "noise.sh"), "#!/bin/sh\ncat >/dev/null\necho 'hello, not json'\n", 0o755)
	testutil.WriteFile(t, filepath.Join(dir, "noise.tool.json"), `{"command": ["./noise.sh"], "schemas": [{"name": "noise_run", "description": "x"}]}`, 0)
	testutil.WriteFile(t, filepath.Join(dir, "flood.sh"), "#!/bin/sh\ncat >/dev/null\nhead -c 104857600 /dev/zero\n", 0o755)
	testutil.WriteFile(t, filepath.Join(dir, "flood.tool.json"), `{"command": ["./flood.sh"], "schemas": [{"name": "flood_run", "description": "x"}]}`, 0)
	testutil.WriteFile(t, filepath.Join(dir, "exits.sh"), "#!/bin/sh\ncat >/dev/null\necho 'disk full' >&2\nexit 4\n", 0o755)
	testutil.WriteFile(t, filepath.Join(dir, "exits.tool.json"), `{"command": ["./exits.sh"], "schemas": [{"name": "exits_run", "description": "x"}]}`, 0)
	s := newTestService(t, data)
	if rep := s.Load(context.Background()); len(rep.Errors) > 0 {
		t.Fatalf("load: %+v", rep.Errors)
	}
	tests := []struct {
		tool    string
		want    []string
		maxTime time.Duration
	}{
		{tool: "slow_wait", want: []string{"slow_wait did not finish within 2s", "was stopped, with every process it started"}, maxTime: 15 * time.Second},
		{tool: "spawns_run", want: []string{"spawns_run did not finish within 2s"}, maxTime: 15 * time.Second},
		{tool: "crash_run", want: []string{"crash_run crashed (exit status 9) without returning a result", "about to crash"}},
		{tool: "raises_run", want: []string{"raises_run failed: ValueError: the city is unknown", "Traceback"}},
		{tool: "huge_run", want: []string{"huge_run printed more than 4 MB on stdout and was stopped"}},
		{tool: "noise_run", want: []string{"noise_run printed something that is not JSON (exit status 0): hello, not json"}},
		{tool: "flood_run", want: []string{"flood_run printed more than 4 MB on stdout and was stopped"}},
		{tool: "exits_run", want: []string{"exits_run failed (exit status 4) and printed no result", "disk full"}},
	}
	for _, tc := range tests {
		t.Run(tc.tool, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			res := call(t, s, "default", tc.tool, map[string]any{})
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			if !res.IsError {
				t.Fatalf("want an error, got %+v", res)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Content, w) {
					t.Errorf("result %q lacks %q", res.Content, w)
				}
			}
			if tc.maxTime > 0 && took > tc.maxTime {
				t.Errorf("took %s", took)
			}
			// 100 MB of output must not become 100 MB of memory.
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
				t.Errorf("allocated %d MB for one call", grew>>20)
			}
		})
	}
	// The child of the tool that timed out was killed with it.
	b, err := os.ReadFile(filepath.Join(data, "agents", "default", "child.pid"))
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	if err := json.Unmarshal(b, &pid); err != nil {
		t.Fatal(err)
	}
	testutil.WaitGone(t, 5*time.Second, "the child of the timed-out tool", pid)
	// A tool that prints on stdout keeps its result: the print goes to stderr.
	res := call(t, s, "default", "chatty_run", map[string]any{})
	if res.IsError || res.Content != `{"ok":true}` || !strings.Contains(res.Meta["stderr"].(string), "debug output") {
		t.Fatalf("chatty_run: %+v", res)
	}
}

// A credential reaches the tool's environment, and nowhere else: not the
// result, not its meta, not the task records; TinyElf's other secrets do
// not reach the tool at all.
func TestCredentialReachesOnlyTheTool(t *testing.T) {
	const secret = "sk-live-4f9a8b7c6d5e"
	data := t.TempDir()
	testutil.WriteFile(t, filepath.Join(personalDir(data, "default"), "api.py"), `
import os
CREDENTIALS = ["MYAPI_KEY"]
EXECUTION_PROFILE = {"leak": {"background_eligible": True}}
def get_tool_schemas():
    return [{"name": "api_check", "description": "x"}, {"name": "api_leak", "description": "x"}, {"name": "api_env", "description": "x"}]
def dispatch(name, args):
    from tinyelf_tool import get_credential
    key = get_credential("myapi", "api", env_var="MYAPI_KEY")
    if name == "api_check":
        return {"has_key": key == "`+secret+`", "len": len(key)}
    if name == "api_env":
        return sorted(os.environ)
    print("key is " + key, file=__import__("sys").stderr)
    raise RuntimeError("auth failed with key " + key)
`, 0)
	env := testEnv{"OPENAI_API_KEY": "sk-openai-should-not-leak", "ANTHROPIC_API_KEY": "sk-ant-should-not-leak", "MYAPI_KEY": secret, "UNRELATED": "x"}
	n := newFakeNotifier()
	s := newTestService(t, data, withEnv(env), withNotifier(n))
	res := call(t, s, "default", "api_check", map[string]any{})
	if res.IsError || res.Content != `{"has_key":true,"len":20}` {
		t.Fatalf("api_check: %+v", res)
	}
	res = call(t, s, "default", "api_env", map[string]any{})
	var names []string
	if err := json.Unmarshal([]byte(res.Content), &names); err != nil {
		t.Fatalf("api_env: %s", res.Content)
	}
	for _, n := range names {
		if n == "OPENAI_API_KEY" || n == "ANTHROPIC_API_KEY" || n == "UNRELATED" {
			t.Errorf("the tool's environment has %s: %v", n, names)
		}
	}
	if !strings.Contains(strings.Join(names, " "), "MYAPI_KEY") || !strings.Contains(strings.Join(names, " "), "PATH") {
		t.Errorf("environment %v", names)
	}
	res = call(t, s, "default", "api_leak", map[string]any{})
	res2 := call(t, s, "default", "api_leak", map[string]any{"submit": true})
	<-n.ch
	var taskFiles []string
	entries, _ := os.ReadDir(filepath.Join(data, tasksDir))
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(data, tasksDir, e.Name()))
		taskFiles = append(taskFiles, string(b))
	}
	everything, _ := json.Marshal([]any{res, res2, s.Tasks(""), taskFiles, n.sent})
	if strings.Contains(string(everything), secret) {
		t.Fatalf("the secret leaked: %s", everything)
	}
	if !strings.Contains(res.Content, "auth failed with key [redacted MYAPI_KEY]") {
		t.Errorf("masked error: %s", res.Content)
	}
}

func TestCredentialOrder(t *testing.T) {
	data := t.TempDir()
	spec := CredentialSpec{Env: "MYAPI_KEY", Credential: "myapi"}
	settings := map[string]config.Credential{}
	env := testEnv{}
	s := newTestService(t, data, withEnv(env), withCredentials(settings))
	steps := []struct {
		name string
		set  func()
		want string
		from string
	}{
		{"nowhere", func() {}, "", ""},
		{"environment", func() { env["MYAPI_KEY"] = "from-env" }, "from-env", FromEnvironment},
		{"shared file beats the environment", func() {
			testutil.WriteFile(t, filepath.Join(data, SharedCredentialDir, SharedCredentials), `{"MYAPI_KEY": "from-file"}`, 0)
		}, "from-file", FromSharedFile},
		{"vault beats the file", func() {
			if err := s.Vault().Set("MYAPI_KEY", "from-vault"); err != nil {
				t.Fatal(err)
			}
		}, "from-vault", FromVault},
		{"a settings key under another name does not count", func() {
			settings["other"] = config.Credential{APIKey: "wrong"}
		}, "from-vault", FromVault},
		{"settings beat the vault", func() {
			settings["myapi"] = config.Credential{APIKey: "from-settings"}
		}, "from-settings", FromSettings},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			st.set()
			v, from, problems := s.creds.Resolve("", spec)
			if v != st.want || from != st.from || len(problems) > 0 {
				t.Fatalf("got %q from %q (%v), want %q from %q", v, from, problems, st.want, st.from)
			}
		})
	}
	// Named keys, as get_credential's key_name picks them.
	settings["multi"] = config.Credential{Keys: map[string]string{"client_secret": "cs"}}
	if v, from, _ := s.creds.Resolve("", CredentialSpec{Env: "X", Credential: "multi", Key: "client_secret"}); v != "cs" || from != FromSettings {
		t.Errorf("keys: %q from %q", v, from)
	}
	// The vault is not readable without its key, and not in plain text.
	b, _ := os.ReadFile(filepath.Join(data, VaultFile))
	if strings.Contains(string(b), "from-vault") {
		t.Errorf("the vault holds plain text: %s", b)
	}
	if st, err := os.Stat(filepath.Join(data, VaultKeyFile)); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("vault key: %v %v", st, err)
	}
	// A damaged source is reported and skipped.
	testutil.WriteFile(t, filepath.Join(data, SharedCredentialDir, SharedCredentials), `[1,2]`, 0)
	delete(settings, "myapi")
	if err := s.Vault().Set("MYAPI_KEY", ""); err != nil {
		t.Fatal(err)
	}
	if v, from, problems := s.creds.Resolve("", spec); v != "from-env" || from != FromEnvironment || len(problems) != 1 {
		t.Errorf("damaged file: %q from %q (%v)", v, from, problems)
	}
}

// A module without dispatch is called through the function named like the
// schema, with anima_dir only when it takes it.
func TestFunctionNamedLikeTheSchema(t *testing.T) {
	data := t.TempDir()
	testutil.WriteFile(t, filepath.Join(personalDir(data, "default"), "calc.py"), `
def get_tool_schemas():
    return [
        {"name": "calc_add", "description": "Adds.", "parameters": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}},
        {"name": "calc_where", "description": "Where am I."},
    ]
def calc_add(a, b):
    return a + b
async def calc_where(anima_dir):
    return anima_dir
`, 0)
	s := newTestService(t, data)
	// "2" is coerced to a number by the registry before the tool sees it.
	if res := call(t, s, "default", "calc_add", map[string]any{"a": "2", "b": 3.5}); res.IsError || res.Content != "5.5" {
		t.Fatalf("calc_add: %+v", res)
	}
	if res := call(t, s, "default", "use_tool", map[string]any{"tool_name": "calc", "action": "add", "args": map[string]any{"a": "x"}}); !res.IsError || !strings.Contains(res.Content, "Invalid arguments for calc_add") {
		t.Fatalf("use_tool validates: %s", res.Content)
	}
	if res := call(t, s, "default", "calc_where", map[string]any{}); res.Content != filepath.Join(data, "agents", "default") {
		t.Fatalf("calc_where: %+v", res)
	}
}

// Both ways of running a Python call — forked from the warm host and a
// fresh interpreter — behave the same.
func TestPythonProcessModes(t *testing.T) {
	data := t.TempDir()
	dir := personalDir(data, "default")
	testutil.WriteFile(t, filepath.Join(dir, "modes.py"), `
import os, sys, time
CALLS = 0
CREDENTIALS = ["MODES_KEY"]
EXECUTION_PROFILE = {"hang": {"expected_seconds": 2}}
def get_tool_schemas():
    return [{"name": "modes_" + n, "description": n} for n in ("ok", "env", "crash", "hang", "big", "stdin")]
def dispatch(name, args):
    if name == "modes_ok":
        global CALLS
        CALLS += 1
        return {"calls": CALLS, "cwd": os.getcwd()}
    if name == "modes_env":
        return {"key": os.environ.get("MODES_KEY") == "mk-9876543", "provider": "OPENAI_API_KEY" in os.environ, "tool": os.environ.get("TINYELF_TOOL")}
    if name == "modes_crash":
        os._exit(5)
    if name == "modes_hang":
        time.sleep(300)
    if name == "modes_big":
        return "y" * (8 << 20)
    if name == "modes_stdin":
        return len(args["blob"])
`, 0)
	env := testEnv{"MODES_KEY": "mk-9876543", "OPENAI_API_KEY": "sk-should-not-reach"}
	for _, perCall := range []bool{false, true} {
		t.Run(map[bool]string{false: "forked", true: "process_per_call"}[perCall], func(t *testing.T) {
			s := newTestService(t, data, withEnv(env), func(o *Options) { o.ProcessPerCall = perCall })
			// Nothing a call leaves in its module reaches the next call.
			for range 2 {
				if res := call(t, s, "default", "modes_ok", map[string]any{}); res.IsError || res.Content != `{"calls":1,"cwd":"`+dir+`"}` {
					t.Errorf("ok: %+v", res)
				}
			}
			if res := call(t, s, "default", "modes_env", map[string]any{}); res.Content != `{"key":true,"provider":false,"tool":"modes"}` {
				t.Errorf("env: %+v", res)
			}
			if res := call(t, s, "default", "modes_crash", map[string]any{}); !strings.Contains(res.Content, "crashed (exit status 5)") {
				t.Errorf("crash: %s", res.Content)
			}
			if res := call(t, s, "default", "modes_hang", map[string]any{}); !strings.Contains(res.Content, "did not finish within 2s") {
				t.Errorf("hang: %s", res.Content)
			}
			if res := call(t, s, "default", "modes_big", map[string]any{}); !strings.Contains(res.Content, "printed more than 4 MB") {
				t.Errorf("big: %s", res.Content)
			}
			// Arguments larger than a pipe's buffer.
			blob := strings.Repeat("z", 1<<20)
			if res := call(t, s, "default", "modes_stdin", map[string]any{"blob": blob}); res.Content != "1048576" {
				t.Errorf("stdin: %.200s", res.Content)
			}
			// Calls in parallel, as the engine runs read-only ones.
			done := make(chan string, 8)
			for range 8 {
				go func() { done <- call(t, s, "default", "modes_env", map[string]any{}).Content }()
			}
			for range 8 {
				if got := <-done; got != `{"key":true,"provider":false,"tool":"modes"}` {
					t.Errorf("parallel: %s", got)
				}
			}
		})
	}
}
