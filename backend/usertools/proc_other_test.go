//go:build !unix

package usertools

import "os"

// processAlive reports whether a process of that ID exists.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
