package sessions

import (
	"context"
	"reflect"
	"testing"
)

// Diffs as the engine logs them: the baseline, a ToolSearch that loads two
// deferred tools, the session reopened (a full diff again), an MCP server
// that disconnects.
var (
	diffBaseline = CapabilityDiff{
		Added: []string{"Read", "ToolSearch"}, Visible: []string{"Read", "ToolSearch"},
		Deferred: []string{"mcp__github__create_pull_request", "mcp__github__list_pull_requests", "mcp__github__get_me"},
		Items: []CapabilityItem{
			{ID: "local__Read", Name: "Read", Kind: "tool", Change: "added", To: "visible", Reason: "always visible: a local read-only tool", Hash: "r1"},
			{ID: "local__ToolSearch", Name: "ToolSearch", Kind: "tool", Change: "added", To: "visible", Reason: "always visible: it finds the other capabilities", Hash: "t1"},
			{ID: "mcp__github__create_pull_request", Name: "mcp__github__create_pull_request", Kind: "tool", Change: "added", To: "deferred", Reason: "deferred to the index"},
			{ID: "mcp__github__list_pull_requests", Name: "mcp__github__list_pull_requests", Kind: "tool", Change: "added", To: "deferred", Reason: "deferred to the index"},
			{ID: "mcp__github__get_me", Name: "mcp__github__get_me", Kind: "tool", Change: "added", To: "deferred", Reason: "deferred to the index"},
			{ID: "skill__release", Name: "release", Kind: "skill", Change: "added", To: "deferred", Reason: "in the skill index"},
		},
		DeferReason: "deferral is always on",
	}
	diffSearch = CapabilityDiff{
		Added:    []string{"mcp__github__create_pull_request", "mcp__github__list_pull_requests"},
		Reasons:  []string{`found by ToolSearch "pull request"`},
		Visible:  []string{"Read", "ToolSearch", "mcp__github__create_pull_request", "mcp__github__list_pull_requests"},
		Deferred: []string{"mcp__github__get_me"},
		Items: []CapabilityItem{
			{ID: "mcp__github__create_pull_request", Name: "mcp__github__create_pull_request", Kind: "tool", Change: "changed", From: "deferred", To: "visible", Reason: `found by ToolSearch "pull request"`, Hash: "c1"},
			{ID: "mcp__github__list_pull_requests", Name: "mcp__github__list_pull_requests", Kind: "tool", Change: "changed", From: "deferred", To: "visible", Reason: `found by ToolSearch "pull request"`, Hash: "l1"},
		},
		DeferReason: "deferral is always on",
	}
	// diffReopened is what a reopened session logs when nothing changed:
	// everything again, as added.
	diffReopened = CapabilityDiff{
		Added:    []string{"Read", "ToolSearch", "mcp__github__create_pull_request", "mcp__github__list_pull_requests"},
		Visible:  diffSearch.Visible,
		Deferred: diffSearch.Deferred,
		Items: []CapabilityItem{
			{ID: "local__Read", Name: "Read", Kind: "tool", Change: "added", To: "visible", Reason: "always visible: a local read-only tool", Hash: "r1"},
			{ID: "local__ToolSearch", Name: "ToolSearch", Kind: "tool", Change: "added", To: "visible", Reason: "always visible", Hash: "t1"},
			{ID: "mcp__github__create_pull_request", Name: "mcp__github__create_pull_request", Kind: "tool", Change: "added", To: "visible", Reason: "visible before the session was reopened", Hash: "c1"},
			{ID: "mcp__github__list_pull_requests", Name: "mcp__github__list_pull_requests", Kind: "tool", Change: "added", To: "visible", Reason: "visible before the session was reopened", Hash: "l1"},
			{ID: "mcp__github__get_me", Name: "mcp__github__get_me", Kind: "tool", Change: "added", To: "deferred", Reason: "deferred to the index"},
			{ID: "skill__release", Name: "release", Kind: "skill", Change: "added", To: "deferred", Reason: "in the skill index"},
		},
	}
	diffDisconnect = CapabilityDiff{
		Removed: []string{"mcp__github__create_pull_request", "mcp__github__list_pull_requests"},
		Reasons: []string{"MCP server github disconnected: EOF"},
		Visible: []string{"Read", "ToolSearch"},
		Items: []CapabilityItem{
			{ID: "mcp__github__create_pull_request", Name: "mcp__github__create_pull_request", Kind: "tool", Change: "removed", From: "visible", Reason: "MCP server github disconnected: EOF"},
			{ID: "mcp__github__list_pull_requests", Name: "mcp__github__list_pull_requests", Kind: "tool", Change: "removed", From: "visible", Reason: "MCP server github disconnected: EOF"},
			{ID: "mcp__github__get_me", Name: "mcp__github__get_me", Kind: "tool", Change: "removed", From: "deferred", Reason: "MCP server github disconnected: EOF"},
		},
	}
)

func TestCapabilityChange(t *testing.T) {
	t.Parallel()
	// A reopened session whose MCP server has not connected yet, and that
	// has a new local tool.
	reopenedWithout := CapabilityDiff{
		Visible: []string{"Read", "ToolSearch", "Grep"},
		Items: []CapabilityItem{
			{Name: "Read", Kind: "tool", Change: "added", To: "visible", Reason: "always visible", Hash: "r1"},
			{Name: "ToolSearch", Kind: "tool", Change: "added", To: "visible", Reason: "always visible", Hash: "t1"},
			{Name: "Grep", Kind: "tool", Change: "added", To: "visible", Reason: "always visible: a local read-only tool", Hash: "g1"},
		},
	}
	tests := []struct {
		name        string
		diff        CapabilityDiff
		prev        *CapabilityDiff
		wantNil     bool
		baseline    bool
		rebuilt     bool
		added       []string
		removed     []string
		reasons     []string
		items       int
		visible     int
		deferred    int
		removedFrom map[string]string
	}{
		{name: "the first diff is the baseline", diff: diffBaseline, baseline: true,
			added: []string{"Read", "ToolSearch"}, items: 6, visible: 2, deferred: 3,
			reasons: []string{"always visible: a local read-only tool", "always visible: it finds the other capabilities", "deferred to the index", "in the skill index"}},
		{name: "a search loads two tools", diff: diffSearch, prev: &diffBaseline,
			added: []string{"mcp__github__create_pull_request", "mcp__github__list_pull_requests"}, items: 2, visible: 4, deferred: 1,
			reasons: []string{`found by ToolSearch "pull request"`}},
		{name: "a reopened session that sees the same is no change", diff: diffReopened, prev: &diffSearch, wantNil: true},
		{name: "a reopened session shows only what differs", diff: reopenedWithout, prev: &diffSearch, rebuilt: true,
			added: []string{"Grep"}, removed: []string{"mcp__github__create_pull_request", "mcp__github__list_pull_requests"}, items: 4, visible: 3,
			reasons:     []string{"always visible: a local read-only tool", reopenedReason},
			removedFrom: map[string]string{"mcp__github__get_me": "deferred"}},
		{name: "a disconnect removes visible and deferred tools", diff: diffDisconnect, prev: &diffReopened,
			removed: []string{"mcp__github__create_pull_request", "mcp__github__list_pull_requests"}, items: 3, visible: 2,
			reasons: []string{"MCP server github disconnected: EOF"}},
		{name: "a diff of names only (older logs)", prev: &CapabilityDiff{Visible: []string{"Bash", "Read"}},
			diff:  CapabilityDiff{Added: []string{"WebFetch"}, Removed: []string{"Bash"}, Reasons: []string{"the task asks for the web"}, Visible: []string{"Read", "WebFetch"}},
			added: []string{"WebFetch"}, removed: []string{"Bash"}, items: 2, visible: 2, reasons: []string{"the task asks for the web"}},
		{name: "an empty diff after one is nothing", diff: CapabilityDiff{Visible: []string{"Read"}}, prev: &CapabilityDiff{Visible: []string{"Read"}}, wantNil: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := capabilityChange(tt.diff, tt.prev)
			if tt.wantNil {
				if c != nil {
					t.Fatalf("got an item: %s", mustJSON(t, c))
				}
				return
			}
			if c == nil {
				t.Fatal("no item")
			}
			if c.Baseline != tt.baseline || c.Rebuilt != tt.rebuilt || !reflect.DeepEqual(c.Added, tt.added) ||
				!reflect.DeepEqual(c.Removed, tt.removed) || !reflect.DeepEqual(c.Reasons, tt.reasons) ||
				len(c.Items) != tt.items || c.Visible != tt.visible || c.Deferred != tt.deferred {
				t.Errorf("got %s", mustJSON(t, c))
			}
			for name, from := range tt.removedFrom {
				found := false
				for _, it := range c.Items {
					if it.Name == name && it.Change == "removed" && it.From == from && it.Reason == reopenedReason {
						found = true
					}
				}
				if !found {
					t.Errorf("no removal of %s from %s: %s", name, from, mustJSON(t, c.Items))
				}
			}
		})
	}
}

// TestCapabilityItemsReplay checks that the chat's capability items come
// out the same from single appends, one batch, Replay, Rebuild and a fork:
// each is a projection of the log alone.
func TestCapabilityItemsReplay(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	evs := []Event{
		NewEvent(EventTurnStart, TurnStart{Mode: "default"}),
		NewEvent(EventUserMessage, UserMessage{Text: "open a pull request"}),
		NewEvent(EventCapabilityDiff, diffBaseline),
		NewEvent(EventModelRequest, ModelRequest{Iteration: 1, ToolTokens: 900, IndexTokens: 60}),
		NewEvent(EventAssistantMessage, AssistantMessage{ToolCalls: []ToolCallRecord{{ID: "s1", Name: "ToolSearch", Arguments: `{"query":"pull request"}`}}}),
		NewEvent(EventToolIntent, ToolIntent{CallID: "s1", Name: "ToolSearch", Arguments: `{"query":"pull request"}`}),
		NewEvent(EventToolResult, ToolResult{CallID: "s1", Name: "ToolSearch", Content: "2 found"}),
		NewEvent(EventCapabilityDiff, diffSearch),
		NewEvent(EventModelRequest, ModelRequest{Iteration: 2, ToolTokens: 2100, IndexTokens: 20}),
		NewEvent(EventAssistantMessage, AssistantMessage{ToolCalls: []ToolCallRecord{{ID: "k1", Name: "read_skill", Arguments: `{"name":"release"}`}}}),
		NewEvent(EventToolIntent, ToolIntent{CallID: "k1", Name: "read_skill", Arguments: `{"name":"release"}`}),
		NewEvent(EventToolResult, ToolResult{CallID: "k1", Name: "read_skill", Content: "# Release"}),
		NewEvent(EventCapabilityLoad, CapabilityLoaded{ID: "skill__release", Kind: "skill", Name: "release", Source: "skill:project", CallID: "k1"}),
		NewEvent(EventAssistantMessage, AssistantMessage{Text: "Done."}),
		NewEvent(EventTurnEnd, TurnEnd{Reason: "done"}),
		// The app restarted: the next turn's first diff lists everything.
		NewEvent(EventTurnStart, TurnStart{Mode: "default"}),
		NewEvent(EventUserMessage, UserMessage{Text: "and now?"}),
		NewEvent(EventCapabilityDiff, diffReopened),
		NewEvent(EventCapabilityDiff, diffDisconnect),
		NewEvent(EventAssistantMessage, AssistantMessage{Text: "The server is gone."}),
		NewEvent(EventTurnEnd, TurnEnd{Reason: "done"}),
	}
	build := func(single bool) (*Store, string) {
		s := openTestStore(t, WithClock(newTestClock().Now))
		sess := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
		if single {
			for _, ev := range evs {
				mustAppend(t, s, sess.ID, ev)
			}
		} else {
			mustAppend(t, s, sess.ID, evs...)
		}
		return s, sess.ID
	}
	capItems := func(ui []UIMessage) []UIMessage {
		var out []UIMessage
		for _, m := range ui {
			if m.Kind == UICapabilities || m.Kind == UILoaded {
				out = append(out, m)
			}
		}
		return out
	}
	batch, batchID := build(false)
	single, singleID := build(true)
	batchUI, _ := batch.UIMessages(ctx, batchID)
	singleUI, _ := single.UIMessages(ctx, singleID)
	if !reflect.DeepEqual(batchUI, singleUI) {
		t.Fatalf("single appends and one batch differ:\n%s\n%s", mustJSON(t, singleUI), mustJSON(t, batchUI))
	}
	st, err := batch.Replay(ctx, batchID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(st.UI, batchUI) {
		t.Fatalf("replay differs from the stored projection:\n%s\n%s", mustJSON(t, st.UI), mustJSON(t, batchUI))
	}
	items := capItems(batchUI)
	type row struct {
		seq      int64
		kind     UIKind
		baseline bool
		added    int
		removed  int
	}
	var got []row
	for _, m := range items {
		r := row{seq: m.Seq, kind: m.Kind}
		if c := m.Capabilities; c != nil {
			r.baseline, r.added, r.removed = c.Baseline, len(c.Added), len(c.Removed)
		}
		got = append(got, r)
	}
	// The reopened diff (seq 19) changed nothing and has no item.
	want := []row{{4, UICapabilities, true, 2, 0}, {9, UICapabilities, false, 2, 0}, {14, UILoaded, false, 0, 0}, {20, UICapabilities, false, 0, 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("capability items = %+v\nwant %+v", got, want)
	}
	if l := items[2].Loaded; l == nil || l.Name != "release" || l.Kind != "skill" || l.CallID != "k1" {
		t.Errorf("loaded item = %+v", items[2].Loaded)
	}
	checkRebuildMatches(t, batch)

	if r, err := batch.LastModelRequest(ctx, batchID); err != nil || r == nil || r.Iteration != 2 || r.ToolTokens != 2100 || r.IndexTokens != 20 {
		t.Errorf("LastModelRequest = %+v, %v", r, err)
	}
	none := mustCreate(t, batch, SessionCreated{Workspace: "/w", Mode: "default"})
	if r, err := batch.LastModelRequest(ctx, none.ID); r != nil || err != nil {
		t.Errorf("LastModelRequest of a new session = %+v, %v", r, err)
	}

	// A fork copies the log up to a seq and projects it afresh.
	fork, err := batch.Fork(ctx, batchID, 10)
	if err != nil {
		t.Fatal(err)
	}
	forkUI, _ := batch.UIMessages(ctx, fork.ID)
	if got, want := capItems(forkUI), items[:2]; !reflect.DeepEqual(got, want) {
		t.Errorf("fork's capability items = %s\nwant %s", mustJSON(t, got), mustJSON(t, want))
	}
}
