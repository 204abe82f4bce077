//go:build !unix

package tools

import (
	"os"
	"os/exec"
)

// StartInOwnGroup is a no-op where process groups are not available.
func StartInOwnGroup(cmd *exec.Cmd) {}

// SignalGroup kills the process; its children are not reached on this
// platform.
func SignalGroup(p *os.Process, kill bool) {
	if p != nil {
		_ = p.Kill()
	}
}

// ExitSignal names the signal that ended a process; never known here.
func ExitSignal(ps *os.ProcessState) string { return "" }
