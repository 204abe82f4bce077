package sessions

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// exchange is a user message and its answer.
func exchange(text string) []Event {
	return []Event{
		NewEvent(EventUserMessage, UserMessage{Text: text}),
		NewEvent(EventAssistantMessage, AssistantMessage{Text: "re: " + text}),
	}
}

// branchWorld is a store with a conversation edited several times.
type branchWorld struct {
	t     *testing.T
	s     *Store
	names map[string]string // session ID -> name in the test
	ids   map[string]string // name -> session ID
}

func newBranchWorld(t *testing.T) *branchWorld {
	return &branchWorld{t: t, s: openTestStore(t, WithClock(newTestClock().Now)), names: map[string]string{}, ids: map[string]string{}}
}

func (w *branchWorld) name(n, id string) { w.names[id], w.ids[n] = n, id }

// userSeq returns the seq of a session's user message with this text.
func (w *branchWorld) userSeq(name, text string) int64 {
	w.t.Helper()
	msgs, err := w.s.UIMessages(context.Background(), w.ids[name])
	if err != nil {
		w.t.Fatal(err)
	}
	for _, m := range msgs {
		if m.Kind == UIUser && m.Text == text {
			return m.Seq
		}
	}
	w.t.Fatalf("%s has no user message %q", name, text)
	return 0
}

// edit makes a branch of parent that sends text instead of the message old.
func (w *branchWorld) edit(name, parent, old, text string) {
	w.t.Helper()
	b, err := w.s.Branch(context.Background(), w.ids[parent], w.userSeq(parent, old)-1)
	if err != nil {
		w.t.Fatal(err)
	}
	w.name(name, b.ID)
	mustAppend(w.t, w.s, b.ID, exchange(text)...)
}

// points describes a session's branch points: "text index/count[names]".
func (w *branchWorld) points(name string) (root string, members int, desc []string) {
	w.t.Helper()
	conv, err := w.s.Conversation(context.Background(), w.ids[name])
	if err != nil {
		w.t.Fatal(err)
	}
	msgs, err := w.s.UIMessages(context.Background(), w.ids[name])
	if err != nil {
		w.t.Fatal(err)
	}
	text := map[int64]string{}
	for _, m := range msgs {
		text[m.Seq] = m.Text
	}
	for _, p := range conv.Points {
		var open []string
		for _, v := range p.Versions {
			vm, err := w.s.UIMessages(context.Background(), v.Session)
			if err != nil {
				w.t.Fatal(err)
			}
			shown := ""
			for _, m := range vm {
				if m.Seq == v.Seq {
					shown = m.Text
				}
			}
			open = append(open, w.names[v.Session]+":"+shown)
		}
		desc = append(desc, fmt.Sprintf("%s %d/%d [%s]", text[p.Seq], p.Index+1, len(p.Versions), strings.Join(open, " ")))
	}
	return w.names[conv.Root.ID], len(conv.Sessions), desc
}

func TestConversationBranches(t *testing.T) {
	t.Parallel()
	w := newBranchWorld(t)
	a := mustCreate(t, w.s, SessionCreated{Workspace: "/w", Mode: "default"})
	w.name("A", a.ID)
	mustAppend(t, w.s, a.ID, exchange("one")...)
	// A delete and its undo before the fork point: the branches' seqs are
	// renumbered, their message order is not.
	if err := w.s.Delete(context.Background(), a.ID); err != nil {
		t.Fatal(err)
	}
	if err := w.s.Restore(context.Background(), a.ID); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, w.s, a.ID, exchange("two")...)
	mustAppend(t, w.s, a.ID, exchange("three")...)

	w.edit("B", "A", "two", "two, edited") // B: one, two edited
	mustAppend(t, w.s, w.ids["B"], exchange("three in B")...)
	w.edit("C", "B", "two, edited", "two, again") // C: one, two again
	w.edit("D", "B", "three in B", "three, edited in B")
	if !mustGet(t, w.s, w.ids["D"]).Branch || mustGet(t, w.s, a.ID).Branch {
		t.Fatalf("only the edits are branches")
	}

	for _, tc := range []struct {
		view string
		want []string
	}{
		// D is newer than B, so B's version of "two" opens in D.
		{"A", []string{"two 1/3 [A:two D:two, edited C:two, again]"}},
		{"B", []string{"two, edited 2/3 [A:two B:two, edited C:two, again]", "three in B 1/2 [B:three in B D:three, edited in B]"}},
		{"C", []string{"two, again 3/3 [A:two D:two, edited C:two, again]"}},
		{"D", []string{"two, edited 2/3 [A:two D:two, edited C:two, again]", "three, edited in B 2/2 [B:three in B D:three, edited in B]"}},
	} {
		t.Run("viewed from "+tc.view, func(t *testing.T) {
			root, members, got := w.points(tc.view)
			if root != "A" || members != 4 {
				t.Errorf("root %s with %d sessions, want A with 4", root, members)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("points:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}

	t.Run("a plain fork is a conversation of its own", func(t *testing.T) {
		f, err := w.s.Fork(context.Background(), a.ID, w.userSeq("A", "two"))
		if err != nil {
			t.Fatal(err)
		}
		w.name("F", f.ID)
		root, members, got := w.points("F")
		if root != "F" || members != 1 || len(got) != 0 {
			t.Errorf("fork: root %s, %d sessions, points %v", root, members, got)
		}
		if _, members, _ := w.points("A"); members != 4 {
			t.Errorf("the fork joined A's conversation: %d sessions", members)
		}
	})

	t.Run("a deleted branch leaves the versions", func(t *testing.T) {
		if err := w.s.Delete(context.Background(), w.ids["C"]); err != nil {
			t.Fatal(err)
		}
		_, members, got := w.points("A")
		if members != 3 || strings.Join(got, "\n") != "two 1/2 [A:two D:two, edited]" {
			t.Errorf("%d sessions, points %v", members, got)
		}
		// Seen from the deleted branch itself, it is still there.
		if _, members, _ := w.points("C"); members != 4 {
			t.Errorf("from C: %d sessions", members)
		}
	})
	checkRebuildMatches(t, w.s)
}

func TestConversationOrphanBranch(t *testing.T) {
	t.Parallel()
	s := openTestStore(t, WithClock(newTestClock().Now))
	a := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	mustAppend(t, s, a.ID, exchange("one")...)
	b, err := s.Branch(context.Background(), a.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, b.ID, exchange("one, edited")...)
	// The parent goes for good: the branch is a conversation of its own.
	if err := s.Delete(context.Background(), a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Purge(context.Background(), mustGet(t, s, a.ID).DeletedAt.Add(time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	conv, err := s.Conversation(context.Background(), b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if conv.Root.ID != b.ID || len(conv.Sessions) != 1 || len(conv.Points) != 0 {
		t.Errorf("conversation = %s", mustJSON(t, conv))
	}
	if _, err := s.Conversation(context.Background(), "nope"); err == nil {
		t.Errorf("Conversation of an unknown session did not fail")
	}
}

func TestGeneratedTitles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTestStore(t, WithClock(newTestClock().Now))
	a := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	mustAppend(t, s, a.ID, exchange("please fix the failing tests in the parser")...)
	steps := []struct {
		do            func()
		title         string
		renamed, tled bool
	}{
		{func() {}, "please fix the failing tests in the parser", false, false},
		{func() {
			mustAppend(t, s, a.ID, NewEvent(EventSessionTitled, SessionTitled{Title: " Parser test fixes ", Model: "fake/small"}))
		}, "Parser test fixes", false, true},
		{func() {
			if err := s.Rename(ctx, a.ID, "Mine"); err != nil {
				t.Fatal(err)
			}
		}, "Mine", true, true},
		{func() {
			mustAppend(t, s, a.ID, NewEvent(EventSessionTitled, SessionTitled{Title: "Later title"}))
		}, "Mine", true, true},
		{func() {
			if err := s.Rename(ctx, a.ID, ""); err != nil {
				t.Fatal(err)
			}
		}, "Later title", false, true},
	}
	for i, st := range steps {
		st.do()
		got := mustGet(t, s, a.ID)
		if got.Title != st.title || got.Renamed != st.renamed || got.Titled() != st.tled {
			t.Errorf("step %d: title %q renamed %v titled %v, want %q %v %v", i, got.Title, got.Renamed, got.Titled(), st.title, st.renamed, st.tled)
		}
	}
	checkRebuildMatches(t, s)
}

func TestDecisionReasonOnTheToolItem(t *testing.T) {
	t.Parallel()
	s := openTestStore(t)
	a := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	mustAppend(t, s, a.ID,
		NewEvent(EventToolIntent, ToolIntent{CallID: "c1", Name: "Bash", Arguments: `{"command":"mkfs /dev/sda"}`}),
		NewEvent(EventApprovalAnswered, ApprovalAnswered{CallID: "c1", Decision: "deny", By: "guard", Reason: "Refused: mkfs erases the device."}),
	)
	msgs, err := s.UIMessages(context.Background(), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	tool := msgs[len(msgs)-1].Tool
	if tool == nil || tool.Status != ToolDenied || tool.DecidedBy != "guard" || tool.Reason != "Refused: mkfs erases the device." {
		t.Errorf("tool item = %s", mustJSON(t, msgs[len(msgs)-1]))
	}
}
