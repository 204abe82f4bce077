//go:build !unix

package mcp

import "time"

// cpuTime is not measured here.
func cpuTime() time.Duration { return 0 }
