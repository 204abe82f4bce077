// Package mcp connects TinyElf to the Model Context Protocol along the
// seed's three loading paths:
//
//   - user MCP: Service connects to the stdio, streamable HTTP and SSE
//     servers configured in the settings (config.MCPServer), keeps each one's
//     state visible (ServerState), restarts crashed ones, and maps their tools
//     to tools.Tool values named mcp__<server>__<tool>; their prompts become
//     slash commands (PromptCommand);
//   - builtin MCP: ProviderRegistry holds TinyElf's own providers (sessions,
//     notify, workspace), runs them in-process as mcp-go servers and hands
//     them to the agent as tools through an in-process client (BuiltinSet);
//     Bridge serves the same providers to external CLI agents over a
//     loopback streamable HTTP endpoint with a bearer token;
//   - direct MCP: an agent's own stdio servers
//     (config.Agent.DirectMCPServers) run in a Service of their own, created
//     for a session and closed with it.
//
// The resources of every server a session sees, whatever its path, are read
// through one pair of tools, list_mcp_resources and read_mcp_resource, that
// take the server's name (ResourceSet over the session's ResourceGroups).
//
// Every tool this package produces is an ordinary tools.Tool with Source
// tools.SourceMCP and Safe false: the engine registers it in the registry
// whose middleware is the permission gate, so an MCP call goes through the
// same pipeline as a local tool. The package never decides permissions.
//
// Config import (ImportServers, ImportFile) reads Claude Desktop's
// claude_desktop_config.json and .mcp.json files; AddServer, RemoveServer
// and TestServer are what `tinyelf mcp` and the settings panel use.
package mcp
