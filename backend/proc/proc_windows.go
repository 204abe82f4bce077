//go:build windows

package proc

import (
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// StartInOwnGroup starts cmd in a new console process group, so that a
// Ctrl+C meant for TinyElf does not reach it; Children puts it in a job
// object that dies with TinyElf.
func StartInOwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// startDetached starts cmd in a new console process group and, unlike
// Command.Start, puts it in no job object: the child may outlive TinyElf.
func startDetached(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// SignalGroup kills the process; its children are reached through the job
// object Children made for it (Child.Signal).
func SignalGroup(p *os.Process, kill bool) {
	if p != nil {
		_ = p.Kill()
	}
}

// ExitSignal names the signal that ended a process; never known here.
func ExitSignal(ps *os.ProcessState) string { return "" }

// processStart is not needed here: job objects end with TinyElf.
func processStart(int) (uint64, bool) { return 0, false }

// taggedProcesses is not needed here: job objects end with TinyElf.
func taggedProcesses(string) []int { return nil }

// killGroup is not needed here: job objects end with TinyElf.
func killGroup(int) {}

// killProcess ends one process.
func killProcess(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

// processAlive reports whether pid names a running process.
func processAlive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code == 259 // STILL_ACTIVE
}
