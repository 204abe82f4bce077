package fs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"tinyelf/backend/tools"
)

// ErrNotRegular matches (with errors.Is) the error for a path that is a
// named pipe, a socket or a device: the FileSystem tools never open those,
// since reading or writing one can block forever or have side effects.
var ErrNotRegular = errors.New("not a regular file")

// notRegularError says what kind of special file a path is.
type notRegularError struct{ mode fs.FileMode }

func (e *notRegularError) Error() string {
	return "it is " + describeMode(e.mode) + ", not a regular file"
}

func (e *notRegularError) Is(target error) bool { return target == ErrNotRegular }

// describeMode names a special file's kind for a message.
func describeMode(m fs.FileMode) string {
	switch t := m.Type(); {
	case t&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t&fs.ModeCharDevice != 0:
		return "a character device"
	case t&fs.ModeDevice != 0:
		return "a block device"
	case t&fs.ModeDir != 0:
		return "a directory"
	case t&fs.ModeSymlink != 0:
		return "a symbolic link"
	case t == 0:
		return "a regular file"
	}
	return "a special file"
}

// checkRegular returns a notRegularError (or errIsDir) for anything that is
// not a regular file.
func checkRegular(fi fs.FileInfo) error {
	switch {
	case fi.IsDir():
		return errIsDir
	case !fi.Mode().IsRegular():
		return &notRegularError{mode: fi.Mode()}
	}
	return nil
}

// OpenRegular opens a regular file for reading without ever blocking: the
// open is non-blocking (a FIFO with no writer would otherwise hang it), and
// the opened file's own mode is checked (fstat), so a file swapped for a
// FIFO, socket or device between a caller's Stat and this open is refused
// too. It returns the open file and its FileInfo; a directory is errIsDir
// and a special file an ErrNotRegular error.
func (w *Workspace) OpenRegular(name string) (*os.File, fs.FileInfo, error) {
	f, err := w.OpenFile(name, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := regularOpened(f)
	if err != nil {
		return nil, nil, err
	}
	return f, fi, nil
}

// openRegularIn is OpenRegular for a file relative to an os.Root (the
// search walkers' folders).
func openRegularIn(root *os.Root, name string) (*os.File, error) {
	return regularOnly(root.OpenFile(name, os.O_RDONLY|openNonblock, 0))
}

// regularOnly passes on the result of a non-blocking open when it opened a
// regular file, and closes anything else.
func regularOnly(f *os.File, err error) (*os.File, error) {
	if err != nil {
		return nil, err
	}
	if _, err := regularOpened(f); err != nil {
		return nil, err
	}
	return f, nil
}

// regularOpened checks an opened file's mode; it closes f on failure.
// O_NONBLOCK may stay set: it changes nothing for a regular file.
func regularOpened(f *os.File) (fs.FileInfo, error) {
	fi, err := f.Stat()
	if err == nil {
		err = checkRegular(fi)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return fi, nil
}

// ignoreFileMax bounds how much of one ignore file is read.
const ignoreFileMax = 4 << 20

// readSmall reads, at most ignoreFileMax bytes, the file an open gave (an
// ignore file opened with OpenRegular's care), and closes it.
func readSmall(f *os.File, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, ignoreFileMax))
}

// specialFileError is the error result for a path that is not a regular
// file, for the tool doing what.
func specialFileError(shown, doing string, err error) tools.Result {
	return tools.Errorf("Cannot %s %s: %v. The FileSystem tools only work on regular files; a named pipe, socket or device could block forever.", doing, shown, err)
}
