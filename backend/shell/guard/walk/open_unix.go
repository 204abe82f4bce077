//go:build unix

package walk

import (
	"fmt"
	"os"
	"syscall"
)

// openRegular opens a file for reading without blocking on a FIFO or a
// device, and only if it is a regular file once open.
func openRegular(p string) (*os.File, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file", p)
	}
	return f, nil
}
