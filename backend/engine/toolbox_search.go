package engine

import (
	"context"

	"tinyelf/backend/capabilities"
)

// toolboxSearcher answers a direct ToolSearch call (tinyelf tool ToolSearch)
// over the tools the toolbox offers: the built-in tools, the MCP servers'
// and the user tools' once loaded. Nothing is promoted, since a direct call
// has no next model call to load a tool into.
type toolboxSearcher struct{ t *Toolbox }

func (s toolboxSearcher) SearchCapabilities(_ context.Context, req capabilities.SearchRequest) (capabilities.SearchResult, error) {
	all := s.t.sess.Registry.All()
	entries := make([]capabilities.Entry, 0, len(all))
	for _, tool := range all {
		entries = append(entries, capabilities.ToolEntry(tool))
	}
	cat := capabilities.NewCatalog()
	cat.Replace("toolbox", entries, capabilities.PartitionOptions{Reason: "the toolbox's tools"})
	view := cat.Snapshot().View("")
	res, err := capabilities.Find(view, capabilities.Inputs{Mode: string(s.t.opts.Mode)}, nil, req)
	for i := range res.Items {
		res.Items[i].State = capabilities.StateVisible
		res.Items[i].Use = "run it with: tinyelf tool " + res.Items[i].Name
	}
	return res, err
}

// ToolSearchName is the name of the tool that searches capabilities; a
// direct call of it searches every tool the toolbox offers.
const ToolSearchName = capabilities.ToolSearchName
