//go:build !unix

package mcp

import (
	"os"
	"os/exec"
)

// setProcessGroup does nothing where process groups are not available.
func setProcessGroup(cmd *exec.Cmd) {}

// signalGroup kills the process itself where process groups are not
// available; a polite stop is not possible there.
func signalGroup(p *os.Process, kill bool) {
	if p != nil {
		_ = p.Kill()
	}
}

// exitSignal is always "" where signals do not end processes.
func exitSignal(ps *os.ProcessState) string { return "" }
