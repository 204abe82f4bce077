package engine

import (
	"testing"

	"tinyelf/backend/capabilities"
	"tinyelf/backend/llm"
	"tinyelf/backend/llm/llmtest"
)

// TestTurnLogWriteBudget holds ARCHITECTURE's budget of log writes, counted
// at the store (committed transactions that append events): a turn writes
// its log in two transactions per answer, so a text-only turn makes two
// (its start; the answer with the turn's end) and a turn with one tool
// call four (its start; the answer with the call's intent; the result; the
// final answer with the end). What the durable session state adds (read
// marks, promotions) goes out in those writes.
func TestTurnLogWriteBudget(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		mode  Mode
		turns []llmtest.Turn
		most  int64
	}{
		{"text only", ModeDefault, []llmtest.Turn{{Text: "hello"}}, 2},
		{"one Read", ModeDefault, []llmtest.Turn{{ToolCalls: []llmtest.ToolCall{call("r", "Read", `{"path":"a.txt"}`)}}, {Text: "read"}}, 4},
		{"one Write", ModeAcceptEdits, []llmtest.Turn{{ToolCalls: []llmtest.ToolCall{call("w", "Write", `{"path":"b.txt","content":"b"}`)}}, {Text: "written"}}, 4},
		{"one ToolSearch", ModeAuto, []llmtest.Turn{{ToolCalls: []llmtest.ToolCall{call("s", "ToolSearch", `{"query":"logs of the failed CI job"}`)}}, {Text: "found"}}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, llm.KindOpenAI, tc.turns, withFixtureCatalog(capabilities.NewCatalog(), 0))
			h.writeFile("a.txt", "a\n")
			id := h.session(tc.mode)
			before := h.store.LogWrites()
			if res := h.run(id, "go"); res.Reason != EndDone {
				t.Fatalf("%+v", res)
			}
			if n := h.store.LogWrites() - before; n > tc.most {
				t.Errorf("the turn made %d log writes, want at most %d", n, tc.most)
			}
		})
	}
}
