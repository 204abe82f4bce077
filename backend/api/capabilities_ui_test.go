package api

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"tinyelf/backend/config"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
)

func TestDiscoverySettings(t *testing.T) {
	t.Parallel()
	h := newSvc(t)
	ctx := context.Background()
	v, err := h.svc.GetSettings(ctx, struct{}{})
	if err != nil || v.Discovery != (config.Discovery{Defer: "auto", Threshold: 0.10}) {
		t.Fatalf("default discovery: %+v %v", v.Discovery, err)
	}
	tests := []struct {
		name   string
		set    config.Discovery
		view   config.Discovery
		stored config.Discovery
	}{
		{"always, 20%", config.Discovery{Defer: "always", Threshold: 0.2}, config.Discovery{Defer: "always", Threshold: 0.2}, config.Discovery{Defer: "always", Threshold: 0.2}},
		{"never keeps the threshold", config.Discovery{Defer: " Never ", Threshold: 0.05}, config.Discovery{Defer: "never", Threshold: 0.05}, config.Discovery{Defer: "never", Threshold: 0.05}},
		{"the defaults are stored empty", config.Discovery{Defer: "auto", Threshold: 0.10}, config.Discovery{Defer: "auto", Threshold: 0.10}, config.Discovery{}},
		{"0 means the default threshold", config.Discovery{Defer: "", Threshold: 0}, config.Discovery{Defer: "auto", Threshold: 0.10}, config.Discovery{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := h.svc.UpdatePreferences(ctx, PreferencesArgs{Discovery: &tt.set})
			if err != nil || v.Discovery != tt.view {
				t.Errorf("view %+v %v, want %+v", v.Discovery, err, tt.view)
			}
			if got := h.svc.settings.Get().Discovery; got != tt.stored {
				t.Errorf("stored %+v, want %+v", got, tt.stored)
			}
		})
	}
	for _, bad := range []config.Discovery{{Defer: "sometimes"}, {Threshold: 0.001}, {Threshold: 1.5}, {Threshold: -0.1}} {
		if _, err := h.svc.UpdatePreferences(ctx, PreferencesArgs{Discovery: &bad}); !isCode(err, CodeInvalid) {
			t.Errorf("%+v accepted: %v", bad, err)
		}
	}
	// The policy follows the setting: the catalog's header says so.
	if _, err := h.svc.UpdatePreferences(ctx, PreferencesArgs{Discovery: &config.Discovery{Defer: "always"}}); err != nil {
		t.Fatal(err)
	}
	list, err := h.svc.ListCapabilities(ctx, CapabilitiesArgs{})
	if err != nil || !list.Deferring || !strings.Contains(list.DeferReason, "always") {
		t.Errorf("with always: deferring %v (%q) %v", list.Deferring, list.DeferReason, err)
	}
	if _, err := h.svc.UpdatePreferences(ctx, PreferencesArgs{Discovery: &config.Discovery{Defer: "never"}}); err != nil {
		t.Fatal(err)
	}
	if list, _ = h.svc.ListCapabilities(ctx, CapabilitiesArgs{}); list.Deferring || !strings.Contains(list.DeferReason, "never") {
		t.Errorf("with never: deferring %v (%q)", list.Deferring, list.DeferReason)
	}
}

// TestCapabilityChipThroughTheService runs a ToolSearch turn through the
// real engine: the chat's history gets the baseline and a change naming the
// search, the session view the tool share of the last call, and a replay of
// the log the same items.
func TestCapabilityChipThroughTheService(t *testing.T) {
	t.Parallel()
	bin := buildFakeMCP(t)
	h := newSvc(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "s1", Name: "ToolSearch", Arguments: `{"query":"echo a message back"}`}}},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "e1", Name: "mcp__fake__echo", Arguments: `{"message":"hi"}`}}},
		llmtest.Turn{Text: "It said hi."},
	)
	h.addProvider()
	ctx := context.Background()
	if _, err := h.svc.UpdatePreferences(ctx, PreferencesArgs{Discovery: &config.Discovery{Defer: "always"}}); err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"fake": map[string]any{"command": bin}}})
	if _, err := h.svc.ImportMCPConfig(ctx, ImportMCPArgs{Content: string(cfg)}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		list, err := h.svc.ListCapabilities(ctx, CapabilitiesArgs{Kind: "tool"})
		if err != nil {
			t.Fatal(err)
		}
		if slices.ContainsFunc(list.Items, func(c CapabilityView) bool { return c.Name == "mcp__fake__echo" }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the fake server's tools never reached the catalog")
		}
		time.Sleep(20 * time.Millisecond)
	}
	sess, err := h.svc.CreateSession(ctx, CreateSessionArgs{Workspace: h.workspace, Mode: "auto"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.SendMessage(ctx, SendArgs{SessionID: sess.ID, Text: "make the server say hi"}); err != nil {
		t.Fatal(err)
	}
	h.waitFor(sess.ID, string(sessions.EventTurnEnd))
	view, err := h.svc.GetSession(ctx, IDArgs{ID: sess.ID})
	if err != nil {
		t.Fatal(err)
	}
	var changes []*sessions.CapabilityChange
	for _, m := range view.Messages {
		if m.Kind == sessions.UICapabilities {
			changes = append(changes, m.Capabilities)
		}
	}
	if len(changes) != 2 || !changes[0].Baseline || changes[1].Baseline {
		t.Fatalf("capability items: %s", mustMarshal(t, changes))
	}
	if !slices.ContainsFunc(changes[0].Items, func(it sessions.CapabilityItem) bool {
		return it.Name == "mcp__fake__echo" && it.To == "deferred" && strings.Contains(it.Reason, "always")
	}) {
		t.Errorf("the baseline does not show echo deferred: %s", mustMarshal(t, changes[0].Items))
	}
	found := changes[1]
	if !slices.Contains(found.Added, "mcp__fake__echo") || !strings.Contains(strings.Join(found.Reasons, "\n"), `found by ToolSearch "echo a message back"`) {
		t.Errorf("the search's change: %s", mustMarshal(t, found))
	}
	if view.ToolTokens <= 0 || view.ToolsSent == 0 || view.ToolsSent != found.Visible || view.ToolsDeferred != found.Deferred {
		t.Errorf("tool share: tokens %d index %d sent %d deferred %d (change: %d visible, %d deferred)",
			view.ToolTokens, view.IndexTokens, view.ToolsSent, view.ToolsDeferred, found.Visible, found.Deferred)
	}
	rep, err := h.svc.store.Replay(ctx, sess.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rep.UI, view.Messages) {
		t.Errorf("replay differs from GetSession:\n%s\n%s", mustMarshal(t, rep.UI), mustMarshal(t, view.Messages))
	}
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
