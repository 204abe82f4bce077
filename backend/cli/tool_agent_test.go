package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"tinyelf/backend/config"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/internal/testutil"
)

// binRun runs the real tinyelf binary with a data folder of its own and
// returns its exit code and output.
func binRun(t *testing.T, bin, home string, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(childEnv(home), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), out.String(), errOut.String()
	case err != nil:
		t.Fatal(err)
	}
	return 0, out.String(), errOut.String()
}

// listed returns the tool names of `tinyelf tool list` text output.
func listed(stdout string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(stdout, "\n")[1:] {
		if f := strings.Fields(line); len(f) >= 4 && !strings.HasSuffix(f[0], ":") {
			out[f[0]] = line
		}
	}
	return out
}

// `tinyelf tool` as its help and the README document it, through the real
// binary: --agent before or after list picks the agent profile, whose
// allowedTools limit the tools and whose direct MCP servers start; a tool
// the profile leaves out is refused with the reason; the tools only a
// session has are listed and run in a one-off session of the agent.
func TestToolAgentFlagsThroughTheBinary(t *testing.T) {
	bin := build(t, "tinyelf")
	fake := buildFakeMCPServer(t)
	home, ws := t.TempDir(), t.TempDir()
	settings, err := config.OpenStore(filepath.Join(home, config.SettingsFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := settings.Update(func(s *config.Settings) error {
		s.MCPServers = []config.MCPServer{{Name: "shared", Command: fake}}
		s.Agents = []config.Agent{{Name: "ops", AllowedTools: []string{"Read", "Grep", "mcp__mine", "SessionsList"},
			DirectMCPServers: []config.MCPServer{{Name: "mine", Command: fake}}}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	wsArgs := []string{"--workspace", ws}

	t.Run("list --agent and --agent list agree, and follow the profile", func(t *testing.T) {
		for _, args := range [][]string{{"tool", "list", "--agent", "ops"}, {"tool", "--agent", "ops", "list"}, {"tool", "list", "--agent=ops"}} {
			code, stdout, stderr := binRun(t, bin, home, nil, append(args, wsArgs...)...)
			if code != 0 {
				t.Fatalf("%v: exit %d\n%s", args, code, stderr)
			}
			got := listed(stdout)
			for _, want := range []string{"Read", "Grep", "mcp__mine__echo", "SessionsList", "ToolSearch"} {
				if got[want] == "" {
					t.Errorf("%v does not list %s:\n%s", args, want, stdout)
				}
			}
			for _, not := range []string{"Bash", "Write", "mcp__shared__echo", "spawn_agent"} {
				if got[not] != "" {
					t.Errorf("%v lists %s, which ops's allowedTools leave out", args, not)
				}
			}
			if !strings.Contains(got["SessionsList"], "(session)") {
				t.Errorf("SessionsList is not marked as a session tool: %q", got["SessionsList"])
			}
		}
	})
	t.Run("the default agent has everything, but not ops's direct server", func(t *testing.T) {
		code, stdout, stderr := binRun(t, bin, home, nil, append([]string{"tool", "list"}, wsArgs...)...)
		got := listed(stdout)
		if code != 0 || got["Bash"] == "" || got["mcp__shared__echo"] == "" || got["spawn_agent"] == "" || got["mcp__mine__echo"] != "" {
			t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
		}
	})
	t.Run("a tool the profile leaves out is refused with the reason", func(t *testing.T) {
		code, _, stderr := binRun(t, bin, home, nil, append([]string{"tool", "Bash", "--agent", "ops", "--args", `{"command":"echo hi"}`}, wsArgs...)...)
		if code != 2 || !strings.Contains(stderr, `"Bash" is not available to agent ops`) || !strings.Contains(stderr, "allowedTools") {
			t.Errorf("exit %d\n%s", code, stderr)
		}
	})
	t.Run("the agent's direct MCP server runs its tools", func(t *testing.T) {
		code, stdout, stderr := binRun(t, bin, home, nil, append([]string{"tool", "--agent", "ops", "mcp__mine__echo", "--args", `{"message":"hi"}`}, wsArgs...)...)
		if code != 0 || !strings.Contains(stdout, "Echo: hi") || !strings.Contains(stdout, `server="mine"`) {
			t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
		}
	})
	t.Run("an unknown agent falls back to the default one, and says so", func(t *testing.T) {
		code, stdout, stderr := binRun(t, bin, home, nil, append([]string{"tool", "list", "--agent", "nobody"}, wsArgs...)...)
		if code != 0 || listed(stdout)["Bash"] == "" || !strings.Contains(stderr, `there is no agent profile "nobody"`) {
			t.Errorf("exit %d\n%s", code, stderr)
		}
	})

	srv := llmtest.NewServer(t)
	model := []string{"TINYELF_BASE_URL=" + srv.URL, "TINYELF_MODEL=test-model"}
	sessionID := regexp.MustCompile(`one-off session (\S+):`)
	t.Run("a session tool runs in a one-off session", func(t *testing.T) {
		code, stdout, stderr := binRun(t, bin, home, nil, append([]string{"tool", "SessionsList"}, wsArgs...)...)
		m := sessionID.FindStringSubmatch(stderr)
		if code != 0 || m == nil {
			t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
		}
		code, stdout, _ = binRun(t, bin, home, nil, append([]string{"tool", "SessionsList", "--output", "json"}, wsArgs...)...)
		if code != 0 || !strings.Contains(stdout, m[1]) {
			t.Errorf("the first one-off session is not in the history: %s", stdout)
		}
	})
	t.Run("spawn_agent starts a real subagent", func(t *testing.T) {
		srv.Push(llmtest.Turn{Text: "Hello from the child."})
		code, stdout, stderr := binRun(t, bin, home, model, append([]string{"tool", "spawn_agent", "--args", `{"prompt":"say hello"}`}, wsArgs...)...)
		if code != 0 || !strings.Contains(stdout, "Hello from the child.") {
			t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
		}
	})
	t.Run("SessionsSpawn waits for the turn it started", func(t *testing.T) {
		// A slow answer: a command that did not wait would cut it off.
		srv.Push(llmtest.Turn{Text: "Spawned and done.", ChunkDelay: 150 * time.Millisecond})
		code, stdout, stderr := binRun(t, bin, home, model, append([]string{"tool", "SessionsSpawn", "--args", `{"prompt":"count to three"}`}, wsArgs...)...)
		m := regexp.MustCompile(`Started session (\S+) `).FindStringSubmatch(stdout)
		if code != 0 || m == nil {
			t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
		}
		code, shown, _ := binRun(t, bin, home, nil, "sessions", "show", m[1])
		if code != 0 || !strings.Contains(shown, "Spawned and done.") {
			t.Errorf("the spawned session's turn did not finish before the command exited:\n%s", shown)
		}
	})
	t.Run("a session tool the profile leaves out does not run", func(t *testing.T) {
		code, stdout, stderr := binRun(t, bin, home, model, append([]string{"tool", "--agent", "ops", "spawn_agent", "--args", `{"prompt":"x"}`}, wsArgs...)...)
		if code != 1 || !strings.Contains(stdout, "allowedTools") {
			t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
		}
	})
	t.Run("the tool-creator skill is in the binary", func(t *testing.T) {
		code, stdout, _ := binRun(t, bin, home, nil, "skills", "list")
		if code != 0 || !strings.Contains(stdout, "tool-creator") {
			t.Errorf("skills list: exit %d\n%s", code, stdout)
		}
		code, stdout, stderr := binRun(t, bin, home, nil, append([]string{"tool", "read_skill", "--args", `{"name":"tool-creator"}`}, wsArgs...)...)
		if code != 0 || !strings.Contains(stdout, "# Creating a user tool") {
			t.Errorf("read_skill tool-creator: exit %d\n%s\n%s", code, stdout, stderr)
		}
	})
	t.Run("the other flags of the help", func(t *testing.T) {
		code, stdout, _ := binRun(t, bin, home, nil, "tool", "--help")
		for _, flag := range []string{"--args JSON", "--agent A", "--workspace DIR", "--mode MODE", "--unrestricted", "--output FORMAT", "one-off session"} {
			if code != 0 || !strings.Contains(stdout, flag) {
				t.Errorf("tool --help lacks %q", flag)
			}
		}
		code, stdout, _ = binRun(t, bin, home, nil, append([]string{"tool", "list", "--agent", "ops", "--mode", "plan"}, wsArgs...)...)
		if got := listed(stdout); code != 0 || got["Read"] == "" || got["SessionsList"] == "" || got["Bash"] != "" {
			t.Errorf("list --agent ops --mode plan: %s", stdout)
		}
		outside := filepath.Join(t.TempDir(), "outside.txt")
		testutil.WriteFile(t, outside, "far away\n", 0)
		code, stdout, _ = binRun(t, bin, home, nil, append([]string{"tool", "Read", "--unrestricted", "--args", `{"path":"` + outside + `"}`}, wsArgs...)...)
		if code != 0 || !strings.Contains(stdout, "far away") {
			t.Errorf("--unrestricted Read: exit %d %s", code, stdout)
		}
		code, _, stderr := binRun(t, bin, home, nil, append([]string{"tool", "SessionsList", "--unrestricted"}, wsArgs...)...)
		if code != 2 || !strings.Contains(stderr, "--unrestricted does not apply to SessionsList") {
			t.Errorf("--unrestricted on a session tool: exit %d %s", code, stderr)
		}
	})
	t.Run("list --output json marks session tools", func(t *testing.T) {
		code, stdout, _ := binRun(t, bin, home, nil, append([]string{"tool", "list", "--output", "json"}, wsArgs...)...)
		var infos []struct {
			Name    string `json:"name"`
			Session bool   `json:"session"`
		}
		if code != 0 || json.Unmarshal([]byte(stdout), &infos) != nil {
			t.Fatalf("exit %d: %s", code, stdout)
		}
		for _, in := range infos {
			if in.Session != (in.Name == "Notify" || strings.HasPrefix(in.Name, "Sessions") && in.Name != "SessionsYield" || in.Name == "spawn_agent" || strings.HasPrefix(in.Name, "subagent_")) {
				t.Errorf("%s: session %v", in.Name, in.Session)
			}
		}
	})
}
