//go:build unix

package tools

import (
	"os"
	"os/exec"
	"syscall"
)

// startInOwnGroup makes cmd the leader of a new session, and so of a new
// process group: the whole group can then be signalled at once, and, with no
// controlling terminal, a program that tries to prompt on /dev/tty fails at
// once instead of stopping until the timeout.
func startInOwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

// signalGroup sends SIGTERM (or SIGKILL when kill is set) to every process
// of the group p leads. A group that is already gone is not an error.
func signalGroup(p *os.Process, kill bool) {
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
