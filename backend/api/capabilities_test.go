package api

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"tinyelf/backend/capabilities"
)

func TestCapabilitiesThroughTheService(t *testing.T) {
	t.Parallel()
	bin := buildFakeMCP(t)
	h := newSvc(t)
	h.addProvider()
	ctx := context.Background()
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"fake": map[string]any{"command": bin}}})
	if _, err := h.svc.ImportMCPConfig(ctx, ImportMCPArgs{Content: string(cfg)}); err != nil {
		t.Fatal(err)
	}
	find := func(list CapabilityList, name string) (CapabilityView, bool) {
		for _, it := range list.Items {
			if it.Name == name {
				return it, true
			}
		}
		return CapabilityView{}, false
	}
	// The server's tools reach the catalog when it connects.
	var list CapabilityList
	deadline := time.Now().Add(30 * time.Second)
	for {
		var err error
		if list, err = h.svc.ListCapabilities(ctx, CapabilitiesArgs{}); err != nil {
			t.Fatal(err)
		}
		if _, ok := find(list, "mcp__fake__echo"); ok || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	echo, ok := find(list, "mcp__fake__echo")
	if !ok || echo.Source != "mcp:fake" || echo.State != capabilities.StateVisible || echo.FullTokens == 0 {
		t.Fatalf("echo: %+v (found %v)", echo, ok)
	}
	for _, n := range []string{"Read", "ToolSearch", "approvals", "notifications"} {
		if _, ok := find(list, n); !ok {
			t.Errorf("the catalog lacks %s", n)
		}
	}
	if p, ok := find(list, "/mcp__fake__greet"); !ok || p.Kind != capabilities.KindPrompt || p.State != capabilities.StateAvailable {
		t.Errorf("prompt: %+v %v", p, ok)
	}
	if r, ok := find(list, "fake://hello"); !ok || r.Kind != capabilities.KindResource || r.ID != "resource__fake__fake://hello" {
		t.Errorf("resource: %+v %v", r, ok)
	}
	hits, err := h.svc.SearchCapabilities(ctx, SearchCapabilitiesArgs{Query: "greeting", Kind: "resource"})
	if err != nil || len(hits.Items) != 1 || !strings.Contains(hits.Items[0].Use, `read_mcp_resource(server: "fake", uri: "fake://hello")`) {
		t.Errorf("resource search: %v %+v", err, hits)
	}
	plan, _ := h.svc.ListCapabilities(ctx, CapabilitiesArgs{Mode: "plan", Kind: "tool"})
	if w, _ := find(plan, "Write"); w.State != capabilities.StateHidden || !strings.Contains(w.Reason, "plan mode") {
		t.Errorf("Write in plan mode: %+v", w)
	}
	if _, ok := find(plan, "approvals"); ok {
		t.Error("the kind filter let a channel through")
	}
	res, err := h.svc.SearchCapabilities(ctx, SearchCapabilitiesArgs{Query: "echo a message back"})
	if err != nil || len(res.Items) == 0 || res.Items[0].Name != "mcp__fake__echo" {
		t.Errorf("search: %v %+v", err, res)
	}
	if _, err := h.svc.SearchCapabilities(ctx, SearchCapabilitiesArgs{Query: " "}); !isCode(err, CodeInvalid) {
		t.Errorf("empty search: %v", err)
	}
	// Disabling the server takes its tools out of the catalog, with the reason.
	if _, err := h.svc.SetMCPServerEnabled(ctx, EnableArgs{Name: "fake", Enabled: false}); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(10 * time.Second)
	for {
		list, _ = h.svc.ListCapabilities(ctx, CapabilitiesArgs{})
		if _, ok := find(list, "mcp__fake__echo"); !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a disabled server's tools stayed in the catalog")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if why, ok := h.svc.catalog.Snapshot().PartitionReason("mcp:fake"); !ok || !strings.Contains(why, "fake") {
		t.Errorf("reason %q %v", why, ok)
	}
}
