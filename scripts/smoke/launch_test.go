//go:build linux

package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestDesktopExec(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, entry string
		want        []string
		err         string
	}{
		{name: "field codes dropped, program on the desktop PATH",
			entry: "[Desktop Entry]\nName=X\nExec=sh %U\n", want: []string{"/usr/bin/sh"}},
		{name: "an absolute program and an argument",
			entry: "[Desktop Entry]\nExec=/bin/sh -c %f\n", want: []string{"/bin/sh", "-c"}},
		{name: "another group's Exec is not the entry's",
			entry: "[Desktop Action new]\nExec=sh\n[Desktop Entry]\nName=X\n", err: "has no Exec line"},
		{name: "not on PATH",
			entry: "[Desktop Entry]\nExec=no-such-program-here\n", err: "not on a desktop session's PATH"},
		{name: "quoting is refused", entry: "[Desktop Entry]\nExec=\"sh\" x\n", err: "quoted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "x.desktop")
			if err := os.WriteFile(path, []byte(tt.entry), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := desktopExec(path)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("desktopExec = %v, %v; want an error saying %q", got, err, tt.err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Fatalf("desktopExec = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// TestEntryLauncherEnvironment: a launch from the menu carries what a
// desktop session gives and none of the caller's TinyElf settings.
func TestEntryLauncherEnvironment(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.desktop")
	if err := os.WriteFile(path, []byte("[Desktop Entry]\nExec=sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TINYELF_HOME", "/somewhere")
	t.Setenv("OPENAI_API_KEY", "sk-test")
	l, err := entryLauncher(path)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	env := l.env(tmp)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "TINYELF_") || k == "OPENAI_API_KEY" || k == "XDG_CONFIG_HOME" {
			t.Errorf("the desktop launch carries %s", kv)
		}
	}
	if !slices.Contains(env, "HOME="+filepath.Join(tmp, "user")) || !slices.Contains(env, "PATH="+desktopPath) {
		t.Errorf("env = %q", env)
	}
	if got := l.dataDir(tmp); got != filepath.Join(tmp, "user", ".config", "tinyelf") {
		t.Errorf("dataDir = %s", got)
	}
}
