package config

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestDocumentsDir(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		t.Skip("XDG user dirs are a Linux and BSD matter")
	}
	home := t.TempDir()
	cfg := filepath.Join(home, ".config")
	if err := os.MkdirAll(cfg, 0o755); err != nil {
		t.Fatal(err)
	}
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	tests := []struct {
		name, dirs string
		env        map[string]string
		want       string
	}{
		{"no user-dirs file", "", nil, filepath.Join(home, "Documents")},
		{"user-dirs entry", `XDG_DOCUMENTS_DIR="$HOME/Dokumente"` + "\n", nil, filepath.Join(home, "Dokumente")},
		{"absolute entry", "# comment\nXDG_DOCUMENTS_DIR=\"/srv/docs\"\n", nil, "/srv/docs"},
		{"entry pointing at home", `XDG_DOCUMENTS_DIR="$HOME/"` + "\n", nil, filepath.Join(home, "Documents")},
		{"environment wins", `XDG_DOCUMENTS_DIR="$HOME/Dokumente"`, map[string]string{"XDG_DOCUMENTS_DIR": "/data/papers"}, "/data/papers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(cfg, "user-dirs.dirs")
			os.Remove(path)
			if tt.dirs != "" {
				if err := os.WriteFile(path, []byte(tt.dirs), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got := DocumentsDir(env(tt.env), home); got != tt.want {
				t.Errorf("DocumentsDir = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestUseModel(t *testing.T) {
	t.Parallel()
	var s Settings
	for i := range MaxRecentModels + 3 {
		s.UseModel(ModelRef{Provider: "p", Model: string(rune('a' + i))})
	}
	s.UseModel(ModelRef{Provider: "p", Model: "c"})
	if len(s.RecentModels) != MaxRecentModels || s.RecentModels[0].Model != "c" || s.RecentModels[1].Model != "k" {
		t.Errorf("RecentModels = %v", s.RecentModels)
	}
}
