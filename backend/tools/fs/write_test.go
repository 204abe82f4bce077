package fs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	t.Parallel()
	ws, dir := newTestWorkspace(t, map[string]string{"old.txt": "before\n", "sub/x.txt": "x"})
	if err := os.Chmod(filepath.Join(dir, "old.txt"), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub/x.txt", filepath.Join(dir, "alias.txt")); err != nil {
		t.Fatal(err)
	}
	write := NewWrite(ws)
	tests := []struct {
		name      string
		path      string
		content   string
		wantError string
		wantMsg   string
		file      string // where the content must land (default: path)
		mode      os.FileMode
	}{
		{name: "create", path: "new.txt", content: "hello\n", wantMsg: "Created new.txt (1 lines, 6 bytes)."},
		{name: "creates parent folders", path: "a/b/c/deep.txt", content: "deep", wantMsg: "Created a/b/c/deep.txt"},
		{name: "overwrite keeps the mode", path: "old.txt", content: "after\n", wantMsg: "Overwrote old.txt", mode: 0o750},
		{name: "Japanese content", path: "ja.md", content: "# 見出し\n本文🍣\n", wantMsg: "Created ja.md (2 lines"},
		{name: "empty content", path: "empty.txt", content: "", wantMsg: "Created empty.txt (0 lines, 0 bytes)."},
		{name: "through a link inside keeps the link", path: "alias.txt", content: "via alias", wantMsg: "Overwrote alias.txt", file: "sub/x.txt"},
		{name: "onto a folder", path: "sub", content: "x", wantError: "Path is a directory, not a file: sub"},
		{name: "file as parent", path: "old.txt/child", content: "x", wantError: "old.txt/child"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args, _ := json.Marshal(map[string]any{"path": tc.path, "content": tc.content})
			res := execTool(t, write, string(args))
			if tc.wantError != "" {
				if !res.IsError || !strings.Contains(res.Content, tc.wantError) {
					t.Fatalf("want error %q, got %s", tc.wantError, res.Content)
				}
				return
			}
			if res.IsError || !strings.Contains(res.Content, tc.wantMsg) {
				t.Fatalf("want %q, got %s", tc.wantMsg, res.Content)
			}
			file := tc.path
			if tc.file != "" {
				file = tc.file
			}
			b, err := os.ReadFile(filepath.Join(dir, file))
			if err != nil || string(b) != tc.content {
				t.Fatalf("file holds %q (%v), want %q", b, err, tc.content)
			}
			if tc.mode != 0 {
				if fi, _ := os.Stat(filepath.Join(dir, file)); fi.Mode().Perm() != tc.mode {
					t.Errorf("mode = %v, want %v", fi.Mode().Perm(), tc.mode)
				}
			}
		})
	}
	if fi, err := os.Lstat(filepath.Join(dir, "alias.txt")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Error("writing through alias.txt replaced the link")
	}
	// No temporary files are left behind.
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if strings.Contains(d.Name(), ".tinyelf-") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}

func TestWriteReportsADiff(t *testing.T) {
	t.Parallel()
	ws, _ := newTestWorkspace(t, map[string]string{"f.txt": "a\nb\nc\n"})
	res := execTool(t, NewWrite(ws), `{"path":"f.txt","content":"a\nB\nc\n"}`)
	want := "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
	if res.Meta["diff"] != want {
		t.Errorf("diff:\n%s\nwant:\n%s", res.Meta["diff"], want)
	}
}

// TestWriteIsAtomic reads the file while it is rewritten: a reader must
// always see one whole version, never a truncated or mixed one.
func TestWriteIsAtomic(t *testing.T) {
	t.Parallel()
	a, b := strings.Repeat("a", 512*1024), strings.Repeat("b", 512*1024)
	ws, dir := newTestWorkspace(t, map[string]string{"big.txt": a})
	write := NewWrite(ws)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 30 {
			content := a
			if i%2 == 0 {
				content = b
			}
			args, _ := json.Marshal(map[string]any{"path": "big.txt", "content": content})
			if res := execTool(t, write, string(args)); res.IsError {
				t.Errorf("write: %s", res.Content)
			}
		}
	}()
	reads := 0
	for {
		select {
		case <-done:
			if reads == 0 {
				t.Fatal("no reads overlapped the writes")
			}
			return
		default:
		}
		got, err := os.ReadFile(filepath.Join(dir, "big.txt"))
		if err != nil {
			t.Fatalf("read during write: %v", err)
		}
		if s := string(got); s != a && s != b {
			t.Fatalf("a reader saw a partial file of %d bytes", len(got))
		}
		reads++
	}
}
