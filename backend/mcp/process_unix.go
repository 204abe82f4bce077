//go:build unix

package mcp

import (
	"os"
	"os/exec"
	"syscall"
)

// setProcessGroup makes the child lead a new session, and so a new process
// group that can be signalled as a whole; with no controlling terminal, a
// server that tries to prompt fails at once instead of hanging.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

// signalGroup sends SIGTERM (SIGKILL when kill is set) to the process group
// p leads. A group that is already gone is not an error.
func signalGroup(p *os.Process, kill bool) {
	if p == nil {
		return
	}
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-p.Pid, sig)
}

// exitSignal names the signal that ended a process, or "" when it exited.
func exitSignal(ps *os.ProcessState) string {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal().String()
	}
	return ""
}
