package cli

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"tinyelf/backend/config"
	"tinyelf/internal/testutil"
)

// `tinyelf tool` goes through the engine's one gate, so the user's hooks
// run for a direct call as they do for the agent's: a PreToolUse hook that
// denies blocks the call before it runs, PostToolUse runs after one that
// ran, and a workspace's project hooks count once trusted there.
func TestToolRunsTheHooks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the hooks are sh")
	}
	home := cliEnv(t)
	ws := t.TempDir()
	writeSettingsHooks(t, home, `{
	  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "grep -q touch && { echo 'no touching' >&2; exit 2; }; exit 0"}]}],
	  "PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "cat > post-input.json"}]}]
	}`)
	// A project hook that blocks every Bash call, which only counts once
	// the workspace's hooks are trusted.
	writeSkillFile(t, filepath.Join(ws, ".claude", "settings.json"),
		`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo 'the project says no' >&2; exit 2"}]}]}}`)
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(ws, name))
		return err == nil
	}

	checkRun(t, []string{"tool", "Bash", "--workspace", ws, "--args", `{"command":"touch made.txt"}`}, exitError,
		[]string{"A PreToolUse hook blocked this call to Bash: no touching"}, nil)
	if exists("made.txt") {
		t.Error("the command ran although the PreToolUse hook denied it")
	}
	if exists("post-input.json") {
		t.Error("PostToolUse ran for a call that did not run")
	}

	checkRun(t, []string{"tool", "Bash", "--workspace", ws, "--args", `{"command":"echo allowed"}`}, exitOK, []string{"allowed"}, nil)
	if b, err := os.ReadFile(filepath.Join(ws, "post-input.json")); err != nil || !contains(string(b), `"tool_name":"Bash"`, `"hook_event_name":"PostToolUse"`, "echo allowed") {
		t.Errorf("PostToolUse did not run with the call: %q %v", b, err)
	}

	// Trusted, the project's hook blocks every Bash call.
	checkRun(t, []string{"hooks", "trust", "--workspace", ws}, exitOK, nil, nil)
	checkRun(t, []string{"tool", "Bash", "--workspace", ws, "--args", `{"command":"echo allowed"}`}, exitError,
		[]string{"A PreToolUse hook blocked this call to Bash: the project says no"}, nil)
}

// A user tool's action run by hand (`tinyelf tool TOOL ACTION`) is a
// use_tool call through the same gate: a deny rule on use_tool refuses it.
func TestUserToolActionThroughTheGate(t *testing.T) {
	home := cliEnv(t)
	personal := filepath.Join(home, "agents", "default", "tools")
	testutil.WriteFile(t, filepath.Join(personal, "hello.sh"), "#!/bin/sh\nread -r line\necho \"{\\\"got\\\": $line}\"\n", 0o755)
	testutil.WriteFile(t, filepath.Join(personal, "hello.tool.json"), `{"command": ["./hello.sh"], "schemas": [
		{"name": "hello_greet", "description": "Greets.", "input_schema": {"type": "object", "properties": {"who": {"type": "string"}}, "required": ["who"]}}]}`, 0o644)
	checkRun(t, []string{"tool", "hello", "greet", "--args", `{"who":"Bo"}`}, exitOK, []string{`"who":"Bo"`}, nil)
	settings, err := config.OpenStore(filepath.Join(home, config.SettingsFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := settings.AddRule(config.Rule{Tool: "use_tool", Action: config.RuleDeny}); err != nil {
		t.Fatal(err)
	}
	checkRun(t, []string{"tool", "hello", "greet", "--args", `{"who":"Bo"}`}, exitError,
		[]string{"a deny rule (use_tool) forbids it"}, nil)
}

// contains reports whether s holds every one of subs.
func contains(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
