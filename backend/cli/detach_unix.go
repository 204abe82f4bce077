//go:build unix

package cli

import (
	"os/exec"
	"syscall"
)

// detachAttr makes cmd a session of its own, out of the terminal's reach:
// closing the terminal or Ctrl+C in it does not stop it.
func detachAttr(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
