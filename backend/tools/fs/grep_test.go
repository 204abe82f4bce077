package fs

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"tinyelf/backend/tools"
	"tinyelf/internal/testutil"
)

var updateGrepGolden = flag.Bool("update-grep", false, "rewrite testdata/grep/*.golden from the Go engine's output")

func openWS(t testing.TB, dir string, restrict bool) *Workspace {
	t.Helper()
	ws, err := OpenWorkspace(dir, restrict)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

// grepEngines returns the Go engine and, when rg is on PATH, the rg engine.
func grepEngines(t *testing.T, ws *Workspace, opts GrepOptions) map[string]tools.Tool {
	t.Helper()
	goOpts := opts
	goOpts.PureGo = true
	engines := map[string]tools.Tool{"go": NewGrep(ws, goOpts)}
	if _, err := exec.LookPath("rg"); err != nil {
		t.Log("rg is not on PATH: the ripgrep half of this test was skipped")
	} else {
		engines["rg"] = NewGrep(ws, opts)
	}
	return engines
}

func run(t testing.TB, tool tools.Tool, params map[string]any) tools.Result {
	t.Helper()
	res, err := tool.Execute(context.Background(), params)
	if err != nil {
		t.Fatalf("%s %v: %v", tool.Info().Name, params, err)
	}
	return res
}

// grepFixture exercises every rule both engines must agree on.
func grepFixture(t testing.TB) (ws, outside string) {
	ws, outside = t.TempDir(), t.TempDir()
	testutil.WriteTree(t, outside, map[string]string{"secret.txt": "hello outside\n"})
	filler := strings.Repeat("hello filler line\n", 6000) // > 64 KiB before the NUL
	var big strings.Builder                               // several of the Go engine's 256 KiB chunks
	for i := 1; i <= 60000; i++ {
		if i%7919 == 0 {
			fmt.Fprintf(&big, "needle %d\n", i)
		} else {
			fmt.Fprintf(&big, "line %d\n", i)
		}
	}
	testutil.WriteTree(t, ws, map[string]string{
		".gitignore":              "# comment\n*.log\n!keep.log\nbuild/\n/root-only.txt\ndocs/**/*.tmp\nnode_modules/\n*.{bak,orig}\ntrailing.txt   \n",
		".ignore":                 "ign-me.txt\n",
		".rgignore":               "*.secret\n",
		"a.go":                    "package a\n\nfunc Hello(ctx context.Context) error { return nil }\n// TODO: hello there\n",
		"b.txt":                   "Hello world\nhello again\nHELLO\nsay hello, hello\n",
		"root-only.txt":           "hello root\n",
		"trailing.txt":            "hello trailing\n",
		"app.log":                 "hello log\n",
		"keep.log":                "hello keep\n",
		"x.bak":                   "hello bak\n",
		"build/out.txt":           "hello build\n",
		"docs/guide.md":           "hello docs\n",
		"docs/y.tmp":              "hello docs tmp\n",
		"docs/x/y.tmp":            "hello docs deep tmp\n",
		"node_modules/p/index.js": "hello nm\n",
		"sub/.gitignore":          "*.md\n!important.md\n",
		"sub/root-only.txt":       "hello sub root-only\n",
		"sub/build":               "hello build file, not a folder\n",
		"sub/readme.md":           "hello readme\n",
		"sub/important.md":        "hello important\n",
		"sub/x.log":               "hello sub log\n",
		"sub/deep/.gitignore":     "!notes.md\n",
		"sub/deep/notes.md":       "hello notes\n",
		"sub/deep/other.md":       "hello other\n",
		"sub/deep/code_test.go":   "func TestHello(t *testing.T) {}\n",
		".hidden.txt":             "hello hidden\n",
		".config/x.txt":           "hello config\n",
		"s.secret":                "hello secret\n",
		"ign-me.txt":              "hello ignore file\n",
		"bin.dat":                 "hello\x00binary\n",
		"late-bin.txt":            filler + "\x00\nhello after nul\n",
		"crlf.txt":                "hello crlf\r\nsecond line\r\n",
		"long.txt":                "hello " + strings.Repeat("x", 500) + "\n",
		"huge-line.txt":           "start\n" + strings.Repeat("y", 300<<10) + " needle at the end\nend needle\n",
		"zz/big.txt":              big.String(),
		"utf8.txt":                "héllo wörld\ncafé\nnaïve_test\n日本語 hello\nÉCOLE\n",
		"latin1.txt":              "caf\xe9 hello\n",
		"bom.txt":                 "\xef\xbb\xbfhello bom\n",
		"nonl.txt":                "no newline hello",
		"empty.txt":               "",
		"blank.txt":               "a\n\nb\n",
		"sp ace:colon.txt":        "hello colon\n",
		"dir/f.txt":               "hello dir\n",
		"dir.x/f.txt":             "hello dir.x\n",
		"-dash.txt":               "hello dash\n",
		"numbers.txt":             "id 42\nid x\n3.14\n",
		"specials.txt":            "a.go && b -- c ~~ d #x {y} [z] $1 ^up\nKelvin \u212a and k\nSTRASSE straße ſ\nflag\tTAB\n",
		"link-out.txt":            "->" + filepath.Join(outside, "secret.txt"),
		"link-in.txt":             "->a.go",
		"linkdir":                 "->sub",
	})
	return ws, outside
}

type grepCase struct {
	name    string
	pattern string
	path    string
	include string
}

var grepParityCases = []grepCase{
	{name: "literal", pattern: "hello"},
	{name: "case insensitive", pattern: "(?i)hello"},
	{name: "word boundary", pattern: `\bhello\b`},
	{name: "line anchors", pattern: `^hello|hello$`},
	{name: "empty line", pattern: `^$`},
	{name: "dot over utf8", pattern: `h.llo|caf.`},
	{name: "negated class", pattern: `[^a-z ]{2,}`},
	{name: "perl classes", pattern: `\d+|\w+_test`},
	{name: "no literal", pattern: `[A-Z]{5}`},
	{name: "unicode class", pattern: `\p{Han}+`},
	{name: "func context", pattern: `func.*Context\)`},
	{name: "every line", pattern: ``},
	{name: "empty matches", pattern: `x*`, include: "*.go"},
	{name: "escaped specials", pattern: `\.go && b -- c ~~ d #x \{y\} \[z\] \$1 \^up`},
	{name: "class specials", pattern: `[&][&]|[-][-]|[~]{2}|[#{}\[\]]`},
	{name: "case folding", pattern: `(?i)k and K|(?i)straSSe|(?i)Écol`},
	{name: "posix and quote", pattern: `[[:upper:]]{4,}|\Q{y}\E`},
	{name: "dot all and text anchors", pattern: `(?s)\Aid.\d|up\z`},
	{name: "non word boundary", pattern: `\Bell\B`},
	{name: "tab and repeat", pattern: `\t[A-Z]{2,3}|l{2}o`},
	{name: "include go", pattern: "hello", include: "*.go"},
	{name: "include braces", pattern: "hello", include: "*.{txt,md}"},
	{name: "include negated", pattern: "hello", include: "!*.txt"},
	{name: "include overrides gitignore", pattern: "hello", include: "*.log"},
	{name: "include hidden", pattern: "hello", include: ".hidden*"},
	{name: "include anchored", pattern: "hello", include: "sub/**/*.md"},
	{name: "subfolder with parent rules", pattern: "hello", path: "sub"},
	{name: "deep subfolder", pattern: "hello", path: "sub/deep"},
	{name: "explicit binary file", pattern: "hello", path: "bin.dat"},
	{name: "explicit hidden file", pattern: "hello", path: ".hidden.txt"},
	{name: "explicit ignored file", pattern: "hello", path: "app.log"},
	{name: "explicit hidden folder", pattern: "hello", path: ".config"},
	{name: "explicit ignored folder", pattern: "hello", path: "build"},
	{name: "no match", pattern: "no such text anywhere"},
	{name: "line numbers across chunks", pattern: `needle`},
	{name: "matches past the cap", pattern: `line \d+5$`},
}

func TestGrepEnginesAgree(t *testing.T) {
	dir, _ := grepFixture(t)
	ws := openWS(t, dir, true)
	engines := grepEngines(t, ws, GrepOptions{})
	var golden strings.Builder
	for _, tc := range grepParityCases {
		params := map[string]any{"pattern": tc.pattern}
		if tc.path != "" {
			params["path"] = tc.path
		}
		if tc.include != "" {
			params["include"] = tc.include
		}
		goRes := run(t, engines["go"], params)
		fmt.Fprintf(&golden, "=== %s %s\n%s\n\n", tc.name, mustJSON(params), goRes.Content)
		t.Run(tc.name, func(t *testing.T) {
			if goRes.IsError {
				t.Fatalf("go engine: %s", goRes.Content)
			}
			rg, ok := engines["rg"]
			if !ok {
				t.Skip("rg is not on PATH")
			}
			rgRes := run(t, rg, params)
			if rgRes.Meta["engine"] != "rg" {
				t.Fatalf("engine = %v, want rg", rgRes.Meta["engine"])
			}
			if rgRes.Content != goRes.Content {
				t.Errorf("engines disagree for %v\n--- go\n%s\n--- rg\n%s", params, goRes.Content, rgRes.Content)
			}
		})
	}
	checkGolden(t, "testdata/grep/parity.golden", golden.String())
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *updateGrepGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update-grep to create it)", err, t.Name())
	}
	if string(want) != got {
		t.Errorf("output differs from %s (rerun with -update-grep and review the diff)\n--- got\n%s", path, got)
	}
}

func TestGrepUnrestrictedOutsidePath(t *testing.T) {
	dir, outside := grepFixture(t)
	ws := openWS(t, dir, false)
	real, err := filepath.EvalSymlinks(outside)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(real, "secret.txt") + ":1:hello outside\n\n(1 matching line in 1 file.)"
	for name, tool := range grepEngines(t, ws, GrepOptions{}) {
		t.Run(name, func(t *testing.T) {
			res := run(t, tool, map[string]any{"pattern": "hello", "path": outside})
			if res.Content != want {
				t.Errorf("got\n%s\nwant\n%s", res.Content, want)
			}
		})
	}
}

func TestGrepErrors(t *testing.T) {
	dir, outside := grepFixture(t)
	ws := openWS(t, dir, true)
	cases := []struct {
		name   string
		params map[string]any
		want   string
	}{
		{"invalid regex", map[string]any{"pattern": "func(("}, "Invalid regex \"func((\": error parsing regexp: missing closing )"},
		{"line break in pattern", map[string]any{"pattern": `a\nb`}, "it matches a line break"},
		{"replacement character", map[string]any{"pattern": `\x{FFFD}`}, "U+FFFD cannot be searched for"},
		{"bad include", map[string]any{"pattern": "x", "include": "*.{go"}, "Invalid include glob"},
		{"relative path outside", map[string]any{"pattern": "x", "path": "../x"}, "outside the workspace"},
		{"absolute path outside", map[string]any{"pattern": "x", "path": outside}, "outside the workspace"},
		{"symlink out", map[string]any{"pattern": "x", "path": "link-out.txt"}, "outside the workspace through a symbolic link"},
		{"missing path", map[string]any{"pattern": "x", "path": "nope"}, "Path not found: nope"},
	}
	for name, tool := range grepEngines(t, ws, GrepOptions{}) {
		for _, tc := range cases {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				res := run(t, tool, tc.params)
				if !res.IsError || !strings.Contains(res.Content, tc.want) {
					t.Errorf("got %+v, want an error containing %q", res, tc.want)
				}
			})
		}
	}
}

func TestGrepCaps(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 3 {
		files[fmt.Sprintf("f%d.txt", i)] = strings.Repeat("match here\n", 4)
	}
	files["long.txt"] = "match " + strings.Repeat("é", 20) + "\n"
	testutil.WriteTree(t, dir, files)
	ws := openWS(t, dir, true)
	want := "f0.txt:1:match here\nf0.txt:2:match here\nf0.txt:3:match here\nf0.txt:4:match here\nf1.txt:1:match here\n" +
		"\n(Showing 5 of 13 matching lines in 4 files; 8 more were left out. Narrow the pattern, path or include to see them.)"
	wantLong := "long.txt:1:match ééééééé… [line cut, 26 more bytes]\n\n(1 matching line in 1 file.)"
	for name, tool := range grepEngines(t, ws, GrepOptions{MaxMatches: 5, MaxLineLength: 21}) {
		t.Run(name, func(t *testing.T) {
			res := run(t, tool, map[string]any{"pattern": "match"})
			if res.Content != want || res.Meta["matches"] != 13 || res.Meta["truncated"] != true {
				t.Errorf("got %q %v\nwant %q", res.Content, res.Meta, want)
			}
			res = run(t, tool, map[string]any{"pattern": "match", "path": "long.txt"})
			if res.Content != wantLong {
				t.Errorf("got %q\nwant %q", res.Content, wantLong)
			}
		})
	}
}

func TestGrepSymlinksNotFollowed(t *testing.T) {
	dir, _ := grepFixture(t)
	ws := openWS(t, dir, true)
	for name, tool := range grepEngines(t, ws, GrepOptions{}) {
		t.Run(name, func(t *testing.T) {
			res := run(t, tool, map[string]any{"pattern": "outside|hello"})
			for _, bad := range []string{"hello outside", "link-out", "link-in", "linkdir"} {
				if strings.Contains(res.Content, bad) {
					t.Errorf("output mentions %q:\n%s", bad, res.Content)
				}
			}
		})
	}
}

func TestGrepCollectorKeepsFirstLinesInPathOrder(t *testing.T) {
	t.Parallel()
	c := newGrepCollector(3, 100)
	add := func(path string, lines ...int) {
		f := &grepFile{path: path}
		for _, n := range lines {
			f.lines = append(f.lines, grepLine{n: n, text: "x"})
		}
		c.addFile(f, len(lines))
	}
	// Out of order, as worker goroutines deliver them, and enough lines to
	// make the collector drop files that can no longer be shown.
	add("z.txt", 1, 2, 3, 4, 5)
	add("m/b.txt", 7)
	add("m.txt", 1, 2)
	add("y.txt", 1, 2, 3, 4, 5, 6, 7, 8, 9)
	add("m/a.txt", 2, 3)
	add("a.txt", 4)
	add("q.txt", 1, 2)
	c.remove("q.txt") // reported binary
	res := c.result("x", "in the workspace", "")
	want := "a.txt:4:x\nm/a.txt:2:x\nm/a.txt:3:x\n\n(Showing 3 of 20 matching lines in 6 files; 17 more were left out. Narrow the pattern, path or include to see them.)"
	if res.Content != want {
		t.Errorf("got\n%s\nwant\n%s", res.Content, want)
	}
}

// fakeRg writes an executable script standing in for ripgrep.
func fakeRg(t *testing.T, script string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "rg")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestGrepRgProcess(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to run fake rg scripts")
	}
	dir, _ := grepFixture(t)
	ws := openWS(t, dir, true)

	t.Run("killed when the context ends", func(t *testing.T) {
		tool := NewGrep(ws, GrepOptions{RgPath: fakeRg(t, "exec sleep 30")})
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := tool.Execute(ctx, map[string]any{"pattern": "hello"})
		if err == nil {
			t.Error("no error after the context ended")
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("rg was not killed: Execute took %v", d)
		}
	})
	t.Run("exit code 2 is an error result", func(t *testing.T) {
		tool := NewGrep(ws, GrepOptions{RgPath: fakeRg(t, "echo 'something broke' >&2; exit 2")})
		res := run(t, tool, map[string]any{"pattern": "hello"})
		if !res.IsError || !strings.Contains(res.Content, "ripgrep failed (exit code 2): something broke") {
			t.Errorf("got %+v", res)
		}
	})
	t.Run("unreadable paths are a note", func(t *testing.T) {
		script := `printf 'a.go\0004:// TODO: hello there\n'; echo './x: Permission denied (os error 13)' >&2; exit 2`
		res := run(t, NewGrep(ws, GrepOptions{RgPath: fakeRg(t, script)}), map[string]any{"pattern": "hello"})
		want := "a.go:4:// TODO: hello there\n\n(1 matching line in 1 file.)\n(Some paths could not be read and were skipped.)"
		if res.IsError || res.Content != want {
			t.Errorf("got %+v\nwant %q", res, want)
		}
	})
	t.Run("lines not in the file are dropped", func(t *testing.T) {
		script := `printf 'a.go\0004:// TODO: hello there\na.go\0001:SECRET outside\n'`
		res := run(t, NewGrep(ws, GrepOptions{RgPath: fakeRg(t, script)}), map[string]any{"pattern": "hello"})
		want := "a.go:4:// TODO: hello there\n\n(1 matching line in 1 file.)\n(1 matching line changed while being searched and were left out.)"
		if res.IsError || res.Content != want {
			t.Errorf("got %+v\nwant %q", res, want)
		}
	})
	t.Run("missing binary means the Go engine", func(t *testing.T) {
		res := run(t, NewGrep(ws, GrepOptions{RgPath: filepath.Join(t.TempDir(), "no-rg")}), map[string]any{"pattern": "hello"})
		if res.Meta["engine"] != "go" {
			t.Errorf("engine = %v, want go", res.Meta["engine"])
		}
	})
}

// TestGrepSwappedSymlinkRace swaps a folder for a link pointing outside
// while Grep searches through it. ripgrep opens files by path, so it can
// read outside; what it found must still never reach the result.
func TestGrepSwappedSymlinkRace(t *testing.T) {
	base := t.TempDir()
	dir, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	testutil.WriteTree(t, dir, map[string]string{"inside.txt": "SAFE inside\n"})
	testutil.WriteTree(t, outside, map[string]string{"secret.txt": "SECRET outside\n"})
	ws := openWS(t, dir, true)
	stop := swapSymlink(t, filepath.Join(dir, "racy"), outside)
	defer stop()
	for name, tool := range grepEngines(t, ws, GrepOptions{}) {
		t.Run(name, func(t *testing.T) {
			for _, p := range []string{"", "racy", "racy/secret.txt"} {
				for range 150 {
					res, _ := tool.Execute(context.Background(), map[string]any{"pattern": "SECRET ", "path": p})
					if strings.Contains(res.Content, "SECRET outside") {
						t.Fatalf("path %q: outside content in the result:\n%s", p, res.Content)
					}
				}
			}
		})
	}
}

func TestGrepCancelled(t *testing.T) {
	dir, _ := grepFixture(t)
	ws := openWS(t, dir, true)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, tool := range grepEngines(t, ws, GrepOptions{}) {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			if _, err := tool.Execute(ctx, map[string]any{"pattern": "hello"}); err == nil {
				t.Error("no error for a cancelled context")
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

func TestGrepThroughRegistry(t *testing.T) {
	dir, _ := grepFixture(t)
	ws := openWS(t, dir, true)
	for name, tool := range grepEngines(t, ws, GrepOptions{}) {
		t.Run(name, func(t *testing.T) {
			reg := tools.NewRegistry()
			if err := reg.Register(tool); err != nil {
				t.Fatal(err)
			}
			info, _ := reg.Info("Grep")
			if !info.Safe || !info.ReadOnly {
				t.Errorf("Grep must be safe and read-only: %+v", info)
			}
			res := reg.Execute(context.Background(), "c1", "Grep", json.RawMessage(`{"pattern":"func Hello\\(","include":"*.go"}`))
			want := "a.go:3:func Hello(ctx context.Context) error { return nil }\n\n(1 matching line in 1 file.)"
			if res.IsError || res.Content != want || res.Meta["engine"] != name {
				t.Errorf("got %+v\nwant %q", res, want)
			}
			res = reg.Execute(context.Background(), "c2", "Grep", json.RawMessage(`{"pattern":"[unclosed"}`))
			if !res.IsError || !strings.HasSuffix(res.Content, tools.ErrorHint) {
				t.Errorf("invalid regex: got %+v", res)
			}
		})
	}
}
