package engine

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/tools"
	"tinyelf/internal/testutil"
)

// releasingSource is a tool source with per-session resources: it counts
// the sessions it holds something for and the releases it was told of.
type releasingSource struct {
	mu       sync.Mutex
	held     map[string]bool
	released []string
}

func (r *releasingSource) Tools(_ context.Context, info SessionInfo) []tools.Tool {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.held[info.ID] = true
	return nil
}

func (r *releasingSource) Release(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.held, id)
	r.released = append(r.released, id)
}

func (r *releasingSource) holds(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.held[id]
}

func (h *harness) states() int {
	h.engine.mu.Lock()
	defer h.engine.mu.Unlock()
	return len(h.engine.sessions)
}

// TestReadOnlyLookupsKeepNoState: listing sessions (Running, Pending,
// Wait, Cancel, Answer) does not make the engine remember them.
func TestReadOnlyLookupsKeepNoState(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "openai", nil)
	for i := range 100 {
		id := h.session(ModeDefault)
		if h.engine.Running(id) || len(h.engine.Pending(id)) != 0 || h.engine.Wait(context.Background(), id) != nil {
			t.Fatal("a session that never ran looks busy")
		}
		h.engine.Cancel(id)
		if h.engine.Answer(id, "c", ApprovalAnswer{Decision: Deny}) == nil {
			t.Fatal("answered a call nobody asked about")
		}
		if n := h.states(); n != 0 {
			t.Fatalf("after %d sessions listed, the engine holds %d states", i+1, n)
		}
	}
}

// TestIdleSessionsAreReleased: beyond MaxIdleSessions the least recently
// used idle sessions are dropped, and their sources told to release them.
func TestIdleSessionsAreReleased(t *testing.T) {
	t.Parallel()
	extra := 4
	turns := make([]llmtest.Turn, MaxIdleSessions+extra)
	for i := range turns {
		turns[i] = llmtest.Turn{Text: "ok"}
	}
	src := &releasingSource{held: map[string]bool{}}
	h := newHarness(t, "openai", turns, func(h *harness, o *Options) {
		o.ToolSources = []ToolSource{src}
		o.IdleTimeout = -1 // only the count evicts here
	})
	var ids []string
	for range len(turns) {
		id := h.session(ModeDefault)
		ids = append(ids, id)
		h.run(id, "hi")
	}
	if n := h.states(); n != MaxIdleSessions {
		t.Errorf("the engine holds %d states, want %d", n, MaxIdleSessions)
	}
	src.mu.Lock()
	released := slices.Clone(src.released)
	src.mu.Unlock()
	if !slices.Equal(released, ids[:extra]) {
		t.Errorf("released %v, want the %d oldest %v", released, extra, ids[:extra])
	}
	h.engine.Shutdown(context.Background())
}

// TestIdleTimeoutReleasesASession: a session idle for IdleTimeout is
// released, and comes back whole at its next turn.
func TestIdleTimeoutReleasesASession(t *testing.T) {
	t.Parallel()
	src := &releasingSource{held: map[string]bool{}}
	h := newHarness(t, "openai", []llmtest.Turn{{Text: "one"}, {Text: "two"}}, func(h *harness, o *Options) {
		o.ToolSources = []ToolSource{src}
		o.IdleTimeout = 50 * time.Millisecond
	})
	id := h.session(ModeDefault)
	h.run(id, "first")
	testutil.WaitFor(t, "the idle session is released", func() bool { return !src.holds(id) && h.states() == 0 })
	if res := h.run(id, "second"); res.Reason != EndDone || res.Text != "two" {
		t.Fatalf("the released session's next turn: %+v", res)
	}
	if !src.holds(id) {
		t.Error("the source was not asked again for the session's tools")
	}
	h.engine.Shutdown(context.Background())
}
