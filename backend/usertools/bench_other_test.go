//go:build !linux

package usertools

import "time"

// cpuTime is not measured on this platform.
func cpuTime(int) time.Duration { return 0 }
