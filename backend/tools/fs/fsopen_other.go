//go:build !unix

package fs

// openNonblock is not needed where opening a named pipe does not wait for
// its other end.
const openNonblock = 0
