package cli

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"tinyelf/backend/config"
	"tinyelf/backend/llm/llmtest"
)

func writeSettingsHooks(t *testing.T, home, hooks string) {
	t.Helper()
	writeSkillFile(t, filepath.Join(home, config.SettingsFile), `{"version": 2, "hooks": `+hooks+`}`)
}

// tinyelf hooks list shows the settings' and the workspace's hooks with
// their trust; test runs one event's hooks with a sample input and says
// what TinyElf would do; trust lets the project's run.
func TestHooksCommand(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the hooks are bash")
	}
	home := cliEnv(t)
	ws := t.TempDir()
	writeSettingsHooks(t, home, `{
	  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "grep -q 'rm -rf' && { echo 'rm -rf is blocked' >&2; exit 2; }; exit 0"}]}],
	  "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo 'The repo uses tabs.'"}]}],
	  "Stop": [{"hooks": [{"type": "command", "command": "echo broken >&2; exit 1"}, {"type": "http", "url": "http://localhost:1"}]}]
	}`)
	writeSkillFile(t, filepath.Join(ws, ".claude", "settings.json"),
		`{"hooks": {"PostToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "echo formatted > formatted.txt"}]}]}}`)

	code, out, _ := runCLI(t, "hooks", "list", "--workspace", ws)
	for _, want := range []string{"PreToolUse", "Bash", "UserPromptSubmit", ".claude/settings.json (untrusted)", "tinyelf hooks trust --workspace " + ws,
		`Not run: settings Stop[0].hooks[1]: hooks of type "http" are not supported`} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("list lacks %q: %d\n%s", want, code, out)
		}
	}
	code, out, _ = runCLI(t, "hooks", "test", "PreToolUse", "--workspace", ws, "--input", `{"command":"rm -rf build"}`)
	if code != exitOK || !strings.Contains(out, "exit status 2") || !strings.Contains(out, "Outcome: deny — rm -rf is blocked") {
		t.Errorf("test PreToolUse: %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "hooks", "test", "pretooluse", "--workspace", ws, "--input", `{"command":"ls"}`)
	if code != exitOK || !strings.Contains(out, "Outcome: no decision") {
		t.Errorf("test PreToolUse ls: %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "hooks", "test", "UserPromptSubmit", "--workspace", ws, "--prompt", "hello")
	if code != exitOK || !strings.Contains(out, "Context for the model: The repo uses tabs.") || !strings.Contains(out, `"prompt":"hello"`) {
		t.Errorf("test UserPromptSubmit: %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "hooks", "test", "Stop", "--workspace", ws)
	if code != exitError || !strings.Contains(out, "problem: exited with status 1") {
		t.Errorf("test Stop (a failing hook): %d\n%s", code, out)
	}
	if code, _, errOut := runCLI(t, "hooks", "test", "Whenever"); code != exitError || !strings.Contains(errOut, "the events are SessionStart") {
		t.Errorf("an unknown event: %d %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "hooks", "test", "PreToolUse", "--input", "{"); code != exitError || !strings.Contains(errOut, "must be a JSON object") {
		t.Errorf("a tool input that is not JSON: %d %s", code, errOut)
	}
	// Untrusted project hooks do not run in a test; trusted ones do.
	code, out, errOut := runCLI(t, "hooks", "test", "PostToolUse", "--workspace", ws, "--tool", "Edit", "--input", `{"path":"a.go"}`)
	if code != exitOK || !strings.Contains(out, "No PostToolUse hook matches") || !strings.Contains(errOut, "not trusted") {
		t.Errorf("untrusted test: %d\n%s\n%s", code, out, errOut)
	}
	if code, out, _ := runCLI(t, "hooks", "trust", "--workspace", ws); code != exitOK || !strings.Contains(out, "will run") {
		t.Errorf("trust: %d %s", code, out)
	}
	code, out, _ = runCLI(t, "hooks", "test", "PostToolUse", "--workspace", ws, "--tool", "Edit", "--input", `{"path":"a.go"}`)
	if code != exitOK || !strings.Contains(out, `"file_path":"`+filepath.Join(ws, "a.go")+`"`) {
		t.Errorf("trusted test: %d\n%s", code, out)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "formatted.txt")); strings.TrimSpace(string(b)) != "formatted" {
		t.Errorf("the project hook did not run in the workspace: %q", b)
	}
	code, out, _ = runCLI(t, "hooks", "list", "--workspace", ws, "--output", "json")
	if code != exitOK || !strings.Contains(out, `"trust": "trusted"`) {
		t.Errorf("list after trust: %s", out)
	}
	if code, _, _ := runCLI(t, "hooks", "trust", "--deny", "--forget"); code != exitUsage {
		t.Errorf("--deny --forget: %d", code)
	}
	if code, _, errOut := runCLI(t, "hooks", "trust", "--workspace", t.TempDir()); code != exitError || !strings.Contains(errOut, "has no project hooks") {
		t.Errorf("trust without hooks: %d %s", code, errOut)
	}
}

// tinyelf run asks nobody: a workspace's untrusted project hooks do not
// run (the log says how to trust them), --yes runs them; the settings'
// hooks always run, and a refused prompt ends the run with an error.
func TestRunWithHooks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the hooks are bash")
	}
	home := cliEnv(t)
	ws := t.TempDir()
	srv := llmtest.NewServer(t)
	base := []string{"run", "--workspace", ws, "--base-url", srv.URL, "--model", "test-model"}
	writeSettingsHooks(t, home, `{"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "grep -q forbidden && { echo 'That topic is off limits.' >&2; exit 2; }; exit 0"}]}]}`)
	writeSkillFile(t, filepath.Join(ws, ".claude", "settings.json"),
		`{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "touch project-hook-ran"}]}]}}`)
	marker := filepath.Join(ws, "project-hook-ran")

	srv.Push(llmtest.Turn{Text: "fine"})
	if code, _, errOut := runCLI(t, append(base, "-p", "hello")...); code != exitOK {
		t.Fatalf("run: %d %s", code, errOut)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("an untrusted project hook ran in tinyelf run")
	}
	srv.Push(llmtest.Turn{Text: "fine"})
	if code, _, errOut := runCLI(t, append(base, "--yes", "-p", "hello")...); code != exitOK {
		t.Fatalf("run --yes: %d %s", code, errOut)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Error("--yes did not run the project hook")
	}
	n := len(srv.ChatRequests())
	code, _, errOut := runCLI(t, append(base, "-p", "tell me something forbidden")...)
	if code != exitError || !strings.Contains(errOut, "That topic is off limits.") {
		t.Errorf("a refused prompt: %d %s", code, errOut)
	}
	if len(srv.ChatRequests()) != n {
		t.Error("the refused prompt reached the model")
	}
}
