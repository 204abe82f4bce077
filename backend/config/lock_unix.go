//go:build unix

package config

import (
	"os"
	"path/filepath"
	"syscall"
)

// LockFile takes an exclusive advisory lock (flock) on path, creating it
// and its folder when missing, waiting for other processes to release it,
// and returns its release. The settings file and the skills' stores
// (backend/skills: trust, SkillHub installs) take it around their
// read-modify-write, so that two TinyElf processes never lose an update.
func LockFile(path string) (func(), error) {
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
