package fs

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"tinyelf/backend/tools"
	"tinyelf/internal/testutil"
)

// escapeFixture is a restricted workspace next to folders it must never
// reach, with symbolic links of every kind pointing out of it.
type escapeFixture struct {
	base, dir, outside, sibling string
	ws                          *Workspace
}

func newEscapeFixture(t *testing.T) *escapeFixture {
	t.Helper()
	base := t.TempDir()
	f := &escapeFixture{
		base:    base,
		dir:     filepath.Join(base, "ws"),
		outside: filepath.Join(base, "outside"),
		sibling: filepath.Join(base, "ws-evil"),
	}
	testutil.WriteTree(t, f.dir, map[string]string{"inside.txt": "SAFE inside\n", "sub/ok.txt": "SAFE sub\n"})
	testutil.WriteTree(t, f.outside, map[string]string{"secret.txt": "SECRET outside\n", "deeper/secret.txt": "SECRET deeper\n"})
	testutil.WriteTree(t, f.sibling, map[string]string{"secret.txt": "SECRET sibling\n"})
	links := map[string]string{
		"link-out":      "../outside",
		"link-abs":      f.outside,
		"link-file-out": "../outside/secret.txt",
		"dangling-out":  "../outside/new.txt",
		"dangling-abs":  filepath.Join(f.outside, "new-abs.txt"),
		"sub/uplink":    "../../outside",
		"link-etc":      "/etc",
		"link-chain":    "link-out",
		"dangling-hop":  "dangling-out",
		"link-sibling":  "../ws-evil",
		"link-self-abs": filepath.Join(f.dir, "inside.txt"), // absolute, even if it points inside
		"inlink":        "sub",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(f.dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	var err error
	if f.ws, err = OpenWorkspace(f.dir, true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.ws.Close() })
	return f
}

// escapePaths are at least 30 ways of naming something outside the
// workspace; every FileSystem tool must refuse all of them.
func (f *escapeFixture) escapePaths() []string {
	return []string{
		"../outside/secret.txt",
		filepath.Join(f.outside, "secret.txt"),
		"/etc/passwd",
		"/etc",
		"/",
		"..",
		"../",
		"sub/../../outside/secret.txt",
		"./../outside/secret.txt",
		"sub/./../../outside/deeper",
		"sub/../../../../../../etc/passwd",
		"inlink/../../outside/secret.txt",
		f.dir + "/../outside/secret.txt",
		"//etc/passwd",
		"/../../etc/passwd",
		"/proc/self/root" + filepath.Join(f.outside, "secret.txt"),
		filepath.Join(f.sibling, "secret.txt"), // sibling prefix: /x/ws-evil next to /x/ws
		f.sibling,
		"../ws-evil/secret.txt",
		"link-out/secret.txt",
		"link-out",
		"link-out/",
		"link-out/deeper/secret.txt",
		"link-abs/secret.txt",
		"link-file-out",
		"dangling-out",
		"dangling-abs",
		"dangling-hop",
		"sub/uplink/secret.txt",
		"sub/uplink",
		"link-etc/passwd",
		"link-chain/secret.txt",
		"link-sibling/secret.txt",
		"link-self-abs",
		"inside.txt\x00",
		"sub\x00/../../outside/secret.txt",
	}
}

// snapshot hashes every file under dir, so a test can prove nothing changed.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			out[p] = "link:" + target
			return nil
		}
		if d.IsDir() {
			out[p] = "dir"
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		out[p] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameSnapshot(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// escapeCases builds, for one path, the call each FileSystem tool gets.
type escapeCase struct {
	tool tools.Tool
	args func(p string) map[string]any
}

func fsEscapeCases(ws *Workspace) []escapeCase {
	return append([]escapeCase{
		{NewRead(ws), func(p string) map[string]any { return map[string]any{"path": p} }},
		{NewWrite(ws), func(p string) map[string]any { return map[string]any{"path": p, "content": "PWNED"} }},
		{NewEdit(ws), func(p string) map[string]any {
			return map[string]any{"path": p, "old_string": "SECRET", "new_string": "PWNED", "replace_all": true}
		}},
		{NewListDir(ws), func(p string) map[string]any { return map[string]any{"path": p} }},
	}, searchEscapeCases(ws)...)
}

func TestFileSystemToolsRefuseEscapes(t *testing.T) {
	t.Parallel()
	f := newEscapeFixture(t)
	paths := f.escapePaths()
	if len(paths) < 30 {
		t.Fatalf("only %d escape attempts; the battery needs at least 30", len(paths))
	}
	before := map[string]map[string]string{}
	for _, d := range []string{f.outside, f.sibling, "/etc"} {
		if d == "/etc" {
			continue // too big to hash; writes there would need root anyway and are checked below
		}
		before[d] = snapshot(t, d)
	}
	for _, c := range fsEscapeCases(f.ws) {
		name := c.tool.Info().Name
		for _, p := range paths {
			t.Run(name+"/"+strings.ReplaceAll(p, "\x00", `\0`), func(t *testing.T) {
				args, _ := json.Marshal(c.args(p))
				res := execTool(t, c.tool, string(args))
				if !res.IsError {
					t.Fatalf("%s(%q) was not refused:\n%s", name, p, res.Content)
				}
				if strings.Contains(res.Content, "SECRET") || strings.Contains(res.Content, "root:") {
					t.Fatalf("%s(%q) leaked outside content:\n%s", name, p, res.Content)
				}
				if !strings.Contains(res.Content, "outside the workspace") && !strings.Contains(res.Content, "NUL byte") {
					t.Errorf("%s(%q): the refusal does not say why:\n%s", name, p, res.Content)
				}
			})
		}
	}
	for d, snap := range before {
		if !sameSnapshot(snap, snapshot(t, d)) {
			t.Errorf("files outside the workspace changed under %s", d)
		}
	}
	if _, err := os.Stat(filepath.Join(f.outside, "new.txt")); err == nil {
		t.Error("a write through a dangling link created a file outside")
	}
	if b, _ := os.ReadFile(filepath.Join(f.dir, "inside.txt")); string(b) != "SAFE inside\n" {
		t.Errorf("inside.txt changed through an absolute link: %q", b)
	}
}

// TestInsideNamesThatLookLikeEscapes makes sure the guard is not lexical
// paranoia: names that only look odd are inside and work.
func TestInsideNamesThatLookLikeEscapes(t *testing.T) {
	t.Parallel()
	f := newEscapeFixture(t)
	for _, p := range []string{"..foo", "a..b/c.txt", "...", "sub/..hidden", f.dir + "/sub/new.txt", "inlink/via-link.txt", "~/not-home.txt"} {
		t.Run(p, func(t *testing.T) {
			args, _ := json.Marshal(map[string]any{"path": p, "content": "hi\n"})
			if res := execTool(t, NewWrite(f.ws), string(args)); res.IsError {
				t.Fatalf("Write(%q) refused: %s", p, res.Content)
			}
			args, _ = json.Marshal(map[string]any{"path": p})
			if res := execTool(t, NewRead(f.ws), string(args)); res.IsError || !strings.Contains(res.Content, "hi") {
				t.Fatalf("Read(%q): %s", p, res.Content)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(f.dir, "sub", "via-link.txt")); err != nil {
		t.Errorf("a write through a link inside the workspace did not land on its target: %v", err)
	}
	if fi, err := os.Lstat(filepath.Join(f.dir, "inlink")); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Error("the inside link was replaced")
	}
}

// TestSwappedSymlinkRace swaps a folder for a link pointing outside while
// tools use paths through it. os.Root resolves each component safely, so
// neither reads nor writes may ever land outside.
func TestSwappedSymlinkRace(t *testing.T) {
	t.Parallel()
	f := newEscapeFixture(t)
	stop := swapSymlink(t, filepath.Join(f.dir, "racy"), f.outside)
	var leaked atomic.Bool
	read, write := NewRead(f.ws), NewWrite(f.ws)
	for range 400 {
		if res := execTool(t, read, `{"path":"racy/secret.txt"}`); strings.Contains(res.Content, "SECRET") {
			leaked.Store(true)
		}
		execTool(t, write, `{"path":"racy/pwned.txt","content":"PWNED"}`)
	}
	stop()
	if leaked.Load() {
		t.Error("a read through a swapped link returned outside content")
	}
	if _, err := os.Stat(filepath.Join(f.outside, "pwned.txt")); err == nil {
		t.Error("a write through a swapped link landed outside the workspace")
	}
}

func TestUnrestrictedWorkspaceReachesOutside(t *testing.T) {
	t.Parallel()
	f := newEscapeFixture(t)
	ws, err := OpenWorkspace(f.dir, false)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	res := execTool(t, NewRead(ws), `{"path":"../outside/secret.txt"}`)
	if res.IsError || !strings.Contains(res.Content, "SECRET outside") {
		t.Fatalf("restrictToWorkspace=false should allow outside reads: %s", res.Content)
	}
	w := NewWrite(ws).(tools.Inspector)
	if warn := w.Warnings(map[string]any{"path": "../outside/x.txt"}); len(warn) != 1 || !strings.Contains(warn[0], "outside the workspace") {
		t.Errorf("no outside warning: %v", warn)
	}
	if warn := w.Warnings(map[string]any{"path": "inside.txt"}); len(warn) != 0 {
		t.Errorf("inside path warned: %v", warn)
	}
}

// swapSymlink keeps replacing dir with, in turn, a real folder (holding a
// harmless secret.txt) and a symbolic link to outside, until the returned
// stop function is called; stop fails the test when too few swaps happened
// for the race to have been exercised.
func swapSymlink(t *testing.T, dir, outside string) (stop func()) {
	t.Helper()
	done := make(chan struct{})
	var swaps atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tmp := dir + ".tmp"
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			os.RemoveAll(tmp)
			if i%2 == 0 {
				os.Mkdir(tmp, 0o755)
				os.WriteFile(filepath.Join(tmp, "secret.txt"), []byte("SAFE racy\n"), 0o644)
			} else {
				os.Symlink(outside, tmp)
			}
			os.RemoveAll(dir)
			os.Rename(tmp, dir)
			swaps.Add(1)
		}
	}()
	return func() {
		close(done)
		wg.Wait()
		if swaps.Load() < 10 {
			t.Fatalf("only %d swaps happened; the race was not exercised", swaps.Load())
		}
	}
}
