//go:build unix

package usertools

import "syscall"

// processAlive reports whether a process of that ID exists.
func processAlive(pid int) bool { return syscall.Kill(pid, 0) == nil }
