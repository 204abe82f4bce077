package fs

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"tinyelf/backend/proc"
	"tinyelf/backend/tools"
	"unicode/utf8"
)

//go:embed grep.md
var grepDescription string

// Grep's default caps.
const (
	DefaultGrepMaxMatches    = 200
	DefaultGrepMaxLineLength = 300
)

// GrepOptions configures the Grep tool.
type GrepOptions struct {
	// RgPath is the ripgrep binary to run. "" looks "rg" up on PATH once, when
	// the tool is built; a path that cannot be run also means the Go engine.
	RgPath string
	// PureGo forces the pure-Go engine even when ripgrep is available.
	PureGo bool
	// MaxMatches caps the matching lines shown (DefaultGrepMaxMatches when 0).
	MaxMatches int
	// MaxLineLength cuts longer lines, in bytes (DefaultGrepMaxLineLength
	// when 0).
	MaxLineLength int
	// Children starts ripgrep (the clean environment, its own group, gone
	// with TinyElf); nil still gives it its own group.
	Children *proc.Children
}

// grepTool is the seed's GrepTool. Both engines see the same files (the
// walk rules of gitignore.go) and the same pattern (translated once by
// compileGrepPattern), so they give the same output.
type grepTool struct {
	ws       *Workspace
	rg       string // "" means the Go engine
	maxHits  int
	maxLine  int
	children *proc.Children
}

// NewGrep returns the Grep tool over ws. It is safe for concurrent use.
func NewGrep(ws *Workspace, opts GrepOptions) tools.Tool {
	t := &grepTool{ws: ws, maxHits: opts.MaxMatches, maxLine: opts.MaxLineLength, children: opts.Children}
	if t.maxHits <= 0 {
		t.maxHits = DefaultGrepMaxMatches
	}
	if t.maxLine <= 0 {
		t.maxLine = DefaultGrepMaxLineLength
	}
	if !opts.PureGo {
		name := opts.RgPath
		if name == "" {
			name = "rg"
		}
		if p, err := exec.LookPath(name); err == nil {
			t.rg = p
		}
	}
	return t
}

var grepParams = json.RawMessage(`{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "description": "Regular expression (RE2) to search for."},
    "path": {"type": "string", "description": "File or folder to search (default: the workspace)."},
    "include": {"type": "string", "description": "Only files matching this glob, e.g. \"*.go\", \"!*_test.go\"."}
  },
  "required": ["pattern"]
}`)

func (t *grepTool) Info() tools.Info {
	return tools.Info{Name: "Grep", Description: grepDescription, Parameters: grepParams, ReadOnly: true, Safe: true}
}

// grepRequest is one search, resolved and validated, as the engines take it.
type grepRequest struct {
	root    searchRoot
	pattern *grepPattern
	include string // the include glob as given ("" for none)
	ignores *ignoreStack
	out     *grepCollector
}

func (t *grepTool) Execute(ctx context.Context, params map[string]any) (tools.Result, error) {
	pattern := tools.String(params, "pattern", "")
	pathArg := tools.String(params, "path", "")
	include := strings.TrimSpace(tools.String(params, "include", ""))
	pat, err := compileGrepPattern(pattern)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	root, err := resolveSearchRoot(t.ws, pathArg)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	req := &grepRequest{root: root, pattern: pat, include: include, out: newGrepCollector(t.maxHits, t.maxLine)}
	if root.isDir {
		req.ignores = &ignoreStack{explicit: root.ancestorIgnores()}
		if include != "" {
			inc := &ignoreList{}
			inc.add(include)
			if len(inc.rules) == 0 {
				return tools.Errorf("Invalid include glob %q: use a glob such as \"*.go\", \"*.{ts,tsx}\" or \"src/**/*.py\".", include), nil
			}
			req.ignores.include = inc
		}
	}
	engine := "go"
	// A FIFO swapped in after the check above would stall ripgrep (which
	// opens what it is given); the pipeline's call deadline and ctx bound
	// that, and the Go engine opens without blocking.
	if t.rg != "" {
		engine = "rg"
		err = t.searchRg(ctx, req)
	} else {
		err = searchGo(ctx, req)
	}
	if err != nil {
		var fe *grepFailure
		if errors.As(err, &fe) {
			return tools.Result{Content: fe.msg, IsError: true, Meta: map[string]any{"engine": engine}}, nil
		}
		return tools.Result{Meta: map[string]any{"engine": engine}}, err
	}
	res := req.out.result(pattern, root.where(), include)
	res.Meta["engine"] = engine
	return res, nil
}

// grepFailure is a failure the model should read as an error result.
type grepFailure struct{ msg string }

func (e *grepFailure) Error() string { return e.msg }

// grepLine is one matching line, already cut for display.
type grepLine struct {
	n    int
	text string
}

// grepFile holds the first matching lines of one file.
type grepFile struct {
	path  string
	lines []grepLine
}

// grepCollector gathers matching lines from an engine and keeps only what
// can still be shown: the first max lines in path order. It is safe for
// concurrent use.
type grepCollector struct {
	mu      sync.Mutex
	max     int
	maxLine int
	files   map[string]*grepFile
	counts  map[string]int // matching lines per file, kept or not
	kept    int
	cutoff  string // files sorting after cutoff are only counted
	total   int
	partial []string // paths that could not be read
	dropped int      // lines that failed verification
}

func newGrepCollector(max, maxLine int) *grepCollector {
	return &grepCollector{max: max, maxLine: maxLine, files: map[string]*grepFile{}, counts: map[string]int{}}
}

// cutLine prepares a line for display: no trailing CR, valid UTF-8, at most
// maxLine bytes.
func (c *grepCollector) cutLine(line []byte) string {
	line = trimCR(line)
	s := string(line)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if len(s) > c.maxLine {
		kept := tools.CutUTF8(s, c.maxLine)
		s = fmt.Sprintf("%s… [line cut, %d more bytes]", kept, len(s)-len(kept))
	}
	return s
}

func trimCR(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\r' {
		return b[:n-1]
	}
	return b
}

// addFile records the matching lines of one file, in line order.
func (c *grepCollector) addFile(f *grepFile, count int) {
	if count == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += count
	c.counts[f.path] += count
	if c.cutoff != "" && comparePaths(f.path, c.cutoff) > 0 {
		return
	}
	if old := c.files[f.path]; old != nil {
		c.kept -= len(old.lines)
		f.lines = append(old.lines, f.lines...)
	}
	if len(f.lines) > c.max {
		f.lines = f.lines[:c.max]
	}
	c.files[f.path] = f
	c.kept += len(f.lines)
	if c.kept > 4*c.max {
		c.trim()
	}
}

// remove forgets a file (ripgrep reported it as binary after its matches).
func (c *grepCollector) remove(path string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total -= c.counts[path]
	delete(c.counts, path)
	if f := c.files[path]; f != nil {
		c.kept -= len(f.lines)
		delete(c.files, path)
	}
}

// trim drops files that sort after the first max kept lines.
func (c *grepCollector) trim() {
	paths := c.sortedPaths()
	sum := 0
	for i, p := range paths {
		sum += len(c.files[p].lines)
		if sum >= c.max {
			c.cutoff = p
			for _, q := range paths[i+1:] {
				c.kept -= len(c.files[q].lines)
				delete(c.files, q)
			}
			return
		}
	}
}

func (c *grepCollector) sortedPaths() []string {
	paths := make([]string, 0, len(c.files))
	for p := range c.files {
		paths = append(paths, p)
	}
	slices.SortFunc(paths, comparePaths)
	return paths
}

// comparePaths orders slash-separated paths component by component, so a
// folder's files stay together ("a/b" before "a.txt").
func comparePaths(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		ca, cb := a[i], b[i]
		if ca == cb {
			continue
		}
		if ca == '/' {
			return -1
		}
		if cb == '/' {
			return 1
		}
		return int(ca) - int(cb)
	}
	return len(a) - len(b)
}

// result renders what was collected; where says where it searched ("in
// the workspace").
func (c *grepCollector) result(pattern, where, include string) tools.Result {
	c.mu.Lock()
	defer c.mu.Unlock()
	meta := map[string]any{"matches": c.total, "files": len(c.counts)}
	scope := where
	if include != "" {
		scope += fmt.Sprintf(" (include %q)", include)
	}
	var b strings.Builder
	if c.total == 0 {
		fmt.Fprintf(&b, "No matches for %q %s.", pattern, scope)
		b.WriteString(" Hidden files, files ignored by .gitignore/.ignore/.rgignore, binary files and symbolic links are not searched.")
	} else {
		shown := 0
		for _, p := range c.sortedPaths() {
			for _, l := range c.files[p].lines {
				if shown == c.max {
					break
				}
				fmt.Fprintf(&b, "%s:%d:%s\n", p, l.n, l.text)
				shown++
			}
		}
		if shown < c.total {
			fmt.Fprintf(&b, "\n(Showing %d of %s in %s; %d more were left out. Narrow the pattern, path or include to see them.)",
				shown, plural(c.total, "matching line"), plural(len(c.counts), "file"), c.total-shown)
			meta["truncated"] = true
		} else {
			fmt.Fprintf(&b, "\n(%s in %s.)", plural(c.total, "matching line"), plural(len(c.counts), "file"))
		}
	}
	if c.dropped > 0 {
		fmt.Fprintf(&b, "\n(%s changed while being searched and were left out.)", plural(c.dropped, "matching line"))
		meta["changed"] = c.dropped
	}
	if len(c.partial) > 0 {
		fmt.Fprintf(&b, "\n(Some paths could not be read and were skipped.)")
		meta["unreadable"] = c.partial
	}
	return tools.Result{Content: b.String(), Meta: meta}
}

// verify re-reads the files of the lines that will be shown, with open, and
// drops every line whose text is not what the file now holds at that line
// number. Dropped lines are noted in the result.
func (c *grepCollector) verify(open func(path string) (io.ReadCloser, error)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	shown := 0
	for _, p := range c.sortedPaths() {
		if shown >= c.max {
			return
		}
		f := c.files[p]
		kept := c.verifyFile(open, p, f.lines)
		if dropped := len(f.lines) - len(kept); dropped > 0 {
			c.dropped += dropped
			c.total -= dropped
			c.kept -= dropped
			if c.counts[p] -= dropped; c.counts[p] <= 0 {
				delete(c.counts, p)
			}
		}
		f.lines = kept
		shown += len(kept)
	}
}

// verifyFile returns the lines (in line order) whose text is what the file
// holds at their line number; none when it cannot be read.
func (c *grepCollector) verifyFile(open func(string) (io.ReadCloser, error), path string, lines []grepLine) []grepLine {
	f, err := open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	slices.SortFunc(lines, func(a, b grepLine) int { return a.n - b.n })
	kept := lines[:0:0]
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<30)
	next := 0
	for n := 1; next < len(lines) && sc.Scan(); n++ {
		for next < len(lines) && lines[next].n == n {
			if c.cutLine(sc.Bytes()) == lines[next].text {
				kept = append(kept, lines[next])
			}
			next++
		}
	}
	return kept
}

// plural spells a count with its noun: "1 file", "2 files".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func (c *grepCollector) unreadable(msg string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.partial) < 20 {
		c.partial = append(c.partial, msg)
	}
}
