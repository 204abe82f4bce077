package api

import (
	"context"
	"fmt"
	"strings"

	"tinyelf/backend/capabilities"
	"tinyelf/backend/mcp"
	"tinyelf/backend/sessions"
	"tinyelf/backend/tokens"
)

// The user's MCP servers live in the catalog as one partition each, kept
// current from the MCP service's changes (connect, disconnect, failure,
// list_changed), so a turn never waits for them and a diff can say why a
// tool came or went.

func mcpPartition(server string) string { return "mcp:" + server }

// syncMCP brings the catalog's partition of one server up to date.
func (s *Service) syncMCP(c mcp.Change) {
	if s.catalog == nil {
		return
	}
	if c.Server == "" {
		// The server list changed: every server is brought up to date, and
		// the partitions of removed ones dropped.
		known := map[string]bool{}
		for _, st := range s.userMCP.States() {
			known[mcpPartition(st.Name)] = true
			s.syncMCP(mcp.Change{Server: st.Name, State: st, Reason: c.Reason})
		}
		for _, k := range s.catalog.Snapshot().Partitions() {
			if strings.HasPrefix(k, "mcp:") && !known[k] {
				s.catalog.Remove(k, fmt.Sprintf("MCP server %s was removed from the settings", strings.TrimPrefix(k, "mcp:")))
			}
		}
		return
	}
	reason := fmt.Sprintf("MCP server %s: %s", c.Server, c.Reason)
	if c.Reason == "" {
		reason = fmt.Sprintf("MCP server %s is %s", c.Server, c.State.Status)
	}
	var entries []capabilities.Entry
	for _, t := range s.userMCP.Tools() {
		if capabilities.ServerOf(t.Info()) == c.Server {
			entries = append(entries, capabilities.ToolEntry(t))
		}
	}
	for _, p := range s.userMCP.Prompts() {
		if p.Server == c.Server {
			entries = append(entries, promptEntry(p))
		}
	}
	for _, r := range s.userMCP.Resources() {
		if r.Server == c.Server {
			entries = append(entries, resourceDescriptor(r))
		}
	}
	if len(entries) == 0 {
		s.catalog.Remove(mcpPartition(c.Server), reason)
	} else {
		s.catalog.Replace(mcpPartition(c.Server), entries, capabilities.PartitionOptions{Priority: capabilities.PriorityMCP, Reason: reason})
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

// channelEntries are the abilities of the surface the service runs in.
func channelEntries(o Options) []capabilities.Entry {
	ch := func(name, title, summary string) capabilities.Entry {
		return capabilities.Entry{Descriptor: capabilities.Descriptor{
			ID: "channel__" + name, Kind: capabilities.KindChannel, Name: name, Title: title, Summary: summary,
			Source: capabilities.SourceSurface, Risk: capabilities.RiskLow, ReadOnly: true,
		}}
	}
	var out []capabilities.Entry
	if o.Approver == nil {
		out = append(out, ch("approvals", "Interactive approvals", "The user answers approval requests in the window or the browser."))
	} else {
		out = append(out, ch("approvals", "Approvals by rule", "No one is asked: calls that need approval follow the command line's --yes and the rules."))
	}
	out = append(out, ch("notifications", "Desktop notifications", "Finished turns, waiting approvals and background work are announced on the desktop."))
	if o.Surface == SurfaceDesktop {
		out = append(out, ch("dialogs", "Native dialogs", "Folder and file pickers of the operating system."))
	}
	return out
}

// CapabilityView is one catalog entry as Settings → Capabilities shows it:
// the descriptor, and its state in the session asked about (or a new
// session in the default mode).
type CapabilityView struct {
	capabilities.Descriptor
	State  capabilities.State `json:"state"`
	Reason string             `json:"reason"`
}

// CapabilitiesArgs selects what ListCapabilities shows.
type CapabilitiesArgs struct {
	// SessionID, when set, computes states as that session's next call
	// would; otherwise as a new session in the default mode would.
	SessionID string `json:"sessionId,omitempty"`
	// Kind limits the list to one kind.
	Kind string `json:"kind,omitempty"`
	// Mode overrides the permission mode ("plan", "auto"…).
	Mode string `json:"mode,omitempty"`
}

// CapabilityList is the catalog with the policy's verdicts.
type CapabilityList struct {
	Items []CapabilityView `json:"items"`
	// Deferring and DeferReason say whether tools are deferred and why.
	Deferring   bool   `json:"deferring"`
	DeferReason string `json:"deferReason"`
	// ToolTokens and IndexTokens estimate what one model call carries.
	ToolTokens  int `json:"toolTokens"`
	IndexTokens int `json:"indexTokens"`
	// Shadowed are the capabilities left out because another source took
	// their name.
	Shadowed []ShadowedView `json:"shadowed,omitempty"`
	Version  uint64         `json:"version"`
}

// ShadowedView is a capability left out of the catalog's view because
// another one (By, an identity) has its name.
type ShadowedView struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Source string `json:"source"`
	By     string `json:"by"`
}

// ListCapabilities returns the catalog with each capability's state and
// the reason for it.
func (s *Service) ListCapabilities(ctx context.Context, a CapabilitiesArgs) (CapabilityList, error) {
	kind, err := capabilities.ParseKind(a.Kind)
	if err != nil {
		return CapabilityList{}, invalidf("%v", err)
	}
	vs, err := s.engine.Preview(ctx, a.SessionID, a.Mode)
	if err != nil {
		return CapabilityList{}, mapErr(err)
	}
	out := CapabilityList{Items: []CapabilityView{}, Deferring: vs.Deferring, DeferReason: vs.DeferReason,
		ToolTokens: vs.ToolTokens, IndexTokens: vs.IndexTokens, Version: vs.View().Snapshot.Version}
	for _, sh := range vs.View().Shadowed {
		out.Shadowed = append(out.Shadowed, ShadowedView{ID: sh.ID, Name: sh.Name, Source: sh.Source, By: sh.By})
	}
	for _, e := range vs.View().Entries() {
		if kind != "" && e.Kind != kind {
			continue
		}
		d, _ := vs.Decision(e.ID)
		out.Items = append(out.Items, CapabilityView{Descriptor: e.Descriptor, State: d.State, Reason: d.Reason})
	}
	return out, nil
}

// SearchCapabilitiesArgs is a ToolSearch from the UI or the CLI.
type SearchCapabilitiesArgs struct {
	Query     string `json:"query"`
	Kind      string `json:"kind,omitempty"`
	Limit     int    `json:"limit,omitempty"`
	Regex     bool   `json:"regex,omitempty"`
	Mode      string `json:"mode,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
}

// SearchCapabilities runs the same search ToolSearch runs for the model,
// with the same filters (mode, profile, rules), without loading anything.
func (s *Service) SearchCapabilities(ctx context.Context, a SearchCapabilitiesArgs) (capabilities.SearchResult, error) {
	kind, err := capabilities.ParseKind(a.Kind)
	if err != nil {
		return capabilities.SearchResult{}, invalidf("%v", err)
	}
	res, err := s.engine.SearchPreview(ctx, a.SessionID, a.Mode, capabilities.SearchRequest{Query: a.Query, Kind: kind, Limit: a.Limit, Regex: a.Regex})
	if err != nil {
		return res, invalidf("%v", err)
	}
	return res, nil
}

// ReplayCapabilitiesArgs names a session.
type ReplayCapabilitiesArgs struct {
	SessionID string `json:"sessionId"`
}

// ReplayCapabilities rebuilds each model call's visible set of a session
// from its log and checks it against what was sent.
func (s *Service) ReplayCapabilities(ctx context.Context, a ReplayCapabilitiesArgs) (*sessions.CapabilityReplay, error) {
	rep, err := s.store.ReplayCapabilities(ctx, a.SessionID)
	return rep, mapErr(err)
}
