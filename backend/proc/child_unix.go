//go:build unix

package proc

import (
	"os"
	"syscall"
)

// childSys holds nothing on Unix: the process group is the handle.
type childSys struct{}

func (ch *Child) attach(*os.Process) error { return nil }

func (ch *Child) signal(kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-ch.pid, sig)
}

// kill ends the group. Before the leader is reaped its pid cannot name
// anything else; after, POSIX keeps a group's ID from reuse while any
// member lives, so this reaches only what the child left running.
func (ch *Child) kill() { killGroup(ch.pid) }

func (ch *Child) empty() bool { return !groupAlive(ch.pid) }

func (ch *Child) closeSys() {}
