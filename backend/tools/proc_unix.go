//go:build unix

package tools

import (
	"os"
	"os/exec"
	"syscall"
)

// StartInOwnGroup (for any child process TinyElf runs) makes cmd the leader of a new session, and so of a new
// process group: the whole group can then be signalled at once, and, with no
// controlling terminal, a program that tries to prompt on /dev/tty fails at
// once instead of stopping until the timeout.
func StartInOwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

// SignalGroup sends SIGTERM (or SIGKILL when kill is set) to every process
// of the group p leads. A group that is already gone is not an error.
func SignalGroup(p *os.Process, kill bool) {
	if p == nil {
		return
	}
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-p.Pid, sig)
}

// ExitSignal names the signal that ended a process, or "" when it exited.
func ExitSignal(ps *os.ProcessState) string {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal().String()
	}
	return ""
}
