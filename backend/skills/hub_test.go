package skills

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"tinyelf/internal/testutil"
)

// archiveFile is one member of a test archive.
type archiveFile struct {
	name    string
	body    string
	mode    int64 // 0: 0644
	symlink string
	dir     bool
}

func makeZip(t *testing.T, files []archiveFile) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		h := &zip.FileHeader{Name: f.name, Method: zip.Deflate}
		mode := os.FileMode(0o644)
		if f.mode != 0 {
			mode = os.FileMode(f.mode)
		}
		body := f.body
		switch {
		case f.symlink != "":
			mode = os.ModeSymlink | 0o777
			body = f.symlink
		case f.dir:
			mode = os.ModeDir | 0o755
		}
		h.SetMode(mode)
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func makeTarGz(t *testing.T, files []archiveFile) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range files {
		h := &tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.body)), Typeflag: tar.TypeReg}
		if f.mode != 0 {
			h.Mode = f.mode
		}
		switch {
		case f.symlink != "":
			h.Typeflag, h.Linkname, h.Size = tar.TypeSymlink, f.symlink, 0
		case f.dir:
			h.Typeflag, h.Size, h.Mode = tar.TypeDir, 0, 0o755
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			tw.Write([]byte(f.body))
		}
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// hubServer serves index documents and archives on loopback.
type hubServer struct {
	*httptest.Server
	mu    sync.Mutex
	files map[string][]byte
	hits  map[string]int
}

func newHubServer(t *testing.T) *hubServer {
	t.Helper()
	s := &hubServer{files: map[string][]byte{}, hits: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		b, ok := s.files[r.URL.Path]
		s.hits[r.URL.Path]++
		s.mu.Unlock()
		if r.URL.Path == "/endless" {
			chunk := make([]byte, 1<<20)
			for range 25 {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
			return
		}
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *hubServer) put(p string, b []byte) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[p] = b
	return s.URL + p
}

func (s *hubServer) index(t *testing.T, p string, entries ...HubEntry) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"skills": entries})
	if err != nil {
		t.Fatal(err)
	}
	return s.put(p, b)
}

// dirNames lists a folder, hidden entries included.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

const goodSkill = "---\nname: hello-world\ndescription: Says hello. Use when greeting.\nversion: 1.0.0\n---\n\n# Hello\nRun scripts/hello.sh.\n"

func TestHubInstall(t *testing.T) {
	srv := newHubServer(t)
	e := newEnv(t)
	dir := filepath.Join(e.data, "skills")
	testutil.WriteFile(t, filepath.Join(dir, "handmade/SKILL.md"), skillMD("handmade", "mine", ""), 0)
	outside := filepath.Join(e.data, "outside")

	good := makeZip(t, []archiveFile{
		{name: "hello-main/", dir: true},
		{name: "hello-main/SKILL.md", body: goodSkill},
		{name: "hello-main/scripts/hello.sh", body: "#!/bin/sh\necho hello\n", mode: 0o755},
		{name: "hello-main/references/link.md", symlink: "../SKILL.md"},
	})
	tgz := makeTarGz(t, []archiveFile{
		{name: "./", dir: true},
		{name: "./SKILL.md", body: "---\nname: tar-skill\ndescription: From a tarball.\n---\nbody\n"},
		{name: "./assets/a.txt", body: "asset"},
	})
	// testdata/bomb.zip is 21 KB and unpacks to 21 MB of zeros (made with
	// Python's zipfile at level 9; deflating it here is slow under -race).
	bomb, err := os.ReadFile("testdata/bomb.zip")
	if err != nil {
		t.Fatal(err)
	}
	entries := []HubEntry{
		{ID: "hello", Name: "hello-world", URL: srv.put("/hello.zip", good), SHA256: sha(good), Version: "1.0.0"},
		{ID: "tar", Name: "tar-skill", URL: srv.put("/dl/tar-skill", tgz)}, // no extension: sniffed
		{ID: "bad-sha", Name: "hello-world", URL: srv.URL + "/hello.zip", SHA256: strings.Repeat("0", 64)},
		{ID: "slip", URL: srv.put("/slip.zip", makeZip(t, []archiveFile{{name: "SKILL.md", body: skillMD("slip", "d", "")}, {name: "../../outside/evil.txt", body: "pwned"}}))},
		{ID: "abs", URL: srv.put("/abs.tar.gz", makeTarGz(t, []archiveFile{{name: "SKILL.md", body: skillMD("abs", "d", "")}, {name: "/tmp/evil.txt", body: "pwned"}}))},
		{ID: "backslash", URL: srv.put("/bs.zip", makeZip(t, []archiveFile{{name: "SKILL.md", body: skillMD("bs", "d", "")}, {name: "..\\evil.txt", body: "pwned"}}))},
		{ID: "link-out", URL: srv.put("/link.tar.gz", makeTarGz(t, []archiveFile{{name: "SKILL.md", body: skillMD("link-out", "d", "")}, {name: "passwd", symlink: "/etc/passwd"}}))},
		{ID: "link-up", URL: srv.put("/linkup.zip", makeZip(t, []archiveFile{{name: "SKILL.md", body: skillMD("link-up", "d", "")}, {name: "up", symlink: "../../outside"}}))},
		{ID: "link-chain", URL: srv.put("/chain.tar.gz", makeTarGz(t, []archiveFile{
			{name: "SKILL.md", body: skillMD("link-chain", "d", "")},
			{name: "x/", dir: true}, {name: "x/l1", symlink: ".."}, {name: "x/l1/l2", symlink: "../.."}}))},
		{ID: "hardlink", URL: srv.put("/hard.tar.gz", func() []byte {
			var buf bytes.Buffer
			gz := gzip.NewWriter(&buf)
			tw := tar.NewWriter(gz)
			body := skillMD("hardlink", "d", "")
			tw.WriteHeader(&tar.Header{Name: "SKILL.md", Mode: 0o644, Size: int64(len(body))})
			tw.Write([]byte(body))
			tw.WriteHeader(&tar.Header{Name: "h", Typeflag: tar.TypeLink, Linkname: "/etc/passwd"})
			tw.Close()
			gz.Close()
			return buf.Bytes()
		}())},
		{ID: "bomb", URL: srv.put("/bomb.zip", bomb)},
		{ID: "huge-download", URL: srv.URL + "/endless"},
		{ID: "invalid", URL: srv.put("/invalid.zip", makeZip(t, []archiveFile{{name: "SKILL.md", body: "---\nname: not-yaml\ndescription: [unclosed\n---\n"}}))},
		{ID: "lenient", URL: srv.put("/lenient.zip", makeZip(t, []archiveFile{{name: "SKILL.md", body: "---\nname: Not_Valid\ndescription: Use when: asked\n---\n"}}))},
		{ID: "no-skill", URL: srv.put("/none.zip", makeZip(t, []archiveFile{{name: "a/README.md", body: "x"}, {name: "b/README.md", body: "y"}}))},
		{ID: "not-archive", URL: srv.put("/plain", []byte("just text"))},
		{ID: "missing", URL: srv.URL + "/404.zip"},
		{ID: "handmade", URL: srv.put("/handmade.zip", makeZip(t, []archiveFile{{name: "SKILL.md", body: skillMD("handmade", "from the hub", "")}}))},
		{ID: "insecure", URL: "http://example.com/x.zip"},
	}
	idx := srv.index(t, "/index.json", entries...)
	hub := NewHub(dir, func() []string { return []string{idx} })
	ctx := context.Background()

	inst, err := hub.Install(ctx, "hello")
	if err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "hello-world")
	if inst.Name != "hello-world" || inst.Dir != target || inst.Version != "1.0.0" || inst.Replaced {
		t.Errorf("installed %+v", inst)
	}
	if st, err := os.Stat(filepath.Join(target, "scripts", "hello.sh")); err != nil || st.Mode().Perm()&0o100 == 0 {
		t.Errorf("script: %v %v", st, err)
	}
	if b, err := os.ReadFile(filepath.Join(target, "references", "link.md")); err != nil || string(b) != goodSkill {
		t.Errorf("inner symlink: %v", err)
	}
	if rec, ok := Record(target); !ok || rec.ID != "hello" || rec.SHA256 != sha(good) || rec.Index != idx {
		t.Errorf("record %+v %v", rec, ok)
	}
	if !slices.ContainsFunc(inst.Warnings, func(w string) bool { return strings.Contains(w, `"version"`) }) {
		t.Errorf("warnings %v", inst.Warnings)
	}
	lib := NewLibrary(Options{DataDir: e.data, NoDefaultBuiltins: true}, nil)
	if sk, ok := lib.Get("hello-world"); !ok || sk.Source != SourceUser {
		t.Fatalf("the installed skill does not load: %v", lib.Snapshot().Invalid)
	}

	inst, err = hub.Install(ctx, "hello") // again: an update
	if err != nil || !inst.Replaced {
		t.Errorf("reinstall: %+v %v", inst, err)
	}
	if inst, err := hub.Install(ctx, "tar"); err != nil || inst.Name != "tar-skill" || !fileExists(filepath.Join(dir, "tar-skill", "assets", "a.txt")) {
		t.Errorf("tar: %+v %v", inst, err)
	}

	// What the loader forgives, install takes, saying what was forgiven.
	if inst, err := hub.Install(ctx, "lenient"); err != nil || inst.Name != "Not_Valid" ||
		!strings.Contains(strings.Join(inst.Warnings, "\n"), "must be lowercase") ||
		!strings.Contains(strings.Join(inst.Warnings, "\n"), "skills validate: SKILL.md:3: the frontmatter is not valid YAML") {
		t.Errorf("lenient: %+v %v", inst, err)
	}
	if err := hub.Remove("Not_Valid"); err != nil {
		t.Errorf("remove the lenient install: %v", err)
	}

	before := dirNames(t, dir)
	failures := []struct{ id, msg string }{
		{"bad-sha", "sha256 is " + sha(good)},
		{"slip", "leaves the skill's folder"},
		{"abs", "not a relative path"},
		{"backslash", "not a relative path"},
		{"link-out", "points outside the skill"},
		{"link-up", "points outside the skill"},
		{"link-chain", "symbolic link l2 points outside the skill"},
		{"hardlink", "hard link"},
		{"bomb", "unpacks to more than 20.0 MB"},
		{"huge-download", "over the 20.0 MB limit"},
		{"invalid", "TinyElf would not load this skill (SKILL.md:3: the frontmatter is not valid YAML"},
		{"no-skill", "no SKILL.md"},
		{"not-archive", "neither a .zip nor a .tar.gz"},
		{"missing", "404"},
		{"handmade", "was not installed from SkillHub"},
		{"insecure", "plain http is allowed only to this machine"},
		{"unknown-id", "no skill with id"},
	}
	for _, f := range failures {
		t.Run(f.id, func(t *testing.T) {
			_, err := hub.Install(ctx, f.id)
			if err == nil || !strings.Contains(err.Error(), f.msg) {
				t.Fatalf("err = %v, want %q", err, f.msg)
			}
			if got := dirNames(t, dir); !slices.Equal(got, before) {
				t.Errorf("left behind: %v, was %v", got, before)
			}
			if fileExists(outside) || fileExists(filepath.Join(e.data, "evil.txt")) {
				t.Error("a file was written outside the skills folder")
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "handmade", "SKILL.md")); !strings.Contains(string(b), "mine") {
		t.Error("the hand-made skill was replaced")
	}

	if err := hub.Remove("hello-world"); err != nil {
		t.Fatal(err)
	}
	if fileExists(target) {
		t.Error("not removed")
	}
	if err := hub.Remove("handmade"); err == nil || !strings.Contains(err.Error(), "not installed from SkillHub") {
		t.Errorf("remove handmade: %v", err)
	}
	if err := hub.Remove("../data"); err == nil {
		t.Error("removed a path")
	}
	if err := hub.Remove("hello-world"); err == nil {
		t.Error("removed twice")
	}
}

func TestHubInstallGit(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	e := newEnv(t)
	repo := filepath.Join(e.home, "repo")
	testutil.WriteFile(t, filepath.Join(repo, "SKILL.md"), skillMD("from-git", "Cloned.", "body"), 0)
	testutil.WriteFile(t, filepath.Join(repo, "scripts/run.sh"), "echo run\n", 0)
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "."},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "init"},
	} {
		cmd := exec.Command(git, args...)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	hub := NewHub(filepath.Join(e.data, "skills"), nil)
	inst, err := hub.InstallEntry(context.Background(), HubEntry{ID: "g", URL: "file://" + repo})
	if err != nil {
		t.Fatal(err)
	}
	if inst.Name != "from-git" || !fileExists(filepath.Join(inst.Dir, "scripts", "run.sh")) || fileExists(filepath.Join(inst.Dir, ".git")) {
		t.Errorf("installed %+v", inst)
	}
	off := NewHub(filepath.Join(e.data, "skills2"), nil, WithGit("-"))
	if _, err := off.InstallEntry(context.Background(), HubEntry{ID: "g", URL: "file://" + repo}); err == nil {
		t.Error("git install with git turned off")
	}
	if _, err := hub.InstallEntry(context.Background(), HubEntry{ID: "g", URL: "file://" + filepath.Join(e.home, "nope")}); err == nil || !strings.Contains(err.Error(), "git clone") {
		t.Errorf("missing repo: %v", err)
	}
}

// TestHubGitCleanEnv checks the environment git clone gets: the clean
// child environment the hub was given, without the variables that steer
// git elsewhere, with prompts and the user's git configuration off.
func TestHubGitCleanEnv(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake git is a shell script")
	}
	e := newEnv(t)
	dump := filepath.Join(e.home, "env.txt")
	fake := filepath.Join(e.home, "fake-git")
	testutil.WriteFile(t, filepath.Join(e.home, "fake-git"), "#!/bin/sh\nenv > "+dump+"\nexit 1\n", 0)
	if err := os.Chmod(fake, 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=/usr/bin:/bin", "HOME=" + e.home, "GIT_DIR=/elsewhere", "GIT_CONFIG_PARAMETERS='core.sshCommand=evil'",
		"GIT_SSH_COMMAND=evil", "SSH_AUTH_SOCK=/tmp/agent", "KEEP_ME=1", "GIT_TERMINAL_PROMPT=1"}
	hub := NewHub(filepath.Join(e.data, "skills"), nil, WithGit(fake), WithEnviron(func() []string { return env }))
	if _, err := hub.InstallEntry(context.Background(), HubEntry{ID: "g", URL: "https://example.invalid/repo.git"}); err == nil {
		t.Fatal("the fake git failed, the install did not")
	}
	raw, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		k, v, _ := strings.Cut(line, "=")
		got[k] = v
	}
	for _, k := range []string{"GIT_DIR", "GIT_CONFIG_PARAMETERS", "GIT_SSH_COMMAND", "SSH_AUTH_SOCK"} {
		if _, ok := got[k]; ok {
			t.Errorf("git got %s", k)
		}
	}
	for k, want := range map[string]string{"KEEP_ME": "1", "HOME": e.home, "GIT_TERMINAL_PROMPT": "0", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.DevNull} {
		if got[k] != want {
			t.Errorf("%s = %q, want %q", k, got[k], want)
		}
	}
}

func TestHubSearch(t *testing.T) {
	srv := newHubServer(t)
	a := srv.index(t, "/a.json",
		HubEntry{ID: "pdf", Name: "pdf", Description: "Fill PDF forms and extract text", URL: "https://x/pdf.zip"},
		HubEntry{ID: "pdf-tools", Name: "pdf-tools", Description: "More PDF utilities", URL: "https://x/pt.zip"},
		HubEntry{ID: "docx", Name: "docx", Description: "Word documents; can export to pdf", URL: "https://x/d.zip"},
		HubEntry{ID: "terraform-review", Name: "terraform-review", Description: "Review Terraform plans", URL: "https://x/t.zip"},
		HubEntry{ID: "", Name: "broken", URL: "https://x/b.zip"},
	)
	b := srv.index(t, "/b.json",
		HubEntry{ID: "pdf", Name: "pdf", Description: "a second pdf entry loses", URL: "https://y/pdf.zip"},
		HubEntry{ID: "forms", Name: "forms", Description: "Web forms", URL: "https://y/f.zip"},
	)
	srv.put("/bad.json", []byte("<html>not json</html>"))
	// A port nothing listens on: offline.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	offline := "http://" + l.Addr().String() + "/index.json"
	l.Close()

	indexes := []string{a, b, srv.URL + "/bad.json", offline}
	hub := NewHub(t.TempDir(), func() []string { return indexes })
	ctx := context.Background()
	res, err := hub.Search(ctx, "pdf", 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range res.Entries {
		ids = append(ids, e.ID)
	}
	if !slices.Equal(ids, []string{"pdf", "pdf-tools", "docx"}) {
		t.Errorf("ranking = %v", ids)
	}
	if res.Entries[0].Index != a || res.Entries[0].Description != "Fill PDF forms and extract text" {
		t.Errorf("the first index must win: %+v", res.Entries[0])
	}
	if len(res.Problems) != 2 || !strings.Contains(res.Problems[0], "not an index document") || !strings.Contains(res.Problems[1], "cannot reach") {
		t.Errorf("problems = %q", res.Problems)
	}
	res, _ = hub.Search(ctx, "forms", 0)
	if len(res.Entries) < 2 || res.Entries[0].ID != "forms" {
		t.Errorf("forms: %+v", res.Entries)
	}
	res, _ = hub.Search(ctx, "", 2)
	if len(res.Entries) != 2 || res.Entries[0].Name != "docx" {
		t.Errorf("empty query: %+v", res.Entries)
	}
	if res, _ := hub.Search(ctx, "kubernetes", 0); len(res.Entries) != 0 {
		t.Errorf("no match: %+v", res.Entries)
	}
	// Fetched once within the TTL.
	srv.mu.Lock()
	if srv.hits["/a.json"] != 1 {
		t.Errorf("index fetched %d times", srv.hits["/a.json"])
	}
	srv.mu.Unlock()

	indexes = []string{offline}
	hub2 := NewHub(t.TempDir(), func() []string { return indexes })
	if _, err := hub2.Search(ctx, "pdf", 0); err == nil || !strings.Contains(err.Error(), "offline") {
		t.Errorf("offline: %v", err)
	}
	if _, err := hub2.Install(ctx, "pdf"); err == nil || !strings.Contains(err.Error(), "offline") {
		t.Errorf("offline install: %v", err)
	}
	if _, err := NewHub(t.TempDir(), nil).Search(ctx, "x", 0); err != ErrNoIndexes {
		t.Errorf("no indexes: %v", err)
	}
}

func TestCheckFetchURL(t *testing.T) {
	cases := map[string]bool{
		"https://example.com/i.json": true,
		"http://127.0.0.1:8080/i":    true,
		"http://127.5.6.7/i":         true,
		"http://[::1]:9/i":           true,
		"http://localhost/i":         true,
		"http://example.com/i":       false,
		"http://10.0.0.1/i":          false,
		"ftp://example.com/i":        false,
		"file:///etc/passwd":         false,
	}
	for raw, ok := range cases {
		u, _ := url.Parse(raw)
		if err := checkFetchURL(u); (err == nil) != ok {
			t.Errorf("%s: %v", raw, err)
		}
	}
}

func TestHubRedirectChecked(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://example.com/index.json", http.StatusFound)
	}))
	defer srv.Close()
	hub := NewHub(t.TempDir(), func() []string { return []string{srv.URL} })
	if _, err := hub.Search(context.Background(), "x", 0); err == nil || !strings.Contains(err.Error(), "plain http") {
		t.Errorf("redirect off loopback: %v", err)
	}
}
