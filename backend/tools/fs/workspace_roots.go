package fs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Root is a folder outside the workspace that the FileSystem tools may also
// reach, by absolute path: a skill's folder (read-only), the agent's
// personal tools folder (writable behind a gate). Roots apply whether or not
// the workspace is restricted: a restricted workspace reaches them through
// an os.Root of their own, and in either mode a write below a read-only
// root, or one its Gate refuses, fails with ErrWriteRefused.
type Root struct {
	// Dir is the folder; relative paths are made absolute.
	Dir string
	// Writable lets Write and Edit change files below Dir.
	Writable bool
	// Reason says what the folder is; it is shown to the model, also when
	// a write is refused.
	Reason string
	// Gate, when set, is asked before every change below a writable Dir,
	// with the absolute path; a non-nil error refuses the change and its
	// text is what the model reads. It must be safe for concurrent use.
	Gate func(path string) error
}

type extraRoot struct {
	Root
	real string   // Dir with symlinks evaluated
	root *os.Root // nil when the workspace is not restricted
}

// ErrWriteRefused matches (with errors.Is) every error for a change below a
// Root that is read-only or whose Gate refused it.
var ErrWriteRefused = errors.New("write refused")

type refusedError struct{ msg string }

func (e *refusedError) Error() string        { return e.msg }
func (e *refusedError) Is(target error) bool { return target == ErrWriteRefused }

func openExtraRoot(r Root, restrict bool) (*extraRoot, error) {
	abs, err := filepath.Abs(r.Dir)
	if err != nil {
		return nil, fmt.Errorf("open folder %s: %w", r.Dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("open folder %s: %w", abs, err)
	}
	r.Dir = abs
	x := &extraRoot{Root: r, real: real}
	if restrict {
		if x.root, err = os.OpenRoot(abs); err != nil {
			return nil, fmt.Errorf("open folder %s: %w", abs, err)
		}
	}
	return x, nil
}

// Roots returns the extra folders the workspace reaches, most specific
// first.
func (w *Workspace) Roots() []Root {
	out := make([]Root, len(w.extras))
	for i, x := range w.extras {
		out[i] = x.Root
	}
	return out
}

// extraFor returns the extra root an absolute path lies in (lexically,
// against the folder as given and its symlink-free form) and the path
// relative to it.
func (w *Workspace) extraFor(abs string) (*extraRoot, string) {
	for _, x := range w.extras {
		for _, base := range []string{x.Dir, x.real} {
			rel, err := filepath.Rel(base, abs)
			if err == nil && (rel == "." || filepath.IsLocal(rel)) {
				return x, rel
			}
		}
	}
	return nil, ""
}

// rootFor returns the os.Root and the name within it that an operation on
// a resolved name goes through; a nil root means the plain os functions
// (an unrestricted workspace).
func (w *Workspace) rootFor(name string) (*os.Root, string, error) {
	if w.root == nil {
		return nil, name, nil
	}
	if !filepath.IsAbs(name) {
		return w.root, name, nil
	}
	if x, rel := w.extraFor(name); x != nil {
		return x.root, rel, nil
	}
	return nil, "", w.outside(name)
}

// checkWrite refuses a change below a read-only root, or one its gate
// refuses. Names inside the workspace itself are checked too, for a root
// that lies within it.
func (w *Workspace) checkWrite(name string) error {
	if len(w.extras) == 0 {
		return nil
	}
	abs := name
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(w.dir, name)
	}
	x, _ := w.extraFor(filepath.Clean(abs))
	switch {
	case x == nil:
		return nil
	case !x.Writable:
		return &refusedError{msg: fmt.Sprintf("%s is read-only for the agent (%s)", abs, x.Reason)}
	case x.Gate != nil:
		if err := x.Gate(abs); err != nil {
			return &refusedError{msg: err.Error()}
		}
	}
	return nil
}

func writeFlags(flag int) bool {
	return flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_TRUNC|os.O_APPEND) != 0
}

// rootDir returns the folder of the extra root an absolute name lies in.
func (w *Workspace) rootDir(name string) string {
	if x, _ := w.extraFor(name); x != nil {
		return x.Dir
	}
	return name
}
