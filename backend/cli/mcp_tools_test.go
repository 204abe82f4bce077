package cli

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"tinyelf/backend/llm/llmtest"
)

// requestTools returns the tool names an OpenAI-format request offered.
func requestTools(r llmtest.Request) []string {
	var names []string
	list, _ := r.Body["tools"].([]any)
	for _, t := range list {
		if m, ok := t.(map[string]any); ok {
			if fn, ok := m["function"].(map[string]any); ok {
				names = append(names, fn["name"].(string))
			}
		}
	}
	return names
}

// addMCPServers configures, through the CLI, a fake server that takes a
// while to start and one that fails.
func addMCPServers(t *testing.T) {
	t.Helper()
	fake := buildFakeMCPServer(t)
	for _, args := range [][]string{
		{"mcp", "add", "fake", "--", fake, "-name", "fake", "-delay", "400ms"},
		{"mcp", "add", "broken", "--timeout", "5", "--", fake, "-mode", "exit"},
	} {
		if code, _, stderr := runCLI(t, args...); code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
}

// TestToolReachesMCPServers lists and runs the user's MCP tools through
// `tinyelf tool`: the servers are waited for, their tools listed with
// their source, a failing server named on stderr with its error.
func TestToolReachesMCPServers(t *testing.T) {
	cliEnv(t)
	addMCPServers(t)
	ws := t.TempDir()
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{"list", []string{"tool", "list", "--workspace", ws}, exitOK,
			[]string{"Read", "local", "mcp__fake__echo", "mcp:fake", "read-only", "Echoes the message back.", "mcp__fake__fail"},
			[]string{"MCP server broken did not start", "FAKE_API_KEY is not set"}},
		{"run an MCP tool", []string{"tool", "mcp__fake__echo", "--workspace", ws, "--args", `{"message":"hello there"}`}, exitOK,
			[]string{"Echo: hello there"}, nil},
		{"read an MCP resource", []string{"tool", "read_mcp_resource", "--workspace", ws, "--args", `{"server":"fake","uri":"fake://hello"}`}, exitOK,
			[]string{"Hello from the fake server."}, nil},
		{"coercion and validation apply", []string{"tool", "mcp__fake__add", "--workspace", ws, "--args", `{"a":"2","b":3}`}, exitOK,
			[]string{"5"}, nil},
		{"an MCP error result exits 1", []string{"tool", "mcp__fake__fail", "--workspace", ws}, exitError,
			[]string{"the widget is broken"}, nil},
		{"plan mode keeps read-only MCP tools", []string{"tool", "mcp__fake__echo", "--workspace", ws, "--mode", "plan", "--args", `{"message":"x"}`}, exitOK,
			[]string{"Echo: x"}, nil},
		{"plan mode hides writing MCP tools", []string{"tool", "mcp__fake__fail", "--workspace", ws, "--mode", "plan"}, exitUsage,
			nil, []string{`"mcp__fake__fail" is not available in plan mode`}},
		{"an unknown MCP tool", []string{"tool", "mcp__fake__nope", "--workspace", ws}, exitUsage,
			nil, []string{`unknown tool "mcp__fake__nope"`, "mcp__fake__echo"}},
		{"ToolSearch searches the MCP tools too", []string{"tool", "ToolSearch", "--workspace", ws, "--args", `{"query":"echo the message back"}`}, exitOK,
			[]string{"mcp__fake__echo", "run it with: tinyelf tool mcp__fake__echo"}, nil},
		{"built-in tools do not start the servers", []string{"tool", "ListDir", "--workspace", ws, "--args", `{"path":"."}`}, exitOK,
			nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr := checkRun(t, tc.args, tc.code, tc.stdout, tc.stderr)
			if tc.name == "built-in tools do not start the servers" && strings.Contains(stderr, "MCP server") {
				t.Errorf("a built-in tool started the MCP servers: %s", stderr)
			}
		})
	}

	t.Run("json list names the server", func(t *testing.T) {
		code, stdout, _ := runCLI(t, "tool", "list", "--workspace", ws, "--output", "json")
		var rows []struct{ Name, Source, Server string }
		if err := json.Unmarshal([]byte(stdout), &rows); code != exitOK || err != nil {
			t.Fatalf("exit %d, %v: %s", code, err, stdout)
		}
		i := slices.IndexFunc(rows, func(r struct{ Name, Source, Server string }) bool { return r.Name == "mcp__fake__echo" })
		if i < 0 || rows[i].Source != "mcp" || rows[i].Server != "fake" {
			t.Errorf("rows = %+v", rows)
		}
	})
}

// TestRunWaitsForMCPServers checks that a short headless run offers the
// configured MCP server's tools on its very first model request, although
// the server takes a while to start, and names the failing server on
// stderr while the run goes on.
func TestRunWaitsForMCPServers(t *testing.T) {
	cliEnv(t)
	addMCPServers(t)
	srv := llmtest.NewServer(t)
	srv.Push(llmtest.Turn{Text: "Done."})
	code, stdout, stderr := runCLI(t, "run", "--workspace", t.TempDir(), "--base-url", srv.URL, "--model", "m", "-p", "say done")
	if code != exitOK || !strings.Contains(stdout, "Done.") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	reqs := srv.ChatRequests()
	if len(reqs) == 0 {
		t.Fatal("the model was never called")
	}
	if got := requestTools(reqs[0]); !slices.Contains(got, "mcp__fake__echo") || !slices.Contains(got, "Read") {
		t.Errorf("the first model request offered %v, want the fake server's tools too", got)
	}
	if !strings.Contains(stderr, "MCP server broken did not start") || !strings.Contains(stderr, "FAKE_API_KEY is not set") {
		t.Errorf("stderr does not name the failed server with its error:\n%s", stderr)
	}
}

// TestRunAnswersMCPQuestions: headless, a server's elicitation is declined
// and its sampling request refused; with --yes the form is accepted with
// its defaults and the session's model answers the sampling request.
func TestRunAnswersMCPQuestions(t *testing.T) {
	cliEnv(t)
	fake := buildFakeMCPServer(t)
	if code, _, stderr := runCLI(t, "mcp", "add", "crm", "--", fake, "-name", "crm", "-mode", "ask"); code != exitOK {
		t.Fatalf("mcp add: %s", stderr)
	}
	srv := llmtest.NewServer(t)
	ws := t.TempDir()
	base := []string{"run", "--workspace", ws, "--base-url", srv.URL, "--model", "test-model", "--mode", "auto"}
	lastResult := func() string {
		reqs := srv.ChatRequests()
		b, _ := json.Marshal(reqs[len(reqs)-1].Body)
		return string(b)
	}

	srv.Push(llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "a", Name: "mcp__crm__ask_name", Arguments: `{}`}}}, llmtest.Turn{Text: "ok"})
	code, _, stderr := runCLI(t, append(base, "-p", "who am I")...)
	if code != exitOK || !strings.Contains(stderr, "[declined] crm asked: Who are you?") || !strings.Contains(lastResult(), "the user chose to decline") {
		t.Errorf("without --yes: exit %d\nstderr: %s\nthe model read: %s", code, stderr, lastResult())
	}
	srv.Push(llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "a", Name: "mcp__crm__ask_name", Arguments: `{}`}}}, llmtest.Turn{Text: "ok"})
	code, _, stderr = runCLI(t, append(base, "--yes", "-p", "who am I")...)
	if code != exitOK || !strings.Contains(stderr, "[accepted by --yes with the defaults]") || !strings.Contains(lastResult(), "name=Ada age=36 color=green subscribe=false") {
		t.Errorf("with --yes: exit %d\nstderr: %s\nthe model read: %s", code, stderr, lastResult())
	}

	srv.Push(llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "s", Name: "mcp__crm__summarize", Arguments: `{}`}}}, llmtest.Turn{Text: "ok"})
	code, _, stderr = runCLI(t, append(base, "-p", "summarize")...)
	if code != exitOK || !strings.Contains(stderr, "[declined] crm asked to use the session's model") || !strings.Contains(lastResult(), "declined") {
		t.Errorf("sampling without --yes: exit %d\nstderr: %s\nthe model read: %s", code, stderr, lastResult())
	}
	srv.Push(llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "s", Name: "mcp__crm__summarize", Arguments: `{}`}}}, llmtest.Turn{Text: "The cat sat."}, llmtest.Turn{Text: "ok"})
	code, _, stderr = runCLI(t, append(base, "--yes", "-p", "summarize")...)
	if code != exitOK || !strings.Contains(lastResult(), "summary by test-model: The cat sat.") {
		t.Errorf("sampling with --yes: exit %d\nstderr: %s\nthe model read: %s", code, stderr, lastResult())
	}
}
