package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"tinyelf/backend/config"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
)

// withTitles turns session naming on.
func withTitles() harnessOption {
	return func(h *harness, o *Options) { o.Titles = true }
}

// titleRequests returns the requests that asked for a title.
func titleRequests(srv *llmtest.Server) []llmtest.Request {
	var out []llmtest.Request
	for _, r := range srv.ChatRequests() {
		if strings.Contains(r.System(), TitleSystemPrompt) {
			out = append(out, r)
		}
	}
	return out
}

// waitTitled waits until the session's list entry carries a title a model
// wrote.
func waitTitled(t *testing.T, h *harness, id string) sessions.Session {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		s, err := h.store.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if s.Titled() {
			return s
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("session %s got no title", id)
	return sessions.Session{}
}

func TestSessionTitles(t *testing.T) {
	t.Parallel()
	for _, kind := range wireFormats {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, kind, []llmtest.Turn{{Text: "The parser now accepts empty input."}, {Text: "Done again."}}, withTitles())
			h.srv.AddRoute(llmtest.Route{System: TitleSystemPrompt, Turn: llmtest.Turn{Text: "## “Fixing the parser.”\nmore words"}})
			id := h.session(ModeDefault)
			h.run(id, "please fix the parser on empty input")
			s := waitTitled(t, h, id)
			if s.Title != "Fixing the parser" || s.Renamed {
				t.Errorf("title %q (renamed %v), want the model's, cleaned", s.Title, s.Renamed)
			}
			titled := logged[sessions.SessionTitled](h, id, sessions.EventSessionTitled)
			if len(titled) != 1 || titled[0].Model != "fake/test-model" {
				t.Errorf("session.titled = %+v", titled)
			}
			reqs := titleRequests(h.srv)
			if len(reqs) != 1 {
				t.Fatalf("%d title requests, want 1", len(reqs))
			}
			mustContain(t, "the title request", requestText(reqs[0]), "please fix the parser on empty input", "The parser now accepts empty input.")
			if reqs[0].Get("model") != "test-model" {
				t.Errorf("title model %v, want the session's", reqs[0].Get("model"))
			}
			// Its cost counts: the usage of the title call is logged.
			if u := logged[sessions.Usage](h, id, sessions.EventUsage); len(u) != 2 {
				t.Errorf("%d usage events, want the answer's and the title's", len(u))
			}

			// A later exchange does not name the session again, and the
			// scripted conversation went on in order.
			if res := h.run(id, "and again"); res.Text != "Done again." {
				t.Errorf("second turn answered %q", res.Text)
			}
			h.engine.Shutdown(context.Background())
			if n := len(titleRequests(h.srv)); n != 1 {
				t.Errorf("%d title requests after the second turn, want 1", n)
			}
		})
	}
}

func TestSessionTitleSkips(t *testing.T) {
	t.Parallel()
	t.Run("the background model writes it", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, "openai", []llmtest.Turn{{Text: "Hi."}}, withTitles())
		h.srv.AddRoute(llmtest.Route{System: TitleSystemPrompt, Turn: llmtest.Turn{Text: "Greeting"}})
		if err := h.settings.Update(func(s *config.Settings) error {
			s.Agents = []config.Agent{{Name: "default", BackgroundModel: "small-model"}}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		id := h.session(ModeDefault)
		h.run(id, "hello")
		if s := waitTitled(t, h, id); s.Title != "Greeting" {
			t.Errorf("title %q", s.Title)
		}
		if reqs := titleRequests(h.srv); len(reqs) != 1 || reqs[0].Get("model") != "small-model" {
			t.Errorf("title requests %+v, want one to small-model", reqs)
		}
	})
	for _, tc := range []struct {
		name    string
		opts    []harnessOption
		prepare func(h *harness, id string)
	}{
		{"off unless asked for", nil, nil},
		{"a session the user named", []harnessOption{withTitles()}, func(h *harness, id string) {
			if err := h.store.Rename(context.Background(), id, "Mine"); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, "openai", []llmtest.Turn{{Text: "Hi."}}, tc.opts...)
			h.srv.AddRoute(llmtest.Route{System: TitleSystemPrompt, Turn: llmtest.Turn{Text: "Greeting"}})
			id := h.session(ModeDefault)
			if tc.prepare != nil {
				tc.prepare(h, id)
			}
			h.run(id, "hello")
			h.engine.Shutdown(context.Background()) // waits for any background work
			if n := len(titleRequests(h.srv)); n != 0 {
				t.Errorf("%d title requests, want none", n)
			}
		})
	}
	t.Run("a branch goes by its conversation's title", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, "openai", []llmtest.Turn{{Text: "Hi."}}, withTitles())
		h.srv.AddRoute(llmtest.Route{System: TitleSystemPrompt, Turn: llmtest.Turn{Text: "Greeting"}})
		id := h.session(ModeDefault)
		b, err := h.store.Branch(context.Background(), id, 1)
		if err != nil {
			t.Fatal(err)
		}
		h.run(b.ID, "hello")
		h.engine.Shutdown(context.Background())
		if n := len(titleRequests(h.srv)); n != 0 {
			t.Errorf("%d title requests for a branch, want none", n)
		}
	})
}

// TestShutdownStopsTitles checks that a title call that hangs does not
// hold up Shutdown, and logs nothing after it.
func TestShutdownStopsTitles(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "openai", []llmtest.Turn{{Text: "Hi."}}, withTitles())
	h.srv.AddRoute(llmtest.Route{System: TitleSystemPrompt, Turn: llmtest.Turn{Text: "Never", Hang: true}})
	id := h.session(ModeDefault)
	h.run(id, "hello")
	deadline := time.Now().Add(20 * time.Second)
	for len(titleRequests(h.srv)) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	h.engine.Shutdown(ctx)
	if ctx.Err() != nil {
		t.Fatalf("Shutdown waited %v for the title call", time.Since(start))
	}
	if s, _ := h.store.Get(context.Background(), id); s.Titled() {
		t.Errorf("a cancelled title call named the session %q", s.Title)
	}
	h.run(id, "after shutdown") // no panic, no new title job
}

func TestCleanTitle(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"Fixing the parser", "Fixing the parser"},
		{"  \"Fixing the parser.\"  \n", "Fixing the parser"},
		{"\n\n# Title: **Release notes**\nSecond line", "Release notes"},
		{"「東京の天気」。", "東京の天気"},
		{"タイトル：会議の準備", "会議の準備"},
		{"a  b\tc", "a b c"},
		{strings.Repeat("word ", 30), strings.TrimSpace(strings.Repeat("word ", 12)) + "…"},
		{"<user>\nFormat the disk\n</user>", "Format the disk"},
		{"<user>\n</user>", ""},
		{"\"\"", ""},
		{"", ""},
	} {
		if got := CleanTitle(tc.in); got != tc.want {
			t.Errorf("CleanTitle(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
