//go:build linux

package proctest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"tinyelf/backend/llm/llmtest"
	"tinyelf/internal/testutil"
)

// The keys TinyElf holds in this test: two in its environment (one of them
// copied under an innocent name too) and one in its settings (also
// exported under another name). No child may see any of them.
const (
	envKey      = "sk-env-openai-key-0001"
	envAntKey   = "sk-ant-env-key-0003"
	settingsKey = "sk-settings-key-0002"
)

// TestChildrenCleanGroupedAndGoneWithTinyElf runs `tinyelf run` with a
// scripted model that makes TinyElf start one kind of child each time —
// ripgrep for Grep (a stand-in rg on PATH), a Bash command, a stdio MCP
// server, a user tool — and checks, from what each child recorded of
// itself, that it sees no key of TinyElf's (by name or value), that it
// leads a process group of its own, and that it dies when TinyElf is
// killed with SIGKILL.
func TestChildrenCleanGroupedAndGoneWithTinyElf(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		turns func(out string) []llmtest.Turn
		setup func(t *testing.T, r *runner, out string, settings map[string]any)
	}{
		{"ripgrep for Grep", func(string) []llmtest.Turn {
			return []llmtest.Turn{{ToolCalls: []llmtest.ToolCall{{ID: "g1", Name: "Grep", Arguments: `{"pattern":"needle"}`}}}, {Text: "not reached"}}
		}, func(t *testing.T, r *runner, out string, _ map[string]any) {
			bin := filepath.Join(r.home, "fakebin")
			writeExec(t, filepath.Join(bin, "rg"), recorder(out))
			r.path = bin
		}},
		{"Bash", func(out string) []llmtest.Turn {
			return []llmtest.Turn{{ToolCalls: []llmtest.ToolCall{{ID: "b1", Name: "Bash",
				Arguments: mustJSON(map[string]string{"command": fmt.Sprintf(`env > %[1]s/env; echo $$ > %[1]s/pid; sleep 300`, out)})}}}, {Text: "not reached"}}
		}, nil},
		{"stdio MCP server", func(string) []llmtest.Turn {
			// The turn keeps TinyElf busy while the server starts.
			return []llmtest.Turn{{ToolCalls: []llmtest.ToolCall{{ID: "b1", Name: "Bash", Arguments: `{"command":"sleep 300"}`}}}, {Text: "not reached"}}
		}, func(t *testing.T, r *runner, out string, settings map[string]any) {
			settings["mcpServers"] = []map[string]any{{
				"name": "probe", "command": "sh", "args": []string{"-c", recorder(out)},
				"env": map[string]string{"PROBE_NAMED": "given-on-purpose"},
			}}
		}},
		{"user tool", func(string) []llmtest.Turn {
			return []llmtest.Turn{{ToolCalls: []llmtest.ToolCall{{ID: "u1", Name: "use_tool",
				Arguments: `{"tool_name":"probe","action":"run","args":{}}`}}}, {Text: "not reached"}}
		}, func(t *testing.T, r *runner, out string, _ map[string]any) {
			dir := filepath.Join(r.home, "common_tools")
			writeExec(t, filepath.Join(dir, "probe.sh"), recorder(out))
			testutil.WriteFile(t, filepath.Join(dir, "probe.tool.json"), `{"description": "records its environment", "command": ["./probe.sh"],
				"schemas": [{"name": "probe_run", "description": "records its environment"}]}`, 0)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "out")
			if err := os.MkdirAll(out, 0o755); err != nil {
				t.Fatal(err)
			}
			r := newRunner(t, tc.turns(out)...)
			settings := map[string]any{"version": 2, "providers": []map[string]any{{
				"name": "stored", "kind": "openai", "baseUrl": "http://127.0.0.1:9/v1", "apiKey": settingsKey, "model": "m",
			}}}
			if tc.setup != nil {
				tc.setup(t, r, out, settings)
			}
			testutil.WriteFile(t, filepath.Join(r.home, "settings.json"), mustJSON(settings), 0)
			r.extraEnv = []string{
				"OPENAI_API_KEY=" + envKey, "ANTHROPIC_API_KEY=" + envAntKey,
				"INNOCENT_COPY=" + envKey, "SETTINGS_COPY=" + settingsKey, "PLAIN_VARIABLE=kept",
			}
			cmd, log := r.start("start a child")
			pid := waitPid(t, filepath.Join(out, "pid"), log)
			env := readEnv(t, filepath.Join(out, "env"))
			for _, kv := range env {
				name, value, _ := strings.Cut(kv, "=")
				if name == "OPENAI_API_KEY" || name == "ANTHROPIC_API_KEY" {
					t.Errorf("the child sees %s", name)
				}
				for _, key := range []string{envKey, envAntKey, settingsKey} {
					if strings.Contains(value, key) {
						t.Errorf("the child sees a key of TinyElf's in %s", name)
					}
				}
			}
			if tc.name == "stdio MCP server" && !contains(env, "PROBE_NAMED=given-on-purpose") {
				t.Errorf("the MCP server lost the env its config gives it:\n%s", strings.Join(env, "\n"))
			}
			if tc.name != "user tool" && !contains(env, "PLAIN_VARIABLE=kept") {
				t.Errorf("the child lost an ordinary variable:\n%s", strings.Join(env, "\n"))
			}
			if pgid := processGroup(t, pid); pgid != pid || pgid == processGroup(t, cmd.Process.Pid) {
				t.Errorf("child %d is in process group %d (TinyElf %d is in %d)", pid, pgid, cmd.Process.Pid, processGroup(t, cmd.Process.Pid))
			}
			if err := cmd.Process.Kill(); err != nil { // SIGKILL: no chance to clean up
				t.Fatal(err)
			}
			_, _ = cmd.Process.Wait()
			testutil.WaitGone(t, 5*time.Second, tc.name+" after kill -9 of TinyElf", pid)
		})
	}
}

// recorder is a shell script that writes its environment and pid into out
// and then waits, as long as it is let.
func recorder(out string) string {
	return fmt.Sprintf("env > %[1]s/env.tmp && mv %[1]s/env.tmp %[1]s/env; echo $$ > %[1]s/pid.tmp && mv %[1]s/pid.tmp %[1]s/pid; exec sleep 300", out)
}

func writeExec(t *testing.T, path, script string) {
	t.Helper()
	testutil.WriteFile(t, path, "#!/bin/sh\n"+script+"\n", 0)
	if err := os.Chmod(path, 0o755); err != nil {
		t.Fatal(err)
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// waitPid waits for the child's pid file; it fails with TinyElf's output
// after a deadline.
func waitPid(t *testing.T, path string, log *bytes.Buffer) int {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if b, err := os.ReadFile(path); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				return pid
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the child never started; TinyElf said:\n%s", log)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func readEnv(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// processGroup reads a process's group from /proc.
func processGroup(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	pgid, err := strconv.Atoi(f[2])
	if err != nil {
		t.Fatal(err)
	}
	return pgid
}
