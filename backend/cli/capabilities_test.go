package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"tinyelf/backend/api"
	"tinyelf/backend/config"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
)

// runCLIStdin is runCLI with stdin.
func runCLIStdin(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Run(context.Background(), args, &out, &errOut, Options{Version: "test", Stdin: strings.NewReader(stdin)})
	return code, out.String(), errOut.String()
}

// TestCapabilitiesCommand lists and searches the catalog of the local tools
// and the settings' MCP servers (waited for; a failing one named), with
// deferral always on so that the MCP tools are deferred.
func TestCapabilitiesCommand(t *testing.T) {
	home := cliEnv(t)
	addMCPServers(t)
	settings, err := config.OpenStore(filepath.Join(home, config.SettingsFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := settings.Update(func(s *config.Settings) error { s.Discovery.Defer = "always"; return nil }); err != nil {
		t.Fatal(err)
	}
	queries := "# labelled queries\necho a message back\tmcp__fake__echo\n\n   \nadd two numbers\n"
	tests := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{"list", "", []string{"capabilities", "list"}, exitOK,
			[]string{"Deferral on: deferral is always on", "NAME", "KIND", "REASON", "Read", "ToolSearch", "mcp__fake__echo", "mcp:fake", "deferred", "visible", "approvals"},
			[]string{"MCP server broken did not start"}},
		{"list in plan mode", "", []string{"capabilities", "list", "--mode", "plan", "--kind", "tool"}, exitOK,
			[]string{"Write", "hidden", "plan mode"}, nil},
		{"search", "", []string{"capabilities", "search", "echo", "a", "message", "back"}, exitOK,
			[]string{"1. mcp__fake__echo  [tool, mcp:fake, deferred", "matched name: echo"}, nil},
		{"search json", "", []string{"capabilities", "search", "--output", "json", "--limit", "1", "echo a message back"}, exitOK,
			[]string{`"query": "echo a message back"`, `"name": "mcp__fake__echo"`, `"why":`}, nil},
		{"search regex", "", []string{"capabilities", "search", "--regex", "^mcp__fake__(echo|add)$"}, exitOK,
			[]string{"mcp__fake__add", "mcp__fake__echo", "name matches"}, nil},
		{"a bad regex fails", "", []string{"capabilities", "search", "--regex", "ech(o"}, exitError,
			nil, []string{"does not compile"}},
		{"queries from stdin, one line each", queries, []string{"capabilities", "search", "-"}, exitOK,
			[]string{"echo a message back\tmcp__fake__echo", "add two numbers\tmcp__fake__add"}, nil},
		{"a failed query among them", "echo\n", []string{"capabilities", "search", "--regex", "-"}, exitOK,
			[]string{"echo\tmcp__fake__echo"}, nil},
		{"usage", "", []string{"capabilities"}, exitUsage, []string{"tinyelf capabilities list"}, nil},
		{"help", "", []string{"capabilities", "--help"}, exitOK, []string{"QUERY \"-\" reads one query a line"}, nil},
		{"unknown subcommand", "", []string{"capabilities", "show"}, exitUsage, nil, []string{`unknown subcommand "show"`}},
		{"search without a query", "", []string{"capabilities", "search"}, exitUsage, nil, []string{"search needs a query"}},
		{"bad kind", "", []string{"capabilities", "list", "--kind", "widget"}, exitUsage, nil, []string{`unknown kind "widget"`}},
		{"bad mode", "", []string{"capabilities", "list", "--mode", "yolo"}, exitUsage, nil, []string{`unknown permission mode "yolo"`}},
		{"bad output", "", []string{"capabilities", "list", "--output", "xml"}, exitUsage, nil, []string{"unknown output format"}},
		{"bad limit", "", []string{"capabilities", "search", "--limit", "99", "x"}, exitUsage, nil, []string{"--limit must be between 1 and 25"}},
		{"list takes no argument", "", []string{"capabilities", "list", "extra"}, exitUsage, nil, []string{`unexpected argument "extra"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLIStdin(t, tc.stdin, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, stdout, stderr)
			}
			for _, s := range tc.stdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			for _, s := range tc.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
		})
	}

	t.Run("json lines from stdin, errors included", func(t *testing.T) {
		code, stdout, stderr := runCLIStdin(t, "echo a message back\n(unclosed\n", "capabilities", "search", "-", "--regex", "--output", "json")
		if code != exitError || !strings.Contains(stderr, "1 of the queries failed") {
			t.Fatalf("exit %d stderr %s", code, stderr)
		}
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		if len(lines) != 2 {
			t.Fatalf("want one line per query, got %q", stdout)
		}
		var first, second struct {
			Query string `json:"query"`
			Items []struct {
				Name string `json:"name"`
			} `json:"items"`
			Error string `json:"error"`
		}
		if err := json.Unmarshal([]byte(lines[0]), &first); err != nil || first.Query != "echo a message back" || first.Error != "" {
			t.Errorf("first line %q: %v", lines[0], err)
		}
		if err := json.Unmarshal([]byte(lines[1]), &second); err != nil || second.Query != "(unclosed" ||
			!strings.Contains(second.Error, "does not compile") || second.Items == nil || len(second.Items) != 0 {
			t.Errorf("second line %q: %v", lines[1], err)
		}
	})
	t.Run("list json", func(t *testing.T) {
		code, stdout, _ := runCLI(t, "capabilities", "list", "--kind", "tool", "--output", "json")
		var list api.CapabilityList
		if err := json.Unmarshal([]byte(stdout), &list); code != exitOK || err != nil {
			t.Fatalf("exit %d: %v\n%s", code, err, stdout)
		}
		found := false
		for _, it := range list.Items {
			if it.Kind != "tool" {
				t.Errorf("%s is a %s", it.Name, it.Kind)
			}
			if it.Name == "mcp__fake__echo" {
				found = it.State == "deferred" && it.Reason != "" && it.FullTokens > 0
			}
		}
		if !found || !list.Deferring {
			t.Errorf("echo deferred with a reason: %v; deferring %v", found, list.Deferring)
		}
	})
}

// TestSessionsReplayCapabilities replays the visible sets of a real run
// (a ToolSearch turn) and of a log whose request does not match its diffs.
func TestSessionsReplayCapabilities(t *testing.T) {
	home := cliEnv(t)
	ws := t.TempDir()
	srv := llmtest.NewServer(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "s", Name: "ToolSearch", Arguments: `{"query":"list sessions"}`}}},
		llmtest.Turn{Text: "Found it."},
	)
	code, _, stderr := runCLI(t, "run", "--workspace", ws, "--base-url", srv.URL, "--model", "test-model", "-p", "what can you find?")
	if code != exitOK {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	id := stderr[strings.Index(stderr, "--resume ")+len("--resume ") : strings.Index(stderr, " -p ...")]
	code, stdout, stderr := runCLI(t, "sessions", "replay", id, "--capabilities")
	if code != exitOK {
		t.Fatalf("replay: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"Turn 1", "CALL", "VISIBLE", "DEFERRED", "TOOL TOKENS", "MATCH", "ok", "2 model calls, 0 mismatches"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("replay lacks %q:\n%s", want, stdout)
		}
	}

	// A log whose request sent a tool its diffs never made visible.
	store, err := sessions.Open(context.Background(), filepath.Join(home, api.SessionsFile))
	if err != nil {
		t.Fatal(err)
	}
	sess, err := store.Create(context.Background(), sessions.SessionCreated{Workspace: ws, Mode: "default"})
	if err == nil {
		_, err = store.Append(context.Background(), sess.ID,
			sessions.NewEvent(sessions.EventTurnStart, sessions.TurnStart{Mode: "default"}),
			sessions.NewEvent(sessions.EventCapabilityDiff, sessions.CapabilityDiff{Visible: []string{"Read"},
				Items: []sessions.CapabilityItem{{Name: "Read", Kind: "tool", Change: "added", To: "visible", Hash: "aaaa"}}}),
			sessions.NewEvent(sessions.EventModelRequest, sessions.ModelRequest{Iteration: 1, Tools: []sessions.ToolSent{{Name: "Read", Hash: "aaaa"}, {Name: "Write", Hash: "bbbb"}}}),
		)
	}
	store.Close()
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runCLI(t, "sessions", "replay", sess.ID, "--capabilities")
	if code != exitError || !strings.Contains(stdout, "MISMATCH") || !strings.Contains(stdout, "sent tools [Read Write], the diffs say [Read]") ||
		!strings.Contains(stderr, "do not match what was sent in 1 calls") {
		t.Errorf("mismatch: exit %d\n%s\n%s", code, stdout, stderr)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sessions", "show", id, "--capabilities"}, "--capabilities goes with replay"},
		{[]string{"sessions", "replay", id, "--capabilities", "--upto", "3"}, "leave out --upto"},
	} {
		if code, _, stderr := runCLI(t, tc.args...); code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d stderr %s", tc.args, code, stderr)
		}
	}
	if code, _, stderr := runCLI(t, "sessions", "replay", "nope", "--capabilities"); code != exitError || !strings.Contains(stderr, "not found") {
		t.Errorf("unknown session: exit %d stderr %s", code, stderr)
	}
}
