//go:build unix

package engine

import (
	"syscall"
	"time"
)

// cpuTime is the CPU this test process has used so far, so a benchmark can
// report its CPU per operation beside the wall time (which other work on
// the machine inflates).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
