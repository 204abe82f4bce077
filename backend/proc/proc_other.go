//go:build !unix && !windows

package proc

import (
	"os"
	"os/exec"
)

// StartInOwnGroup is a no-op where process groups are not available.
func StartInOwnGroup(cmd *exec.Cmd) {}

// startDetached is a no-op where process groups are not available.
func startDetached(cmd *exec.Cmd) {}

// SignalGroup kills the process; its children are not reached on this
// platform.
func SignalGroup(p *os.Process, kill bool) {
	if p != nil {
		_ = p.Kill()
	}
}

// ExitSignal names the signal that ended a process; never known here.
func ExitSignal(ps *os.ProcessState) string { return "" }

func processStart(int) (uint64, bool) { return 0, false }

func taggedProcesses(string) []int { return nil }

func killGroup(int) {}

func killProcess(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

func processAlive(int) bool { return true }
