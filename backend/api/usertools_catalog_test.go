package api

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"tinyelf/backend/capabilities"
	"tinyelf/backend/config"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
	"tinyelf/internal/testutil"
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
			testutil.WriteFile(t, filepath.Join(personal, "weather.sh"), "#!/bin/sh\ncat >/dev/null\necho '{\"sky\": \"clear\"}'\n", 0o755)
			testutil.WriteFile(t, filepath.Join(personal, "weather.tool.json"), `{"description": "Local weather.", "command": ["./weather.sh"],
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

// TestRemovedUserToolLeavesTheCatalog: a user tool whose file is deleted,
// or whose manifest breaks, leaves the session's set at the next model call
// after a refresh; the capability.diff says it is gone and why, and a
// broken one is also a tool_skipped error in the log with its problem.
func TestRemovedUserToolLeavesTheCatalog(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		change  func(t *testing.T, personal string)
		problem string // in the tool_skipped error; "" for none
	}{
		{name: "deleted", change: func(t *testing.T, personal string) {
			if err := os.Remove(filepath.Join(personal, "weather.tool.json")); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "broken", change: func(t *testing.T, personal string) {
			testutil.WriteFile(t, filepath.Join(personal, "weather.tool.json"), `{"schemas": [`, 0o644)
		}, problem: "Error in weather (personal, "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newSvc(t, llmtest.Turn{Text: "It is clear."}, llmtest.Turn{Text: "Which tool?"})
			h.addProvider()
			ctx := context.Background()
			personal := filepath.Join(h.svc.opts.DataDir, "agents", "default", "tools")
			testutil.WriteFile(t, filepath.Join(personal, "weather.sh"), "#!/bin/sh\ncat >/dev/null\necho '{}'\n", 0o755)
			testutil.WriteFile(t, filepath.Join(personal, "weather.tool.json"), `{"description": "Local weather.", "command": ["./weather.sh"],
				"schemas": [{"name": "weather_now", "description": "Tells the sky over the user's town.", "input_schema": {"type": "object", "properties": {}}}],
				"profile": {"now": {"read_only": true}}}`, 0o644)
			if _, err := h.svc.RefreshUserTools(ctx, UserToolsArgs{}); err != nil {
				t.Fatal(err)
			}
			sess, err := h.svc.CreateSession(ctx, CreateSessionArgs{Workspace: h.workspace, Mode: "auto"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := h.svc.SendMessage(ctx, SendArgs{SessionID: sess.ID, Text: "weather?"}); err != nil {
				t.Fatal(err)
			}
			h.waitFor(sess.ID, string(sessions.EventTurnEnd))

			tc.change(t, personal)
			if _, err := h.svc.RefreshUserTools(ctx, UserToolsArgs{}); err != nil {
				t.Fatal(err)
			}
			if _, err := h.svc.SendMessage(ctx, SendArgs{SessionID: sess.ID, Text: "and now?"}); err != nil {
				t.Fatal(err)
			}
			h.waitFor(sess.ID, string(sessions.EventTurnEnd))

			var diffs []sessions.CapabilityDiff
			var errs []sessions.Error
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
				case sessions.EventError:
					var e sessions.Error
					if err := json.Unmarshal(ev.Data, &e); err != nil {
						t.Fatal(err)
					}
					errs = append(errs, e)
				}
			}
			if len(diffs) != 2 {
				t.Fatalf("%d capability diffs, want 2 (the first set, the removal): %+v", len(diffs), diffs)
			}
			if !slices.Contains(diffs[0].Added, "weather_now") {
				t.Errorf("the first set lacks weather_now: %+v", diffs[0].Added)
			}
			gone := diffs[1]
			i := slices.IndexFunc(gone.Items, func(it sessions.CapabilityItem) bool { return it.ID == "usertool__weather_now" })
			if i < 0 {
				t.Fatalf("the diff after the refresh does not name usertool__weather_now: %+v", gone.Items)
			}
			const reason = "the user tools no longer have weather_now (their files were removed or no longer load)"
			if it := gone.Items[i]; it.Change != capabilities.ChangeRemoved || it.From != string(capabilities.StateVisible) || it.Reason != reason {
				t.Errorf("diff item %+v, want weather_now removed from visible because %q", it, reason)
			}
			if !slices.Contains(gone.Removed, "weather_now") {
				t.Errorf("removed %v, want weather_now", gone.Removed)
			}

			switch {
			case tc.problem == "" && len(errs) != 0:
				t.Errorf("error events %+v, want none for a deleted tool", errs)
			case tc.problem != "" && (len(errs) != 1 || errs[0].Kind != "tool_skipped" || !strings.Contains(errs[0].Message, tc.problem)):
				t.Errorf("error events %+v, want one tool_skipped with %q", errs, tc.problem)
			}
		})
	}
}
