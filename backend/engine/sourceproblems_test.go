package engine

import (
	"context"
	"slices"
	"sync"
	"testing"

	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
	"tinyelf/backend/tools"
)

// problemSource is a ToolSource whose problems the test sets.
type problemSource struct {
	mu    sync.Mutex
	lines []string
}

func (p *problemSource) Tools(context.Context, SessionInfo) []tools.Tool {
	return []tools.Tool{userTool{"weather_now"}}
}

func (p *problemSource) ToolProblems(context.Context, SessionInfo) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.lines)
}

func (p *problemSource) set(lines ...string) {
	p.mu.Lock()
	p.lines = lines
	p.mu.Unlock()
}

// TestSourceProblemsAreLogged: what a source left out is in the session's
// log as a tool_skipped error — at a session's first model call, and again
// only when it changes — so the user can read it later in the chat.
func TestSourceProblemsAreLogged(t *testing.T) {
	t.Parallel()
	src := &problemSource{}
	src.set("Skipped grep (personal, /data/agents/default/tools/grep.py): its name is taken by the core tool Grep; rename the file")
	h := newHarness(t, "openai", []llmtest.Turn{{Text: "a"}, {Text: "b"}, {Text: "c"}, {Text: "d"}, {Text: "e"}},
		func(h *harness, o *Options) { o.ToolSources = []ToolSource{src} })
	id := h.session(ModeDefault)
	h.run(id, "one")
	h.run(id, "two") // unchanged: not logged again
	src.set()
	h.run(id, "three") // gone: nothing to tell
	src.set("Error in mail (common, /data/common_tools/mail.py): SyntaxError: invalid syntax (line 3)")
	h.run(id, "four")

	errs := logged[sessions.Error](h, id, sessions.EventError)
	if len(errs) != 2 {
		t.Fatalf("error events %+v, want two tool_skipped", errs)
	}
	for i, want := range []string{"core tool Grep", "SyntaxError"} {
		if errs[i].Kind != ErrorToolSkipped {
			t.Errorf("error %d kind %q, want %q", i, errs[i].Kind, ErrorToolSkipped)
		}
		mustContain(t, "the problem report", errs[i].Message, want)
	}

	// Another session learns it too, at its first call.
	other := h.session(ModeDefault)
	h.run(other, "five")
	if errs := logged[sessions.Error](h, other, sessions.EventError); len(errs) != 1 || errs[0].Kind != ErrorToolSkipped {
		t.Errorf("the second session's errors %+v", errs)
	}

	// Reopened, a session compares with its log: the same problems are
	// not told again, new ones are.
	h.restart([]llmtest.Turn{{Text: "f"}, {Text: "g"}})
	h.run(id, "six")
	if errs := logged[sessions.Error](h, id, sessions.EventError); len(errs) != 2 {
		t.Errorf("after reopening with the same problems: %d error events, want still 2", len(errs))
	}
	src.set("Error in mail (common, /data/common_tools/mail.py): SyntaxError: invalid syntax (line 3)",
		"Skipped bash (personal, /data/agents/default/tools/bash.py): its name is taken by the core tool Bash; rename the file")
	h.run(id, "seven")
	errs = logged[sessions.Error](h, id, sessions.EventError)
	if len(errs) != 3 {
		t.Fatalf("after a new problem: %d error events, want 3", len(errs))
	}
	mustContain(t, "the new report", errs[2].Message, "core tool Bash")
}
