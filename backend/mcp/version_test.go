package mcp

import (
	"context"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"tinyelf/backend/config"
	"tinyelf/backend/version"
)

// TestClientInfo checks what TinyElf tells a user's MCP server about itself
// in initialize: its name and the version it was built as (this build's
// own when the caller names none).
func TestClientInfo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, set, want string
	}{
		{name: "the app's version", set: "0.2.0+5.g1a2b3c4", want: "0.2.0+5.g1a2b3c4"},
		{name: "this build's by default", set: "", want: version.Version()},
		{name: "ClientVersion is this build's", set: "", want: ClientVersion()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var got []mcp.Implementation
			hooks := &server.Hooks{}
			hooks.AddAfterInitialize(func(_ context.Context, _ any, req *mcp.InitializeRequest, _ *mcp.InitializeResult) {
				mu.Lock()
				defer mu.Unlock()
				got = append(got, req.Params.ClientInfo)
			})
			s := server.NewMCPServer("go-http", "1.0.0", server.WithToolCapabilities(true), server.WithHooks(hooks))
			s.AddTool(mcp.NewTool("echo"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("ok"), nil
			})
			ts := httptest.NewServer(server.NewStreamableHTTPServer(s, server.WithStateful(true),
				server.WithStreamableHTTPProtocolVersions(mcp.ProtocolVersion20251125)))
			t.Cleanup(ts.Close)
			opts := testOptions()
			opts.ClientVersion = tt.set
			startService(t, opts, config.MCPServer{Name: "remote", Type: "streamable-http", URL: ts.URL + "/mcp"})
			mu.Lock()
			defer mu.Unlock()
			if len(got) == 0 {
				t.Fatal("the server saw no initialize")
			}
			for _, ci := range got {
				if ci.Name != "tinyelf" || ci.Version != tt.want {
					t.Errorf("clientInfo = %+v, want tinyelf %s", ci, tt.want)
				}
			}
		})
	}
}
