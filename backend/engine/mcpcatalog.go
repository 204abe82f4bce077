package engine

import (
	"fmt"
	"strings"

	"tinyelf/backend/capabilities"
	"tinyelf/backend/mcp"
	"tinyelf/backend/tokens"
)

// The user's MCP servers live in the catalog as one partition each, kept
// current from the MCP service's changes (connect, disconnect, failure,
// list_changed), so a turn never waits for them and a diff can say why a
// tool came or went.

func mcpPartition(server string) string { return "mcp:" + server }

// MCPChanged brings the catalog's partition of the server a change of the
// user's MCP servers (Options.MCP.User) is about up to date; a change
// without a server (the server list changed) updates every server's and
// drops the partitions of removed ones. Whoever subscribes to the service
// calls it with each change, before telling anyone else of the change, so
// that what they look at next already has it. It does nothing without
// Options.MCP.
func (e *Engine) MCPChanged(c mcp.Change) {
	if e.opts.MCP == nil {
		return
	}
	user := e.opts.MCP.User
	if c.Server == "" {
		known := map[string]bool{}
		for _, st := range user.States() {
			known[mcpPartition(st.Name)] = true
			e.MCPChanged(mcp.Change{Server: st.Name, State: st, Reason: c.Reason})
		}
		for _, k := range e.catalog.Snapshot().Partitions() {
			if strings.HasPrefix(k, "mcp:") && !known[k] {
				e.catalog.Remove(k, fmt.Sprintf("MCP server %s was removed from the settings", strings.TrimPrefix(k, "mcp:")))
			}
		}
		return
	}
	reason := fmt.Sprintf("MCP server %s: %s", c.Server, c.Reason)
	if c.Reason == "" {
		reason = fmt.Sprintf("MCP server %s is %s", c.Server, c.State.Status)
	}
	var entries []capabilities.Entry
	for _, t := range user.Tools() {
		if capabilities.ServerOf(t.Info()) == c.Server {
			entries = append(entries, capabilities.ToolEntry(t))
		}
	}
	for _, p := range user.Prompts() {
		if p.Server == c.Server {
			entries = append(entries, promptEntry(p))
		}
	}
	for _, r := range user.Resources() {
		if r.Server == c.Server {
			entries = append(entries, resourceDescriptor(r))
		}
	}
	if len(entries) == 0 {
		e.catalog.Remove(mcpPartition(c.Server), reason)
	} else {
		e.catalog.Replace(mcpPartition(c.Server), entries, capabilities.PartitionOptions{Priority: capabilities.PriorityMCP, Reason: reason})
	}
}

// promptEntry describes an MCP prompt, which the user (the / menu) or the
// model (slash_command) runs as a workflow template.
func promptEntry(p mcp.PromptCommand) capabilities.Entry {
	var params []string
	var text strings.Builder
	for _, a := range p.Arguments {
		params = append(params, a.Name)
		text.WriteString(a.Description + " ")
	}
	title := p.Title
	if title == "" {
		title = p.Prompt
	}
	summary := capabilities.Summarize(p.Description)
	d := capabilities.Descriptor{
		ID: "prompt__" + p.Server + "__" + p.Prompt, Kind: capabilities.KindPrompt, Name: "/" + p.Name, Title: title,
		Summary: summary, Description: p.Description, Source: "mcp:" + p.Server, Server: p.Server,
		Risk: capabilities.RiskLow, ReadOnly: true, Params: params, ParamText: text.String(),
		IndexTokens: tokens.Estimate(p.Name + " — " + summary),
		FullTokens:  tokens.Estimate(p.Description) + 20,
	}
	return capabilities.Entry{Descriptor: d}
}

// resourceDescriptor describes an MCP resource: external context the model
// reads with read_mcp_resource once ToolSearch has found it.
func resourceDescriptor(r mcp.ResourceInfo) capabilities.Entry {
	title := r.Title
	if title == "" {
		title = r.Name
	}
	desc := r.Description
	if desc == "" {
		desc = title
	}
	summary := capabilities.Summarize(desc)
	if r.Template {
		summary = "template: " + summary
	}
	d := capabilities.Descriptor{
		ID: "resource__" + r.Server + "__" + r.URI, Kind: capabilities.KindResource, Name: r.URI, Title: title,
		Summary: summary, Description: desc, Source: "mcp:" + r.Server, Server: r.Server,
		Risk: capabilities.RiskLow, ReadOnly: true, Keywords: []string{r.Name, r.MIMEType},
		IndexTokens: tokens.Estimate(r.URI + " — " + summary),
	}
	return capabilities.Entry{Descriptor: d}
}
