//go:build !unix

package usertools

import "os"

// processRunning reports whether a process of that ID exists (on Windows,
// finding a process opens it, which fails once it is gone).
func processRunning(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}
