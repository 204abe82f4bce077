package usertools

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tinyelf/backend/config"
	"tinyelf/internal/testutil"
)

func withAgentCredentials(m map[string]map[string]config.Credential) svcOption {
	return func(o *Options) {
		o.AgentCredentials = func(agent string) map[string]config.Credential { return m[agent] }
	}
}

// copySeedTools puts the seed's example tools (testdata/seed, copied from
// seed 002 verbatim) and the httpx stand-in into an agent's folder.
func copySeedTools(t *testing.T, dir string) {
	t.Helper()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "seed"))); err != nil {
		t.Fatal(err)
	}
}

func bearerDigest(key string) string {
	sum := sha256.Sum256([]byte("Bearer " + key))
	return hex.EncodeToString(sum[:])
}

// The seed's own example tools run unchanged: the single-action one, and
// the API one, which imports core.tools._base and asks for its key with
// get_credential("myapi", "myapi_tool", env_var="MYAPI_KEY"). The key is
// resolved in the seed's order — the agent profile's credential of that
// name, the Settings one, the vault, the shared credentials file, the
// environment — and a key that is nowhere is a clear error, not a
// ModuleNotFoundError.
func TestSeedExampleToolsRunUnchanged(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	for _, agent := range []string{"default", "ops"} {
		copySeedTools(t, personalDir(data, agent))
	}
	env := testEnv{}
	settings := map[string]config.Credential{}
	agents := map[string]map[string]config.Credential{}
	s := newTestService(t, data, withEnv(env), withCredentials(settings), withAgentCredentials(agents))
	shared := filepath.Join(data, SharedCredentialDir, SharedCredentials)

	res := call(t, s, "default", "my_tool_action", map[string]any{"param1": "x"})
	if res.IsError || res.Content != `{"result":"Processed x with 10"}` {
		t.Fatalf("the single-action example: %+v", res)
	}
	l := s.List(t.Context(), "default")
	if len(l.Problems) != 0 || len(l.Tools) != 2 {
		t.Fatalf("the seed's tools did not both load cleanly (the httpx stand-in is a folder, not a tool): %+v", l)
	}

	query := func(agent string) (digest string, errText string) {
		t.Helper()
		res := call(t, s, agent, "myapi_query", map[string]any{"query": "weather", "limit": 3})
		if res.IsError {
			return "", res.Content
		}
		var out []struct {
			URL    string         `json:"url"`
			Auth   string         `json:"auth_sha256"`
			Params map[string]any `json:"params"`
		}
		if err := json.Unmarshal([]byte(res.Content), &out); err != nil || len(out) != 1 || out[0].URL != "https://api.example.com/search" || out[0].Params["q"] != "weather" {
			t.Fatalf("myapi_query: %s", res.Content)
		}
		return out[0].Auth, ""
	}
	steps := []struct {
		name  string
		set   func()
		agent string
		want  string
	}{
		{"the environment", func() { env["MYAPI_KEY"] = "key-env" }, "default", "key-env"},
		{"the shared credentials file over the environment", func() { testutil.WriteFile(t, shared, `{"MYAPI_KEY": "key-shared"}`, 0) }, "default", "key-shared"},
		{"the vault over the file", func() {
			if err := s.Vault().Set("MYAPI_KEY", "key-vault"); err != nil {
				t.Fatal(err)
			}
		}, "default", "key-vault"},
		{"the Settings credential of that name over the vault", func() { settings["myapi"] = config.Credential{APIKey: "key-settings"} }, "default", "key-settings"},
		{"the agent profile's own credential, for that agent", func() { agents["ops"] = map[string]config.Credential{"myapi": {APIKey: "key-ops"}} }, "ops", "key-ops"},
		{"and not for another agent", func() {}, "default", "key-settings"},
	}
	for _, st := range steps {
		st.set()
		got, errText := query(st.agent)
		if got != bearerDigest(st.want) {
			t.Errorf("%s: the example sent another key than %q (error: %s)", st.name, st.want, errText)
		}
	}
	post := call(t, s, "default", "myapi_post", map[string]any{"data": "hello"})
	if post.IsError || !strings.Contains(post.Content, bearerDigest("key-settings")) || !strings.Contains(post.Content, `"json":{"data":"hello"}`) {
		t.Errorf("myapi_post: %+v", post)
	}

	// Nowhere at all: the seed's ToolConfigError, saying where to set it.
	clear(settings)
	clear(agents)
	delete(env, "MYAPI_KEY")
	os.Remove(shared)
	if err := s.Vault().Set("MYAPI_KEY", ""); err != nil {
		t.Fatal(err)
	}
	_, errText := query("default")
	for _, w := range []string{"ToolConfigError", "credential 'myapi'", "credentials.myapi", "MYAPI_KEY", "credentials.myapi (or MYAPI_KEY)"} {
		if !strings.Contains(errText, w) {
			t.Errorf("the missing credential's error lacks %q:\n%s", w, errText)
		}
	}
	if strings.Contains(errText, "ModuleNotFoundError") {
		t.Errorf("core.tools._base is missing:\n%s", errText)
	}
}

// get_credential(name) honours its name even when the tool also declares
// the variable: a Settings credentials.weather entry wins over a
// WEATHER_API_KEY in the environment (the tool-creator skill's example),
// and a tool without any declaration still gets what its code names.
func TestGetCredentialHonoursItsName(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	body := func(declare string) string {
		return `from __future__ import annotations
` + declare + `
def get_tool_schemas():
    return [{"name": "weather_key", "description": "Which key."}]

def dispatch(name, args):
    from tinyelf_tool import get_credential
    return get_credential("weather", "weather", env_var="WEATHER_API_KEY")[::-1]
`
	}
	testutil.WriteFile(t, filepath.Join(personalDir(data, "default"), "weather.py"), body(`CREDENTIALS = ["WEATHER_API_KEY"]`), 0)
	testutil.WriteFile(t, filepath.Join(personalDir(data, "other"), "weather.py"), body(""), 0)
	env := testEnv{"WEATHER_API_KEY": "from-env"}
	settings := map[string]config.Credential{"weather": {APIKey: "from-settings"}}
	s := newTestService(t, data, withEnv(env), withCredentials(settings))
	for _, agent := range []string{"default", "other"} {
		res := call(t, s, agent, "weather_key", map[string]any{})
		if res.IsError || res.Content != "sgnittes-morf" {
			t.Errorf("%s: get_credential(\"weather\") gave %+v, want the Settings credential", agent, res)
		}
	}
	l := s.List(t.Context(), "other")
	if len(l.Tools) != 1 || len(l.Tools[0].Credentials) != 1 || l.Tools[0].Credentials[0].Credential != "weather" || l.Tools[0].Credentials[0].From != FromSettings {
		t.Errorf("Settings → Tools does not show the credential the code asks for: %+v", l.Tools)
	}
}

// A credential named only at run time cannot be passed in advance: the
// tool loads with a warning saying to declare it, and the call's error
// says how to set it.
func TestDynamicCredentialNameWarns(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	testutil.WriteFile(t, filepath.Join(personalDir(data, "default"), "dyn.py"), `
from core.tools._base import get_credential
def get_tool_schemas():
    return [{"name": "dyn_run", "description": "x", "input_schema": {"type": "object", "properties": {"which": {"type": "string"}}}}]
def dispatch(name, args):
    return get_credential(args["which"], "dyn")
`, 0)
	s := newTestService(t, data, withCredentials(map[string]config.Credential{"secret_a": {APIKey: "aaaa-secret"}}))
	l := s.List(t.Context(), "default")
	if len(l.Tools) != 1 || !strings.Contains(strings.Join(l.Tools[0].Warnings, " "), "declare those in CREDENTIALS") {
		t.Fatalf("no warning about the run-time name: %+v", l.Tools)
	}
	res := call(t, s, "default", "dyn_run", map[string]any{"which": "secret_a"})
	if !res.IsError || !strings.Contains(res.Content, "credential 'secret_a'") || strings.Contains(res.Content, "aaaa-secret") {
		t.Errorf("a credential the code names only at run time: %+v", res)
	}
}

// The rest of core.tools._base that seed-style tools use: env-style keys
// (resolved from the vault, the shared file or the environment when their
// names are written out), ToolConfigError for a missing one, ToolResult and
// auto_cli_guide.
func TestCoreToolsBaseHelpers(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	testutil.WriteFile(t, filepath.Join(personalDir(data, "default"), "chat.py"), `from __future__ import annotations
import dataclasses
from core.tools._base import ToolConfigError, ToolResult, auto_cli_guide, get_env_or_fail, resolve_env_style_credential

def get_tool_schemas():
    return [{"name": "chat_post", "description": "Posts.", "input_schema": {"type": "object", "properties": {"room": {"type": "string"}, "loud": {"type": "boolean"}}, "required": ["room"]}}]

def dispatch(name, args):
    token = resolve_env_style_credential("CHAT_TOKEN__default")
    try:
        get_env_or_fail("CHAT_MISSING", "chat")
        missing = "found"
    except ToolConfigError as exc:
        missing = str(exc)
    return {"token_len": len(token or ""), "missing": missing,
            "result": dataclasses.asdict(ToolResult(success=True, text="ok")),
            "guide": auto_cli_guide("chat", get_tool_schemas())}
`, 0)
	s := newTestService(t, data, withEnv(testEnv{"CHAT_TOKEN__default": "tok-123456"}))
	res := call(t, s, "default", "chat_post", map[string]any{"room": "general"})
	var out struct {
		TokenLen int            `json:"token_len"`
		Missing  string         `json:"missing"`
		Result   map[string]any `json:"result"`
		Guide    string         `json:"guide"`
	}
	if res.IsError || json.Unmarshal([]byte(res.Content), &out) != nil {
		t.Fatalf("chat_post: %+v", res)
	}
	if out.TokenLen != 10 || !strings.Contains(out.Missing, "CHAT_MISSING") || out.Result["success"] != true ||
		!strings.Contains(out.Guide, "tinyelf tool chat post <room> [--loud]") {
		t.Errorf("core.tools._base helpers: %+v", out)
	}
}

// A tool cannot take TinyElf's own provider key from the environment by
// naming it, declared or in its code: no child process gets it.
func TestToolCannotTakeTinyElfsOwnKey(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	testutil.WriteFile(t, filepath.Join(personalDir(data, "default"), "grab.py"), `
CREDENTIALS = ["OPENAI_API_KEY"]
def get_tool_schemas():
    return [{"name": "grab_key", "description": "x"}]
def dispatch(name, args):
    import os
    from core.tools._base import get_credential
    got = {"env": os.environ.get("OPENAI_API_KEY", "")}
    try:
        got["code"] = get_credential("openai", "grab", env_var="ANTHROPIC_API_KEY")
    except KeyError as exc:
        got["code"] = "refused"
    return got
`, 0)
	s := newTestService(t, data, withEnv(testEnv{"OPENAI_API_KEY": "sk-openai-0123456789", "ANTHROPIC_API_KEY": "sk-ant-0123456789"}))
	res := call(t, s, "default", "grab_key", map[string]any{})
	if res.Content != `{"env":"","code":"refused"}` {
		t.Errorf("the tool got TinyElf's own key: %+v", res)
	}
	l := s.List(t.Context(), "default")
	if len(l.Tools) != 1 || len(l.Tools[0].Credentials) == 0 || !strings.Contains(strings.Join(l.Tools[0].Credentials[0].Problems, " "), "TinyElf's own key variables") {
		t.Errorf("Settings → Tools does not say why: %+v", l.Tools)
	}
}
