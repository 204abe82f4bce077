//go:build unix && !linux

package proc

import "syscall"

// setParentDeathSignal does nothing where the kernel has no parent-death
// signal; Children kills the groups on exit instead.
func setParentDeathSignal(*syscall.SysProcAttr) {}

// processStart is not known here without /proc.
func processStart(int) (uint64, bool) { return 0, false }

// taggedProcesses cannot read other processes' environments here.
func taggedProcesses(string) []int { return nil }
