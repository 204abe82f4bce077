//go:build unix

package skills

import (
	"os"
	"path/filepath"
	"syscall"
)

// lockFile takes an exclusive advisory lock on path (created if missing),
// waiting for other processes to release it, and returns its release. It is
// the same lock backend/config takes for the settings file.
func lockFile(path string) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
