package skills

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tinyelf/internal/testutil"
)

// TestWatch checks that adding, changing, breaking and removing skills is
// reported with reasons, including in a skills folder created after the
// watch started.
func TestWatch(t *testing.T) {
	e := newEnv(t)
	lib := NewLibrary(Options{DataDir: e.data, Workspace: e.ws, NoDefaultBuiltins: true}, nil)
	got := make(chan []Change, 16)
	w := lib.Watch(context.Background(), 10*time.Millisecond, func(cs []Change) { got <- cs })
	defer w.Close()

	next := func(what string) []Change {
		t.Helper()
		select {
		case cs := <-got:
			return cs
		case <-time.After(10 * time.Second):
			t.Fatalf("no change reported after %s", what)
		}
		return nil
	}
	expect := func(cs []Change, kind ChangeKind, name, reason string) {
		t.Helper()
		for _, c := range cs {
			if c.Kind == kind && c.Name == name && strings.Contains(c.Reason, reason) && c.ID == "skill__"+name {
				return
			}
		}
		t.Fatalf("changes %+v lack %s %s (%q)", cs, kind, name, reason)
	}

	// A project skills folder that did not exist when the watch started.
	writeAtomic(t, e.ws, ".agents/skills/alpha/SKILL.md", skillMD("alpha", "first", "one"))
	cs := next("adding alpha")
	expect(cs, ChangeAdded, "alpha", "project skill added at "+filepath.Join(e.ws, ".agents", "skills", "alpha", "SKILL.md"))
	if cs[0].Skill == nil || cs[0].Source != SourceProject {
		t.Errorf("added change %+v", cs[0])
	}
	if _, ok := lib.Get("alpha"); !ok {
		t.Fatal("the library did not reload")
	}

	writeAtomic(t, e.ws, ".agents/skills/alpha/SKILL.md", skillMD("alpha", "first, now longer", "one"))
	expect(next("changing alpha"), ChangeChanged, "alpha", "SKILL.md changed")

	// The user folder gets the same name: it wins, the change says so.
	writeAtomic(t, e.data, "skills/alpha/SKILL.md", skillMD("alpha", "the user's own", ""))
	expect(next("shadowing alpha"), ChangeChanged, "alpha", "now the user skill")

	os.RemoveAll(filepath.Join(e.data, "skills", "alpha"))
	expect(next("unshadowing alpha"), ChangeChanged, "alpha", "now the project skill")

	writeAtomic(t, e.ws, ".agents/skills/alpha/SKILL.md", "---\nname: alpha\n---\nno description any more\n")
	cs = next("breaking alpha")
	expect(cs, ChangeRemoved, "alpha", "no longer loads")
	expect(cs, ChangeInvalid, "alpha", "no description")

	writeAtomic(t, e.ws, ".agents/skills/beta/SKILL.md", skillMD("beta", "second", ""))
	expect(next("adding beta"), ChangeAdded, "beta", "added")
	os.RemoveAll(filepath.Join(e.ws, ".agents", "skills", "beta"))
	expect(next("removing beta"), ChangeRemoved, "beta", "removed from")

	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w.Close() // twice is fine
	testutil.WriteFile(t, filepath.Join(e.ws, ".agents/skills/gamma/SKILL.md"), skillMD("gamma", "after close", ""), 0)
	select {
	case cs := <-got:
		t.Fatalf("a change after Close: %+v", cs)
	default:
	}
}

func TestWatchStopsWithContext(t *testing.T) {
	e := newEnv(t)
	lib := NewLibrary(Options{DataDir: e.data, NoDefaultBuiltins: true}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	w := lib.Watch(ctx, time.Millisecond, nil)
	cancel()
	done := make(chan struct{})
	go func() { w.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the watcher did not stop with its context")
	}
}

func TestDiffFromNothing(t *testing.T) {
	snap := Load(Options{})
	cs := Diff(nil, snap)
	if len(cs) != len(snap.Skills) {
		t.Fatalf("changes %+v", cs)
	}
	for _, c := range cs {
		if c.Kind != ChangeAdded || c.Source != SourceBuiltin {
			t.Errorf("%+v", c)
		}
	}
	if len(Diff(snap, snap)) != 0 {
		t.Error("a snapshot differs from itself")
	}
}

// writeAtomic writes a file through a rename, so the watcher never sees it
// half-written.
func writeAtomic(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(filepath.Dir(p), ".tmp-"+filepath.Base(p))
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
}
