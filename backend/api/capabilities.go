package api

import (
	"context"

	"tinyelf/backend/capabilities"
)

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
func (s *Service) SearchCapabilities(ctx context.Context, a SearchCapabilitiesArgs) (CapabilitySearchResult, error) {
	kind, err := capabilities.ParseKind(a.Kind)
	if err != nil {
		return CapabilitySearchResult{}, invalidf("%v", err)
	}
	res, err := s.engine.SearchPreview(ctx, a.SessionID, a.Mode, capabilities.SearchRequest{Query: a.Query, Kind: kind, Limit: a.Limit, Regex: a.Regex})
	if err != nil {
		return searchResultOf(res), invalidf("%v", err)
	}
	return searchResultOf(res), nil
}

// ReplayCapabilitiesArgs names a session.
type ReplayCapabilitiesArgs struct {
	SessionID string `json:"sessionId"`
}

// ReplayCapabilities rebuilds each model call's visible set of a session
// from its log and checks it against what was sent.
func (s *Service) ReplayCapabilities(ctx context.Context, a ReplayCapabilitiesArgs) (*CapabilityReplay, error) {
	rep, err := s.store.ReplayCapabilities(ctx, a.SessionID)
	return replayOf(rep), mapErr(err)
}
