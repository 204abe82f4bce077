package fs

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"tinyelf/backend/tools"
	"tinyelf/internal/testutil"
)

// globFixture builds a tree whose files have distinct modification times:
// each file is one minute older than the one listed before it.
func globFixture(t *testing.T) (dir, outside string) {
	t.Helper()
	dir, outside = t.TempDir(), t.TempDir()
	testutil.WriteTree(t, outside, map[string]string{"o.go": "package o\n"})
	order := []string{
		"src/new.go", "src/app/main.ts", "src/app/view.tsx", "main.go", "src/old.go",
		"docs/readme.md", "README.md", ".github/workflows/ci.yml", ".env",
		"node_modules/pkg/index.js", "build/gen.go", "sub/.gitignore", "sub/skip.md", "sub/keep.txt",
		".git/config", "[lit].go",
	}
	files := map[string]string{".gitignore": "node_modules/\nbuild/\n", "sub/.gitignore": "*.md\n"}
	for _, f := range order {
		if _, ok := files[f]; !ok {
			files[f] = "x\n"
		}
	}
	files["link.go"] = "->" + filepath.Join(outside, "o.go")
	files["linkdir"] = "->src"
	testutil.WriteTree(t, dir, files)
	now := time.Now()
	for i, f := range order {
		mt := now.Add(-time.Duration(i) * time.Minute)
		if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(f)), mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	return dir, outside
}

func TestGlob(t *testing.T) {
	dir, outside := globFixture(t)
	tool := NewGlob(openWS(t, dir, true))
	cases := []struct {
		name    string
		pattern string
		path    string
		want    []string // newest first; nil means no match
	}{
		{"all go files newest first", "**/*.go", "", []string{"src/new.go", "main.go", "src/old.go", "[lit].go"}},
		{"top level only", "*.go", "", []string{"main.go", "[lit].go"}},
		{"braces", "src/**/*.{ts,tsx}", "", []string{"src/app/main.ts", "src/app/view.tsx"}},
		{"relative to path", "*.go", "src", []string{"src/new.go", "src/old.go"}},
		{"one folder deep", "*/*.go", "", []string{"src/new.go", "src/old.go"}},
		{"gitignore honoured", "**/*.js", "", nil},
		{"named ignored folder is entered", "node_modules/**/*.js", "", []string{"node_modules/pkg/index.js"}},
		{"nested gitignore", "sub/*", "", []string{"sub/keep.txt"}},
		{"hidden skipped", "**/*.yml", "", nil},
		{"hidden named", ".github/**/*.yml", "", []string{".github/workflows/ci.yml"}},
		{"hidden file named", "**/.env", "", []string{".env"}},
		{"git folder never listed", "**/.*", "", []string{".gitignore", ".env", "sub/.gitignore"}},
		{"escaped meta", `\[lit\].go`, "", []string{"[lit].go"}},
		{"absolute pattern", filepath.ToSlash(filepath.Join(dir, "src")) + "/*.go", "", []string{"src/new.go", "src/old.go"}},
		{"no match", "**/*.rs", "", nil},
		{"missing literal folder", "nope/**/*.go", "", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			params := map[string]any{"pattern": tc.pattern}
			if tc.path != "" {
				params["path"] = tc.path
			}
			res := run(t, tool, params)
			if res.IsError {
				t.Fatalf("error: %s", res.Content)
			}
			if tc.want == nil {
				if !strings.HasPrefix(res.Content, "No files match") {
					t.Errorf("got %q, want no match", res.Content)
				}
				return
			}
			want := strings.Join(tc.want, "\n") + fmt.Sprintf("\n\n(%s, most recently modified first.)", plural(len(tc.want), "matching file"))
			if res.Content != want {
				t.Errorf("got\n%s\nwant\n%s", res.Content, want)
			}
		})
	}

	errs := []struct {
		name    string
		pattern string
		path    string
		want    string
	}{
		{"bad pattern", "src/[a-", "", "Invalid glob pattern"},
		{"unclosed brace", "*.{go", "", "Invalid glob pattern"},
		{"empty pattern", " ", "", "pattern is empty"},
		{"dot dot", "../*.go", "", "goes up"},
		{"outside path", "*.go", outside, "outside the workspace"},
		{"relative outside path", "*.go", "../..", "outside the workspace"},
		{"symlinked folder out", "*", "link.go", "outside the workspace through a symbolic link"},
		{"absolute pattern outside", filepath.ToSlash(outside) + "/*.go", "", "outside the workspace"},
		{"path is a file", "*", "main.go", "is a file, not a folder"},
		{"missing path", "*", "nope", "Path not found"},
	}
	for _, tc := range errs {
		t.Run(tc.name, func(t *testing.T) {
			params := map[string]any{"pattern": tc.pattern}
			if tc.path != "" {
				params["path"] = tc.path
			}
			res := run(t, tool, params)
			if !res.IsError || !strings.Contains(res.Content, tc.want) {
				t.Errorf("got %+v, want an error containing %q", res, tc.want)
			}
		})
	}
}

func TestGlobCap(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	for i := range 105 {
		p := filepath.Join(dir, fmt.Sprintf("f%03d.txt", i))
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		mt := now.Add(time.Duration(i) * time.Second) // f104 is the newest
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	res := run(t, NewGlob(openWS(t, dir, true)), map[string]any{"pattern": "*.txt"})
	lines := strings.Split(res.Content, "\n")
	if lines[0] != "f104.txt" || lines[99] != "f005.txt" || lines[100] != "" {
		t.Errorf("wrong order or cap: first %q, 100th %q, 101st %q", lines[0], lines[99], lines[100])
	}
	wantNote := "(Showing the 100 most recently modified of 105 matching files; 5 more were left out. Narrow the pattern or path to see them.)"
	if lines[101] != wantNote || res.Meta["count"] != 105 || res.Meta["truncated"] != true {
		t.Errorf("note %q meta %v", lines[101], res.Meta)
	}
}

func TestGlobThroughRegistry(t *testing.T) {
	dir, _ := globFixture(t)
	reg := tools.NewRegistry()
	if err := reg.Register(NewGlob(openWS(t, dir, true))); err != nil {
		t.Fatal(err)
	}
	info, _ := reg.Info("Glob")
	if !info.Safe || !info.ReadOnly {
		t.Errorf("Glob must be safe and read-only: %+v", info)
	}
	res := reg.Execute(context.Background(), "c1", "Glob", json.RawMessage(`{"pattern":"**/*.md"}`))
	want := "docs/readme.md\nREADME.md\n\n(2 matching files, most recently modified first.)"
	if res.IsError || res.Content != want {
		t.Errorf("got %+v\nwant %q", res, want)
	}
	res = reg.Execute(context.Background(), "c2", "Glob", json.RawMessage(`{"pattern":"a/{b"}`))
	if !res.IsError || !strings.HasSuffix(res.Content, tools.ErrorHint) {
		t.Errorf("bad pattern: got %+v", res)
	}
}
