//go:build unix

package api

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tinyelf/backend/config"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
)

// The secrets of this test: provider keys in the environment and in the
// settings, a copy of the settings' key under another name, a TinyElf token.
const (
	envOpenAIKey    = "sk-env-openai-0123456789abcdef"
	envAnthropicKey = "sk-ant-env-0123456789abcdef"
	settingsKey     = "sk-test-123456789" // newSvc's addProvider
	serveToken      = "serve-token-0123456789abcdef"
	tavilyKey       = "tvly-env-0123456789abcdef"
)

func setSecretEnv(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", envOpenAIKey)
	t.Setenv("ANTHROPIC_API_KEY", envAnthropicKey)
	t.Setenv("MY_COPY_OF_THE_KEY", settingsKey)
	t.Setenv("TINYELF_SERVE_TOKEN", serveToken)
	t.Setenv("TAVILY_API_KEY", tavilyKey)
	t.Setenv("TINYELF_TEST_HARMLESS", "visible-to-children")
}

// checkNoSecrets fails when env (an environment dump) shows a secret, or
// lacks the harmless variable (proving it is the real environment).
func checkNoSecrets(t *testing.T, what, env string) {
	t.Helper()
	for _, s := range []string{envOpenAIKey, envAnthropicKey, settingsKey, serveToken, tavilyKey, "OPENAI_API_KEY=", "ANTHROPIC_API_KEY=", "TINYELF_SERVE_TOKEN=", "MY_COPY_OF_THE_KEY="} {
		if strings.Contains(env, s) {
			t.Errorf("%s shows %q:\n%s", what, s, env)
		}
	}
	if !strings.Contains(env, "TINYELF_TEST_HARMLESS=visible-to-children") {
		t.Errorf("%s lacks the user's ordinary variables:\n%s", what, env)
	}
}

// TestBashSeesNoSecrets: `env` in a Bash call shows none of TinyElf's keys.
func TestBashSeesNoSecrets(t *testing.T) {
	setSecretEnv(t)
	h := newSvc(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "b1", Name: "Bash", Arguments: `{"command":"env"}`}}},
		llmtest.Turn{Text: "done"},
	)
	h.addProvider()
	ctx := context.Background()
	sess, err := h.svc.CreateSession(ctx, CreateSessionArgs{Workspace: h.workspace, Mode: "auto"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.SendMessage(ctx, SendArgs{SessionID: sess.ID, Text: "show the environment"}); err != nil {
		t.Fatal(err)
	}
	ev := h.waitFor(sess.ID, string(sessions.EventToolResult))
	var res sessions.ToolResult
	if err := json.Unmarshal(ev.Data, &res); err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("env failed: %s", res.Content)
	}
	checkNoSecrets(t, "Bash env", res.Content)
	h.waitFor(sess.ID, string(sessions.EventTurnEnd))
}

// TestMCPServerSeesNoSecrets: a stdio server gets the user's environment
// without TinyElf's keys, plus exactly what its config names (even a
// token).
func TestMCPServerSeesNoSecrets(t *testing.T) {
	setSecretEnv(t)
	bin := buildFakeMCP(t)
	out := filepath.Join(t.TempDir(), "env.txt")
	h := newSvc(t)
	h.addProvider()
	ctx := context.Background()
	srv := config.MCPServer{Name: "envdump", Command: "sh",
		Args: []string{"-c", `env > "$ENV_OUT"; exec "$FAKE"`},
		Env:  map[string]string{"ENV_OUT": out, "FAKE": bin, "GITHUB_TOKEN": "ghp_explicitly0123456789given"}}
	if _, err := h.svc.SaveMCPServer(ctx, SaveMCPServerArgs{Server: srv}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	var env []byte
	for {
		env, _ = os.ReadFile(out)
		if strings.Contains(string(env), "ENV_OUT=") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the MCP server never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	checkNoSecrets(t, "the MCP server's environment", string(env))
	if !strings.Contains(string(env), "GITHUB_TOKEN=ghp_explicitly0123456789given") {
		t.Errorf("the server lacks the token its config names:\n%s", env)
	}
}

// TestMCPSecretsAreMasked: env and header values that look like secrets are
// masked in every listing; saving the form unchanged keeps them, a changed
// value replaces them, and a masked value under a new name is refused.
func TestMCPSecretsAreMasked(t *testing.T) {
	t.Parallel()
	h := newSvc(t)
	ctx := context.Background()
	stored := config.MCPServer{Name: "remote", Type: "http", URL: "http://127.0.0.1:1/mcp",
		Headers:  map[string]string{"Authorization": "Bearer sk-live-0123456789abcdefWXYZ", "X-Trace": "on", "X-Ref": "Bearer ${REMOTE_TOKEN}"},
		Disabled: true}
	direct := config.MCPServer{Name: "gh", Command: "gh-mcp", Env: map[string]string{"GITHUB_TOKEN": "ghp_0123456789abcdefghij", "LOG_LEVEL": "debug"}}
	if err := h.svc.settings.Update(func(s *config.Settings) error {
		s.MCPServers = []config.MCPServer{stored}
		s.Agents = []config.Agent{{Name: "coder", DirectMCPServers: []config.MCPServer{direct}}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	list, err := h.svc.ListMCPServers(ctx, struct{}{})
	if err != nil || len(list) != 1 {
		t.Fatalf("list: %v %+v", err, list)
	}
	shown := list[0].Config
	if got := shown.Headers["Authorization"]; got != "Bearer "+config.MaskPrefix+"WXYZ" {
		t.Errorf("Authorization shown as %q", got)
	}
	if shown.Headers["X-Trace"] != "on" || shown.Headers["X-Ref"] != "Bearer ${REMOTE_TOKEN}" {
		t.Errorf("harmless values changed: %v", shown.Headers)
	}
	view, err := h.svc.GetSettings(ctx, struct{}{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(view)
	for _, secret := range []string{"sk-live-0123456789abcdefWXYZ", "ghp_0123456789abcdefghij"} {
		if strings.Contains(string(b), secret) {
			t.Errorf("GetSettings shows %s", secret)
		}
	}
	if !strings.Contains(string(b), `"LOG_LEVEL":"debug"`) {
		t.Errorf("GetSettings lost a harmless value: %s", b)
	}

	// Saved back unchanged (another field edited): the secret stays.
	shown.Headers["X-Trace"] = "off"
	if _, err := h.svc.SaveMCPServer(ctx, SaveMCPServerArgs{Server: shown}); err != nil {
		t.Fatal(err)
	}
	got := h.svc.settings.Get().MCPServers[0]
	if got.Headers["Authorization"] != stored.Headers["Authorization"] || got.Headers["X-Trace"] != "off" {
		t.Errorf("after saving unchanged: %v", got.Headers)
	}

	// A value the user typed replaces the stored one.
	shown.Headers["Authorization"] = "Bearer sk-new-9876543210fedcba"
	if _, err := h.svc.SaveMCPServer(ctx, SaveMCPServerArgs{Server: shown}); err != nil {
		t.Fatal(err)
	}
	if got := h.svc.settings.Get().MCPServers[0].Headers["Authorization"]; got != "Bearer sk-new-9876543210fedcba" {
		t.Errorf("typed value not saved: %q", got)
	}

	// A masked value that cannot be matched to a stored one is refused,
	// never saved as if it were the secret.
	orphan := shown
	orphan.Headers = map[string]string{"X-Api-Key": config.MaskPrefix + "WXYZ"}
	if _, err := h.svc.SaveMCPServer(ctx, SaveMCPServerArgs{Server: orphan}); !isCode(err, CodeInvalid) {
		t.Errorf("masked value saved: %v", err)
	}
}
