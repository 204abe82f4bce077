// Package config holds TinyElf's settings: providers, agents, permission
// rules, MCP servers and preferences, stored as one JSON file in the data
// folder, and the resolution of that folder.
package config

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// HomeEnv overrides the data folder.
const HomeEnv = "TINYELF_HOME"

// DataDir returns the data folder: $TINYELF_HOME when set, otherwise the
// user config folder plus "/tinyelf": $XDG_CONFIG_HOME/tinyelf on Linux and
// the BSDs (~/.config/tinyelf when it is unset, or relative, which the XDG
// base directory spec says to ignore), %AppData%\tinyelf on Windows,
// ~/Library/Application Support/tinyelf on macOS. It creates the folder
// (mode 0700, as it holds API keys) when missing.
func DataDir() (string, error) {
	dir := os.Getenv(HomeEnv)
	if dir == "" {
		base, err := userConfigDir()
		if err != nil {
			return "", fmt.Errorf("find the data folder (set %s to choose one): %w", HomeEnv, err)
		}
		dir = filepath.Join(base, "tinyelf")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("data folder %s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return "", fmt.Errorf("create the data folder %s: %w", abs, err)
	}
	return abs, nil
}

// userConfigDir is os.UserConfigDir, except that a relative
// $XDG_CONFIG_HOME is ignored as the XDG spec asks (os.UserConfigDir fails
// on it), so that a desktop session that sets one still finds the data.
func userConfigDir() (string, error) {
	switch runtime.GOOS {
	case "windows", "darwin", "ios", "plan9":
		return os.UserConfigDir()
	}
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return x, nil
	}
	home := os.Getenv("HOME")
	if home == "" {
		return "", fmt.Errorf("neither $XDG_CONFIG_HOME nor $HOME is set")
	}
	return filepath.Join(home, ".config"), nil
}
