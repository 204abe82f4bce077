//go:build linux

package usertools

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cpuTime is the CPU this process and the processes it waited for have
// used, plus (pid > 0) what the fork server and its reaped children used:
// a wall-clock-free measure of a call's cost on a loaded machine.
func cpuTime(zygote int) time.Duration {
	var self, children syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	total := tv(self.Utime) + tv(self.Stime) + tv(children.Utime) + tv(children.Stime)
	if zygote > 0 {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(zygote) + "/stat")
		if err == nil {
			// Fields after the command's closing parenthesis; utime, stime,
			// cutime and cstime are the 12th to 15th of them, in clock ticks.
			f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
			for _, s := range f[11:15] {
				n, _ := strconv.ParseInt(s, 10, 64)
				total += time.Duration(n) * (time.Second / 100)
			}
		}
	}
	return total
}
