//go:build unix

// Package cputime tells benchmarks how much CPU their process has used, so
// they can report CPU per operation beside the wall time, which other work
// on a shared machine inflates.
package cputime

import (
	"syscall"
	"time"
)

// Self is the user and system CPU time this process has used so far; 0
// when the system does not say.
func Self() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
