package fs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Workspace is the folder an agent works in. Tool paths resolve relative to
// it. When Restricted, every file operation goes through an os.Root opened
// on the folder, so nothing outside it is read, listed or written: not
// through "..", absolute paths, symbolic links (pointing out, dangling, a
// symlinked parent, or one swapped in between a check and its use), sibling
// prefixes or NUL bytes.
//
// A Workspace is safe for concurrent use. Close releases the root.
type Workspace struct {
	dir      string // absolute, cleaned
	realDir  string // dir with symlinks evaluated
	restrict bool
	root     *os.Root     // nil when not restricted
	reads    *ReadTracker // nil: Write and Edit do not check for a prior Read
	extras   []*extraRoot
}

// ErrOutsideWorkspace matches (with errors.Is) every error for a path that
// leaves a restricted workspace.
var ErrOutsideWorkspace = errors.New("outside the workspace")

// escapeError explains one path that leaves a restricted workspace.
type escapeError struct{ msg string }

func (e *escapeError) Error() string        { return e.msg }
func (e *escapeError) Is(target error) bool { return target == ErrOutsideWorkspace }

func escapef(format string, args ...any) error {
	return &escapeError{msg: fmt.Sprintf(format, args...)}
}

// OpenWorkspace opens dir as a workspace. restrict is the seed's
// restrictToWorkspace setting (on by default in TinyElf). roots are extra
// folders the tools may reach as well; a missing one is an error.
func OpenWorkspace(dir string, restrict bool, roots ...Root) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", dir, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("open workspace: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("open workspace: %s is not a folder", abs)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", abs, err)
	}
	w := &Workspace{dir: abs, realDir: real, restrict: restrict}
	if restrict {
		if w.root, err = os.OpenRoot(abs); err != nil {
			return nil, fmt.Errorf("open workspace %s: %w", abs, err)
		}
	}
	for _, r := range roots {
		x, err := openExtraRoot(r, restrict)
		if err != nil {
			w.Close()
			return nil, err
		}
		w.extras = append(w.extras, x)
	}
	// The most specific root decides, so a writable folder can sit inside
	// a read-only one.
	slices.SortStableFunc(w.extras, func(a, b *extraRoot) int { return len(b.Dir) - len(a.Dir) })
	return w, nil
}

// Dir returns the workspace folder as an absolute path.
func (w *Workspace) Dir() string { return w.dir }

// Restricted reports whether access is confined to the workspace.
func (w *Workspace) Restricted() bool { return w.restrict }

// Close releases the workspace root and those of its extra folders.
func (w *Workspace) Close() error {
	for _, x := range w.extras {
		if x.root != nil {
			x.root.Close()
		}
	}
	if w.root != nil {
		return w.root.Close()
	}
	return nil
}

// Resolve turns a path from the model into the name the workspace's file
// operations take: relative to the root when restricted, absolute otherwise.
// It rejects NUL bytes and, when restricted, paths that leave the workspace
// lexically; symbolic links are checked by the operations themselves.
func (w *Workspace) Resolve(p string) (string, error) {
	if strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("path %q contains a NUL byte", p)
	}
	p = strings.TrimSpace(p)
	if p == "" {
		p = "."
	}
	if !w.restrict {
		if strings.HasPrefix(p, "~/") || p == "~" {
			if home, err := os.UserHomeDir(); err == nil {
				p = filepath.Join(home, strings.TrimPrefix(p, "~"))
			}
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(w.dir, p)
		}
		return filepath.Clean(p), nil
	}
	if filepath.IsAbs(p) {
		clean := filepath.Clean(p)
		rel, ok := w.relInside(clean)
		if !ok {
			if x, _ := w.extraFor(clean); x != nil {
				return clean, nil
			}
			return "", w.outside(p)
		}
		return rel, nil
	}
	rel := filepath.Clean(p)
	if rel != "." && !filepath.IsLocal(rel) {
		return "", w.outside(p)
	}
	return rel, nil
}

// relInside returns abs relative to the workspace when it lies inside it,
// comparing against both the folder as given and its symlink-free form.
func (w *Workspace) relInside(abs string) (string, bool) {
	for _, base := range []string{w.dir, w.realDir} {
		rel, err := filepath.Rel(base, abs)
		if err == nil && (rel == "." || filepath.IsLocal(rel)) {
			return rel, true
		}
	}
	return "", false
}

// Inside reports whether p (as the model wrote it) names something inside the
// workspace, following symbolic links that exist. It never errors: a path it
// cannot judge is reported as outside.
func (w *Workspace) Inside(p string) bool {
	if strings.ContainsRune(p, 0) {
		return false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(w.dir, p)
	}
	p = filepath.Clean(p)
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	_, ok := w.relInside(p)
	return ok
}

// Display returns how a resolved name is shown to the model: relative to the
// workspace when inside it.
func (w *Workspace) Display(name string) string {
	if !filepath.IsAbs(name) {
		return filepath.ToSlash(name)
	}
	if rel, ok := w.relInside(name); ok {
		return filepath.ToSlash(rel)
	}
	return name
}

// Abs returns the absolute path of a resolved name, for handing to external
// programs. When restricted, it also checks that the path's symlink-free form
// is still inside the workspace.
func (w *Workspace) Abs(name string) (string, error) {
	if !w.restrict {
		return name, nil
	}
	abs := name
	if !filepath.IsAbs(name) {
		abs = filepath.Join(w.dir, name)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", w.mapErr(name, err)
	}
	if filepath.IsAbs(name) {
		if x, _ := w.extraFor(name); x != nil {
			if y, _ := w.extraFor(real); y == x {
				return real, nil
			}
		}
		return "", escapef("path %q leads outside %s through a symbolic link", name, filepath.Dir(name))
	}
	if _, ok := w.relInside(real); !ok {
		return "", escapef("path %q leads outside the workspace through a symbolic link", name)
	}
	return real, nil
}

func (w *Workspace) outside(p string) error {
	return escapef("path %q is outside the workspace %s (restrictToWorkspace is on; use a path inside it)", p, w.dir)
}

// mapErr rewrites os.Root's escape error into one the model can act on.
func (w *Workspace) mapErr(name string, err error) error {
	if err == nil {
		return nil
	}
	if strings.Contains(err.Error(), "path escapes from parent") {
		return escapef("path %q leads outside the workspace through a symbolic link (links that point outside it, or to absolute paths, are not followed)", name)
	}
	return err
}

// Open opens a file for reading.
func (w *Workspace) Open(name string) (*os.File, error) {
	r, n, err := w.rootFor(name)
	if err != nil {
		return nil, err
	}
	if r != nil {
		f, err := r.Open(n)
		return f, w.mapErr(name, err)
	}
	return os.Open(name)
}

// OpenFile opens a file with the given flags.
func (w *Workspace) OpenFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	if writeFlags(flag) {
		if err := w.checkWrite(name); err != nil {
			return nil, err
		}
	}
	r, n, err := w.rootFor(name)
	if err != nil {
		return nil, err
	}
	if r != nil {
		f, err := r.OpenFile(n, flag, perm)
		return f, w.mapErr(name, err)
	}
	return os.OpenFile(name, flag, perm)
}

// Stat follows symbolic links.
func (w *Workspace) Stat(name string) (os.FileInfo, error) {
	r, n, err := w.rootFor(name)
	if err != nil {
		return nil, err
	}
	if r != nil {
		fi, err := r.Stat(n)
		return fi, w.mapErr(name, err)
	}
	return os.Stat(name)
}

// Lstat does not follow a final symbolic link.
func (w *Workspace) Lstat(name string) (os.FileInfo, error) {
	r, n, err := w.rootFor(name)
	if err != nil {
		return nil, err
	}
	if r != nil {
		fi, err := r.Lstat(n)
		return fi, w.mapErr(name, err)
	}
	return os.Lstat(name)
}

// Readlink returns the target of a symbolic link.
func (w *Workspace) Readlink(name string) (string, error) {
	r, n, err := w.rootFor(name)
	if err != nil {
		return "", err
	}
	if r != nil {
		s, err := r.Readlink(n)
		return s, w.mapErr(name, err)
	}
	return os.Readlink(name)
}

// ReadDir lists a directory. The open does not block and the opened file
// must be a directory, so a folder swapped for a FIFO after a Stat is
// refused rather than waited on.
func (w *Workspace) ReadDir(name string) ([]os.DirEntry, error) {
	f, err := w.OpenFile(name, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a folder (it is %s)", w.Display(name), describeMode(fi.Mode()))
	}
	return f.ReadDir(-1)
}

// MkdirAll creates a directory and its parents.
func (w *Workspace) MkdirAll(name string, perm os.FileMode) error {
	if err := w.checkWrite(name); err != nil {
		return err
	}
	r, n, err := w.rootFor(name)
	if err != nil {
		return err
	}
	if r != nil {
		return w.mapErr(name, r.MkdirAll(n, perm))
	}
	return os.MkdirAll(name, perm)
}

// Rename moves oldname to newname. Both must be below the same root.
func (w *Workspace) Rename(oldname, newname string) error {
	for _, n := range []string{oldname, newname} {
		if err := w.checkWrite(n); err != nil {
			return err
		}
	}
	r, o, err := w.rootFor(oldname)
	if err != nil {
		return err
	}
	r2, n, err := w.rootFor(newname)
	if err != nil {
		return err
	}
	if r != r2 {
		return fmt.Errorf("rename %s to %s: not in the same folder tree", oldname, newname)
	}
	if r != nil {
		return w.mapErr(newname, r.Rename(o, n))
	}
	return os.Rename(oldname, newname)
}

// Remove deletes a file or an empty directory.
func (w *Workspace) Remove(name string) error {
	if err := w.checkWrite(name); err != nil {
		return err
	}
	r, n, err := w.rootFor(name)
	if err != nil {
		return err
	}
	if r != nil {
		return w.mapErr(name, r.Remove(n))
	}
	return os.Remove(name)
}

// Chmod changes a file's mode.
func (w *Workspace) Chmod(name string, mode os.FileMode) error {
	if err := w.checkWrite(name); err != nil {
		return err
	}
	r, n, err := w.rootFor(name)
	if err != nil {
		return err
	}
	if r != nil {
		return w.mapErr(name, r.Chmod(n, mode))
	}
	return os.Chmod(name, mode)
}

// FS returns a file system rooted at the resolved directory name. When
// restricted it is confined to the workspace (or the extra folder the name
// lies in) like every other operation.
func (w *Workspace) FS(name string) (fs.FS, error) {
	r, n, err := w.rootFor(name)
	if err != nil {
		return nil, err
	}
	if r != nil {
		if n == "." {
			return r.FS(), nil
		}
		return fs.Sub(r.FS(), filepath.ToSlash(n))
	}
	return os.DirFS(name), nil
}

// Join joins a resolved directory name and a slash-separated path below it
// into a resolved name.
func (w *Workspace) Join(dir, rel string) string {
	return filepath.Join(dir, filepath.FromSlash(rel))
}

// maxLinkHops bounds symbolic link chains, as the kernel's ELOOP does.
const maxLinkHops = 40

// FollowLinks returns the name a write to name should go to: when name is a
// symbolic link, its final target, so that replacing the file keeps the link.
// When restricted, a chain that leaves the workspace (or uses an absolute
// target) is an ErrOutsideWorkspace error. A missing name is returned as is.
func (w *Workspace) FollowLinks(name string) (string, error) {
	for range maxLinkHops {
		fi, err := w.Lstat(name)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return name, nil
			}
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return name, nil
		}
		target, err := w.Readlink(name)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			if w.restrict {
				return "", escapef("path %q is a symbolic link to the absolute path %s, which is not followed in a restricted workspace", w.Display(name), target)
			}
			name = filepath.Clean(target)
			continue
		}
		abs := filepath.IsAbs(name)
		name = filepath.Clean(filepath.Join(filepath.Dir(name), target))
		if w.restrict && !abs && name != "." && !filepath.IsLocal(name) {
			return "", escapef("path %q is a symbolic link that leads outside the workspace", target)
		}
		if w.restrict && abs {
			if x, _ := w.extraFor(name); x == nil {
				return "", escapef("path %q is a symbolic link that leads outside its folder", target)
			}
		}
	}
	return "", fmt.Errorf("path %q: too many levels of symbolic links", name)
}
