package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestOneResourcePairOverEveryGroup: the user's servers and an agent's
// direct servers share one list_mcp_resources / read_mcp_resource pair
// that reaches each server by its name, and a name that two groups use is
// reported instead of one server silently hiding the other.
func TestOneResourcePairOverEveryGroup(t *testing.T) {
	t.Parallel()
	user, _ := startService(t, testOptions(), fakeServer(t, "notes"), fakeServer(t, "fs"))
	direct, _ := startService(t, testOptions(), fakeServer(t, "wiki"), fakeServer(t, "fs"))
	pair := ResourceTools(user, direct)
	if len(pair) != 2 {
		t.Fatalf("%d resource tools, want one pair", len(pair))
	}
	run := func(tool int, args map[string]any) string {
		t.Helper()
		reg := registryOf(t, pair)
		raw, _ := json.Marshal(args)
		res := reg.Execute(context.Background(), "c", pair[tool].Info().Name, raw)
		if res.IsError {
			t.Fatalf("%s %v: %s", pair[tool].Info().Name, args, res.Content)
		}
		return res.Content
	}
	list := run(0, map[string]any{})
	mustContain(t, list, "notes:\n<mcp_content server=\"notes\"", "wiki:\n<mcp_content server=\"wiki\"", "fs:\n<mcp_content server=\"fs\"", "\n  fake://",
		"fs (a second server of this name): left out: an MCP server of the same name from another source is listed first")
	for _, server := range []string{"notes", "wiki", "fs"} {
		if got := run(1, map[string]any{"server": server, "uri": "fake://hello"}); !strings.Contains(got, "Hello from the fake server.") {
			t.Errorf("read from %s: %s", server, got)
		}
	}
	if got := run(0, map[string]any{"server": "wiki"}); strings.Contains(got, "notes") {
		t.Errorf("list for one server shows others: %s", got)
	}
	if tools := ResourceTools(); tools != nil {
		t.Errorf("resource tools without servers: %v", toolNames(tools))
	}
}
