package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
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

// ResourceGroup is a set of MCP servers the resource tools reach: a
// Service (the user's servers, or an agent's direct servers) or a
// BuiltinSet. Only this package implements it.
type ResourceGroup interface {
	resourceServers() []resourceServer
}

// resourceServer is one server as the resource tools see it.
type resourceServer struct {
	name      string
	src       connSource
	connected bool
	status    Status
	hasRes    bool // it announced the resources capability
	cat       catalog
	timeout   time.Duration
	maxBytes  int
}

func (s *Service) resourceServers() []resourceServer {
	s.mu.Lock()
	rs := slices.Clone(s.runners)
	s.mu.Unlock()
	out := make([]resourceServer, 0, len(rs))
	for _, r := range rs {
		r.mu.Lock()
		rsv := resourceServer{name: r.cfg.Name, src: r, status: r.state.Status, cat: r.cat,
			timeout: s.opts.CallTimeout, maxBytes: s.opts.MaxResourceBytes}
		rsv.connected = r.conn != nil && r.state.Status == StatusConnected
		rsv.hasRes = rsv.connected && r.conn.caps.Resources != nil
		r.mu.Unlock()
		out = append(out, rsv)
	}
	return out
}

func (b *BuiltinSet) resourceServers() []resourceServer {
	out := make([]resourceServer, 0, len(b.conns))
	for i, c := range b.conns {
		src := fixedConn{c, c.server}
		_, st := src.connection()
		out = append(out, resourceServer{name: c.server, src: src, status: st.Status, connected: st.Status == StatusConnected,
			hasRes: c.caps.Resources != nil, cat: b.cats[i], timeout: DefaultCallTimeout, maxBytes: 40000})
	}
	return out
}

// ResourceSet is the one pair of resource tools (list_mcp_resources and
// read_mcp_resource) over every server of some groups, each tool naming
// its server in a "server" argument. Servers are looked up when a tool
// runs, so the pair stays valid while servers come and go. Two servers of
// one name in different groups cannot both be reached by name: the first
// group's wins, and the listing says why the other is left out. A
// ResourceSet is safe for concurrent use.
type ResourceSet struct {
	set  resourceSet
	pair []tools.Tool
}

// NewResourceSet makes the resource tools over groups, in that order of
// precedence.
func NewResourceSet(groups ...ResourceGroup) *ResourceSet {
	set := resourceSet(slices.Clone(groups))
	return &ResourceSet{set: set, pair: []tools.Tool{&listResourcesTool{set}, &readResourceTool{set}}}
}

// Tools returns the pair while a connected server of the groups offers
// resources, and nil otherwise. It returns the same tool values each time,
// so a caller comparing tool lists sees no change.
func (r *ResourceSet) Tools() []tools.Tool {
	for _, srv := range r.set.servers() {
		if srv.hasRes && srv.shadowedBy == "" {
			return slices.Clone(r.pair)
		}
	}
	return nil
}

// ResourceTools is NewResourceSet(groups...).Tools().
func ResourceTools(groups ...ResourceGroup) []tools.Tool {
	return NewResourceSet(groups...).Tools()
}

type resourceSet []ResourceGroup

// namedServer is a server with the name clash it may be part of.
type namedServer struct {
	resourceServer
	shadowedBy string // why it cannot be reached by name, when another server has it first
}

func (rs resourceSet) servers() []namedServer {
	var out []namedServer
	first := map[string]int{}
	for gi, g := range rs {
		for _, srv := range g.resourceServers() {
			ns := namedServer{resourceServer: srv}
			if i, dup := first[srv.name]; dup {
				if i != gi {
					ns.shadowedBy = "an MCP server of the same name from another source is listed first; rename one of them in Settings → MCP"
				}
			} else {
				first[srv.name] = gi
			}
			out = append(out, ns)
		}
	}
	return out
}

func (rs resourceSet) lookup(name string) (namedServer, bool) {
	for _, srv := range rs.servers() {
		if srv.name == name && srv.shadowedBy == "" {
			return srv, true
		}
	}
	return namedServer{}, false
}

type listResourcesTool struct{ set resourceSet }

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
	var marked []string // the servers whose listing is marked untrusted
	for _, srv := range t.set.servers() {
		if only != "" && srv.name != only {
			continue
		}
		found = true
		switch {
		case srv.shadowedBy != "":
			fmt.Fprintf(&b, "%s (a second server of this name): left out: %s\n", srv.name, srv.shadowedBy)
			continue
		case !srv.connected:
			fmt.Fprintf(&b, "%s: not connected (%s)\n", srv.name, srv.status)
			continue
		case len(srv.cat.resources) == 0 && len(srv.cat.templates) == 0:
			fmt.Fprintf(&b, "%s: no resources\n", srv.name)
			continue
		}
		var list strings.Builder
		for _, res := range srv.cat.resources {
			fmt.Fprintf(&list, "  %s — %s%s", res.URI, res.Name, mimeSuffix(res.MIMEType))
			if res.Description != "" {
				fmt.Fprintf(&list, ": %s", oneLine(res.Description))
			}
			list.WriteString("\n")
		}
		for _, tpl := range srv.cat.templates {
			uri := ""
			if tpl.URITemplate != nil && tpl.URITemplate.Template != nil {
				uri = tpl.URITemplate.Raw()
			}
			fmt.Fprintf(&list, "  %s (template) — %s%s", uri, tpl.Name, mimeSuffix(tpl.MIMEType))
			if tpl.Description != "" {
				fmt.Fprintf(&list, ": %s", oneLine(tpl.Description))
			}
			list.WriteString("\n")
		}
		// The names and descriptions are the server's words.
		fmt.Fprintf(&b, "%s:\n%s\n", srv.name, untrustedText(srv.name, contentResources, "", strings.TrimRight(list.String(), "\n")))
		marked = append(marked, srv.name)
	}
	if only != "" && !found {
		return tools.Errorf("There is no MCP server named %q. Call %s without a server to see them all.", only, ListResourcesToolName), nil
	}
	if b.Len() == 0 {
		return tools.Text("No MCP servers are configured."), nil
	}
	res := tools.Text(strings.TrimRight(b.String(), "\n"))
	if len(marked) > 0 {
		res.Meta = map[string]any{tools.MetaUntrusted: "MCP server " + strings.Join(marked, ", ")}
	}
	return res, nil
}

type readResourceTool struct{ set resourceSet }

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
	srv, ok := t.set.lookup(server)
	if !ok {
		return tools.Errorf("There is no MCP server named %q. Call %s to see the servers and their resources.", server, ListResourcesToolName), nil
	}
	c, st := srv.src.connection()
	if c == nil {
		return unavailable(server, "reading "+uri, st), nil
	}
	res, err := c.readResource(ctx, uri, srv.timeout)
	if err != nil || res.IsError {
		return res, err
	}
	res.Content = truncateNote(res.Content, srv.maxBytes)
	return markUntrusted(res, server, contentResource, uri), nil
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
