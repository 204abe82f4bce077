package fs

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// rgArgs are the flags every ripgrep run gets. They pin down everything a
// user's configuration or environment could change, and make ripgrep walk
// exactly like the Go engine: ignore files only inside the search (the
// folders above it come in through --ignore-file), no global or
// .git/info/exclude rules, whether or not the folder is a git repository,
// raw bytes with no BOM sniffing or transcoding, and the path ended by a NUL
// so that any file name parses.
var rgArgs = []string{
	"--no-config", "--line-number", "--no-heading", "--with-filename", "--color", "never",
	"--no-require-git", "--no-ignore-parent", "--no-ignore-global", "--no-ignore-exclude",
	"--no-ignore-messages", "--encoding", "none", "--no-mmap", "--null",
}

// rgBinaryNotices end the lines ripgrep prints, after a file's matches, when
// it finds a NUL byte in it; such files count as binary and are dropped.
var rgBinaryNotices = [][]byte{
	[]byte(": binary file matches (found "),
	[]byte(": WARNING: stopped searching binary file after match (found "),
}

// searchRg runs ripgrep from the reference root on the search path (given
// relative to it, symlink-free, and checked to be inside the workspace) and
// feeds its output to the collector. ripgrep is killed when ctx ends.
func (t *grepTool) searchRg(ctx context.Context, req *grepRequest) error {
	args := append([]string(nil), rgArgs...)
	if req.include != "" {
		args = append(args, "--glob="+req.include)
	}
	if req.ignores != nil && req.ignores.explicit != nil {
		f, err := os.CreateTemp("", "tinyelf-grep-*.ignore")
		if err != nil {
			return fmt.Errorf("write ignore rules for rg: %w", err)
		}
		defer os.Remove(f.Name())
		var b strings.Builder
		req.ignores.explicit.rebased(&b)
		_, werr := f.WriteString(b.String())
		if err := errors.Join(werr, f.Close()); err != nil {
			return fmt.Errorf("write ignore rules for rg: %w", err)
		}
		args = append(args, "--ignore-file="+f.Name())
	}
	target := req.root.rel
	if target == "." {
		target = "./"
	}
	args = append(args, "--", req.pattern.rg, target)

	cmd := t.children.CommandContext(ctx, t.rg, args...)
	cmd.Dir = req.root.ref
	cmd.WaitDelay = 2 * time.Second
	var stderr limitedBuffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("run rg: %w", err)
	}
	child, err := cmd.Start()
	if err != nil {
		return fmt.Errorf("run rg: %w", err)
	}
	perr := t.parseRg(stdout, req)
	if perr != nil {
		child.Signal(true)
	}
	werr := cmd.Wait()
	child.Exited()
	defer verifyRg(req)
	if err := ctx.Err(); err != nil {
		return err
	}
	if perr != nil {
		return fmt.Errorf("read rg output: %w", perr)
	}
	var exit *exec.ExitError
	switch {
	case werr == nil:
		return nil
	case !errors.As(werr, &exit):
		return fmt.Errorf("run rg: %w", werr)
	case exit.ExitCode() == 1: // no matches
		return nil
	}
	// Exit code 2: an error. Per-path errors ("path: ... (os error 13)")
	// leave the rest of the search valid; anything else is a failure.
	msg := strings.TrimSpace(stderr.String())
	fatal := msg == ""
	for _, line := range strings.Split(msg, "\n") {
		if strings.Contains(line, "(os error") {
			req.out.unreadable(line)
		} else if strings.TrimSpace(line) != "" {
			fatal = true
		}
	}
	if fatal {
		return &grepFailure{msg: fmt.Sprintf("ripgrep failed (exit code %d): %s", exit.ExitCode(), msg)}
	}
	return nil
}

// verifyRg checks, through the workspace root, the lines about to be shown.
// ripgrep opens files by path, so a folder swapped for a symbolic link while
// it runs could make it read outside a restricted workspace; re-reading with
// os.Root keeps such content out of the result.
func verifyRg(req *grepRequest) {
	if !req.root.confined {
		return
	}
	req.out.verify(func(path string) (io.ReadCloser, error) {
		if req.root.outside { // an extra folder of the workspace: paths are shown absolute
			if rel, err := filepath.Rel(req.root.ref, path); err == nil {
				path = filepath.ToSlash(rel)
			}
		}
		return req.root.openFile(path)
	})
}

// parseRg reads "path NUL line:text" records. ripgrep writes each file's
// matches together, so lines are grouped per file as they come.
func (t *grepTool) parseRg(r io.Reader, req *grepRequest) error {
	rd := bufio.NewReaderSize(r, 64<<10)
	var cur *grepFile
	var curRaw []byte
	count := 0
	flush := func() {
		if cur != nil {
			req.out.addFile(cur, count)
		}
		cur, curRaw, count = nil, curRaw[:0], 0
	}
	var long []byte
	for {
		line, err := rd.ReadSlice('\n')
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			return err
		}
		if err == bufio.ErrBufferFull {
			long = append(long[:0], line...)
			for err == bufio.ErrBufferFull {
				line, err = rd.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if len(line) == 0 && err != nil {
			break
		}
		line = bytes.TrimSuffix(line, []byte{'\n'})
		nul := bytes.IndexByte(line, 0)
		if nul < 0 {
			if p, ok := rgBinaryPath(line); ok {
				path := req.root.display(cleanRgPath(p))
				if cur != nil && cur.path == path {
					cur, count = nil, 0
				} else {
					req.out.remove(path)
				}
			}
		} else {
			raw := line[:nul]
			if cur == nil || !bytes.Equal(raw, curRaw) {
				flush()
				curRaw = append(curRaw, raw...)
				cur = &grepFile{path: req.root.display(cleanRgPath(string(raw)))}
			}
			rest := line[nul+1:]
			colon := bytes.IndexByte(rest, ':')
			if colon < 0 {
				return fmt.Errorf("unexpected line %q", line)
			}
			n, aerr := strconv.Atoi(string(rest[:colon]))
			if aerr != nil {
				return fmt.Errorf("unexpected line %q", line)
			}
			count++
			if len(cur.lines) < req.out.max {
				cur.lines = append(cur.lines, grepLine{n: n, text: req.out.cutLine(rest[colon+1:])})
			}
		}
		if err != nil {
			break
		}
	}
	flush()
	return nil
}

func rgBinaryPath(line []byte) (string, bool) {
	for _, notice := range rgBinaryNotices {
		if i := bytes.LastIndex(line, notice); i >= 0 {
			return string(line[:i]), true
		}
	}
	return "", false
}

// cleanRgPath turns a path ripgrep printed into one relative to the
// reference root.
func cleanRgPath(p string) string {
	p = strings.TrimPrefix(p, "./")
	if os.PathSeparator != '/' {
		p = strings.ReplaceAll(p, string(os.PathSeparator), "/")
	}
	return p
}

// limitedBuffer keeps the first 8 KiB written to it.
type limitedBuffer struct{ bytes.Buffer }

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := 8<<10 - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// The pattern dialect. It lives beside ripgrep because it exists for it: the
// Go engine could take the user's pattern as is, but Rust's regex differs
// from Go's on Unicode classes, \b, case folding, anchors and invalid UTF-8,
// so both engines get the same rewritten pattern.

// grepPattern is the user's regexp, translated so that Go's regexp package
// and ripgrep's Rust regex give the same verdict on every line.
type grepPattern struct {
	re      *regexp.Regexp // for the Go engine, matched against whole buffers
	rg      string         // for ripgrep
	literal []byte         // a string every match contains (nil when none)
}

// compileGrepPattern parses pattern with Go's RE2 syntax and rewrites it into
// a form whose meaning does not depend on the engine: ^ and $ are line
// anchors, nothing matches a line break, Perl classes and case folding are
// spelled out as explicit classes, \b is ASCII in both, and classes leave out
// U+FFFD (which Go produces for invalid UTF-8 and Rust does not).
func compileGrepPattern(pattern string) (*grepPattern, error) {
	parsed, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, fmt.Errorf("Invalid regex %q: %v. The pattern uses RE2 syntax (like Go and ripgrep); escape special characters such as ( [ { . * + ? with a backslash to match them literally.", pattern, err)
	}
	re, err := lineRegexp(parsed)
	if err != nil {
		return nil, fmt.Errorf("Invalid regex %q: %v.", pattern, err)
	}
	var goSrc, rgSrc strings.Builder
	printRegexp(&goSrc, re, false)
	printRegexp(&rgSrc, re, true)
	compiled, err := regexp.Compile(goSrc.String())
	if err != nil {
		return nil, fmt.Errorf("Invalid regex %q: %v.", pattern, err)
	}
	p := &grepPattern{re: compiled, rg: rgSrc.String()}
	if lit := requiredLiteral(re); lit != "" {
		p.literal = []byte(lit)
	}
	return p, nil
}

// cleanClass removes from a class's ranges the line break, U+FFFD (which Go
// matches on invalid UTF-8 and Rust does not) and the surrogates (which Rust
// cannot spell and valid UTF-8 never holds).
func cleanClass(ranges []rune) []rune {
	var out []rune
	add := func(lo, hi rune) {
		if lo <= hi {
			out = append(out, lo, hi)
		}
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		for _, cut := range [][2]rune{{'\n', '\n'}, {0xD800, 0xDFFF}, {utf8.RuneError, utf8.RuneError}} {
			if lo <= cut[1] && hi >= cut[0] {
				add(lo, cut[0]-1)
				lo = cut[1] + 1
			}
		}
		add(lo, hi)
	}
	return out
}

func lineRegexp(re *syntax.Regexp) (*syntax.Regexp, error) {
	out := &syntax.Regexp{Op: re.Op, Min: re.Min, Max: re.Max}
	switch re.Op {
	case syntax.OpLiteral:
		out.Op = syntax.OpConcat
		var lit []rune
		flush := func() {
			if len(lit) > 0 {
				out.Sub = append(out.Sub, &syntax.Regexp{Op: syntax.OpLiteral, Rune: lit})
				lit = nil
			}
		}
		for _, r := range re.Rune {
			switch {
			case r == '\n':
				return nil, errors.New("it matches a line break, but Grep matches one line at a time (search for the lines separately)")
			case r == utf8.RuneError || (r >= 0xD800 && r <= 0xDFFF):
				return nil, fmt.Errorf("U+%04X cannot be searched for", r)
			}
			if re.Flags&syntax.FoldCase != 0 && unicode.SimpleFold(r) != r {
				flush()
				fold := []rune{r}
				for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
					fold = append(fold, f)
				}
				slices.Sort(fold)
				class := make([]rune, 0, 2*len(fold))
				for _, f := range fold {
					class = append(class, f, f)
				}
				out.Sub = append(out.Sub, &syntax.Regexp{Op: syntax.OpCharClass, Rune: class})
				continue
			}
			lit = append(lit, r)
		}
		flush()
		if len(out.Sub) == 1 {
			return out.Sub[0], nil
		}
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		ranges := re.Rune
		if re.Op != syntax.OpCharClass {
			ranges = []rune{0, unicode.MaxRune}
		}
		out.Op, out.Rune = syntax.OpCharClass, cleanClass(ranges)
		if len(out.Rune) == 0 {
			out.Op = syntax.OpNoMatch
		}
	case syntax.OpBeginLine, syntax.OpBeginText:
		out.Op = syntax.OpBeginLine
	case syntax.OpEndLine, syntax.OpEndText:
		out.Op = syntax.OpEndLine
	case syntax.OpCapture:
		return lineRegexp(re.Sub[0])
	default:
		for _, sub := range re.Sub {
			s, err := lineRegexp(sub)
			if err != nil {
				return nil, err
			}
			out.Sub = append(out.Sub, s)
		}
	}
	return out, nil
}

// printRegexp writes re in the syntax common to Go and Rust; rust selects
// the spelling of \b that is ASCII in Rust too.
func printRegexp(b *strings.Builder, re *syntax.Regexp, rust bool) {
	switch re.Op {
	case syntax.OpNoMatch:
		if rust {
			b.WriteString(`(?:a(?-u:\b)b)`)
		} else {
			b.WriteString(`(?:a\bb)`)
		}
	case syntax.OpEmptyMatch:
		b.WriteString(`(?:)`)
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			switch {
			case r < utf8.RuneSelf && strings.ContainsRune(`\.+*?()|[]{}^$#&-~`, r):
				b.WriteByte('\\')
				b.WriteRune(r)
			case unicode.IsPrint(r):
				b.WriteRune(r)
			default:
				fmt.Fprintf(b, `\x{%X}`, r)
			}
		}
	case syntax.OpCharClass:
		b.WriteByte('[')
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i] == re.Rune[i+1] {
				fmt.Fprintf(b, `\x{%X}`, re.Rune[i])
			} else {
				fmt.Fprintf(b, `\x{%X}-\x{%X}`, re.Rune[i], re.Rune[i+1])
			}
		}
		b.WriteByte(']')
	case syntax.OpBeginLine:
		b.WriteString(`(?m:^)`)
	case syntax.OpEndLine:
		b.WriteString(`(?m:$)`)
	case syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		c := `\b`
		if re.Op == syntax.OpNoWordBoundary {
			c = `\B`
		}
		if rust {
			c = `(?-u:` + c + `)`
		}
		b.WriteString(c)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		sub := re.Sub[0]
		if sub.Op == syntax.OpCharClass || (sub.Op == syntax.OpLiteral && len(sub.Rune) == 1) {
			printRegexp(b, sub, rust)
		} else {
			b.WriteString("(?:")
			printRegexp(b, sub, rust)
			b.WriteString(")")
		}
		switch re.Op {
		case syntax.OpStar:
			b.WriteByte('*')
		case syntax.OpPlus:
			b.WriteByte('+')
		case syntax.OpQuest:
			b.WriteByte('?')
		default:
			switch {
			case re.Max == -1:
				fmt.Fprintf(b, "{%d,}", re.Min)
			case re.Min == re.Max:
				fmt.Fprintf(b, "{%d}", re.Min)
			default:
				fmt.Fprintf(b, "{%d,%d}", re.Min, re.Max)
			}
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			printRegexp(b, sub, rust)
		}
	case syntax.OpAlternate:
		b.WriteString("(?:")
		for i, sub := range re.Sub {
			if i > 0 {
				b.WriteByte('|')
			}
			printRegexp(b, sub, rust)
		}
		b.WriteString(")")
	}
}

// requiredLiteral returns the longest literal string that every match of re
// contains, or "".
func requiredLiteral(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpLiteral:
		return string(re.Rune)
	case syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		best := ""
		for _, sub := range re.Sub {
			if s := requiredLiteral(sub); len(s) > len(best) {
				best = s
			}
		}
		return best
	}
	return ""
}
