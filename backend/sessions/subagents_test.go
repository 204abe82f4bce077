package sessions

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

// A subagent's session is linked to its parent in the list, survives a
// rebuild of the projections, is found by Descendants (deleted ones left
// out), and its fork is a top-level session of the user's.
func TestSubagentSessions(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, WithClock(newTestClock().Now))
	root := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	other := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	child := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "plan", Agent: "researcher",
		Parent: root.ID, ParentCallID: "call_1", Inherited: []string{"read_skill", "mcp__github__search"}, Background: true})
	grand := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "plan", Parent: child.ID, ParentCallID: "call_9", Inherited: []string{}})
	gone := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "plan", Parent: root.ID, ParentCallID: "call_2"})
	if err := s.Delete(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}

	check := func(t *testing.T) {
		t.Helper()
		got, err := s.Get(ctx, child.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Parent != root.ID || got.ParentCallID != "call_1" || !got.Background || !got.Subagent() ||
			!slices.Equal(got.Inherited, []string{"read_skill", "mcp__github__search"}) {
			t.Errorf("child session = %+v", got)
		}
		top, err := s.List(ctx, ListOptions{TopLevel: true})
		if err != nil {
			t.Fatal(err)
		}
		if ids := sessionIDs(top); !slices.Equal(ids, []string{other.ID, root.ID}) {
			t.Errorf("top-level sessions = %v, want %v", ids, []string{other.ID, root.ID})
		}
		kids, err := s.List(ctx, ListOptions{Parent: root.ID})
		if err != nil {
			t.Fatal(err)
		}
		if ids := sessionIDs(kids); !slices.Equal(ids, []string{child.ID}) {
			t.Errorf("children of root = %v, want %v", ids, []string{child.ID})
		}
		desc, err := s.Descendants(ctx, []string{root.ID, other.ID})
		if err != nil {
			t.Fatal(err)
		}
		if ids := sessionIDs(desc); !slices.Equal(ids, []string{grand.ID, child.ID}) {
			t.Errorf("descendants = %v, want %v (newest first, deleted left out)", ids, []string{grand.ID, child.ID})
		}
	}
	t.Run("as appended", check)
	if err := s.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	t.Run("after a rebuild", check)

	t.Run("fork is top-level", func(t *testing.T) {
		fork, err := s.Fork(ctx, child.ID, 1)
		if err != nil {
			t.Fatal(err)
		}
		if fork.Subagent() || fork.Inherited != nil || fork.Background || fork.Agent != "researcher" {
			t.Errorf("fork of a subagent = %+v, want a top-level session of the same agent", fork)
		}
	})

	t.Run("purge takes the subagents along", func(t *testing.T) {
		if err := s.Delete(ctx, root.ID); err != nil {
			t.Fatal(err)
		}
		n, err := s.Purge(ctx, time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		if n != 4 { // root, its child, the grandchild, the deleted child
			t.Errorf("purged %d sessions, want 4", n)
		}
		if _, err := s.Get(ctx, grand.ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("the grandchild survived its root's purge: %v", err)
		}
		if _, err := s.Get(ctx, other.ID); err != nil {
			t.Errorf("an unrelated session was purged: %v", err)
		}
	})
}

func sessionIDs(list []Session) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = s.ID
	}
	return out
}
