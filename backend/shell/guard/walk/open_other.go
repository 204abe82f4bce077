//go:build !unix

package walk

import (
	"fmt"
	"os"
)

// openRegular opens a file for reading, only if it is a regular file.
func openRegular(p string) (*os.File, error) {
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", p)
	}
	return os.Open(p)
}
