// Package atomicfile replaces a file in one step: the new content goes to a
// temporary file in the same folder, is synced, renamed over the old name,
// and the folder is synced, so a reader sees the old file or the new one,
// never half of either, and a crash or a failed write leaves the old file
// as it was. It is the one atomic-write routine of TinyElf; it imports
// nothing of TinyElf's.
package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
)

// FS is the file system a write goes through: the host's (OS), an
// *os.Root, or a sandbox with the same four methods (the workspace the
// file tools write in). Names are whatever the implementation accepts;
// the temporary file is named beside name with filepath.Join.
type FS interface {
	OpenFile(name string, flag int, perm os.FileMode) (*os.File, error)
	Chmod(name string, mode os.FileMode) error
	Rename(oldname, newname string) error
	Remove(name string) error
}

// OS is FS on the host's file system, through the os package.
type OS struct{}

// OpenFile calls os.OpenFile.
func (OS) OpenFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag, perm)
}

// Chmod calls os.Chmod.
func (OS) Chmod(name string, mode os.FileMode) error { return os.Chmod(name, mode) }

// Rename calls os.Rename.
func (OS) Rename(oldname, newname string) error { return os.Rename(oldname, newname) }

// Remove calls os.Remove.
func (OS) Remove(name string) error { return os.Remove(name) }

// WriteFile replaces path with data, mode perm exactly (the umask does not
// narrow it), creating missing parent folders with mode 0700 (what TinyElf
// writes this way is private to the user). On error the old file, if any,
// is unchanged and no temporary file is left.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return WriteFileIn(OS{}, path, data, perm)
}

// Write is WriteFile for content that is produced by fill writing to the
// temporary file; an error from fill aborts the write and is returned.
func Write(path string, perm fs.FileMode, fill func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return WriteIn(OS{}, path, perm, fill)
}

// WriteFileIn is WriteFile through fsys; name's folder must exist.
func WriteFileIn(fsys FS, name string, data []byte, perm fs.FileMode) error {
	return WriteIn(fsys, name, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteIn is Write through fsys; name's folder must exist. The folder is
// synced after the rename when fsys can open it (a sandbox that cannot is
// left at the rename, which is still atomic, just not yet durable).
func WriteIn(fsys FS, name string, perm fs.FileMode, fill func(io.Writer) error) (err error) {
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	dir := filepath.Dir(name)
	// Hidden, so folder scanners pass over it, and named as TinyElf's, so a
	// user who finds one left by a crash knows whose it is.
	tmp := filepath.Join(dir, "."+filepath.Base(name)+".tinyelf-"+hex.EncodeToString(rnd[:])+".tmp")
	f, err := fsys.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	renamed := false
	defer func() {
		if !renamed {
			f.Close()
			if rerr := fsys.Remove(tmp); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
				err = errors.Join(err, fmt.Errorf("remove the temporary file: %w", rerr))
			}
		}
	}()
	if err := fill(f); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	// OpenFile's mode is narrowed by the umask; the caller asked for perm.
	if err := fsys.Chmod(tmp, perm); err != nil {
		return err
	}
	if err := fsys.Rename(tmp, name); err != nil {
		return err
	}
	renamed = true
	return syncDir(fsys, dir)
}

// syncDir makes the rename durable. Windows has no folder sync (NTFS
// journals the rename itself); a sandbox that will not open the folder, or
// a file system that cannot sync one (EINVAL), leaves the rename atomic
// but its durability to the system, so neither is an error.
func syncDir(fsys FS, dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := fsys.OpenFile(dir, os.O_RDONLY, 0)
	if err != nil {
		return nil
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return fmt.Errorf("sync folder %s: %w", dir, err)
	}
	return nil
}
