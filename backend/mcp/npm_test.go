package mcp

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// The pinned npm packages of testdata/npm (server-everything,
// server-filesystem, the TypeScript SDK) are installed with `npm ci` the
// first time a test needs them on a clone without node_modules. A file lock
// keeps concurrent test binaries from installing at the same time.
var npmSetup struct {
	once sync.Once
	dir  string
	err  error
}

// npmPackages are the installs the tests need; their package.json files
// are the marker of a complete install.
var npmPackages = []string{
	"@modelcontextprotocol/server-everything",
	"@modelcontextprotocol/server-filesystem",
	"@modelcontextprotocol/sdk",
}

// npmModules returns testdata/npm/node_modules, installing it when needed.
// Without node or npm the test fails with a message saying so.
func npmModules(t testing.TB) string {
	t.Helper()
	npmSetup.once.Do(func() { npmSetup.dir, npmSetup.err = installNPM() })
	if npmSetup.err != nil {
		t.Fatal(npmSetup.err)
	}
	return npmSetup.dir
}

func npmInstalled(modules string) bool {
	for _, p := range npmPackages {
		if !fileExists(filepath.Join(modules, p, "package.json")) {
			return false
		}
	}
	return true
}

func installNPM() (string, error) {
	dir, err := filepath.Abs(filepath.Join("testdata", "npm"))
	if err != nil {
		return "", err
	}
	modules := filepath.Join(dir, "node_modules")
	if _, err := exec.LookPath("node"); err != nil {
		return "", fmt.Errorf("these tests run real MCP servers from npm and need node (20 or later) on PATH: %w", err)
	}
	if npmInstalled(modules) {
		return modules, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("node_modules is missing under %s and npm is not on PATH to install it: %w", dir, err)
	}
	unlock, err := lockFile(filepath.Join(dir, ".install.lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	if npmInstalled(modules) { // another test binary installed it meanwhile
		return modules, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "ci", "--prefix", dir, "--no-audit", "--no-fund")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm ci --prefix %s failed (the tests need the npm registry once): %v\n%s", dir, err, out)
	}
	if !npmInstalled(modules) {
		return "", fmt.Errorf("npm ci succeeded but %v are still missing under %s", npmPackages, modules)
	}
	return modules, nil
}

// npmScript returns the entry script of an installed npm server.
func npmScript(t testing.TB, pkg string) string {
	t.Helper()
	return filepath.Join(npmModules(t), pkg, "dist", "index.js")
}

// must fail the test at once on err.
func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
