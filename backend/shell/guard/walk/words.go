package walk

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"tinyelf/backend/tools"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Arg is one field of a command after bash's expansions.
type Arg struct {
	// Val is the field's value; unknown parts are markers (see Unknown).
	Val string
	// Raw is the word it came from, as written, for messages; word, when
	// set, is that word, printed only when a message needs it.
	Raw  string
	word *syntax.Word
	// Lost, when >0, is the source of an unknown value an expansion
	// (${x:1}, ${#x}) consumed, so that Val shows no marker but is unknown.
	Lost int
	// glob is the pattern when the word was a glob; unmatched reports that
	// it matched nothing here (bash then passes the pattern itself).
	glob      string
	unmatched bool
}

// RawText is the word a field came from, as written.
func (a Arg) RawText() string {
	if a.Raw == "" && a.word != nil {
		return WordText(a.word)
	}
	return a.Raw
}

// Dynamic reports whether the field's value is not known before running.
func (a Arg) Dynamic() bool { return a.Lost > 0 || HasMarker(a.Val) }

// Known returns a field whose value is known.
func Known(v string) Arg { return Arg{Val: v, Raw: v} }

// ArgSource says where an unknown field comes from.
func (g *Walker) ArgSource(a Arg) Source {
	if s, ok := g.SourceOf(a.Val); ok {
		return s
	}
	return g.sourceAt(a.Lost)
}

// errDirBudget stops globbing that would list too many folders.
var errDirBudget = errors.New("the pattern would list too many folders")

// maxDirsRead bounds the folders one check lists for globs.
const maxDirsRead = 256

func (g *Walker) readDir(dir string) ([]fs.DirEntry, error) {
	g.mu.Lock()
	g.dirsRead++
	n := g.dirsRead
	g.mu.Unlock()
	if n > maxDirsRead {
		return nil, errDirBudget
	}
	return os.ReadDir(dir)
}

// config returns the expansion settings for words in st.
func (g *Walker) config(st *State) *expand.Config {
	if cfg, ok := g.configs[st]; ok {
		cfg.GlobStar, cfg.DotGlob, cfg.NullGlob, cfg.NoCaseGlob = st.glob.globstar, st.glob.dotglob, st.glob.nullglob, st.glob.nocaseglob
		cfg.ReadDir2 = nil
		if !st.glob.noglob && st.Cwd != "" {
			cfg.ReadDir2 = g.readDir
		}
		return cfg
	}
	cfg := &expand.Config{
		Env: guardEnv{g, st},
		CmdSubst: func(w io.Writer, cs *syntax.CmdSubst) error {
			_, err := io.WriteString(w, g.substOutput(st, cs))
			return err
		},
		ProcSubst: func(ps *syntax.ProcSubst) (string, error) {
			return g.procPath(st, ps), nil
		},
		GlobStar:   st.glob.globstar,
		DotGlob:    st.glob.dotglob,
		NullGlob:   st.glob.nullglob,
		NoCaseGlob: st.glob.nocaseglob,
		ExtGlob:    true,
	}
	if !st.glob.noglob && st.Cwd != "" {
		cfg.ReadDir2 = g.readDir
	}
	g.configs[st] = cfg
	return cfg
}

// WordText is a word as written.
func WordText(w *syntax.Word) string {
	if w == nil {
		return ""
	}
	if lit := w.Lit(); lit != "" {
		return lit
	}
	var b strings.Builder
	if syntax.NewPrinter().Print(&b, w) != nil {
		return ""
	}
	return b.String()
}

// wordText is a word as written, printed with the check's printer.
func (g *Walker) wordText(w *syntax.Word) string {
	if w == nil {
		return ""
	}
	if lit := w.Lit(); lit != "" {
		return lit
	}
	return g.print(w)
}

// fields expands command words as bash does: brace, tilde, parameter,
// arithmetic and command substitution, field splitting on IFS, pathname
// expansion and quote removal.
func (g *Walker) fields(st *State, words []*syntax.Word) []Arg {
	out := make([]Arg, 0, len(words))
	for _, w := range words {
		out = append(out, g.wordFields(st, w)...)
	}
	return out
}

func (g *Walker) wordFields(st *State, w *syntax.Word) []Arg {
	raw := w.Lit() // the printed word only when needed (see rawText)
	if n := braceCount(w); n > maxBraceFields {
		raw = g.wordText(w)
		desc := fmt.Sprintf("the brace expansion `%s`, which makes %d words or more", Clip(g.wordText(w), 60), maxBraceFields)
		return []Arg{{Val: g.Unknown(Source{Desc: desc}), Raw: raw, word: w}}
	}
	cfg := g.config(st)
	vals, err := expand.Fields(cfg, w)
	if err != nil {
		desc := fmt.Sprintf("`%s`, which the guard could not expand (%v)", Clip(g.wordText(w), 60), err)
		if errors.Is(err, errDirBudget) {
			desc = fmt.Sprintf("the glob `%s`, which matches too many files to check", Clip(g.wordText(w), 60))
		}
		return []Arg{{Val: g.Unknown(Source{Desc: desc}), Raw: raw, word: w}}
	}
	lost := g.lostTaint(st, w)
	pattern, isGlob := "", false
	if !st.glob.noglob && HasGlobMeta(w) {
		plain := *cfg
		plain.ReadDir2 = nil
		plain.NullGlob = false
		if pats, err := expand.Fields(&plain, w); err == nil && len(pats) > 0 {
			pattern, isGlob = pats[0], true
			if st.Cwd == "" && !strings.HasPrefix(pattern, "/") {
				desc := fmt.Sprintf("the glob `%s` in a folder the guard cannot follow (%s)", Clip(g.wordText(w), 60), st.cwdWhy)
				return []Arg{{Val: g.Unknown(Source{Desc: desc}), Raw: raw, word: w, glob: pattern}}
			}
			if slices.Equal(vals, pats) {
				out := make([]Arg, len(vals))
				for i, v := range vals {
					out[i] = Arg{Val: v, Raw: raw, word: w, Lost: lost, glob: v, unmatched: true}
				}
				return out
			}
		}
	}
	out := make([]Arg, len(vals))
	for i, v := range vals {
		out[i] = Arg{Val: v, Raw: raw, word: w, Lost: lost}
		if isGlob {
			out[i].glob = pattern
		}
	}
	return out
}

// maxBraceFields bounds the words one brace expansion may make before the
// guard stops expanding it (a{1,2}{1,2}… doubles with every list).
const maxBraceFields = 4096

// braceCount estimates how many words brace expansion makes of w.
func braceCount(w *syntax.Word) int {
	lit := false
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.ContainsRune(l.Value, '{') {
			lit = true
		}
	}
	if !lit {
		return 1
	}
	cp := *w
	if !syntax.SplitBraces(&cp) {
		return 1
	}
	return braceParts(cp.Parts)
}

func braceParts(parts []syntax.WordPart) int {
	n := 1
	for _, p := range parts {
		b, ok := p.(*syntax.BraceExp)
		if !ok {
			continue
		}
		k := 0
		if b.Sequence && len(b.Elems) >= 2 {
			from, err1 := strconv.Atoi(b.Elems[0].Lit())
			to, err2 := strconv.Atoi(b.Elems[1].Lit())
			switch {
			case err1 == nil && err2 == nil:
				k = max(from-to, to-from) + 1
			default:
				k = 64 // letters: at most a few dozen
			}
		} else {
			for _, e := range b.Elems {
				k += braceParts(e.Parts)
			}
		}
		if k <= 0 {
			k = 1
		}
		n *= k
		if n > maxBraceFields || n < 0 {
			return maxBraceFields + 1
		}
	}
	return n
}

// literal expands a word as an assignment value: no field splitting and no
// pathname expansion.
func (g *Walker) literal(st *State, w *syntax.Word) Arg {
	if w == nil {
		return Known("")
	}
	v, err := expand.Literal(g.config(st), unescapeWord(w))
	raw := g.wordText(w)
	if err != nil {
		return Arg{Val: g.Unknown(Source{Desc: fmt.Sprintf("`%s`, which the guard could not expand (%v)", Clip(raw, 60), err)}), Raw: raw}
	}
	return Arg{Val: v, Raw: raw, Lost: g.lostTaint(st, w)}
}

// unescapeWord returns w with the backslashes of its unquoted text removed,
// as bash's quote removal does for assignment values (expand.Literal keeps
// them). The unescaped text is made single-quoted so that an escaped ~ or
// $ stays literal.
func unescapeWord(w *syntax.Word) *syntax.Word {
	changed := false
	for _, p := range w.Parts {
		if lit, ok := p.(*syntax.Lit); ok && strings.Contains(lit.Value, `\`) {
			changed = true
		}
	}
	if !changed {
		return w
	}
	out := &syntax.Word{Parts: make([]syntax.WordPart, 0, len(w.Parts)*2)}
	for _, p := range w.Parts {
		lit, ok := p.(*syntax.Lit)
		if !ok || !strings.Contains(lit.Value, `\`) {
			out.Parts = append(out.Parts, p)
			continue
		}
		v := lit.Value
		if j := strings.IndexByte(v, '\\'); j > 0 {
			// Text before the first backslash keeps its meaning (a
			// leading ~ is still a tilde).
			out.Parts = append(out.Parts, &syntax.Lit{ValuePos: lit.ValuePos, ValueEnd: lit.ValueEnd, Value: v[:j]})
			v = v[j:]
		}
		var b strings.Builder
		for k := 0; k < len(v); k++ {
			if v[k] == '\\' && k+1 < len(v) {
				k++
			}
			b.WriteByte(v[k])
		}
		out.Parts = append(out.Parts, &syntax.SglQuoted{Left: lit.ValuePos, Right: lit.ValueEnd, Value: b.String()})
	}
	return out
}

// document expands a here-document body.
func (g *Walker) document(st *State, w *syntax.Word) string {
	if w == nil {
		return ""
	}
	v, err := expand.Document(g.config(st), w)
	if err != nil {
		return g.Unknown(Source{Desc: "a here-document the guard could not expand"})
	}
	if l := g.lostTaint(st, w); l > 0 {
		v += string(rune(markerBase + l))
	}
	return v
}

// lostTaint finds an unknown value that an expansion of w consumes without
// leaving a marker (a slice, a length, an indirection, arithmetic) and
// returns its source, or 0.
func (g *Walker) lostTaint(st *State, w *syntax.Word) int {
	if w == nil {
		return 0
	}
	return g.lostInParts(st, w.Parts)
}

func (g *Walker) lostInParts(st *State, parts []syntax.WordPart) int {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.DblQuoted:
			if n := g.lostInParts(st, p.Parts); n != 0 {
				return n
			}
		case *syntax.ParamExp:
			if p.Param == nil || p.Short || !(p.Excl || p.Length || p.Width || p.Slice != nil || p.Repl != nil || p.Exp != nil || p.Index != nil || p.Names != 0) {
				continue
			}
			if n := g.taintOf(st, p.Param.Value); n != 0 {
				return n
			}
			if p.Excl {
				if v := (guardEnv{g, st}).Get(p.Param.Value); v.Kind == expand.String && syntax.ValidName(v.Str) {
					if n := g.taintOf(st, v.Str); n != 0 {
						return n
					}
				}
			}
		case *syntax.ArithmExp:
			found := 0
			syntax.Walk(p, func(m syntax.Node) bool {
				if lit, ok := m.(*syntax.Lit); ok && found == 0 && syntax.ValidName(lit.Value) {
					found = g.taintOf(st, lit.Value)
				}
				return found == 0
			})
			if found != 0 {
				return found
			}
		}
	}
	return 0
}

// taintOf returns the source of an unknown value in a variable, or 0.
func (g *Walker) taintOf(st *State, name string) int {
	env := guardEnv{g, st}
	vr := env.Get(name)
	if _, r := vr.Resolve(env); r.Set || r.Kind != expand.Unknown {
		vr = r
	}
	check := func(s string) int {
		i := strings.IndexFunc(s, IsMarker)
		if i < 0 {
			return 0
		}
		r, _ := utf8.DecodeRuneInString(s[i:])
		if n := int(r - markerBase); n != 0 {
			return n
		}
		m := g.Unknown(g.sourceAt(0)) // the generic marker: any other index will do
		r, _ = utf8.DecodeRuneInString(m)
		return int(r - markerBase)
	}
	if n := check(vr.Str); n != 0 {
		return n
	}
	for _, s := range vr.List {
		if n := check(s); n != 0 {
			return n
		}
	}
	for _, s := range vr.Map {
		if n := check(s); n != 0 {
			return n
		}
	}
	return 0
}

// HasGlobMeta reports whether a word has an unquoted glob character.
func HasGlobMeta(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			v := p.Value
			for i := 0; i < len(v); i++ {
				switch v[i] {
				case '\\':
					i++
				case '*', '?', '[':
					return true
				}
			}
		case *syntax.ExtGlob:
			return true
		case *syntax.BraceExp:
			for _, e := range p.Elems {
				if HasGlobMeta(e) {
					return true
				}
			}
		}
	}
	return false
}

// CommandBase returns the name a command is known by: the last path element,
// without a Windows .exe suffix, lower-cased (case-insensitive file systems
// run RM as rm).
func CommandBase(name string) string {
	base := name
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	base = strings.ToLower(base)
	return strings.TrimSuffix(base, ".exe")
}

// JoinArgs joins fields into a command line for a shell to parse again.
func JoinArgs(args []Arg) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = a.Val
	}
	return strings.Join(parts, " ")
}

// QuoteArgs joins fields into a command line that parses back to the same
// fields.
func QuoteArgs(args []Arg) string {
	parts := make([]string, len(args))
	for i, a := range args {
		q, err := syntax.Quote(a.Val, syntax.LangBash)
		if err != nil {
			q = "'" + strings.ReplaceAll(a.Val, "'", `'\''`) + "'"
		}
		parts[i] = q
	}
	return strings.Join(parts, " ")
}

// Display shows fields for a message, quoting what needs it.
func Display(ws []Arg) string {
	parts := make([]string, 0, min(len(ws), 32))
	n := 0
	for _, w := range ws {
		if n > 200 {
			parts = append(parts, "…")
			break
		}
		var part string
		v := Shown(w.Val)
		switch {
		case w.Dynamic() && w.RawText() != "":
			part = w.RawText()
		case v == "" || strings.ContainsAny(v, " \t\n'\"$`\\"):
			part = strconv.Quote(v)
		default:
			part = v
		}
		parts = append(parts, part)
		n += len(part) + 1
	}
	return Clip(strings.Join(parts, " "), 120)
}

// Clip shortens s for a message.
func Clip(s string, n int) string {
	s = strings.Join(strings.Fields(Shown(s)), " ")
	if len(s) <= n {
		return s
	}
	return tools.CutUTF8(s, n) + "…"
}

// HasFlag reports whether args carry one of the short flag letters (alone or
// combined, as in -rf) or the long flag, before a "--".
func HasFlag(args []Arg, short, long string) bool {
	for _, a := range args {
		v := a.Val
		if v == "--" {
			return false
		}
		if long != "" && (v == long || strings.HasPrefix(v, long+"=")) {
			return true
		}
		if name, _, _ := strings.Cut(v, "="); long != "" && len(name) > 3 && strings.HasPrefix(name, "--") && strings.HasPrefix(long, name) {
			return true // GNU tools accept unambiguous abbreviations: --rec
		}
		if short != "" && len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.ContainsAny(v[1:], short) {
			return true
		}
	}
	return false
}

// Operands returns the arguments that are not options (everything after
// "--", and words not starting with "-" before it).
func Operands(args []Arg) []Arg {
	var out []Arg
	for i, a := range args {
		if a.Val == "--" {
			return append(out, args[i+1:]...)
		}
		if !a.Dynamic() && len(a.Val) > 1 && a.Val[0] == '-' {
			continue
		}
		out = append(out, a)
	}
	return out
}
