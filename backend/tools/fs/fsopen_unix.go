//go:build unix

package fs

import "syscall"

// openNonblock keeps an open of a FIFO from waiting for the other end.
const openNonblock = syscall.O_NONBLOCK
