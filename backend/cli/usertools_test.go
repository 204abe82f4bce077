package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tinyelf/internal/testdeps"
	"tinyelf/internal/testutil"
)

func TestUserToolCommands(t *testing.T) {
	home := cliEnv(t)
	personal := filepath.Join(home, "agents", "default", "tools")
	// An executable tool without a CLI: it echoes its request.
	testutil.WriteFile(t, filepath.Join(personal, "hello.sh"), "#!/bin/sh\nread -r line\necho \"{\\\"got\\\": $line}\"\n", 0o755)
	testutil.WriteFile(t, filepath.Join(personal, "hello.tool.json"), `{"command": ["./hello.sh"], "schemas": [
		{"name": "hello_greet", "description": "Greets.", "input_schema": {"type": "object", "properties": {"who": {"type": "string"}}, "required": ["who"]}},
		{"name": "hello_send", "description": "Sends a greeting."}],
		"profile": {"send": {"gated": true}, "greet": {"background_eligible": true}}}`, 0o644)
	// One with a command line, which prints a control character.
	testutil.WriteFile(t, filepath.Join(personal, "shcli.sh"), "#!/bin/sh\nprintf 'cli args: %s\\033[2J\\n' \"$*\"\nexit 3\n", 0o755)
	testutil.WriteFile(t, filepath.Join(personal, "shcli.tool.json"), `{"command": ["./shcli.sh"], "cli": ["./shcli.sh"], "schemas": [{"name": "shcli_run", "description": "x"}]}`, 0o644)
	// Named like a core tool: skipped, with a warning.
	testutil.WriteFile(t, filepath.Join(personal, "grep.tool.json"), `{"command": ["./hello.sh"], "schemas": [{"name": "grep_x", "description": "x"}]}`, 0o644)

	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{"list shows user tools with their source, kind and folders", []string{"tool", "list"}, 0,
			[]string{"hello_greet", "usertool:personal (executable)", "use_tool", "User tools of agent default: personal " + personal},
			[]string{"user tool grep (personal) skipped: its name is taken by the core tool Grep"}},
		{"a schema name through the pipeline", []string{"tool", "hello_greet", "--args", `{"who":"Ada"}`}, 0,
			[]string{`"args":{"who":"Ada"}`}, nil},
		{"TOOL ACTION without a cli runs the action", []string{"tool", "hello", "greet", "--args", `{"who":"Bo"}`}, 0,
			[]string{`"who":"Bo"`}, nil},
		{"validation still applies", []string{"tool", "hello", "greet"}, 1,
			[]string{`missing required parameter "who"`}, nil},
		{"a gated action needs its permission here too", []string{"tool", "hello", "send"}, 1,
			[]string{"hello_send is a gated action"}, nil},
		{"TOOL ACTION ARGS runs the command line, escaped", []string{"tool", "shcli", "run", "--fast", "x y"}, 3,
			[]string{`cli args: run --fast x y\x1b[2J`}, nil},
		{"an unknown user tool", []string{"tool", "nope", "run"}, 2,
			nil, []string{"nope is not a user tool"}},
		{"submit needs a background-eligible action", []string{"tool", "submit", "shcli", "run"}, 1,
			nil, []string{"cannot run in the background"}},
		{"help names the user tool commands", []string{"tool", "--help"}, 0,
			[]string{"tinyelf tool submit", "tinyelf tool tasks"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkRun(t, tc.args, tc.code, tc.stdout, tc.stderr)
		})
	}
}

// submit queues the task and starts its runner, which outlives the
// command; tasks shows it to the end.
func TestUserToolSubmitAndTasks(t *testing.T) {
	home := cliEnv(t)
	personal := filepath.Join(home, "agents", "default", "tools")
	testutil.WriteFile(t, filepath.Join(personal, "slow.sh"), "#!/bin/sh\nread -r line\nsleep 0.2\necho '\"built\"'\n", 0o755)
	testutil.WriteFile(t, filepath.Join(personal, "slow.tool.json"), `{"command": ["./slow.sh"], "schemas": [{"name": "slow_build", "description": "x"}],
		"profile": {"build": {"background_eligible": true}}}`, 0o644)
	runners := make(chan int, 1)
	o := Options{Version: "test", Detach: func(args []string) error {
		go func() {
			var out, errOut bytes.Buffer
			runners <- Run(context.Background(), args, &out, &errOut, Options{Version: "test"})
		}()
		return nil
	}}
	var out, errOut bytes.Buffer
	if code := Run(context.Background(), []string{"tool", "submit", "slow", "build", "--output", "json"}, &out, &errOut, o); code != 0 {
		t.Fatalf("submit: %d %s %s", code, out.String(), errOut.String())
	}
	var task struct{ ID, State string }
	if err := json.Unmarshal(out.Bytes(), &task); err != nil || task.State != "queued" {
		t.Fatalf("submitted %s (%v)", out.String(), err)
	}
	select {
	case code := <-runners:
		if code != 0 {
			t.Fatalf("the runner exited %d", code)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the runner did not finish")
	}
	code, listed, errText := runCLI(t, "tool", "tasks")
	if code != 0 || !strings.Contains(listed, task.ID) || !strings.Contains(listed, "slow_build") || !strings.Contains(listed, "done") || !strings.Contains(listed, "built") {
		t.Fatalf("tasks: %d\n%s\n%s", code, listed, errText)
	}
}

// A Python tool's cli_main is the seed's animaworks-tool.
func TestUserToolPythonCLIMain(t *testing.T) {
	testdeps.Python(t)
	home := cliEnv(t)
	testutil.WriteFile(t, filepath.Join(home, "agents", "default", "tools", "weather.py"), `
def get_tool_schemas():
    return [{"name": "weather_now", "description": "x"}]
def dispatch(name, args):
    return "sunny"
def cli_main(argv):
    print("weather " + " ".join(argv))
    return 0
`, 0o644)
	code, out, errOut := runCLI(t, "tool", "weather", "now", "--city", "Tokyo")
	if code != 0 || out != "weather now --city Tokyo\n" {
		t.Fatalf("exit %d\nstdout: %q\nstderr: %s", code, out, errOut)
	}
}
