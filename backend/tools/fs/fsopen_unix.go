//go:build unix

package tools

import "syscall"

// openNonblock keeps an open of a FIFO from waiting for the other end.
const openNonblock = syscall.O_NONBLOCK
