package mcp

import (
	"os"
	"path/filepath"
	"testing"

	"tinyelf/backend/config"
)

// TestFilesystemServer reads and lists inside the folder the reference
// filesystem server is allowed to use, and is refused outside it.
func TestFilesystemServer(t *testing.T) {
	t.Parallel()
	script := npmScript(t, "@modelcontextprotocol/server-filesystem")
	root, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	allowed := filepath.Join(root, "allowed")
	must(t, os.MkdirAll(filepath.Join(allowed, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(allowed, "notes.txt"), []byte("first line\nsecond line\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "secret.txt"), []byte("keep out"), 0o644))

	svc, _ := startService(t, testOptions(), config.MCPServer{Name: "fs", Command: "node", Args: []string{script, allowed}})
	reg := registryOf(t, svc.Tools())
	if info, _ := reg.Info("mcp__fs__write_file"); info.ReadOnly || info.Safe {
		t.Errorf("write_file info = %+v, want a writing tool", info)
	}
	if info, _ := reg.Info("mcp__fs__read_text_file"); !info.ReadOnly {
		t.Errorf("read_text_file info = %+v, want read-only", info)
	}
	tests := []struct {
		name    string
		tool    string
		args    map[string]any
		isError bool
		want    []string
	}{
		{"read", "read_text_file", map[string]any{"path": filepath.Join(allowed, "notes.txt")}, false, []string{"first line\nsecond line"}},
		{"list", "list_directory", map[string]any{"path": allowed}, false, []string{"[FILE] notes.txt", "[DIR] sub"}},
		{"outside is refused", "read_text_file", map[string]any{"path": filepath.Join(root, "secret.txt")}, true, []string{"Access denied"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, _ := call(t, svc, "mcp__fs__"+tc.tool, tc.args)
			if res.IsError != tc.isError {
				t.Fatalf("isError = %v: %s", res.IsError, res.Content)
			}
			mustContain(t, res.Content, tc.want...)
		})
	}
}
