//go:build unix

package capabilities

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the test process has used (user and system,
// every thread, the garbage collector's included), for benchmarks to report
// next to wall time on a machine whose load swings.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
