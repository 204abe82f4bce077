package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"tinyelf/backend/config"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
	"tinyelf/internal/testutil"
)

func TestSessionTools(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		a := newActors(nil,
			"BUSY-B", []llmtest.Turn{{Text: "thinking", Hang: true}},
			"IDLE-C", []llmtest.Turn{{Text: "C answered the first time."}, {Text: "C got the follow-up."}},
			"NEW-D", []llmtest.Turn{{Text: "D started."}},
		)
		h := newHarness(t, kind, nil)
		a.install(h)
		ctx := context.Background()
		// New sessions start in auto mode, but one a session spawns gets no
		// looser mode than its own.
		if err := h.settings.Update(func(s *config.Settings) error { s.Permissions.Mode = "auto"; return nil }); err != nil {
			t.Fatal(err)
		}
		busy, idle := h.session(ModeDefault), h.session(ModeDefault)
		if res := h.run(idle, "IDLE-C: say something"); res.Reason != EndDone {
			t.Fatalf("C %+v", res)
		}
		if err := h.engine.Send(busy, "BUSY-B: think hard"); err != nil {
			t.Fatal(err)
		}
		testutil.WaitFor(t, "B is running", func() bool { return len(a.requests("BUSY-B")) == 1 })
		self := h.session(ModePlan)
		caller := h.session(ModeAcceptEdits)
		a.push("",
			llmtest.Turn{ToolCalls: []llmtest.ToolCall{
				call("l1", "SessionsList", `{"limit":10}`),
				call("h1", "SessionsHistory", fmt.Sprintf(`{"sessionId":%q}`, idle)),
				call("h2", "SessionsHistory", `{"sessionId":"nope"}`),
			}},
			llmtest.Turn{ToolCalls: []llmtest.ToolCall{
				call("s1", "SessionsSend", fmt.Sprintf(`{"sessionId":%q,"message":"hello me"}`, caller)),
				call("s2", "SessionsSend", fmt.Sprintf(`{"sessionId":%q,"message":"hello B"}`, busy)),
				call("s3", "SessionsSend", fmt.Sprintf(`{"sessionId":%q,"message":"IDLE-C follow-up"}`, idle)),
				call("n1", "SessionsSpawn", `{"prompt":"NEW-D: start here","title":"Side quest"}`),
				call("n2", "SessionsSpawn", `{"prompt":"NEW-E","agentId":"ghost"}`),
			}},
			llmtest.Turn{Text: "done"},
		)
		if res := h.run(caller, "look at the other sessions"); res.Reason != EndDone {
			t.Fatalf("caller %+v", res)
		}
		results := map[string]sessions.ToolResult{}
		for _, r := range toolResults(h, caller) {
			results[r.CallID] = r
		}
		mustContain(t, "SessionsList", results["l1"].Content, busy, idle, self, "running")
		mustContain(t, "SessionsHistory", results["h1"].Content, "[user]", "IDLE-C: say something", "[assistant]", "C answered the first time.")
		mustContain(t, "SessionsHistory of nothing", results["h2"].Content, `there is no session "nope"`)
		mustContain(t, "send to itself", results["s1"].Content, "is your own session")
		mustContain(t, "send to a busy one", results["s2"].Content, "is still working on a turn")
		mustContain(t, "send", results["s3"].Content, "Sent to session "+idle)
		mustContain(t, "spawn", results["n1"].Content, "Started session")
		mustContain(t, "spawn with an unknown agent", results["n2"].Content, `no agent profile "ghost"`)
		for _, id := range []string{"s1", "s2", "h2", "n2"} {
			if !results[id].IsError {
				t.Errorf("%s is not an error result: %s", id, results[id].Content)
			}
		}
		// SessionsHistory is safe; the others asked.
		h.mu.Lock()
		var asked []string
		for _, q := range h.asked {
			asked = append(asked, q.Tool)
		}
		h.mu.Unlock()
		if strings.Contains(strings.Join(asked, " "), "SessionsHistory") || !strings.Contains(strings.Join(asked, " "), "SessionsList") {
			t.Errorf("asked for %v", asked)
		}
		testutil.WaitFor(t, "C answers the follow-up", func() bool { return len(a.requests("IDLE-C")) == 2 && !h.engine.Running(idle) })
		testutil.WaitFor(t, "D starts", func() bool { return len(a.requests("NEW-D")) == 1 })
		var d sessions.Session
		list, _ := h.store.List(ctx, sessions.ListOptions{})
		for _, s := range list {
			if s.Title == "Side quest" {
				d = s
			}
		}
		if d.ID == "" || d.Mode != string(ModeAcceptEdits) || d.Subagent() {
			t.Errorf("spawned session %+v", d)
		}
		h.engine.Cancel(busy)
	})
}
