// Package config holds TinyElf's settings: providers, agents, permission
// rules, MCP servers and preferences, stored as one JSON file in the data
// folder, and the resolution of that folder.
package config

import (
	"fmt"
	"os"
	"path/filepath"
)

// HomeEnv overrides the data folder.
const HomeEnv = "TINYELF_HOME"

// DataDir returns the data folder: $TINYELF_HOME when set, otherwise the
// user config folder plus "/tinyelf". It creates the folder (mode 0700, as it
// holds API keys) when missing.
func DataDir() (string, error) {
	dir := os.Getenv(HomeEnv)
	if dir == "" {
		base, err := os.UserConfigDir()
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
