package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tinyelf/backend/llm"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
)

// TestReadBeforeWriteInSession: the session refuses to overwrite a file
// the agent has not read, and remembers reads across a mode switch (which
// rebuilds the registry).
func TestReadBeforeWriteInSession(t *testing.T) {
	t.Parallel()
	h := newHarness(t, llm.KindOpenAI, []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{call("w1", "Write", `{"path":"notes.md","content":"blind\n"}`)}},
		{ToolCalls: []llmtest.ToolCall{call("r1", "Read", `{"path":"notes.md"}`)}},
		{Text: "read it"},
		{ToolCalls: []llmtest.ToolCall{call("w2", "Write", `{"path":"notes.md","content":"informed\n"}`)}},
		{Text: "written"},
	})
	h.writeFile("notes.md", "the user's notes\n")
	id := h.session(ModeDefault)
	if res := h.run(id, "overwrite and read"); res.Reason != EndDone {
		t.Fatalf("first turn %+v", res)
	}
	if _, err := h.store.Append(context.Background(), id, sessions.NewEvent(sessions.EventModeChanged, sessions.ModeChanged{Mode: string(ModeAcceptEdits)})); err != nil {
		t.Fatal(err)
	}
	if res := h.run(id, "now write"); res.Reason != EndDone {
		t.Fatalf("second turn %+v", res)
	}
	results := logged[sessions.ToolResult](h, id, sessions.EventToolResult)
	if len(results) != 3 {
		t.Fatalf("results %+v", results)
	}
	if !results[0].IsError || !strings.Contains(results[0].Content, "you have not read it") {
		t.Errorf("blind overwrite: %+v", results[0])
	}
	if results[2].IsError {
		t.Errorf("write after read (across a mode switch) failed: %s", results[2].Content)
	}
	b, _ := os.ReadFile(filepath.Join(h.workspace, "notes.md"))
	if string(b) != "informed\n" {
		t.Errorf("file holds %q", b)
	}
}
