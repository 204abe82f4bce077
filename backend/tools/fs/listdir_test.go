package fs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestListDir(t *testing.T) {
	t.Parallel()
	ws, dir := newTestWorkspace(t, map[string]string{
		"b.txt": "bb", "a.txt": "a", "zdir/x": "", "adir/y": "", "empty/.keep": "",
	})
	os.Remove(filepath.Join(dir, "empty/.keep"))
	os.Symlink("a.txt", filepath.Join(dir, "link"))
	tests := []struct {
		name, args string
		wantError  string
		want       string
	}{
		{"root: folders first, then files", `{"path":"."}`, "", "./ (6 entries)\n  adir/\n  empty/\n  zdir/\n  a.txt (1 bytes)\n  b.txt (2 bytes)\n  link -> a.txt (symbolic link)\n"},
		{"sub folder", `{"path":"zdir"}`, "", "zdir/ (1 entry)\n  x (0 bytes)\n"},
		{"empty folder", `{"path":"empty"}`, "", "empty/ (0 entries)\n(empty folder)\n"},
		{"a file", `{"path":"a.txt"}`, "Not a directory: a.txt. Use Read", ""},
		{"missing", `{"path":"nope"}`, "File not found: nope", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := execTool(t, NewListDir(ws), tc.args)
			if tc.wantError != "" {
				if !res.IsError || !strings.Contains(res.Content, tc.wantError) {
					t.Fatalf("want error %q, got %s", tc.wantError, res.Content)
				}
				return
			}
			if res.IsError || res.Content != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", res.Content, tc.want)
			}
		})
	}
}

func TestListDirCapsLongListings(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 1005 {
		files[fmt.Sprintf("f%04d", i)] = ""
	}
	ws, _ := newTestWorkspace(t, files)
	res := execTool(t, NewListDir(ws), `{"path":"."}`)
	if !strings.Contains(res.Content, "... and 5 more entries not shown") || strings.Contains(res.Content, "f1004") {
		t.Errorf("listing not capped: %.200s ... %s", res.Content, res.Content[len(res.Content)-120:])
	}
}
