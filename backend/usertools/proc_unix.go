//go:build unix

package usertools

import "syscall"

// processRunning reports whether a process of that ID exists. A pid the
// system reused counts as running: the record then waits for the next
// look, which is the cautious mistake.
func processRunning(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
