package fs

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"tinyelf/backend/tools"

	"github.com/bmatcuk/doublestar/v4"
)

//go:embed glob.md
var globDescription string

// DefaultGlobMaxResults is how many files Glob lists at most.
const DefaultGlobMaxResults = 100

// globTool is the seed's GlobTool: files whose path matches a doublestar
// pattern, newest first.
type globTool struct {
	ws  *Workspace
	max int
}

// NewGlob returns the Glob tool over ws. It is safe for concurrent use.
func NewGlob(ws *Workspace) tools.Tool {
	return &globTool{ws: ws, max: DefaultGlobMaxResults}
}

var globParams = json.RawMessage(`{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "description": "Glob pattern, e.g. \"**/*.go\", \"src/**/*.{ts,tsx}\"."},
    "path": {"type": "string", "description": "Folder to search in (default: the workspace root)."}
  },
  "required": ["pattern"]
}`)

func (t *globTool) Info() tools.Info {
	return tools.Info{Name: "Glob", Description: globDescription, Parameters: globParams, ReadOnly: true, Safe: true}
}

type globHit struct {
	path  string
	mtime time.Time
}

func (t *globTool) Execute(ctx context.Context, params map[string]any) (tools.Result, error) {
	pattern := strings.TrimSpace(tools.String(params, "pattern", ""))
	dir := tools.String(params, "path", "")
	if pattern == "" {
		return tools.Errorf("pattern is empty: give a glob such as \"**/*.go\"."), nil
	}
	if filepath.IsAbs(pattern) {
		// An absolute pattern names its folder itself.
		if strings.TrimSpace(dir) != "" {
			return tools.Errorf("pattern %q is absolute and path %q is set: give a pattern relative to path, or an absolute pattern without path.", pattern, dir), nil
		}
		dir, pattern = doublestar.SplitPattern(filepath.ToSlash(pattern))
	}
	pattern = strings.TrimPrefix(pattern, "./")
	if !doublestar.ValidatePattern(pattern) {
		return tools.Errorf("Invalid glob pattern %q: check that every [ and { is closed. Use * for any name, ** for any number of folders, {a,b} for alternatives, e.g. \"src/**/*.{ts,tsx}\".", pattern), nil
	}
	if slices.Contains(strings.Split(pattern, "/"), "..") {
		return tools.Errorf("pattern %q goes up with \"..\": set path to the folder to search instead.", pattern), nil
	}
	root, err := resolveSearchRoot(t.ws, dir)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	if !root.isDir {
		return tools.Errorf("path %q is a file, not a folder: Glob searches folders (use Read to read a file).", dir), nil
	}

	// Start at the pattern's literal folder prefix: named folders are entered
	// even when hidden or ignored, and nothing else is walked.
	start := root
	base, rest := doublestar.SplitPattern(pattern)
	if base != "." && base != "/" {
		start.rel = joinRel(root.rel, base)
		st, err := fs.Stat(root.fsys, start.rel)
		if err != nil || !st.IsDir() {
			return t.none(pattern, root), nil
		}
	} else {
		rest = pattern
	}
	ig := &ignoreStack{explicit: start.ancestorIgnores(), hidden: mentionsHidden(rest), noGit: !strings.Contains(rest, ".git")}
	maxDepth := -1
	if !strings.Contains(rest, "**") && !strings.Contains(rest, "{") {
		maxDepth = strings.Count(rest, "/") + 1
	}
	var (
		mu   sync.Mutex
		hits []globHit
	)
	prefix := start.rel + "/"
	if start.rel == "." {
		prefix = ""
	}
	err = walkTree(ctx, start, ig, maxDepth, runtime.GOMAXPROCS(0), func(_ int, dir *os.Root, name, rel string) error {
		if !doublestar.MatchUnvalidated(rest, strings.TrimPrefix(rel, prefix)) {
			return nil
		}
		info, err := dir.Lstat(name)
		if err != nil {
			return err
		}
		mu.Lock()
		hits = append(hits, globHit{path: root.display(rel), mtime: info.ModTime()})
		mu.Unlock()
		return nil
	}, func(string, error) {}) // unreadable entries are left out
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, err
		}
		if errors.Is(err, fs.ErrPermission) {
			return tools.Errorf("Cannot list %s: %v", root.display(start.rel), err), nil
		}
		return tools.Result{}, fmt.Errorf("glob %s: %w", pattern, err)
	}
	if len(hits) == 0 {
		return t.none(pattern, root), nil
	}
	slices.SortFunc(hits, func(a, b globHit) int {
		if c := b.mtime.Compare(a.mtime); c != 0 {
			return c
		}
		return comparePaths(a.path, b.path)
	})
	var b strings.Builder
	shown := min(len(hits), t.max)
	for _, h := range hits[:shown] {
		b.WriteString(h.path)
		b.WriteByte('\n')
	}
	meta := map[string]any{"count": len(hits), "shown": shown}
	if shown < len(hits) {
		fmt.Fprintf(&b, "\n(Showing the %d most recently modified of %s; %d more were left out. Narrow the pattern or path to see them.)", shown, plural(len(hits), "matching file"), len(hits)-shown)
		meta["truncated"] = true
	} else {
		fmt.Fprintf(&b, "\n(%s, most recently modified first.)", plural(len(hits), "matching file"))
	}
	return tools.Result{Content: b.String(), Meta: meta}, nil
}

func (t *globTool) none(pattern string, root searchRoot) tools.Result {
	return tools.Result{
		Content: fmt.Sprintf("No files match %q %s. Hidden files and folders, files ignored by .gitignore/.ignore/.rgignore and symbolic links are skipped unless the pattern names them (e.g. \".github/**/*.yml\").",
			pattern, root.where()),
		Meta: map[string]any{"count": 0, "shown": 0},
	}
}

// mentionsHidden reports whether a pattern names a hidden file or folder
// (a path component starting with a dot), which turns hidden entries on.
func mentionsHidden(pattern string) bool {
	for _, sep := range []string{"/", "{", ","} {
		if strings.Contains(pattern, sep+".") {
			return true
		}
	}
	return strings.HasPrefix(pattern, ".")
}

// walkNode is a folder being walked. Its root stays open until every job
// that needs it (listing it, opening its files and subfolders) is done.
type walkNode struct {
	root  *os.Root
	refs  atomic.Int32
	level *ignoreLevel
	rel   string
	depth int
}

func (n *walkNode) release() {
	if n.refs.Add(-1) == 0 {
		n.root.Close()
	}
}

// walkJob is a kept entry of a listed folder: a file to visit or a folder
// to list.
type walkJob struct {
	node *walkNode
	name string
	rel  string
	dir  bool
}

// walkVisit is called, from several goroutines at once, for every kept
// regular file with the root of its folder; worker numbers the calling
// goroutine (0 to workers-1) so callers can keep per-goroutine state.
type walkVisit func(worker int, dir *os.Root, name, rel string) error

// walker walks a tree the way ripgrep does without --follow: symbolic links
// and other non-regular files are skipped, ignore files are read in every
// folder, and skipped folders are not entered. A pool of goroutines lists
// folders and visits files; every folder is entered once through its
// parent's os.Root with a single-component OpenRoot, and every file is
// opened relative to its folder, so nothing outside the starting folder is
// reached and no path is resolved twice.
type walker struct {
	ctx      context.Context
	ig       *ignoreStack
	maxDepth int
	visit    walkVisit
	problem  func(rel string, err error) // unreadable files and folders

	mu      sync.Mutex
	cond    sync.Cond
	stack   []walkJob
	pending int
}

// walkTree walks r (a folder) with the given filters. maxDepth limits how
// deep folders are entered (-1: no limit). It returns an error when the
// starting folder cannot be listed or ctx ends.
func walkTree(ctx context.Context, r searchRoot, ig *ignoreStack, maxDepth, workers int, visit walkVisit, problem func(rel string, err error)) error {
	top, err := os.OpenRoot(r.ref)
	if err != nil {
		return err
	}
	start, err := top.OpenRoot(r.rel)
	top.Close()
	if err != nil {
		return err
	}
	w := &walker{ctx: ctx, ig: ig, maxDepth: maxDepth, visit: visit, problem: problem}
	w.cond.L = &w.mu
	node := &walkNode{root: start, rel: r.rel}
	node.refs.Store(1)
	if err := w.expand(node, nil); err != nil {
		return err
	}
	var wg sync.WaitGroup
	for i := range max(workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.work(i)
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// expand lists a folder and queues its kept entries.
func (w *walker) expand(n *walkNode, parent *ignoreLevel) error {
	defer n.release()
	f, err := n.root.Open(".")
	if err != nil {
		return err
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return err
	}
	level := &ignoreLevel{parent: parent}
	found := false
	for _, e := range entries {
		for i, name := range ignoreFileNames {
			if e.Name() != name {
				continue
			}
			if data, err := readSmall(openRegularIn(n.root, name)); err == nil {
				base := n.rel
				if base == "." {
					base = ""
				}
				level.files[i] = parseIgnoreFile(base, data)
				found = true
			}
		}
	}
	if !found {
		level = parent
	}
	n.level = level
	st := *w.ig
	st.level = level
	var jobs []walkJob
	for _, e := range entries {
		t := e.Type()
		isDir := t.IsDir()
		if !isDir && !t.IsRegular() {
			continue
		}
		rel := joinRel(n.rel, e.Name())
		if st.skip(rel, e.Name(), isDir) {
			continue
		}
		if isDir && w.maxDepth >= 0 && n.depth+1 >= w.maxDepth {
			continue
		}
		jobs = append(jobs, walkJob{node: n, name: e.Name(), rel: rel, dir: isDir})
	}
	if len(jobs) == 0 {
		return nil
	}
	n.refs.Add(int32(len(jobs)))
	w.mu.Lock()
	w.stack = append(w.stack, jobs...)
	w.pending += len(jobs)
	w.mu.Unlock()
	w.cond.Broadcast()
	return nil
}

// work runs jobs until none are left anywhere. Jobs are taken last in,
// first out, so the walk goes deep first and few folders are open at once.
func (w *walker) work(worker int) {
	for {
		w.mu.Lock()
		for len(w.stack) == 0 && w.pending > 0 {
			w.cond.Wait()
		}
		if w.pending == 0 {
			w.mu.Unlock()
			return
		}
		j := w.stack[len(w.stack)-1]
		w.stack = w.stack[:len(w.stack)-1]
		w.mu.Unlock()

		w.run(worker, j)

		w.mu.Lock()
		w.pending--
		done := w.pending == 0
		w.mu.Unlock()
		if done {
			w.cond.Broadcast()
		}
	}
}

func (w *walker) run(worker int, j walkJob) {
	if w.ctx.Err() != nil {
		j.node.release()
		return
	}
	if !j.dir {
		if err := w.visit(worker, j.node.root, j.name, j.rel); err != nil {
			w.problem(j.rel, err)
		}
		j.node.release()
		return
	}
	child, err := j.node.root.OpenRoot(j.name)
	parent := j.node.level
	depth := j.node.depth + 1
	j.node.release()
	if err != nil {
		w.problem(j.rel, err)
		return
	}
	n := &walkNode{root: child, rel: j.rel, depth: depth}
	n.refs.Store(1)
	if err := w.expand(n, parent); err != nil {
		w.problem(j.rel, err)
	}
}

// joinRel returns a child's path relative to the reference root.
func joinRel(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}
