// Package proctest runs the real tinyelf binary in tests that need a
// process of their own: signals, kill -9, the children it leaves. Build
// compiles the binary from the module root, wherever the CLI code lives.
package proctest

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// Build compiles the tinyelf command (the module's main package) into dir
// and returns the binary's path. The Go build cache makes every build after
// the first a link only.
func Build(dir string) (string, error) {
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("find the module root: %w", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(gomod)))
	bin := filepath.Join(dir, "tinyelf")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build tinyelf: %w\n%s", err, out)
	}
	return bin, nil
}
