//go:build !unix

package tools

import (
	"os"
	"os/exec"
)

// startInOwnGroup is a no-op where process groups are not available.
func startInOwnGroup(cmd *exec.Cmd) {}

// signalGroup kills the process; its children are not reached on this
// platform.
func signalGroup(p *os.Process, kill bool) { _ = p.Kill() }

// exitSignal names the signal that ended a process; never known here.
func exitSignal(ps *os.ProcessState) string { return "" }
