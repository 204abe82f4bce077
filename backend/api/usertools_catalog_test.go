package api

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"tinyelf/backend/capabilities"
	"tinyelf/backend/config"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
)

// TestRefreshedUserToolEntersTheCatalog: a user tool dropped into the
// personal folder while a session is open, then loaded by refresh_tools, is
// a catalog descriptor (usertool__<name>, source usertool:personal) by the
// session's next model call, whose capability.diff names it with a reason;
// the discovery policy treats it like an MCP tool: sent while the tool list
// fits the budget, kept in the index when deferral is on, and callable
// either way once loaded.
func TestRefreshedUserToolEntersTheCatalog(t *testing.T) {
	t.Parallel()
	weatherCall := llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "w1", Name: "weather_now", Arguments: `{}`}}}
	for _, tc := range []struct {
		name string
		// byAgent: the model calls refresh_tools; otherwise the user presses
		// Refresh in Settings → Tools between the turns.
		byAgent bool
		defer_  string
		turns   []llmtest.Turn // the second turn's
		state   capabilities.State
		reason  string
		results int // weather_now results, the refused call included
	}{
		{name: "refresh_tools", byAgent: true, defer_: "never", state: capabilities.StateVisible,
			turns:  []llmtest.Turn{{ToolCalls: []llmtest.ToolCall{{ID: "r1", Name: "refresh_tools", Arguments: `{}`}}}, weatherCall, {Text: "Clear sky."}},
			reason: "the user tools added weather_now (the task or a tool result names weather_now)", results: 1},
		{name: "settings refresh, fits", defer_: "never", state: capabilities.StateVisible,
			turns:  []llmtest.Turn{weatherCall, {Text: "Clear sky."}},
			reason: "the user tools added weather_now (the tool list fits the budget)", results: 1},
		// Deferred like an MCP tool: in the index, loaded when the model calls
		// it by name (that call is refused), then run.
		{name: "settings refresh, deferred", defer_: "always", state: capabilities.StateDeferred,
			turns:  []llmtest.Turn{weatherCall, weatherCall, {Text: "Clear sky."}},
			reason: "the user tools added weather_now (deferred to the index: deferral is always on)", results: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newSvc(t, append([]llmtest.Turn{{Text: "Nothing to do yet."}}, tc.turns...)...)
			h.addProvider()
			if err := h.svc.settings.Update(func(s *config.Settings) error {
				s.Discovery.Defer = tc.defer_
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			sess, err := h.svc.CreateSession(ctx, CreateSessionArgs{Workspace: h.workspace, Mode: "auto"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := h.svc.SendMessage(ctx, SendArgs{SessionID: sess.ID, Text: "hello"}); err != nil {
				t.Fatal(err)
			}
			h.waitFor(sess.ID, string(sessions.EventTurnEnd))

			// Dropped in while the session is open: not seen until a refresh.
			personal := filepath.Join(h.svc.opts.DataDir, "agents", "default", "tools")
			writeToolFile(t, filepath.Join(personal, "weather.sh"), "#!/bin/sh\ncat >/dev/null\necho '{\"sky\": \"clear\"}'\n", 0o755)
			writeToolFile(t, filepath.Join(personal, "weather.tool.json"), `{"description": "Local weather.", "command": ["./weather.sh"],
				"schemas": [{"name": "weather_now", "description": "Tells the sky over the user's town.", "input_schema": {"type": "object", "properties": {}}}],
				"profile": {"now": {"read_only": true}}}`, 0o644)
			if !tc.byAgent {
				if _, err := h.svc.RefreshUserTools(ctx, UserToolsArgs{}); err != nil {
					t.Fatal(err)
				}
			}

			if _, err := h.svc.SendMessage(ctx, SendArgs{SessionID: sess.ID, Text: "what is the sky like?"}); err != nil {
				t.Fatal(err)
			}
			h.waitFor(sess.ID, string(sessions.EventTurnEnd))

			var diffs []sessions.CapabilityDiff
			var results []sessions.ToolResult
			for ev, err := range h.svc.store.Events(ctx, sess.ID, 1, 0) {
				if err != nil {
					t.Fatal(err)
				}
				switch ev.Type {
				case sessions.EventCapabilityDiff:
					var d sessions.CapabilityDiff
					if err := json.Unmarshal(ev.Data, &d); err != nil {
						t.Fatal(err)
					}
					diffs = append(diffs, d)
				case sessions.EventToolResult:
					var r sessions.ToolResult
					if err := json.Unmarshal(ev.Data, &r); err != nil {
						t.Fatal(err)
					}
					if r.Name == "weather_now" {
						results = append(results, r)
					}
				}
			}
			// The first call's set, then the one that has the new tool.
			if len(diffs) < 2 {
				t.Fatalf("%d capability diffs, want at least 2: %+v", len(diffs), diffs)
			}
			added := diffs[1]
			i := slices.IndexFunc(added.Items, func(it sessions.CapabilityItem) bool { return it.ID == "usertool__weather_now" })
			if i < 0 {
				t.Fatalf("the diff after the refresh does not name usertool__weather_now: %+v", added.Items)
			}
			it := added.Items[i]
			if it.Name != "weather_now" || it.Change != capabilities.ChangeAdded || it.To != string(tc.state) || it.Reason != tc.reason {
				t.Errorf("diff item %+v, want weather_now added as %s because %q", it, tc.state, tc.reason)
			}
			for _, other := range added.Items {
				// use_tool's description lists the actions, so it changes too.
				if other.ID != "usertool__weather_now" && other.ID != "local__use_tool" {
					t.Errorf("unexpected change %+v", other)
				}
			}
			if got := slices.Contains(added.Deferred, "weather_now"); got != (tc.state == capabilities.StateDeferred) {
				t.Errorf("deferred %v, want weather_now deferred: %v", added.Deferred, tc.state == capabilities.StateDeferred)
			}
			if tc.state == capabilities.StateDeferred {
				// Loaded by the refused call: the next diff shows it visible.
				if len(diffs) != 3 || !slices.Contains(diffs[2].Added, "weather_now") {
					t.Errorf("weather_now was not loaded after the model called it: %+v", diffs[2:])
				}
			}
			if len(results) != tc.results || results[len(results)-1].IsError || !strings.Contains(results[len(results)-1].Content, `"sky":"clear"`) &&
				!strings.Contains(results[len(results)-1].Content, `"sky": "clear"`) {
				t.Errorf("weather_now results %+v", results)
			}

			// The capability list shows it as the user tool it is, deferrable
			// like an MCP tool.
			list, err := h.svc.ListCapabilities(ctx, CapabilitiesArgs{SessionID: sess.ID})
			if err != nil {
				t.Fatal(err)
			}
			j := slices.IndexFunc(list.Items, func(v CapabilityView) bool { return v.ID == "usertool__weather_now" })
			if j < 0 {
				t.Fatalf("ListCapabilities lacks usertool__weather_now")
			}
			if v := list.Items[j]; v.Source != "usertool:personal" || v.Kind != capabilities.KindTool || !v.ReadOnly || v.Tier != capabilities.TierDeferrable {
				t.Errorf("catalog entry %+v", v)
			}
		})
	}
}
