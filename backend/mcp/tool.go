package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"tinyelf/backend/tools"
)

// connSource gives a tool the connection to call through: a runner (which
// may reconnect under it) or a builtin provider's fixed connection.
type connSource interface {
	connection() (*conn, ServerState)
}

// remoteTool is one MCP tool seen as a tools.Tool (the seed's
// McpToolAdapter). It holds no connection of its own: each call goes to the
// server's current connection, so a restarted server keeps its tools.
type remoteTool struct {
	info    tools.Info
	server  string // configured server name
	tool    string // the tool's name on the server
	src     connSource
	timeout time.Duration
}

var _ tools.Tool = (*remoteTool)(nil)

// CallTimeout implements tools.Timeouter: the pipeline waits as long as
// the call itself does (the service's call timeout).
func (t *remoteTool) CallTimeout(map[string]any) time.Duration {
	if t.timeout <= 0 {
		return DefaultCallTimeout
	}
	return t.timeout
}

func newRemoteTool(name string, src connSource, server string, t mcp.Tool, timeout time.Duration) *remoteTool {
	desc := strings.TrimSpace(t.Description)
	if desc == "" {
		desc = t.Title
	}
	prefix := fmt.Sprintf("[MCP server %s] ", server)
	readOnly := hint(t.Annotations.ReadOnlyHint, false)
	title := t.Title
	if title == "" {
		title = t.Annotations.Title
	}
	return &remoteTool{
		info: tools.Info{
			Name:        name,
			Description: prefix + desc,
			Parameters:  inputSchema(t),
			ReadOnly:    readOnly,
			// Safe stays false: an MCP tool needs the user's confirmation
			// outside auto mode (seed 000); the engine's gate decides.
			Safe:        false,
			Source:      tools.SourceMCP,
			Origin:      server,
			Title:       title,
			Destructive: !readOnly && hint(t.Annotations.DestructiveHint, true),
			OpenWorld:   hint(t.Annotations.OpenWorldHint, true),
		},
		server: server, tool: t.Name, src: src, timeout: timeout,
	}
}

// hint reads an optional MCP annotation, with the spec's default when the
// server left it out.
func hint(b *bool, def bool) bool {
	if b == nil {
		return def
	}
	return *b
}

// inputSchema returns the tool's parameter schema as the server gave it,
// with "type": "object" filled in when missing.
func inputSchema(t mcp.Tool) json.RawMessage {
	var raw []byte
	if len(t.RawInputSchema) > 0 {
		raw = t.RawInputSchema
	} else {
		in := t.InputSchema
		if in.Type == "" {
			in.Type = "object"
		}
		b, err := json.Marshal(in)
		if err != nil {
			return json.RawMessage(`{"type":"object"}`)
		}
		return b
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return json.RawMessage(`{"type":"object"}`)
	}
	if _, ok := m["type"]; !ok {
		m["type"] = "object"
		raw, _ = json.Marshal(m)
	}
	return raw
}

// Info implements tools.Tool.
func (t *remoteTool) Info() tools.Info { return t.info }

// Execute implements tools.Tool: it calls the tool on the server's current
// connection (see conn.callTool for how outcomes map).
func (t *remoteTool) Execute(ctx context.Context, params map[string]any) (tools.Result, error) {
	c, st := t.src.connection()
	if c == nil {
		return unavailable(t.server, t.info.Name, st), nil
	}
	return c.callTool(ctx, t.tool, params, t.timeout)
}

// unavailable is the result of calling a tool whose server is not
// connected.
func unavailable(server, what string, st ServerState) tools.Result {
	why := string(st.Status)
	if st.Detail != "" {
		why += ": " + st.Detail
	}
	if st.Error != "" {
		why += " (" + st.Error + ")"
	}
	return tools.Errorf("%s is unavailable: MCP server %q is %s. Continue without it, or ask the user to check the server in Settings → MCP.", what, server, why)
}
