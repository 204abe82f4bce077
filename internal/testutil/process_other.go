//go:build !unix

package testutil

import "os"

// ProcessGone reports whether process pid no longer runs.
func ProcessGone(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return true
	}
	p.Release()
	return false
}

func kill(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
		p.Release()
	}
}
