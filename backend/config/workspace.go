package config

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// DefaultWorkspaceName is the folder a chat works in when the user chose
// none, inside their documents folder.
const DefaultWorkspaceName = "TinyElf"

// DocumentsDir returns the user's documents folder: on Linux and the BSDs
// the XDG documents directory (XDG_DOCUMENTS_DIR, or its entry in
// $XDG_CONFIG_HOME/user-dirs.dirs, as xdg-user-dir reads it), elsewhere
// ~/Documents; ~/Documents too when the XDG entry is missing or points at
// the home folder itself. getenv reads the environment.
func DocumentsDir(getenv func(string) string, home string) string {
	fallback := filepath.Join(home, "Documents")
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		return fallback
	}
	dir := getenv("XDG_DOCUMENTS_DIR")
	if dir == "" {
		cfg := getenv("XDG_CONFIG_HOME")
		if cfg == "" {
			cfg = filepath.Join(home, ".config")
		}
		dir = userDirsEntry(filepath.Join(cfg, "user-dirs.dirs"), "XDG_DOCUMENTS_DIR", home)
	}
	if dir == "" || filepath.Clean(dir) == filepath.Clean(home) || !filepath.IsAbs(dir) {
		return fallback
	}
	return filepath.Clean(dir)
}

// userDirsEntry reads one entry of a user-dirs.dirs file (shell syntax:
// XDG_DOCUMENTS_DIR="$HOME/Documents"), "" when it is not there.
func userDirsEntry(path, key, home string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.HasPrefix(line, "#") || strings.TrimSpace(k) != key {
			continue
		}
		v = strings.Trim(strings.TrimSpace(v), `"`)
		if rest, ok := strings.CutPrefix(v, "$HOME"); ok {
			v = home + rest
		}
		return v
	}
	return ""
}

// DefaultWorkspace returns the folder a chat works in when the user chose
// none: DefaultWorkspaceName inside DocumentsDir. It is not created here.
func DefaultWorkspace(getenv func(string) string) (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	return filepath.Join(DocumentsDir(getenv, home), DefaultWorkspaceName), nil
}
