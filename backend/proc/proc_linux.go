package proc

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// setParentDeathSignal asks the kernel to SIGKILL the child when the thread
// that started it (and so TinyElf: Go never ends its threads on its own)
// dies. It survives the child's exec, not its forks.
func setParentDeathSignal(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }

// procStat is what /proc/PID/stat tells about a process.
type procStat struct {
	pgid  int
	start uint64 // clock ticks since boot: with the pid, it names one process for good
}

// readProcStat reads /proc/PID/stat. The command name (field 2) is in
// parentheses and may itself hold spaces and parentheses, so the fields are
// counted from the last ')'.
func readProcStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state); pgrp is field 5, starttime field 22.
	if len(f) < 20 {
		return procStat{}, false
	}
	pgid, err1 := strconv.Atoi(f[2])
	start, err2 := strconv.ParseUint(f[19], 10, 64)
	if err1 != nil || err2 != nil {
		return procStat{}, false
	}
	return procStat{pgid: pgid, start: start}, true
}

// processStart returns the start time of pid, which with the pid names one
// process for good (a reused pid has a later start).
func processStart(pid int) (uint64, bool) {
	st, ok := readProcStat(pid)
	return st.start, ok
}

// taggedProcesses lists the processes whose environment holds
// TINYELF_CHILD_OF=tag: the children of one TinyElf, and whatever they
// started, even those that left its process group. Processes of other users
// cannot be read and are never listed.
func taggedProcesses(tag string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	want := []byte(ChildOfEnv + "=" + tag + "\x00")
	self := os.Getpid()
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || len(env) == 0 {
			continue
		}
		if bytes.HasPrefix(env, want) || bytes.Contains(env, append([]byte{0}, want...)) {
			out = append(out, pid)
		}
	}
	return out
}
