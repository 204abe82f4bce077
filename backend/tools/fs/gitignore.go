package fs

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file is a small gitignore matcher for the pure-Go Grep engine and for
// Glob. It follows what ripgrep (the ignore and globset crates) does rather
// than git itself, because Grep must give the same results with either
// engine: globs are globset globs (`*`, `?`, `[...]`, `{a,b}`, `**` as a whole
// path component, backslash escapes), a line without a slash matches at any
// depth, a leading or inner slash anchors it to the ignore file's folder, a
// trailing slash matches only folders, `!` re-includes, the last matching line
// of a file wins and the deepest file with a match wins.

// ignoreMatch is the verdict of an ignore matcher for one path.
type ignoreMatch uint8

const (
	matchNone ignoreMatch = iota
	matchIgnore
	matchWhitelist
)

func (m ignoreMatch) or(other ignoreMatch) ignoreMatch {
	if m != matchNone {
		return m
	}
	return other
}

// globKind selects a fast path for the common shapes of gitignore globs.
type globKind uint8

const (
	globRegexp   globKind = iota
	globExact             // the whole path equals lit
	globBasename          // the last component equals lit (`**/name`)
	globSuffix            // the last component ends with lit (`**/*.ext`)
	globAll               // `**`
)

// pathGlob is one compiled glob, matched against slash-separated paths.
type pathGlob struct {
	kind globKind
	lit  string
	re   *regexp.Regexp
}

func (g *pathGlob) match(p string) bool {
	switch g.kind {
	case globExact:
		return p == g.lit
	case globBasename:
		return p == g.lit || strings.HasSuffix(p, "/"+g.lit) || p == "/"+g.lit
	case globSuffix:
		return strings.HasSuffix(p[strings.LastIndexByte(p, '/')+1:], g.lit)
	case globAll:
		return true
	}
	return g.re.MatchString(p)
}

type globTokKind uint8

const (
	tokLiteral globTokKind = iota
	tokAny
	tokZeroOrMore
	tokRecursivePrefix
	tokRecursiveSuffix
	tokRecursiveZeroOrMore
	tokClass
	tokAlternates
)

type globToken struct {
	kind    globTokKind
	r       rune
	negated bool
	ranges  [][2]rune
	alts    [][]globToken
}

// globParser ports globset's parser, with literal_separator and
// backslash_escape on, as the ignore crate configures it.
type globParser struct {
	chars     []rune
	i         int
	prev, cur rune // -1 for none
	stack     [][]globToken
}

const noRune = -1

func (p *globParser) bump() rune {
	p.prev = p.cur
	if p.i < len(p.chars) {
		p.cur = p.chars[p.i]
		p.i++
	} else {
		p.cur = noRune
	}
	return p.cur
}

func (p *globParser) peek() rune {
	if p.i < len(p.chars) {
		return p.chars[p.i]
	}
	return noRune
}

func (p *globParser) push(t globToken) {
	p.stack[len(p.stack)-1] = append(p.stack[len(p.stack)-1], t)
}

func (p *globParser) pop() globToken {
	top := p.stack[len(p.stack)-1]
	t := top[len(top)-1]
	p.stack[len(p.stack)-1] = top[:len(top)-1]
	return t
}

// compileGlob compiles a glob the way globset does for gitignore lines.
func compileGlob(glob string) (*pathGlob, error) {
	if !utf8.ValidString(glob) {
		return nil, errors.New("glob is not valid UTF-8")
	}
	p := &globParser{chars: []rune(glob), prev: noRune, cur: noRune, stack: [][]globToken{nil}}
	for c := p.bump(); c != noRune; c = p.bump() {
		var err error
		switch c {
		case '?':
			p.push(globToken{kind: tokAny})
		case '*':
			p.parseStar()
		case '[':
			err = p.parseClass()
		case '{':
			if len(p.stack) > 1 {
				err = errors.New("nested alternate groups are not allowed")
			} else {
				p.stack = append(p.stack, nil)
			}
		case '}':
			var alts [][]globToken
			for len(p.stack) >= 2 {
				alts = append(alts, p.stack[len(p.stack)-1])
				p.stack = p.stack[:len(p.stack)-1]
			}
			p.push(globToken{kind: tokAlternates, alts: alts})
		case ',':
			if len(p.stack) <= 1 {
				p.push(globToken{kind: tokLiteral, r: ','})
			} else {
				p.stack = append(p.stack, nil)
			}
		case '\\':
			n := p.bump()
			if n == noRune {
				err = errors.New("dangling '\\'")
			} else {
				p.push(globToken{kind: tokLiteral, r: n})
			}
		default:
			p.push(globToken{kind: tokLiteral, r: c})
		}
		if err != nil {
			return nil, err
		}
	}
	if len(p.stack) > 1 {
		return nil, errors.New("unclosed alternate group; missing '}'")
	}
	return buildGlob(p.stack[0])
}

func (p *globParser) parseStar() {
	prev := p.prev
	if p.peek() != '*' {
		p.push(globToken{kind: tokZeroOrMore})
		return
	}
	p.bump()
	twoStars := func() {
		p.push(globToken{kind: tokZeroOrMore})
		p.push(globToken{kind: tokZeroOrMore})
	}
	if len(p.stack[len(p.stack)-1]) == 0 {
		if n := p.peek(); n != noRune && n != '/' {
			twoStars()
		} else {
			p.push(globToken{kind: tokRecursivePrefix})
			p.bump()
		}
		return
	}
	if prev != '/' && (len(p.stack) <= 1 || (prev != ',' && prev != '{')) {
		twoStars()
		return
	}
	var suffix bool
	switch n := p.peek(); {
	case n == noRune:
		p.bump()
		suffix = true
	case (n == ',' || n == '}') && len(p.stack) >= 2:
		suffix = true
	case n == '/':
		p.bump()
	default:
		twoStars()
		return
	}
	switch last := p.pop(); last.kind {
	case tokRecursivePrefix, tokRecursiveSuffix:
		p.push(last)
	default:
		if suffix {
			p.push(globToken{kind: tokRecursiveSuffix})
		} else {
			p.push(globToken{kind: tokRecursiveZeroOrMore})
		}
	}
}

func (p *globParser) parseClass() error {
	var ranges [][2]rune
	negated := false
	if n := p.peek(); n == '!' || n == '^' {
		p.bump()
		negated = true
	}
	first, inRange := true, false
	extend := func(c rune) error {
		r := &ranges[len(ranges)-1]
		r[1] = c
		if r[1] < r[0] {
			return fmt.Errorf("invalid range %c-%c", r[0], r[1])
		}
		return nil
	}
	for {
		c := p.bump()
		if c == noRune {
			return errors.New("unclosed character class; missing ']'")
		}
		switch {
		case c == ']' && !first:
			if inRange {
				ranges = append(ranges, [2]rune{'-', '-'})
			}
			p.push(globToken{kind: tokClass, negated: negated, ranges: ranges})
			return nil
		case c == '-' && !first && !inRange:
			inRange = true
		case inRange:
			if err := extend(c); err != nil {
				return err
			}
			inRange = false
		default:
			ranges = append(ranges, [2]rune{c, c})
		}
		first = false
	}
}

// buildGlob picks a fast path or translates the tokens to a regexp the way
// globset's to_regex does.
func buildGlob(toks []globToken) (*pathGlob, error) {
	lits := func(ts []globToken) (string, bool) {
		var b strings.Builder
		for _, t := range ts {
			if t.kind != tokLiteral {
				return "", false
			}
			b.WriteRune(t.r)
		}
		return b.String(), true
	}
	if len(toks) == 1 && toks[0].kind == tokRecursivePrefix {
		return &pathGlob{kind: globAll}, nil
	}
	if s, ok := lits(toks); ok {
		return &pathGlob{kind: globExact, lit: s}, nil
	}
	if toks[0].kind == tokRecursivePrefix {
		if s, ok := lits(toks[1:]); ok && !strings.Contains(s, "/") {
			return &pathGlob{kind: globBasename, lit: s}, nil
		}
		if len(toks) > 1 && toks[1].kind == tokZeroOrMore {
			if s, ok := lits(toks[2:]); ok && !strings.Contains(s, "/") {
				return &pathGlob{kind: globSuffix, lit: s}, nil
			}
		}
	}
	var b strings.Builder
	b.WriteString("^")
	writeGlobRegexp(&b, toks)
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, err
	}
	return &pathGlob{kind: globRegexp, re: re}, nil
}

func writeGlobRegexp(b *strings.Builder, toks []globToken) {
	for _, t := range toks {
		switch t.kind {
		case tokLiteral:
			b.WriteString(regexp.QuoteMeta(string(t.r)))
		case tokAny:
			b.WriteString("[^/]")
		case tokZeroOrMore:
			b.WriteString("[^/]*")
		case tokRecursivePrefix:
			b.WriteString("(?:/?|.*/)")
		case tokRecursiveSuffix:
			b.WriteString("/.*")
		case tokRecursiveZeroOrMore:
			b.WriteString("(?:/|/.*/)")
		case tokClass:
			b.WriteByte('[')
			if t.negated {
				b.WriteByte('^')
			}
			for _, r := range t.ranges {
				fmt.Fprintf(b, `\x{%x}-\x{%x}`, r[0], r[1])
			}
			b.WriteByte(']')
		case tokAlternates:
			var parts []string
			for _, alt := range t.alts {
				var ab strings.Builder
				writeGlobRegexp(&ab, alt)
				if ab.Len() > 0 {
					parts = append(parts, ab.String())
				}
			}
			if len(parts) > 0 {
				b.WriteString("(?:" + strings.Join(parts, "|") + ")")
			}
		}
	}
}

// ignoreRule is one line of an ignore file.
type ignoreRule struct {
	glob      *pathGlob
	actual    string // the glob after the gitignore rewrites, as globset sees it
	whitelist bool
	dirOnly   bool
}

// ignoreList holds the rules of one ignore file (or of an include filter).
// Its rules match paths relative to base, a slash-separated folder relative
// to the walk's reference root ("" for the root itself).
type ignoreList struct {
	base       string
	rules      []ignoreRule
	whitelists int // rules without `!`; used by include filters
}

// parseIgnoreLine turns one gitignore line into a rule; ok is false for
// blank lines, comments and lines whose glob does not compile (which ripgrep
// also drops).
func parseIgnoreLine(line string) (ignoreRule, bool) {
	if strings.HasPrefix(line, "#") {
		return ignoreRule{}, false
	}
	if !strings.HasSuffix(line, `\ `) {
		line = strings.TrimRightFunc(line, unicode.IsSpace)
	}
	if line == "" {
		return ignoreRule{}, false
	}
	var r ignoreRule
	absolute := false
	if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
		line = line[1:]
		absolute = strings.HasPrefix(line, "/")
	} else {
		if strings.HasPrefix(line, "!") {
			r.whitelist = true
			line = line[1:]
		}
		if strings.HasPrefix(line, "/") {
			line = line[1:]
			absolute = true
		}
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly = true
		line = line[:len(line)-1]
	}
	r.actual = line
	if !absolute && !strings.Contains(line, "/") && !strings.HasPrefix(line, "**/") && line != "**" {
		r.actual = "**/" + line
	}
	if strings.HasSuffix(r.actual, "/**") {
		r.actual += "/*"
	}
	g, err := compileGlob(r.actual)
	if err != nil {
		return ignoreRule{}, false
	}
	r.glob = g
	return r, true
}

// parseIgnoreFile parses an ignore file's content. Like ripgrep it reads
// lines until the first one that is not valid UTF-8.
func parseIgnoreFile(base string, content []byte) *ignoreList {
	l := &ignoreList{base: base}
	for len(content) > 0 {
		line := content
		if i := bytes.IndexByte(content, '\n'); i >= 0 {
			line, content = content[:i], content[i+1:]
		} else {
			content = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if !utf8.Valid(line) {
			break
		}
		l.add(string(line))
	}
	return l
}

func (l *ignoreList) add(line string) {
	if r, ok := parseIgnoreLine(line); ok {
		l.rules = append(l.rules, r)
		if !r.whitelist {
			l.whitelists++
		}
	}
}

// match matches rel (relative to the reference root) against the list: the
// last matching rule decides.
func (l *ignoreList) match(rel string, isDir bool) ignoreMatch {
	if l == nil || len(l.rules) == 0 {
		return matchNone
	}
	if l.base != "" {
		if !strings.HasPrefix(rel, l.base+"/") {
			return matchNone
		}
		rel = rel[len(l.base)+1:]
	}
	for i := len(l.rules) - 1; i >= 0; i-- {
		r := &l.rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		if r.glob.match(rel) {
			if r.whitelist {
				return matchWhitelist
			}
			return matchIgnore
		}
	}
	return matchNone
}
