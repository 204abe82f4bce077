//go:build unix

package testutil

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
)

// ProcessGone reports whether process pid no longer runs: it has exited,
// whether or not its parent has reaped it yet (where /proc shows a zombie,
// that counts as gone).
func ProcessGone(pid int) bool {
	if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		// No /proc (macOS, BSD): kill found the process, so it exists.
		return errors.Is(err, os.ErrNotExist) && procMounted()
	}
	// The state follows the command, which is in parentheses and may hold
	// spaces and parentheses of its own.
	i := bytes.LastIndexByte(b, ')')
	state := bytes.TrimSpace(b[i+1:])
	return i >= 0 && len(state) > 0 && (state[0] == 'Z' || state[0] == 'X')
}

// procMounted reports whether this system has a /proc with processes in
// it, so a missing /proc/PID means the process is gone.
func procMounted() bool {
	_, err := os.Stat("/proc/self/stat")
	return err == nil
}

func kill(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }
