package api

import (
	"context"
	"testing"
	"time"

	"tinyelf/backend/engine"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
)

// userSeqOf returns the seq of the session's user message with this text.
func userSeqOf(t *testing.T, v SessionView, text string) int64 {
	t.Helper()
	for _, m := range v.Messages {
		if m.Kind == sessions.UIUser && m.Text == text {
			return m.Seq
		}
	}
	t.Fatalf("no user message %q", text)
	return 0
}

func TestBranchesInPlace(t *testing.T) {
	t.Parallel()
	h := newSvc(t, llmtest.Turn{Text: "hi"}, llmtest.Turn{Text: "a banana"}, llmtest.Turn{Text: "an apple"})
	h.addProvider()
	ctx := context.Background()
	root, err := h.svc.CreateSession(ctx, CreateSessionArgs{Workspace: h.workspace})
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"hello there", "find the banana"} {
		if _, err := h.svc.SendMessage(ctx, SendArgs{SessionID: root.ID, Text: text}); err != nil {
			t.Fatal(err)
		}
		h.waitFor(root.ID, string(sessions.EventTurnEnd))
		if err := h.svc.engine.Wait(ctx, root.ID); err != nil {
			t.Fatal(err)
		}
	}
	rv, _ := h.svc.GetSession(ctx, IDArgs{ID: root.ID})
	if rv.Conversation != nil {
		t.Errorf("a session without branches has a conversation: %+v", rv.Conversation)
	}
	branch, err := h.svc.ResendEdited(ctx, ResendArgs{SessionID: root.ID, Seq: userSeqOf(t, rv, "find the banana"), Text: "find the apple"})
	if err != nil {
		t.Fatal(err)
	}
	h.waitFor(branch.ID, string(sessions.EventTurnEnd))
	if err := h.svc.engine.Wait(ctx, branch.ID); err != nil {
		t.Fatal(err)
	}

	// One item in the list: the root's, opening the branch.
	list, err := h.svc.ListSessions(ctx, ListSessionsArgs{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != root.ID || list[0].Open != branch.ID || len(list[0].Versions) != 2 || list[0].Versions[1] != branch.ID {
		t.Fatalf("list = %+v", list)
	}
	if list[0].Title != "hello there" {
		t.Errorf("the item has the root's title: %q", list[0].Title)
	}

	// The switcher sits on the edited message, in both versions.
	for _, tc := range []struct {
		id, text string
		index    int
	}{{root.ID, "find the banana", 0}, {branch.ID, "find the apple", 1}} {
		v, err := h.svc.GetSession(ctx, IDArgs{ID: tc.id})
		if err != nil {
			t.Fatal(err)
		}
		c := v.Conversation
		if c == nil || c.Root != root.ID || len(c.Sessions) != 2 || len(c.Points) != 1 {
			t.Fatalf("conversation of %s = %+v", tc.text, c)
		}
		p := c.Points[0]
		if p.Seq != userSeqOf(t, v, tc.text) || p.Index != tc.index || len(p.Versions) != 2 ||
			p.Versions[0].Session != root.ID || p.Versions[1].Session != branch.ID {
			t.Errorf("point of %s = %+v", tc.text, p)
		}
	}

	// The shared first message is found once, under the conversation's title.
	if _, err := h.svc.RenameSession(ctx, RenameArgs{ID: branch.ID, Title: "Fruit"}); err != nil {
		t.Fatal(err)
	}
	hits, err := h.svc.Search(ctx, SearchArgs{Query: "hello"})
	if err != nil || len(hits) != 1 || hits[0].SessionTitle != "Fruit" {
		t.Errorf("search = %+v, %v", hits, err)
	}

	// Delete and restore take the whole conversation.
	if _, err := h.svc.DeleteSession(ctx, IDArgs{ID: root.ID}); err != nil {
		t.Fatal(err)
	}
	if list, _ := h.svc.ListSessions(ctx, ListSessionsArgs{}); len(list) != 0 {
		t.Errorf("after delete: %+v", list)
	}
	if _, err := h.svc.RestoreSession(ctx, IDArgs{ID: root.ID}); err != nil {
		t.Fatal(err)
	}
	if list, _ := h.svc.ListSessions(ctx, ListSessionsArgs{}); len(list) != 1 || len(list[0].Versions) != 2 {
		t.Errorf("after restore: %+v", list)
	}
}

func TestServiceNamesSessions(t *testing.T) {
	t.Parallel()
	h := newSvcWith(t, func(o *Options) { o.Titles = true }, llmtest.Turn{Text: "Done."})
	h.srv.AddRoute(llmtest.Route{System: engine.TitleSystemPrompt, Turn: llmtest.Turn{Text: "Banana search"}})
	h.addProvider()
	ctx := context.Background()
	sess, err := h.svc.CreateSession(ctx, CreateSessionArgs{Workspace: h.workspace})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.SendMessage(ctx, SendArgs{SessionID: sess.ID, Text: "find the banana"}); err != nil {
		t.Fatal(err)
	}
	h.waitFor(sess.ID, string(sessions.EventSessionTitled)) // the UI reloads the list on it
	deadline := time.Now().Add(10 * time.Second)
	for {
		list, _ := h.svc.ListSessions(ctx, ListSessionsArgs{})
		if len(list) == 1 && list[0].Title == "Banana search" && !list[0].Renamed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("list = %+v", list)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The user's title still wins, and "" goes back to the model's.
	if s, _ := h.svc.RenameSession(ctx, RenameArgs{ID: sess.ID, Title: "Mine"}); s.Title != "Mine" {
		t.Errorf("rename: %q", s.Title)
	}
	if s, _ := h.svc.RenameSession(ctx, RenameArgs{ID: sess.ID, Title: ""}); s.Title != "Banana search" {
		t.Errorf("rename to nothing: %q", s.Title)
	}
}
