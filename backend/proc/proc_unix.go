//go:build unix

package proc

import (
	"os"
	"os/exec"
	"syscall"
)

// StartInOwnGroup (for any child process TinyElf runs) makes cmd the leader
// of a new session, and so of a new process group: the whole group can then
// be signalled at once, and, with no controlling terminal, a program that
// tries to prompt on /dev/tty fails at once instead of stopping until the
// timeout. On Linux the child also gets SIGKILL when TinyElf dies, however it
// dies (Pdeathsig); what the child started in turn is left to Children.
func StartInOwnGroup(cmd *exec.Cmd) {
	attr := &syscall.SysProcAttr{Setsid: true}
	setParentDeathSignal(attr)
	cmd.SysProcAttr = attr
}

// startDetached makes cmd the leader of a new session, like
// StartInOwnGroup, but without the parent-death signal: the child may
// outlive TinyElf.
func startDetached(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }

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

// groupAlive reports whether any process is left in the process group pgid.
func groupAlive(pgid int) bool {
	err := syscall.Kill(-pgid, 0)
	return err == nil || err == syscall.EPERM
}

// killGroup sends SIGKILL to the process group pgid.
func killGroup(pgid int) { _ = syscall.Kill(-pgid, syscall.SIGKILL) }

// killProcess sends SIGKILL to one process.
func killProcess(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }

// processAlive reports whether pid names a process (a zombie counts).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
