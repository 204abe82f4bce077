package tools

import (
	"os/user"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// shWord is one shell word after quote removal.
type shWord struct {
	// val is the word's value; dynamic parts ($VAR, $(…)) are left out.
	val string
	// static reports whether val is the whole value, known before running.
	static bool
	// raw is the word as written, for messages.
	raw  string
	word *syntax.Word
}

// resolveArgs resolves the words of a command, expanding brace lists.
func (g *shellGuard) resolveArgs(words []*syntax.Word) []shWord {
	out := make([]shWord, 0, len(words))
	for i, w := range words {
		r := g.resolveWord(w)
		if i > 0 && r.static && strings.Contains(r.val, "{") {
			for _, v := range braceExpand(r.val, 64) {
				out = append(out, shWord{val: v, static: true, raw: r.raw, word: w})
			}
			continue
		}
		out = append(out, r)
	}
	return out
}

// resolveWord removes quotes and escapes and substitutes what is known: ~,
// $HOME, $PWD and variables the script assigned literally.
func (g *shellGuard) resolveWord(w *syntax.Word) shWord {
	var b strings.Builder
	static := true
	for i, p := range w.Parts {
		if !g.resolvePart(&b, p, false, i == 0) {
			static = false
		}
	}
	raw := ""
	var pr strings.Builder
	if syntax.NewPrinter().Print(&pr, w) == nil {
		raw = pr.String()
	}
	return shWord{val: b.String(), static: static, raw: raw, word: w}
}

// resolveQuoted resolves a heredoc body, whose escapes follow the rules of
// double quotes.
func (g *shellGuard) resolveQuoted(w *syntax.Word) string {
	var b strings.Builder
	for _, p := range w.Parts {
		g.resolvePart(&b, p, true, false)
	}
	return b.String()
}

// resolvePart appends the value of one word part and reports whether it was
// known statically.
func (g *shellGuard) resolvePart(b *strings.Builder, p syntax.WordPart, quoted, first bool) bool {
	switch p := p.(type) {
	case *syntax.Lit:
		v := p.Value
		if quoted {
			b.WriteString(unescapeDouble(v))
			return true
		}
		if first && strings.HasPrefix(v, "~") {
			v = g.expandTilde(v)
		}
		b.WriteString(unescapeBare(v))
		return true
	case *syntax.SglQuoted:
		if p.Dollar {
			b.WriteString(decodeANSIC(p.Value))
		} else {
			b.WriteString(p.Value)
		}
		return true
	case *syntax.DblQuoted:
		ok := true
		for _, q := range p.Parts {
			if !g.resolvePart(b, q, true, false) {
				ok = false
			}
		}
		return ok
	case *syntax.ParamExp:
		if v, ok := g.paramValue(p); ok {
			b.WriteString(v)
			return true
		}
		return false
	case *syntax.ExtGlob:
		b.WriteString(p.Op.String() + p.Pattern.Value + ")")
		return true
	}
	return false // command, arithmetic and process substitutions
}

// paramValue resolves $NAME / ${NAME} when the guard knows its value.
func (g *shellGuard) paramValue(p *syntax.ParamExp) (string, bool) {
	if p.Param == nil || p.Excl || p.Length || p.Index != nil || p.Slice != nil || p.Repl != nil || p.Exp != nil || p.Names != 0 {
		return "", false
	}
	name := p.Param.Value
	if v, ok := g.vars[name]; ok {
		return v, true
	}
	switch name {
	case "HOME":
		return g.home, g.home != ""
	case "PWD":
		return g.cwd, g.cwd != ""
	}
	return "", false
}

// expandTilde expands a leading ~ or ~user.
func (g *shellGuard) expandTilde(v string) string {
	name, rest, _ := strings.Cut(v[1:], "/")
	if strings.ContainsAny(name, `\'"$`) {
		return v
	}
	home := g.home
	if name != "" {
		u, err := user.Lookup(name)
		if err != nil {
			return v
		}
		home = u.HomeDir
	}
	if home == "" {
		return v
	}
	if rest == "" && !strings.Contains(v, "/") {
		return home
	}
	return home + "/" + rest
}

// unescapeBare removes backslash escapes from an unquoted literal.
func unescapeBare(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeDouble removes the escapes bash honours inside double quotes.
func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// decodeANSIC decodes the escapes of a $'…' string.
func decodeANSIC(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			}
		case 'x', 'u', 'U':
			limit := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			j := i + 1
			for j < len(s) && j-i-1 < limit && strings.IndexByte("0123456789abcdefABCDEF", s[j]) >= 0 {
				j++
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			n, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			if e == 'x' {
				b.WriteByte(byte(n))
			} else {
				b.WriteRune(rune(n))
			}
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j-i < 3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint(s[i:j], 8, 16)
			b.WriteByte(byte(n))
			i = j - 1
		default:
			b.WriteByte(e) // \\ \' \" \? and unknown escapes
		}
	}
	if !utf8.ValidString(b.String()) {
		return strings.ToValidUTF8(b.String(), "\uFFFD")
	}
	return b.String()
}

// braceExpand expands bash brace lists ({a,b}) in s, giving at most limit
// results; sequences ({1..9}) are left as written.
func braceExpand(s string, limit int) []string {
	open := -1
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			if depth == 0 {
				open = i
			}
			depth++
		case '}':
			if depth == 0 {
				continue
			}
			depth--
			if depth != 0 {
				continue
			}
			alts := splitTopLevel(s[open+1 : i])
			if len(alts) < 2 {
				open = -1
				continue
			}
			var out []string
			for _, a := range alts {
				if len(out) >= limit {
					return out
				}
				for _, tail := range braceExpand(s[:open]+a+s[i+1:], limit) {
					if len(out) >= limit {
						return out
					}
					out = append(out, tail)
				}
			}
			return out
		}
	}
	return []string{s}
}

// splitTopLevel splits s at commas outside nested braces.
func splitTopLevel(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// commandBase returns the name a command is known by: the last path element,
// without a Windows .exe suffix, lower-cased (case-insensitive file systems
// run RM as rm).
func commandBase(name string) string {
	base := name
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	base = strings.ToLower(base)
	return strings.TrimSuffix(base, ".exe")
}

// joinWords joins resolved words into a command line.
func joinWords(ws []shWord) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		if w.static {
			parts[i] = w.val
		} else {
			parts[i] = w.raw
		}
	}
	return strings.Join(parts, " ")
}

// display shows resolved words for a message, quoting what needs it.
func display(ws []shWord) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		switch {
		case !w.static:
			parts[i] = w.raw
		case w.val == "" || strings.ContainsAny(w.val, " \t\n'\"$`\\"):
			parts[i] = strconv.Quote(w.val)
		default:
			parts[i] = w.val
		}
	}
	return clip(strings.Join(parts, " "), 120)
}

// snippet returns the source text of a node, shortened for messages.
func snippet(src string, n syntax.Node) string {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(src) || start >= end {
		return ""
	}
	return clip(src[start:end], 100)
}

// clip shortens s for a message.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	return CutUTF8(s, n) + "…"
}

// hasFlag reports whether args carry one of the short flag letters (alone or
// combined, as in -rf) or the long flag, before a "--".
func hasFlag(args []shWord, short, long string) bool {
	for _, a := range args {
		v := a.val
		if v == "--" {
			return false
		}
		if v == long {
			return true
		}
		if len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.ContainsAny(v[1:], short) {
			return true
		}
	}
	return false
}

// operands returns the arguments that are not options (everything after
// "--", and words not starting with "-" before it).
func operands(args []shWord) []shWord {
	var out []shWord
	for i, a := range args {
		if a.val == "--" && a.static {
			return append(out, args[i+1:]...)
		}
		if a.static && len(a.val) > 1 && a.val[0] == '-' {
			continue
		}
		out = append(out, a)
	}
	return out
}

func allStatic(ws []shWord) bool {
	return !slices.ContainsFunc(ws, func(w shWord) bool { return !w.static })
}
