package cli

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tinyelf/backend/config"

	"tinyelf/backend/api"
)

func runMCPCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return runCLI(t, append([]string{"mcp"}, args...)...)
}

// TestMCPCommand is the add / list / test / import / remove round trip on a
// fresh data folder.
func TestMCPCommand(t *testing.T) {
	home := cliEnv(t)
	fake := buildFakeMCPServer(t)
	importFile := filepath.Join(t.TempDir(), ".mcp.json")
	if err := os.WriteFile(importFile, []byte(`{"mcpServers": {
		"imported": {"command": "`+fake+`", "args": ["-name", "imported"]},
		"fake-again": {"command": "`+fake+`", "args": ["-name", "fake"]},
		"bad name": {"command": "x"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}

	steps := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{"help", []string{"--help"}, exitOK, []string{"tinyelf mcp add NAME"}, nil},
		{"no command", nil, exitUsage, []string{"Usage:"}, nil},
		{"unknown command", []string{"frobnicate"}, exitUsage, nil, []string{`unknown command "frobnicate"`}},
		{"empty list", []string{"list"}, exitOK, []string{"No MCP servers"}, nil},
		{"add stdio", []string{"add", "fake", "--env", "FAKE_MODE=ok", "--", fake, "-name", "fake"}, exitOK, []string{"Added MCP server fake (stdio)"}, nil},
		{"add http", []string{"add", "remote", "--url", "http://127.0.0.1:1/mcp", "--header", "Authorization: Bearer ${TINYELF_TEST_TOKEN:-none}", "--timeout", "2"}, exitOK, []string{"Added MCP server remote (http)"}, nil},
		{"duplicate name", []string{"add", "fake", "--", fake}, exitError, nil, []string{`an MCP server named "fake" already exists`}},
		{"invalid name", []string{"add", "bad/name", "--", fake}, exitError, nil, []string{"invalid server name"}},
		{"nothing to run", []string{"add", "empty"}, exitError, nil, []string{"missing command"}},
		{"bad env", []string{"add", "x", "--env", "NOEQUALS", "--", fake}, exitUsage, nil, []string{"want KEY=VALUE"}},
		{"list", []string{"list"}, exitOK, []string{"NAME", "fake", "stdio", "enabled", fake + " -name fake", "remote", "http", "http://127.0.0.1:1/mcp"}, nil},
		{"test connects", []string{"test", "fake"}, exitOK, []string{"fake: connected in", "protocol 2026-07-28", "mcp__fake__echo", "read-only", "/mcp__fake__greet"}, nil},
		{"test fails clearly", []string{"test", "remote"}, exitError, nil, []string{"remote did not connect"}},
		{"test unknown", []string{"test", "nope"}, exitError, nil, []string{`no MCP server named "nope"`}},
		{"import", []string{"import", importFile}, exitOK, []string{
			"imported  imported (stdio)", "skipped   bad name: invalid name", `skipped   fake-again: same server as the existing "fake"`, "1 imported, 2 skipped."}, nil},
		{"list --check", []string{"list", "--check"}, exitOK, []string{"fake", "connected (", "imported", "remote", "failed"}, nil},
		{"remove", []string{"remove", "fake"}, exitOK, []string{"Removed MCP server fake."}, nil},
		{"remove again", []string{"remove", "fake"}, exitError, nil, []string{`no MCP server named "fake"`}},
	}
	for _, s := range steps {
		code, stdout, stderr := runMCPCLI(t, s.args...)
		if code != s.code {
			t.Errorf("%s: exit %d, want %d\nstdout: %s\nstderr: %s", s.name, code, s.code, stdout, stderr)
			continue
		}
		for _, w := range s.stdout {
			if !strings.Contains(stdout, w) {
				t.Errorf("%s: stdout lacks %q:\n%s", s.name, w, stdout)
			}
		}
		for _, w := range s.stderr {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", s.name, w, stderr)
			}
		}
	}

	store, err := config.OpenStore(filepath.Join(home, config.SettingsFile))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range store.Get().MCPServers {
		names = append(names, s.Name)
	}
	if strings.Join(names, ",") != "remote,imported" {
		t.Errorf("servers in the settings = %v, want remote, imported", names)
	}
	if h := store.Get().MCPServers[0].Headers["Authorization"]; h != "Bearer ${TINYELF_TEST_TOKEN:-none}" {
		t.Errorf("the header was stored as %q; the reference must stay unexpanded", h)
	}
}

// startBridgeCLI starts `tinyelf mcp bridge` with args and stdin, reads the
// URL and token it prints, and returns them with a function that
// interrupts it and returns its exit code and stderr.
func startBridgeCLI(t *testing.T, stdin string, args ...string) (url, token, printed string, stop func() (int, string)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	var errOut syncBuffer
	go func() {
		done <- Run(ctx, append([]string{"mcp", "bridge"}, args...), pw, &errOut, Options{Stdin: strings.NewReader(stdin)})
		pw.Close()
	}()
	var out strings.Builder
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		line := sc.Text()
		out.WriteString(line + "\n")
		if u, ok := strings.CutPrefix(line, "TinyElf MCP bridge on "); ok {
			url = u
		}
		if tok, ok := strings.CutPrefix(line, "Token: "); ok {
			token = tok
		}
		if strings.HasPrefix(line, "Serving until interrupted") {
			break
		}
	}
	go io.Copy(io.Discard, pr)
	stop = func() (int, string) {
		t.Helper()
		cancel()
		select {
		case code := <-done:
			return code, errOut.String()
		case <-time.After(10 * time.Second):
			t.Fatal("the bridge did not stop when interrupted")
			return 0, ""
		}
	}
	return url, token, out.String(), stop
}

// TestMCPBridgeCommand starts `tinyelf mcp bridge`, reads the URL and token
// it prints, makes one authorized request, and interrupts it.
func TestMCPBridgeCommand(t *testing.T) {
	cliEnv(t)
	ws := t.TempDir()
	url, token, out, stop := startBridgeCLI(t, "", "--workspace", ws)
	for _, w := range []string{`"type": "http"`, `"url": "` + url + `"`, `"Authorization": "Bearer ` + token + `"`, "workspace_read_file", "sessions_search"} {
		if !strings.Contains(out, w) {
			t.Errorf("bridge output lacks %q:\n%s", w, out)
		}
	}
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("initialize: HTTP %d", resp.StatusCode)
	}
	if code, stderr := stop(); code != exitOK {
		t.Errorf("bridge exited %d: %s", code, stderr)
	}
}

// TestMCPBridgeToken gives the bridge its token in each of the ways it
// takes one: the environment and stdin keep it out of ps; the command line
// still works, with a warning.
func TestMCPBridgeToken(t *testing.T) {
	cliEnv(t)
	tests := []struct {
		name, env, stdin string
		args             []string
		want             string // "" : a random one
		warns            bool
	}{
		{"random", "", "", nil, "", false},
		{"from the environment", "env-token-123", "", nil, "env-token-123", false},
		{"from stdin", "", "stdin-token-456\nignored\n", []string{"--token-stdin"}, "stdin-token-456", false},
		{"stdin wins over the environment", "env-token-123", "stdin-token-456", []string{"--token-stdin"}, "stdin-token-456", false},
		{"on the command line", "", "", []string{"--token", "argv-token-789"}, "argv-token-789", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(api.EnvBridgeToken, tc.env)
			_, token, _, stop := startBridgeCLI(t, tc.stdin, append([]string{"--workspace", t.TempDir()}, tc.args...)...)
			code, stderr := stop()
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			switch {
			case tc.want == "" && len(token) != 64:
				t.Errorf("random token %q", token)
			case tc.want != "" && token != tc.want:
				t.Errorf("token %q, want %q", token, tc.want)
			}
			if warned := strings.Contains(stderr, "visible to every user") && strings.Contains(stderr, api.EnvBridgeToken); warned != tc.warns {
				t.Errorf("warned = %v, want %v: %s", warned, tc.warns, stderr)
			}
		})
	}
	t.Run("empty stdin", func(t *testing.T) {
		code, _, stderr := runCLI(t, "mcp", "bridge", "--token-stdin")
		if code != exitUsage || !strings.Contains(stderr, "stdin gave no token") {
			t.Errorf("exit %d: %s", code, stderr)
		}
	})
}
