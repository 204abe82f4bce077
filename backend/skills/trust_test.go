package skills

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"tinyelf/internal/testutil"
)

// TestTrustPersisted checks that an answer survives a restart, is seen by
// another store on the same file (another process), and is per workspace.
func TestTrustPersisted(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.data, TrustFile)
	a, err := OpenTrustStore(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := OpenTrustStore(path) // the other process, opened before the write
	if err != nil {
		t.Fatal(err)
	}
	if got := a.State(e.ws, "x"); got != TrustUntrusted {
		t.Fatalf("fresh state = %s", got)
	}
	if err := a.Set(e.ws, "x", TrustTrusted); err != nil {
		t.Fatal(err)
	}
	if err := b.Set(e.ws, "y", TrustDenied); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*TrustStore{a, b} {
		if s.State(e.ws, "x") != TrustTrusted || s.State(e.ws, "y") != TrustDenied {
			t.Errorf("states = %v", s.States(e.ws))
		}
		if s.State(e.home, "x") != TrustUntrusted {
			t.Error("trust leaked to another workspace")
		}
	}
	// The same workspace through a symbolic link is the same workspace.
	link := filepath.Join(filepath.Dir(e.ws), "ws-link")
	if err := os.Symlink(e.ws, link); err == nil && a.State(link, "x") != TrustTrusted {
		t.Error("the workspace through a symlink lost its trust")
	}
	c, err := OpenTrustStore(path) // a restart
	if err != nil {
		t.Fatal(err)
	}
	if c.State(e.ws, "x") != TrustTrusted || c.State(e.ws, "y") != TrustDenied {
		t.Errorf("after restart: %v", c.States(e.ws))
	}
	if err := c.Set(e.ws, "x", TrustUntrusted); err != nil {
		t.Fatal(err)
	}
	if a.State(e.ws, "x") != TrustUntrusted || a.State(e.ws, "y") != TrustDenied {
		t.Errorf("after untrust: %v", a.States(e.ws))
	}
	if err := a.Set(e.ws, "x", "maybe"); err == nil {
		t.Error("a bad state was accepted")
	}
}

// TestTrustConcurrentStores checks that writes from several stores on one
// file (several processes) are never lost.
func TestTrustConcurrentStores(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.data, TrustFile)
	var wg sync.WaitGroup
	for i := range 4 {
		s, err := OpenTrustStore(path)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 10 {
				if err := s.Set(e.ws, fmt.Sprintf("s%d-%d", i, j), TrustTrusted); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	s, _ := OpenTrustStore(path)
	if n := len(s.States(e.ws)); n != 40 {
		t.Errorf("%d answers kept, want 40", n)
	}
}

func TestTrustCorruptFileSetAside(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.data, TrustFile)
	testutil.WriteFile(t, filepath.Join(e.data, TrustFile), "{not json", 0)
	s, err := OpenTrustStore(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.Warning(), "could not be read") {
		t.Errorf("warning = %q", s.Warning())
	}
	matches, _ := filepath.Glob(path + ".corrupt-*")
	if len(matches) != 1 {
		t.Errorf("set aside: %v", matches)
	}
	if err := s.Set(e.ws, "x", TrustTrusted); err != nil {
		t.Fatal(err)
	}
}

// TestLibraryTrust checks the trust of each source and the question asked.
func TestLibraryTrust(t *testing.T) {
	e := newEnv(t)
	testutil.WriteFile(t, filepath.Join(e.ws, ".claude/skills/proj/SKILL.md"), "---\nname: proj\ndescription: project skill\nallowed-tools: Bash(git:*)\n---\nbody\n", 0)
	testutil.WriteFile(t, filepath.Join(e.data, "skills/mine/SKILL.md"), skillMD("mine", "user skill", ""), 0)
	store, _ := OpenTrustStore(filepath.Join(e.data, TrustFile))
	lib := NewLibrary(e.opts(), store)
	proj, _ := lib.Get("proj")
	mine, _ := lib.Get("mine")
	builtin, _ := lib.Get("test-fix")
	if lib.Trust(mine) != TrustTrusted || lib.Trust(builtin) != TrustTrusted || lib.Trust(proj) != TrustUntrusted {
		t.Fatal("wrong initial trust")
	}
	req, ok := lib.TrustRequestFor("proj")
	if !ok || req.Question != `This folder's skill "proj" wants to guide the agent; it may ask to run Bash(git:*).` || req.AllowedTools != "Bash(git:*)" {
		t.Errorf("request = %+v %v", req, ok)
	}
	if _, ok := lib.TrustRequestFor("mine"); ok {
		t.Error("a user skill needs no trust")
	}
	if err := lib.SetTrust("mine", TrustTrusted); err == nil {
		t.Error("SetTrust on a user skill")
	}
	has := func(idx Index, name string) bool {
		return slices.ContainsFunc(idx.Entries, func(e IndexEntry) bool { return e.Name == name })
	}
	if !has(lib.Index(IndexOptions{}), "proj") || has(lib.Index(IndexOptions{TrustedOnly: true}), "proj") {
		t.Error("an untrusted skill is in the index unless TrustedOnly")
	}
	if err := lib.SetTrust("proj", TrustDenied); err != nil {
		t.Fatal(err)
	}
	if _, ok := lib.TrustRequestFor("proj"); ok {
		t.Error("asked again after an answer")
	}
	idx := lib.Index(IndexOptions{})
	for _, en := range idx.Entries {
		if en.Name == "proj" {
			t.Error("a denied skill is in the index")
		}
	}
	// Another library (a restart) remembers.
	store2, _ := OpenTrustStore(filepath.Join(e.data, TrustFile))
	lib2 := NewLibrary(e.opts(), store2)
	if p, _ := lib2.Get("proj"); lib2.Trust(p) != TrustDenied {
		t.Error("denial not remembered")
	}
	// --yes trusts project skills without saving anything.
	o := e.opts()
	o.TrustProject = true
	lib3 := NewLibrary(o, nil)
	if p, _ := lib3.Get("proj"); lib3.Trust(p) != TrustTrusted {
		t.Error("TrustProject")
	}
}
