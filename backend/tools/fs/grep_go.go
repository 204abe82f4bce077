package fs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
)

// searchRoot is where Grep or Glob looks, resolved once so that both Grep
// engines see the same place under the same name.
type searchRoot struct {
	// fsys is rooted at ref: the workspace (confined to it when restricted)
	// or, for an unrestricted path outside the workspace, the file system
	// root.
	fsys fs.FS
	// ref is the absolute, symlink-free path of fsys's root.
	ref string
	// rel is the target relative to ref, slash-separated; "." for ref.
	rel string
	// outside is set when ref is not the workspace; paths are then shown
	// absolute.
	outside bool
	isDir   bool
	// confined is set when fsys is the restricted workspace's os.Root.
	confined bool
	// root is that os.Root when confined.
	root *os.Root
}

// openFile opens a file below ref (rel is slash-separated) for reading with
// OpenRegular's care: never blocking on a FIFO, refusing special files even
// when one was swapped in after the walk saw a regular file.
func (r searchRoot) openFile(rel string) (*os.File, error) {
	if r.root != nil {
		return openRegularIn(r.root, filepath.FromSlash(rel))
	}
	return regularOnly(os.OpenFile(filepath.Join(r.ref, filepath.FromSlash(rel)), os.O_RDONLY|openNonblock, 0))
}

// resolveSearchRoot resolves a path argument (empty for the workspace) to a
// searchRoot. Errors are for the model to read.
func resolveSearchRoot(ws *Workspace, p string) (searchRoot, error) {
	name, err := ws.Resolve(p)
	if err != nil {
		return searchRoot{}, err
	}
	shown := p
	if strings.TrimSpace(shown) == "" {
		shown = "."
	}
	notFound := func(err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("Path not found: %s (paths are relative to the workspace root %s)", shown, ws.Dir())
		}
		return err
	}
	var r searchRoot
	var real string
	if ws.Restricted() {
		// Stat through the workspace root first: it refuses what every other
		// FileSystem tool refuses (links pointing outside, dangling or not,
		// and absolute links), with the same message.
		if _, err = ws.Stat(name); err != nil {
			return searchRoot{}, notFound(err)
		}
		if real, err = ws.Abs(name); err != nil {
			return searchRoot{}, notFound(err)
		}
		base := "."
		if filepath.IsAbs(name) { // in one of the workspace's extra folders
			base, r.outside = ws.rootDir(name), true
		}
		if r.ref, err = ws.Abs(base); err != nil {
			return searchRoot{}, err
		}
		if r.fsys, err = ws.FS(base); err != nil {
			return searchRoot{}, err
		}
		r.confined = true
		r.root = ws.root
		if base != "." {
			r.root, _, _ = ws.rootFor(base)
		}
	} else {
		if real, err = filepath.EvalSymlinks(name); err != nil {
			return searchRoot{}, notFound(err)
		}
		if r.ref, err = filepath.EvalSymlinks(ws.Dir()); err != nil {
			return searchRoot{}, err
		}
		r.fsys = os.DirFS(r.ref)
	}
	rel, err := filepath.Rel(r.ref, real)
	if err != nil || (rel != "." && !filepath.IsLocal(rel)) {
		if ws.Restricted() {
			return searchRoot{}, fmt.Errorf("path %q is outside the workspace: %w", p, ErrOutsideWorkspace)
		}
		r.outside = true
		r.ref = filepath.VolumeName(real) + string(filepath.Separator)
		r.fsys = os.DirFS(r.ref)
		rel = strings.TrimPrefix(real, r.ref)
		if rel == "" {
			rel = "."
		}
	}
	r.rel = filepath.ToSlash(rel)
	st, err := fs.Stat(r.fsys, r.rel)
	if err != nil {
		return searchRoot{}, notFound(ws.mapErr(name, err))
	}
	r.isDir = st.IsDir()
	if !r.isDir && !st.Mode().IsRegular() {
		return searchRoot{}, fmt.Errorf("Cannot search %s: %v. Only regular files and folders can be searched; a named pipe, socket or device could block forever.", shown, &notRegularError{mode: st.Mode()})
	}
	return r, nil
}

// display returns how a path relative to ref is shown to the model:
// relative to the workspace, or absolute outside it.
func (r searchRoot) display(rel string) string {
	if r.outside {
		return filepath.Join(r.ref, filepath.FromSlash(rel))
	}
	return rel
}

// where says where a search looked, for messages.
func (r searchRoot) where() string {
	if r.rel == "." && !r.outside {
		return "in the workspace"
	}
	return "in " + r.display(r.rel)
}

// ancestorIgnores reads the ignore files of the folders between the
// workspace root and the search folder, rebased to the workspace root, so
// that searching a subfolder skips what searching the whole workspace
// skips. Nothing above the workspace is read.
func (r searchRoot) ancestorIgnores() *ignoreList {
	if r.outside || r.rel == "." {
		return nil
	}
	var dirs []string
	for d := path.Dir(r.rel); ; d = path.Dir(d) {
		dirs = append(dirs, d)
		if d == "." {
			break
		}
	}
	var b strings.Builder
	// All .gitignore files first, then .ignore, then .rgignore, shallow to
	// deep: with "last match wins" this reproduces ripgrep's precedence.
	for _, name := range ignoreFileNames {
		for i := len(dirs) - 1; i >= 0; i-- {
			data, err := readSmall(r.openFile(joinRel(dirs[i], name)))
			if err != nil {
				continue
			}
			base := dirs[i]
			if base == "." {
				base = ""
			}
			parseIgnoreFile(base, data).rebased(&b)
		}
	}
	if b.Len() == 0 {
		return nil
	}
	return parseIgnoreFile("", []byte(b.String()))
}

// Ignore file names, from lowest to highest precedence, as ripgrep reads them
// by default.
var ignoreFileNames = [...]string{".gitignore", ".ignore", ".rgignore"}

// ignoreLevel holds the ignore files of one folder of a walk.
type ignoreLevel struct {
	parent *ignoreLevel
	files  [len(ignoreFileNames)]*ignoreList // indexed like ignoreFileNames
}

// ignoreStack is what decides, during a walk, which entries are skipped.
type ignoreStack struct {
	level *ignoreLevel
	// explicit holds rules of folders above the walk's start (inside the
	// workspace), with the lowest precedence of all, like --ignore-file.
	explicit *ignoreList
	// include is the caller's filter (Grep's include), with precedence over
	// everything, like ripgrep's -g.
	include *ignoreList
	// hidden keeps entries whose name starts with a dot.
	hidden bool
	// noGit always leaves out folders named .git (Glob, when hidden is on).
	noGit bool
}

// skip reports whether the entry rel (relative to the reference root) is
// left out, with ripgrep's precedence: the include filter, then .rgignore,
// .ignore and .gitignore (each: the deepest folder with a match wins), then
// the explicit rules, then the hidden-file rule unless a rule re-included it.
func (s *ignoreStack) skip(rel, name string, isDir bool) bool {
	if s.noGit && isDir && name == ".git" {
		return true
	}
	if s.include != nil {
		switch s.include.match(rel, isDir) {
		case matchIgnore: // a whitelisting include glob matched
			return false
		case matchWhitelist: // a `!glob` include matched
			return true
		}
		if s.include.whitelists > 0 && !isDir {
			return true
		}
	}
	var found [len(ignoreFileNames)]ignoreMatch
	for lv := s.level; lv != nil; lv = lv.parent {
		for i, f := range lv.files {
			if f != nil && found[i] == matchNone {
				found[i] = f.match(rel, isDir)
			}
		}
	}
	m := found[2].or(found[1]).or(found[0]).or(s.explicit.match(rel, isDir))
	if m == matchIgnore {
		return true
	}
	return m == matchNone && !s.hidden && strings.HasPrefix(name, ".")
}

// searchGo is the pure-Go engine: the walker's goroutines read each file in
// large chunks, drop it at the first NUL byte (binary), and run the regexp
// over whole chunks, prefiltered by a literal every match contains.
func searchGo(ctx context.Context, req *grepRequest) error {
	if !req.root.isDir {
		f, err := req.root.openFile(req.root.rel)
		if err == nil {
			err = newGoSearcher(req).searchFile(f, req.root.rel)
			f.Close()
		}
		if err != nil {
			return &grepFailure{msg: fmt.Sprintf("Cannot read %s: %v", req.root.display(req.root.rel), err)}
		}
		return nil
	}
	workers := runtime.GOMAXPROCS(0)
	searchers := make([]*goSearcher, workers)
	for i := range searchers {
		searchers[i] = newGoSearcher(req)
	}
	return walkTree(ctx, req.root, req.ignores, -1, workers, func(worker int, dir *os.Root, name, rel string) error {
		f, err := openRegularIn(dir, name)
		if err != nil {
			return err
		}
		defer f.Close()
		return searchers[worker].searchFile(f, rel)
	}, func(rel string, err error) {
		req.out.unreadable(fmt.Sprintf("%s: %v", req.root.display(rel), err))
	})
}

// goSearcher searches files one at a time with a reusable buffer.
type goSearcher struct {
	req *grepRequest
	buf []byte
}

const grepChunk = 256 << 10

func newGoSearcher(req *grepRequest) *goSearcher {
	return &goSearcher{req: req, buf: make([]byte, grepChunk)}
}

// searchFile searches one file (rel is its path relative to the reference
// root) and hands its matches to the collector. A file holding a NUL byte
// anywhere is binary and yields nothing, which is what ripgrep's output
// amounts to once its binary notices are dropped.
func (s *goSearcher) searchFile(f io.Reader, rel string) error {
	out := &grepFile{path: s.req.root.display(rel)}
	count := 0
	line := 1 // number of the first line in buf
	filled := 0
	for {
		if filled == len(s.buf) {
			s.buf = append(s.buf, make([]byte, len(s.buf))...)
		}
		n, rerr := f.Read(s.buf[filled:])
		if n > 0 {
			if bytes.IndexByte(s.buf[filled:filled+n], 0) >= 0 {
				return nil
			}
			filled += n
		}
		if rerr == io.EOF {
			s.searchRegion(s.buf[:filled], line, out, &count)
			break
		}
		if rerr != nil {
			return rerr
		}
		if filled < len(s.buf) {
			continue
		}
		last := bytes.LastIndexByte(s.buf[:filled], '\n')
		if last < 0 {
			continue // a line longer than the buffer: grow it
		}
		line = s.searchRegion(s.buf[:last+1], line, out, &count)
		filled = copy(s.buf, s.buf[last+1:filled])
	}
	s.req.out.addFile(out, count)
	if cap(s.buf) > 4*grepChunk {
		s.buf = make([]byte, grepChunk)
	}
	return nil
}

// searchRegion searches whole lines (the last may lack its newline at the
// end of the file), records matches, and returns the number of the line
// after the region.
func (s *goSearcher) searchRegion(region []byte, line int, out *grepFile, count *int) int {
	counted := 0 // region[:counted] has been counted into line
	lineAt := func(off int) int {
		line += bytes.Count(region[counted:off], []byte{'\n'})
		counted = off
		return line
	}
	record := func(start, end int) {
		*count++
		if len(out.lines) < s.req.out.max {
			out.lines = append(out.lines, grepLine{n: lineAt(start), text: s.req.out.cutLine(region[start:end])})
		}
	}
	re, lit := s.req.pattern.re, s.req.pattern.literal
	for pos := 0; pos < len(region); {
		var start, end int
		if lit != nil {
			i := bytes.Index(region[pos:], lit)
			if i < 0 {
				break
			}
			i += pos
			start = bytes.LastIndexByte(region[pos:i], '\n') + 1 + pos
			end = lineEnd(region, i)
			if !re.Match(region[start:end]) {
				pos = end + 1
				continue
			}
		} else {
			loc := re.FindIndex(region[pos:])
			if loc == nil {
				break
			}
			m := pos + loc[0]
			if m == len(region) && (m == 0 || region[m-1] == '\n') {
				break // the empty "line" after the final newline
			}
			start = bytes.LastIndexByte(region[pos:m], '\n') + 1 + pos
			end = lineEnd(region, m)
		}
		record(start, end)
		pos = end + 1
	}
	return lineAt(len(region))
}

func lineEnd(b []byte, from int) int {
	if i := bytes.IndexByte(b[from:], '\n'); i >= 0 {
		return from + i
	}
	return len(b)
}

// rebased writes the list's rules as gitignore lines anchored at the
// reference root, so that they keep their meaning when read from a file whose
// base is the root (ripgrep's --ignore-file).
func (l *ignoreList) rebased(b *strings.Builder) {
	prefix := escapeGlob(l.base)
	for _, r := range l.rules {
		if r.whitelist {
			b.WriteByte('!')
		}
		b.WriteByte('/')
		if prefix != "" {
			b.WriteString(prefix + "/")
		}
		b.WriteString(r.actual)
		if r.dirOnly {
			b.WriteByte('/')
		}
		b.WriteByte('\n')
	}
}

// escapeGlob escapes the glob meta characters of a literal path.
func escapeGlob(s string) string {
	var b strings.Builder
	for _, c := range s {
		if strings.ContainsRune(`\*?[]{},!#`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}
