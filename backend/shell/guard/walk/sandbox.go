package walk

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// The sandbox computes what a command substitution or a pipeline stage
// prints, so that `rm -rf $(echo /)` and `echo / | xargs rm -rf` are judged
// by their real targets. It is mvdan.cc/sh's interpreter with every way out
// closed: programs are never started (a few pure text tools are emulated,
// every other program "prints" an unknown value), files are never opened
// (reads give an unknown value, writes go nowhere), process substitutions
// are refused, and a step budget and a deadline stop endless loops. Only
// directory listings (for globs) and stats reach the file system.

const (
	maxSandboxes     = 48
	maxSandboxCalls  = 2000
	maxSandboxOutput = 64 << 10
	maxSandboxInput  = 60 << 10 // less than a pipe's buffer
	sandboxDeadline  = 100 * time.Millisecond
)

// procSubst is a process substitution handed out as a /dev/fd path.
type procSubst struct {
	node *syntax.ProcSubst
	st   *State
}

// procPath returns the path bash gives <(…), and remembers what it holds.
func (g *Walker) procPath(st *State, ps *syntax.ProcSubst) string {
	for p, pr := range g.procs {
		if pr.node == ps {
			return p
		}
	}
	p := fmt.Sprintf("/dev/fd/%d", 63-len(g.procs))
	g.procs[p] = procSubst{node: ps, st: st.Clone()}
	return p
}

// substOutput is what $(…) prints.
func (g *Walker) substOutput(st *State, cs *syntax.CmdSubst) string {
	return g.sandbox(st, cs.Stmts, Input{})
}

// sandbox runs stmts in the sandbox with st's variables, functions and
// folder, and returns their output, with markers for what is unknown.
func (g *Walker) sandbox(st *State, stmts []*syntax.Stmt, stdin Input) string {
	unknownOut := func() string { return g.Unknown(Source{output: stmts}) }
	if len(stmts) == 0 {
		return ""
	}
	if g.sandboxes >= maxSandboxes || st.Cwd == "" {
		return unknownOut()
	}
	// Refused: what the interpreter would do for real (process
	// substitutions make FIFOs), and what could grow without bound in
	// memory before the deadline (loops, many self-referencing
	// assignments, huge brace expansions).
	refused, growing := false, 0
	for _, s := range stmts {
		syntax.Walk(s, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.ProcSubst, *syntax.CoprocClause, *syntax.WhileClause, *syntax.ForClause, *syntax.FuncDecl:
				refused = true
			case *syntax.Assign:
				if n.Value != nil && len(n.Value.Parts) > 1 {
					growing++
				}
			case *syntax.Word:
				if braceCount(n) > 256 {
					refused = true
				}
			}
			return !refused
		})
	}
	refused = refused || growing > 6
	if refused {
		return unknownOut()
	}
	if fi, err := os.Stat(st.Cwd); err != nil || !fi.IsDir() {
		return unknownOut()
	}
	fixLiterals(stmts)
	g.sandboxes++

	var in *os.File
	if stdin.Set {
		text, ok := g.InputText(stdin)
		if !ok {
			text = g.Unknown(Source{Desc: stdin.What()})
		}
		if len(text) > maxSandboxInput {
			text = text[:maxSandboxInput] + g.Unknown(Source{Desc: "the rest of " + stdin.What()})
		}
		pr, pw, err := os.Pipe()
		if err != nil {
			return unknownOut()
		}
		// The text fits the pipe's buffer, so it is written at once.
		_, _ = pw.WriteString(text)
		pw.Close()
		defer pr.Close()
		in = pr
	}
	out := &capped{max: maxSandboxOutput}
	var calls atomic.Int64
	ctx, cancel := context.WithTimeout(context.Background(), sandboxDeadline)
	defer cancel()
	opts := []interp.RunnerOption{
		interp.Env(guardEnv{g, st}),
		interp.Dir(st.Cwd),
		interp.Params(append([]string{"--"}, st.Params...)...),
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc { return g.sandboxExec }),
		interp.OpenHandler(g.sandboxOpen),
		interp.ReadDirHandler2(func(_ context.Context, dir string) ([]fs.DirEntry, error) { return g.readDir(dir) }),
		interp.CallHandler(func(_ context.Context, args []string) ([]string, error) {
			if calls.Add(1) > maxSandboxCalls {
				return nil, errors.New("step budget exceeded")
			}
			return args, nil
		}),
	}
	if in != nil {
		opts = append(opts, interp.StdIO(in, out, io.Discard))
	} else {
		opts = append(opts, interp.StdIO(nil, out, io.Discard))
	}
	r, err := interp.New(opts...)
	if err != nil {
		return unknownOut()
	}
	r.Reset()
	r.Funcs = map[string]*syntax.Stmt{}
	for name, bodies := range st.funcs {
		if len(bodies) > 0 {
			r.Funcs[name] = bodies[len(bodies)-1]
		}
	}
	if ifs := (guardEnv{g, st}).Get("IFS"); ifs.Str != " \t\n" {
		_ = r.Run(ctx, &syntax.Stmt{Cmd: &syntax.CallExpr{Assigns: []*syntax.Assign{{
			Name: &syntax.Lit{Value: "IFS"}, Value: &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{Value: ifs.Str}}},
		}}}})
	}
	runErr := r.Run(ctx, &syntax.File{Stmts: stmts})
	text, over := out.result()
	var status interp.ExitStatus
	if over || ctx.Err() != nil || (runErr != nil && !errors.As(runErr, &status)) {
		text += unknownOut()
	}
	return text
}

// fixLiterals rewrites, in place, the words the interpreter expands without
// bash's quote removal (assignment values, here-strings, redirection
// targets), so that x=\/ gives / there as in bash.
func fixLiterals(stmts []*syntax.Stmt) {
	for _, s := range stmts {
		syntax.Walk(s, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.Assign:
				if n.Value != nil {
					n.Value = unescapeWord(n.Value)
				}
			case *syntax.Redirect:
				if n.Word != nil && n.Op != syntax.Hdoc && n.Op != syntax.DashHdoc {
					n.Word = unescapeWord(n.Word)
				}
			}
			return true
		})
	}
}

// capped is a buffer that keeps at most max bytes. Background jobs of the
// sandboxed script may still write to it from their goroutines.
type capped struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - c.buf.Len(); len(p) > room {
		c.over = true
		c.buf.Write(p[:max(0, room)])
		return len(p), nil
	}
	return c.buf.Write(p)
}

// result returns what was written and whether some was dropped.
func (c *capped) result() (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String(), c.over
}

// sandboxExec stands in for every program: a few pure text tools are
// emulated, every other program prints an unknown value.
func (g *Walker) sandboxExec(ctx context.Context, args []string) error {
	hc := interp.HandlerCtx(ctx)
	out, ok := g.emulate(hc, args)
	if !ok {
		out = g.Unknown(Source{Desc: "the output of `" + Clip(strings.Join(args, " "), 60) + "`"})
	}
	_, _ = io.WriteString(hc.Stdout, out)
	return nil
}

// readStdin reads what an emulated program gets on stdin.
func readStdin(hc interp.HandlerContext) (string, bool) {
	if hc.Stdin == nil {
		return "", true
	}
	b, err := io.ReadAll(io.LimitReader(hc.Stdin, maxSandboxOutput))
	if err != nil {
		return "", false
	}
	return string(b), !HasMarker(string(b))
}

// emulate runs the pure text tools whose output matters for judging a
// command: decoders, path tools, mktemp.
func (g *Walker) emulate(hc interp.HandlerContext, args []string) (string, bool) {
	for _, a := range args {
		if HasMarker(a) {
			return "", false
		}
	}
	base := CommandBase(args[0])
	rest := args[1:]
	flag := func(fs ...string) bool {
		for _, a := range rest {
			for _, f := range fs {
				if a == f {
					return true
				}
			}
		}
		return false
	}
	var files []string
	for _, a := range rest {
		if !strings.HasPrefix(a, "-") || a == "-" {
			files = append(files, a)
		}
	}
	switch base {
	case "cat":
		if len(files) == 0 || (len(files) == 1 && files[0] == "-") {
			return readStdin(hc)
		}
	case "base64", "basenc":
		if flag("-d", "--decode", "-D") && len(files) == 0 {
			in, ok := readStdin(hc)
			if !ok {
				return "", false
			}
			clean := strings.Join(strings.Fields(in), "")
			for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
				if b, err := enc.DecodeString(clean); err == nil {
					return string(b), true
				}
			}
		}
	case "xxd":
		if flag("-r") && flag("-p", "-ps", "-plain") && len(files) == 0 {
			in, ok := readStdin(hc)
			if !ok {
				return "", false
			}
			if b, err := hex.DecodeString(strings.Join(strings.Fields(in), "")); err == nil {
				return string(b), true
			}
		}
	case "rev":
		if len(files) == 0 {
			in, ok := readStdin(hc)
			if !ok {
				return "", false
			}
			lines := strings.SplitAfter(in, "\n")
			var b strings.Builder
			for _, l := range lines {
				nl := strings.HasSuffix(l, "\n")
				r := []rune(strings.TrimSuffix(l, "\n"))
				for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
					r[i], r[j] = r[j], r[i]
				}
				b.WriteString(string(r))
				if nl {
					b.WriteByte('\n')
				}
			}
			return b.String(), true
		}
	case "tr":
		return emulateTr(hc, rest)
	case "dirname":
		if len(files) == 1 {
			return filepath.Dir(files[0]) + "\n", true
		}
	case "basename":
		if len(files) >= 1 && len(files) <= 2 && !flag("-a", "-s") {
			b := filepath.Base(files[0])
			if len(files) == 2 {
				b = strings.TrimSuffix(b, files[1])
			}
			return b + "\n", true
		}
	case "realpath", "readlink":
		if len(files) == 1 && (base == "realpath" || flag("-f", "-m", "-e", "--canonicalize")) {
			p := files[0]
			if !filepath.IsAbs(p) {
				p = filepath.Join(hc.Dir, p)
			}
			if r, err := filepath.EvalSymlinks(p); err == nil {
				p = r
			}
			return filepath.Clean(p) + "\n", true
		}
	case "mktemp":
		dir := filepath.ToSlash(os.TempDir())
		if g.tmpDir != "" {
			dir = g.tmpDir
		}
		for i, a := range rest {
			if (a == "-p" || a == "--tmpdir") && i+1 < len(rest) {
				dir = rest[i+1]
			} else if v, ok := strings.CutPrefix(a, "--tmpdir="); ok {
				dir = v
			}
		}
		name := "tmp.guard0000"
		if len(files) > 0 && !strings.Contains(files[len(files)-1], "/") {
			name = strings.ReplaceAll(files[len(files)-1], "X", "g")
		} else if len(files) > 0 {
			return strings.ReplaceAll(files[len(files)-1], "X", "g") + "\n", true
		}
		return filepath.Join(dir, name) + "\n", true
	case "whoami":
		if g.User != "" {
			return g.User + "\n", true
		}
	case "seq":
		nums := make([]int, 0, 3)
		for _, f := range files {
			n, err := strconv.Atoi(f)
			if err != nil {
				return "", false
			}
			nums = append(nums, n)
		}
		first, step, last := 1, 1, 0
		switch len(nums) {
		case 1:
			last = nums[0]
		case 2:
			first, last = nums[0], nums[1]
		case 3:
			first, step, last = nums[0], nums[1], nums[2]
		default:
			return "", false
		}
		if step <= 0 || (last-first)/step > 1000 {
			return "", false
		}
		var b strings.Builder
		for n := first; n <= last; n += step {
			fmt.Fprintf(&b, "%d\n", n)
		}
		return b.String(), true
	case "true":
		return "", true
	case "ls":
		// ls [-1aA] [folders]: the names, one per line, as a pipe gets them.
		all, almost := false, false
		for _, a := range rest {
			switch {
			case a == "-a" || a == "--all":
				all = true
			case a == "-A" || a == "--almost-all":
				almost = true
			case a == "-1":
			case strings.HasPrefix(a, "-"):
				return "", false
			}
		}
		if len(files) == 0 {
			files = []string{"."}
		}
		var b strings.Builder
		for _, f := range files {
			dir := f
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(hc.Dir, dir)
			}
			if filepath.Clean(dir) == g.WorkspaceDir {
				// Everything in the workspace, one by one, is the
				// workspace: keep it unknown, as rm -rf * there is held.
				return "", false
			}
			entries, err := g.readDir(dir)
			if err != nil {
				return "", false
			}
			if len(files) > 1 {
				fmt.Fprintf(&b, "%s:\n", f)
			}
			if all {
				b.WriteString(".\n..\n")
			}
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), ".") && !all && !almost {
					continue
				}
				b.WriteString(e.Name() + "\n")
			}
		}
		return b.String(), true
	case "git":
		if len(rest) == 2 && rest[0] == "rev-parse" && rest[1] == "--show-toplevel" {
			for d := hc.Dir; ; d = filepath.Dir(d) {
				if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
					return d + "\n", true
				}
				if d == filepath.Dir(d) {
					return "", false
				}
			}
		}
	}
	return "", false
}

// emulateTr handles tr SET1 SET2 and tr -d SET with ranges.
func emulateTr(hc interp.HandlerContext, args []string) (string, bool) {
	del := false
	var sets []string
	for _, a := range args {
		switch {
		case a == "-d":
			del = true
		case strings.HasPrefix(a, "-"):
			return "", false
		default:
			sets = append(sets, expandTrSet(a))
		}
	}
	in, ok := readStdin(hc)
	if !ok {
		return "", false
	}
	switch {
	case del && len(sets) == 1:
		return strings.Map(func(r rune) rune {
			if strings.ContainsRune(sets[0], r) {
				return -1
			}
			return r
		}, in), true
	case !del && len(sets) == 2 && len(sets[1]) > 0:
		from, to := []rune(sets[0]), []rune(sets[1])
		return strings.Map(func(r rune) rune {
			for i, f := range from {
				if f == r {
					return to[min(i, len(to)-1)]
				}
			}
			return r
		}, in), true
	}
	return "", false
}

func expandTrSet(s string) string {
	switch s {
	case "[:upper:]":
		return "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	case "[:lower:]":
		return "abcdefghijklmnopqrstuvwxyz"
	}
	r := []rune(strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\\`, `\`).Replace(s))
	var b strings.Builder
	for i := 0; i < len(r); i++ {
		if i+2 < len(r) && r[i+1] == '-' && r[i] <= r[i+2] && r[i+2]-r[i] < 256 {
			for c := r[i]; c <= r[i+2]; c++ {
				b.WriteRune(c)
			}
			i += 2
			continue
		}
		b.WriteRune(r[i])
	}
	return b.String()
}

// sandboxOpen never opens a file: reads give an unknown value, writes go
// nowhere.
func (g *Walker) sandboxOpen(_ context.Context, path string, flag int, _ os.FileMode) (io.ReadWriteCloser, error) {
	if path == "/dev/null" {
		return nopFile{Reader: strings.NewReader("")}, nil
	}
	if flag&(os.O_WRONLY|os.O_RDWR) != 0 {
		return nopFile{Reader: strings.NewReader("")}, nil
	}
	return nopFile{Reader: strings.NewReader(g.Unknown(Source{Desc: "the contents of " + path}))}, nil
}

type nopFile struct{ io.Reader }

func (nopFile) Write(p []byte) (int, error) { return len(p), nil }
func (nopFile) Close() error                { return nil }
