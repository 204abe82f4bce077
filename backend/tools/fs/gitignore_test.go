package fs

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"tinyelf/internal/testutil"
)

func TestGitignoreRules(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		lines string
		path  string
		isDir bool
		want  ignoreMatch
	}{
		{"extension at root", "*.log", "a.log", false, matchIgnore},
		{"extension deep", "*.log", "d/e/a.log", false, matchIgnore},
		{"extension is a suffix", "*.log", "a.log.txt", false, matchNone},
		{"negation wins when last", "*.log\n!keep.log", "d/keep.log", false, matchWhitelist},
		{"earlier negation loses", "!keep.log\n*.log", "keep.log", false, matchIgnore},
		{"dir pattern on dir", "build/", "x/build", true, matchIgnore},
		{"dir pattern on file", "build/", "x/build", false, matchNone},
		{"anchored at root", "/root.txt", "root.txt", false, matchIgnore},
		{"anchored not deeper", "/root.txt", "sub/root.txt", false, matchNone},
		{"inner slash anchors", "docs/*.md", "docs/a.md", false, matchIgnore},
		{"inner slash not deeper", "docs/*.md", "x/docs/a.md", false, matchNone},
		{"star stops at slash", "docs/*.md", "docs/x/a.md", false, matchNone},
		{"leading doublestar", "**/foo", "a/b/foo", true, matchIgnore},
		{"leading doublestar at root", "**/foo", "foo", false, matchIgnore},
		{"middle doublestar zero dirs", "a/**/b", "a/b", false, matchIgnore},
		{"middle doublestar many dirs", "a/**/b", "a/x/y/b", false, matchIgnore},
		{"trailing doublestar inside", "a/**", "a/x/y", false, matchIgnore},
		{"trailing doublestar not the dir", "a/**", "a", true, matchNone},
		{"braces", "*.{bak,orig}", "x.orig", false, matchIgnore},
		{"doublestar inside a name is a star", "foo**", "foox", false, matchIgnore},
		{"escaped hash", `\#file`, "#file", false, matchIgnore},
		{"escaped bang", `\!bang`, "!bang", false, matchIgnore},
		{"comment", "# comment", "# comment", false, matchNone},
		{"escaped trailing space", `space\ `, "space ", false, matchIgnore},
		{"trailing spaces trimmed", "trailing   ", "trailing", false, matchIgnore},
		{"class", "[abc].txt", "b.txt", false, matchIgnore},
		{"class miss", "[abc].txt", "d.txt", false, matchNone},
		{"negated class", "[!a].txt", "a.txt", false, matchNone},
		{"range", "[a-c]x", "bx", false, matchIgnore},
		{"question mark", "?.c", "a.c", false, matchIgnore},
		{"question mark is one char", "?.c", "ab.c", false, matchNone},
		{"question mark stops at slash", "a?b", "a/b", false, matchNone},
		{"invalid line dropped", "[unclosed", "[unclosed", false, matchNone},
		{"anchored dir", "dir/sub/", "dir/sub", true, matchIgnore},
		{"crlf line ends", "*.tmp\r\n", "a.tmp", false, matchIgnore},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := parseIgnoreFile("", []byte(tc.lines))
			if got := l.match(tc.path, tc.isDir); got != tc.want {
				t.Errorf("%q against %q (dir %v) = %v, want %v", tc.lines, tc.path, tc.isDir, got, tc.want)
			}
		})
	}
}

func TestGitignoreBaseAndRebase(t *testing.T) {
	t.Parallel()
	sub := parseIgnoreFile("sub/dir", []byte("*.log\n/top.txt\nx/**/y\n!keep.log\nbuild/\n"))
	var b strings.Builder
	sub.rebased(&b)
	root := parseIgnoreFile("", []byte(b.String()))
	paths := []struct {
		p     string
		isDir bool
	}{
		{"sub/dir/a.log", false}, {"sub/dir/keep.log", false}, {"sub/dir/top.txt", false},
		{"sub/dir/z/top.txt", false}, {"sub/dir/x/q/y", false}, {"sub/dir/build", true},
		{"sub/dir/deep/build", true}, {"other/a.log", false}, {"sub/a.log", false},
	}
	for _, p := range paths {
		if got, want := root.match(p.p, p.isDir), sub.match(p.p, p.isDir); got != want {
			t.Errorf("%s: rebased %v, original %v\nrebased rules:\n%s", p.p, got, want, b.String())
		}
	}
	if sub.match("other/a.log", false) != matchNone {
		t.Error("rules must not apply outside their folder")
	}
}

func TestGitignoreStackPrecedence(t *testing.T) {
	t.Parallel()
	top := &ignoreLevel{}
	top.files[0] = parseIgnoreFile("", []byte("*.md\n.secret\n!.secret\n"))
	top.files[2] = parseIgnoreFile("", []byte("!special.md\n"))
	deep := &ignoreLevel{parent: top}
	deep.files[0] = parseIgnoreFile("d", []byte("!notes.md\n"))
	inc := &ignoreList{}
	inc.add("*.md")
	cases := []struct {
		name  string
		stack ignoreStack
		rel   string
		isDir bool
		skip  bool
	}{
		{"gitignore ignores", ignoreStack{level: top}, "a.md", false, true},
		{"deeper file wins", ignoreStack{level: deep}, "d/notes.md", false, false},
		{"rgignore beats gitignore", ignoreStack{level: top}, "special.md", false, false},
		{"hidden skipped", ignoreStack{level: top}, ".env", false, true},
		{"hidden re-included by a rule", ignoreStack{level: top}, ".secret", false, false},
		{"hidden kept when asked", ignoreStack{level: top, hidden: true}, ".env", false, false},
		{"include beats gitignore", ignoreStack{level: top, include: inc}, "a.md", false, false},
		{"include drops other files", ignoreStack{level: top, include: inc}, "a.go", false, true},
		{"include keeps folders", ignoreStack{level: top, include: inc}, "src", true, false},
		{"explicit rules are lowest", ignoreStack{level: deep, explicit: parseIgnoreFile("", []byte("*.txt\n/d/notes.md\n"))}, "d/notes.md", false, false},
		{"explicit rules apply", ignoreStack{level: deep, explicit: parseIgnoreFile("", []byte("*.txt\n"))}, "d/a.txt", false, true},
		{"no git folder", ignoreStack{hidden: true, noGit: true}, ".git", true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			name := tc.rel[strings.LastIndexByte(tc.rel, '/')+1:]
			if got := tc.stack.skip(tc.rel, name, tc.isDir); got != tc.skip {
				t.Errorf("skip(%q) = %v, want %v", tc.rel, got, tc.skip)
			}
		})
	}
}

// TestGitignoreMatchesRipgrep checks the matcher against ripgrep itself on
// trees with unusual ignore files.
func TestGitignoreMatchesRipgrep(t *testing.T) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("rg is not on PATH: ripgrep comparison skipped")
	}
	files := []string{
		"a.txt", "b.c", "x", "foox", "]", "-", "ab", "a/b", "a/x/b", "a/c", "c/a/b/d", "build/keep",
		"src/build/k.txt", "keep/me.txt", "{a,b}", "weird[1].txt", "dir.d/f", "sub/.hidden/f", "sub/.gitignore2",
	}
	cases := map[string]string{
		"odd braces":               "}x\nfoo**\n",
		"classes":                  "[]]\n[a-]\n*.[ch]\n\\[x]\nweird\\[1\\].txt\n",
		"doublestars":              "**/**\n!a/**/b\n",
		"middle doublestar":        "a/**/b\n",
		"reinclude in ignored dir": "build/\n!build/keep\n",
		"anchored dirs":            "/src/\n!keep/\nkeep/*\n!keep/me.txt\n",
		"literal braces":           "\\{a,b\\}\n",
		"alternatives":             "{a,c}/b\n*.{c,d}\n",
		"everything":               "*\n!*/\n!*.txt\n",
		"nested":                   "sub/*\n",
	}
	for name, ignore := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			tree := map[string]string{".gitignore": ignore}
			for _, f := range files {
				tree[f] = "x\n"
			}
			testutil.WriteTree(t, dir, tree)
			cmd := exec.Command(rg, "--files", "--no-config", "--no-require-git", "--no-ignore-parent",
				"--no-ignore-global", "--no-ignore-exclude", "--no-ignore-messages", "./")
			cmd.Dir = dir
			out, _ := cmd.Output()
			var want []string
			for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				if l != "" {
					want = append(want, strings.TrimPrefix(l, "./"))
				}
			}
			ws := openWS(t, dir, true)
			root, err := resolveSearchRoot(ws, "")
			if err != nil {
				t.Fatal(err)
			}
			var (
				mu  sync.Mutex
				got []string
			)
			err = walkTree(context.Background(), root, &ignoreStack{}, -1, 2, func(_ int, _ *os.Root, _, rel string) error {
				mu.Lock()
				got = append(got, rel)
				mu.Unlock()
				return nil
			}, func(rel string, err error) { t.Errorf("%s: %v", rel, err) })
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf(".gitignore %q\ngo: %q\nrg: %q", ignore, got, want)
			}
		})
	}
}
