// Command oauthmcp is an MCP server behind an OAuth 2.1 authorization
// server, both on loopback, for the browser tests: the authorization
// server registers clients dynamically and asks the user on a consent page
// ("Allow"); the MCP endpoint offers one tool, whoami. It prints
// "MCP <url>" once both listen, and serves until killed.
package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"tinyelf/backend/mcp/oauth/oauthtest"
)

func main() {
	as, err := oauthtest.Start(oauthtest.Options{Registration: true, Account: "ada@example.com"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	url := "http://" + ln.Addr().String() + "/mcp"
	s := server.NewMCPServer("oauth-demo", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("whoami", mcp.WithDescription("Says who signed in.")), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("you are ada@example.com"), nil
	})
	fmt.Printf("MCP %s\n", url)
	if err := http.Serve(ln, as.Protect(url, []string{"profile"}, nil, server.NewStreamableHTTPServer(s))); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
