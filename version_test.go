package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVersionFlag builds the binary as the build scripts do, with the
// version set by the linker, and checks that --version reports it; built
// without it, the binary says it is a development build.
func TestVersionFlag(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	for _, tt := range []struct {
		name, ldflags, want string
	}{
		{name: "set", ldflags: "-X tinyelf/backend/version.version=9.8.7+3.gabcdef0", want: "tinyelf 9.8.7+3.gabcdef0 ("},
		{name: "not set", want: "a development build"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bin := filepath.Join(dir, tt.name)
			args := []string{"build", "-o", bin}
			if tt.ldflags != "" {
				args = append(args, "-ldflags", tt.ldflags)
			}
			if out, err := exec.Command("go", append(args, ".")...).CombinedOutput(); err != nil {
				t.Fatalf("go build: %v\n%s", err, out)
			}
			out, err := exec.Command(bin, "--version").CombinedOutput()
			if err != nil || !strings.Contains(string(out), tt.want) {
				t.Fatalf("--version: %v: %q, want %q", err, out, tt.want)
			}
		})
	}
}
