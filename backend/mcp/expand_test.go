package mcp

import (
	"slices"
	"strings"
	"testing"

	"tinyelf/backend/config"
)

func TestExpandEnv(t *testing.T) {
	t.Parallel()
	env := envMap(map[string]string{"TOKEN": "abc", "EMPTY": "", "HOME": "/home/me"})
	tests := []struct {
		in      string
		want    string
		missing []string
	}{
		{"Bearer ${TOKEN}", "Bearer abc", nil},
		{"${HOME}/bin:${HOME}/lib", "/home/me/bin:/home/me/lib", nil},
		{"${NOPE:-fallback}", "fallback", nil},
		{"${EMPTY:-fallback}", "fallback", nil},
		{"${EMPTY}", "", nil},
		{"${TOKEN:-unused}", "abc", nil},
		{"${NOPE:-}", "", nil},
		{"x${NOPE}y${ALSO}", "xy", []string{"NOPE", "ALSO"}},
		{"$TOKEN and ${not valid} stay", "$TOKEN and ${not valid} stay", nil},
		{"https://${HOST:-api.example.com}/mcp", "https://api.example.com/mcp", nil},
	}
	for _, tc := range tests {
		got, missing := expandEnv(tc.in, env)
		if got != tc.want || !slices.Equal(missing, tc.missing) {
			t.Errorf("expandEnv(%q) = %q, %v; want %q, %v", tc.in, got, missing, tc.want, tc.missing)
		}
	}
}

func TestResolveServer(t *testing.T) {
	t.Parallel()
	env := envMap(map[string]string{"TOKEN": "abc", "DIR": "/srv"})
	in := config.MCPServer{Name: "x", Command: "${DIR}/bin/server", Args: []string{"--root", "${DIR:-/tmp}"},
		Env: map[string]string{"KEY": "${TOKEN}"}, Cwd: "${DIR}", Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}}
	got, err := resolveServer(in, env)
	must(t, err)
	if got.Type != TypeStdio || got.Command != "/srv/bin/server" || got.Args[1] != "/srv" || got.Env["KEY"] != "abc" ||
		got.Cwd != "/srv" || got.Headers["Authorization"] != "Bearer abc" {
		t.Errorf("resolved = %+v", got)
	}
	if in.Env["KEY"] != "${TOKEN}" {
		t.Error("resolveServer changed its input")
	}
	_, err = resolveServer(config.MCPServer{URL: "https://x/${A}", Headers: map[string]string{"h": "${B} ${A}"}}, env)
	if err == nil || !strings.Contains(err.Error(), "variables A, B are not set") {
		t.Errorf("missing variables: %v", err)
	}
}

func TestNormalizeType(t *testing.T) {
	t.Parallel()
	tests := []struct {
		typ, command, url, want string
	}{
		{"", "npx", "", TypeStdio},
		{"", "", "https://x", TypeHTTP},
		{"streamable-http", "", "https://x", TypeHTTP},
		{"streamableHttp", "", "https://x", TypeHTTP},
		{"HTTP", "", "https://x", TypeHTTP},
		{"sse", "", "https://x", TypeSSE},
		{"local", "npx", "", TypeStdio},
		{"websocket", "", "wss://x", "websocket"},
	}
	for _, tc := range tests {
		if got := normalizeType(tc.typ, config.MCPServer{Command: tc.command, URL: tc.url}); got != tc.want {
			t.Errorf("normalizeType(%q) = %q, want %q", tc.typ, got, tc.want)
		}
	}
}
