package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"tinyelf/backend/tools"
)

// The names of the resource tools. They are the seed's "Resource Handle ->
// Context read tool" mapping: one pair for every server, not one tool per
// resource.
const (
	ListResourcesToolName = "list_mcp_resources"
	ReadResourceToolName  = "read_mcp_resource"
)

var listResourcesParams = json.RawMessage(`{
  "type": "object",
  "properties": {
    "server": {"type": "string", "description": "Only list the resources of this MCP server (default: every connected server)."}
  },
  "additionalProperties": false
}`)

var readResourceParams = json.RawMessage(`{
  "type": "object",
  "properties": {
    "server": {"type": "string", "description": "The MCP server the resource belongs to, as list_mcp_resources shows it."},
    "uri": {"type": "string", "description": "The resource URI, as list_mcp_resources shows it (a template filled in, for templates)."}
  },
  "required": ["server", "uri"],
  "additionalProperties": false
}`)

type listResourcesTool struct{ svc *Service }

func (t *listResourcesTool) Info() tools.Info {
	return tools.Info{
		Name:        ListResourcesToolName,
		Description: "Lists the resources (documents, files, records) that connected MCP servers offer, with their URIs. Read one with read_mcp_resource.",
		Parameters:  listResourcesParams, ReadOnly: true, Source: tools.SourceMCP,
	}
}

func (t *listResourcesTool) Execute(ctx context.Context, params map[string]any) (tools.Result, error) {
	only := tools.String(params, "server", "")
	var b strings.Builder
	found := false
	t.svc.mu.Lock()
	rs := append([]*runner(nil), t.svc.runners...)
	t.svc.mu.Unlock()
	for _, r := range rs {
		if only != "" && r.cfg.Name != only {
			continue
		}
		found = true
		r.mu.Lock()
		connected := r.conn != nil && r.state.Status == StatusConnected
		cat := r.cat
		status := r.state.Status
		r.mu.Unlock()
		if !connected {
			fmt.Fprintf(&b, "%s: not connected (%s)\n", r.cfg.Name, status)
			continue
		}
		if len(cat.resources) == 0 && len(cat.templates) == 0 {
			fmt.Fprintf(&b, "%s: no resources\n", r.cfg.Name)
			continue
		}
		fmt.Fprintf(&b, "%s:\n", r.cfg.Name)
		for _, res := range cat.resources {
			fmt.Fprintf(&b, "  %s — %s%s", res.URI, res.Name, mimeSuffix(res.MIMEType))
			if res.Description != "" {
				fmt.Fprintf(&b, ": %s", oneLine(res.Description))
			}
			b.WriteString("\n")
		}
		for _, tpl := range cat.templates {
			uri := ""
			if tpl.URITemplate != nil && tpl.URITemplate.Template != nil {
				uri = tpl.URITemplate.Raw()
			}
			fmt.Fprintf(&b, "  %s (template) — %s%s", uri, tpl.Name, mimeSuffix(tpl.MIMEType))
			if tpl.Description != "" {
				fmt.Fprintf(&b, ": %s", oneLine(tpl.Description))
			}
			b.WriteString("\n")
		}
	}
	if only != "" && !found {
		return tools.Errorf("There is no MCP server named %q. Call %s without a server to see them all.", only, ListResourcesToolName), nil
	}
	if b.Len() == 0 {
		return tools.Text("No MCP servers are configured."), nil
	}
	return tools.Text(strings.TrimRight(b.String(), "\n")), nil
}

type readResourceTool struct{ svc *Service }

func (t *readResourceTool) Info() tools.Info {
	return tools.Info{
		Name:        ReadResourceToolName,
		Description: "Reads one resource from an MCP server by its URI (see list_mcp_resources). Long contents are cut; binary contents are described, not included.",
		Parameters:  readResourceParams, ReadOnly: true, Source: tools.SourceMCP,
	}
}

func (t *readResourceTool) Execute(ctx context.Context, params map[string]any) (tools.Result, error) {
	server := tools.String(params, "server", "")
	uri := tools.String(params, "uri", "")
	r := t.svc.runnerNamed(server)
	if r == nil {
		return tools.Errorf("There is no MCP server named %q. Call %s to see the servers and their resources.", server, ListResourcesToolName), nil
	}
	c, st := r.connection()
	if c == nil {
		return unavailable(server, "reading "+uri, st), nil
	}
	res, err := c.readResource(ctx, uri, t.svc.opts.CallTimeout)
	if err != nil || res.IsError {
		return res, err
	}
	res.Content = truncateNote(res.Content, t.svc.opts.MaxResourceBytes)
	return res, nil
}

// truncateNote cuts s to at most limit bytes (on a rune boundary) and says
// so, in words the model can act on.
func truncateNote(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n\n[truncated: showing the first %d of %d bytes; the resource is too large to read whole]", cut, len(s))
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		cut := 200
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
