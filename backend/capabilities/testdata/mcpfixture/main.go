// Command mcpfixture serves one of captest's fixture servers over stdio:
// mcpfixture github|everything|filesystem. Tests build and start it as a
// real stdio MCP server.
package main

import (
	"fmt"
	"os"

	"github.com/mark3labs/mcp-go/server"

	"tinyelf/backend/capabilities/captest"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: mcpfixture github|everything|filesystem")
		os.Exit(2)
	}
	s, err := captest.NewServer(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if err := server.ServeStdio(s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
