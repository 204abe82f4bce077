package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"tinyelf/backend/config"
)

// newGoServer is a small mcp-go server for the HTTP transports.
func newGoServer() *server.MCPServer {
	s := server.NewMCPServer("go-http", "1.0.0", server.WithToolCapabilities(true))
	s.AddTool(mcp.NewTool("echo", mcp.WithString("message", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("Echo: " + req.GetString("message", "")), nil
		})
	return s
}

// requireBearer answers 401 unless the request carries the token.
func requireBearer(token string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func envMap(m map[string]string) LookupEnv {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// TestHTTPTransports connects over streamable HTTP on both protocol eras
// and over legacy SSE, with a bearer token taken from the environment, and
// sees tools/list_changed on each.
func TestHTTPTransports(t *testing.T) {
	t.Parallel()
	const token = "s3cret"
	tests := []struct {
		name     string
		typ      string
		handler  func(s *server.MCPServer) http.Handler
		path     string
		protocol string
	}{
		{"streamable http, 2026-07-28", "http", func(s *server.MCPServer) http.Handler {
			return server.NewStreamableHTTPServer(s)
		}, "/mcp", "2026-07-28"},
		{"streamable http, 2025-11-25", "streamable-http", func(s *server.MCPServer) http.Handler {
			return server.NewStreamableHTTPServer(s, server.WithStateful(true),
				server.WithStreamableHTTPProtocolVersions(mcp.ProtocolVersion20251125))
		}, "/mcp", "2025-11-25"},
		{"sse", "sse", func(s *server.MCPServer) http.Handler {
			return server.NewSSEServer(s)
		}, "/sse", "2026-07-28"}, // mcp-go answers server/discover over SSE too
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newGoServer()
			ts := httptest.NewServer(requireBearer(token, tc.handler(s)))
			t.Cleanup(ts.Close)
			opts := testOptions()
			opts.LookupEnv = envMap(map[string]string{"TEST_MCP_TOKEN": token})
			svc, rec := startService(t, opts, config.MCPServer{Name: "remote", Type: tc.typ, URL: ts.URL + tc.path,
				Headers: map[string]string{"Authorization": "Bearer ${TEST_MCP_TOKEN}"}})
			st, _ := svc.State("remote")
			if st.Status != StatusConnected || st.ProtocolVersion != tc.protocol {
				t.Fatalf("state = %+v, want connected on %s", st, tc.protocol)
			}
			if res, _ := call(t, svc, "mcp__remote__echo", map[string]any{"message": "over http"}); unmarked(t, res.Content) != "Echo: over http" {
				t.Fatalf("echo = %+v", res)
			}
			s.AddTool(mcp.NewTool("late"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("late!"), nil
			})
			waitChange(t, rec, func(c Change) bool { return slices.Contains(c.Added, "mcp__remote__late") })
			if res, _ := call(t, svc, "mcp__remote__late", map[string]any{}); unmarked(t, res.Content) != "late!" {
				t.Errorf("late = %+v", res)
			}
		})
	}
}

// TestHTTPFaults: a missing token ends in a failed state that says what to
// do, and a server that goes away loses its tools and is retried.
func TestHTTPFaults(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(requireBearer("right", server.NewStreamableHTTPServer(newGoServer())))
	opts := testOptions()
	opts.MaxRestarts = 2
	opts.LookupEnv = envMap(nil)
	svc, rec := startService(t, opts,
		config.MCPServer{Name: "noauth", Type: "http", URL: ts.URL + "/mcp"},
		config.MCPServer{Name: "unset", Type: "http", URL: ts.URL + "/mcp", Headers: map[string]string{"Authorization": "Bearer ${TEST_MCP_NOPE}"}},
		config.MCPServer{Name: "badurl", Type: "http", URL: "ftp://example.invalid/mcp"},
		config.MCPServer{Name: "weird", Type: "carrier-pigeon", URL: ts.URL},
		config.MCPServer{Name: "ok", Type: "http", URL: ts.URL + "/mcp", Headers: map[string]string{"Authorization": "Bearer right"}},
	)
	states := svc.States()
	wantErr := map[string]string{
		"noauth": "noauth needs you to sign in: the server asks for a sign-in. Sign in with the button on its card",
		"unset":  "TEST_MCP_NOPE is not set",
		"badurl": "must be an http:// or https:// address",
		"weird":  `unknown transport type "carrier-pigeon"`,
	}
	for _, st := range states {
		if want, ok := wantErr[st.Name]; ok {
			if st.Status != StatusFailed {
				t.Errorf("%s: status %s, want failed", st.Name, st.Status)
			}
			mustContain(t, st.Error, want)
		}
	}
	if st, _ := svc.State("ok"); st.Status != StatusConnected || st.Auth != nil {
		t.Fatalf("ok = %+v (a fixed Authorization header means no OAuth)", st)
	}
	if st, _ := svc.State("noauth"); st.Auth == nil || !st.Auth.Required || st.Auth.SignedIn {
		t.Errorf("noauth's sign-in: %+v, want one required", st.Auth)
	}

	ts.CloseClientConnections()
	ts.Close()
	res, _ := call(t, svc, "mcp__ok__echo", map[string]any{"message": "anyone?"})
	if !res.IsError {
		t.Fatalf("echo to a closed server = %+v", res)
	}
	waitChange(t, rec, func(c Change) bool { return c.Server == "ok" && slices.Contains(c.Removed, "mcp__ok__echo") })
	st := waitState(t, svc, "ok", 10*time.Second, hasStatus(StatusFailed))
	mustContain(t, st.Error, "gave up after 2 restarts")
}
