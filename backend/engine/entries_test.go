package engine

import (
	"testing"

	"tinyelf/backend/tools"
)

// Two sessions' tools that describe themselves alike share a catalog
// entry, each bound to its own tool; a tool that differs in any field of
// its Info gets its own.
func TestEntryCache(t *testing.T) {
	c := newEntryCache()
	a, b := mcpTool{name: "mcp__x__find", readOnly: true}, mcpTool{name: "mcp__x__find", readOnly: true}
	ea, eb := c.entry(a), c.entry(&b)
	if ea.Tool != tools.Tool(a) || eb.Tool != tools.Tool(&b) {
		t.Error("an entry is not bound to its own tool")
	}
	// What a session's registry runs is its own tool, not the first one's.
	if pa, pb := ea.Prepared(), eb.Prepared(); pa == nil || pb == nil || pa.Tool() != tools.Tool(a) || pb.Tool() != tools.Tool(&b) {
		t.Error("a cached entry's prepared tool is not bound to its own tool")
	}
	if ea.ID != eb.ID || ea.FullTokens != eb.FullTokens {
		t.Errorf("alike tools got different descriptors: %+v %+v", ea.Descriptor, eb.Descriptor)
	}
	if len(c.m) != 1 {
		t.Errorf("%d cached entries for one description", len(c.m))
	}
	w := c.entry(mcpTool{name: "mcp__x__find"}) // not read-only
	if w.ReadOnly || len(c.m) != 2 {
		t.Errorf("a tool that differs in one flag shares an entry: %+v", w.Descriptor)
	}
}
