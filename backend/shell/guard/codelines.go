package guard

import (
	"regexp"
	"strings"
	"tinyelf/backend/shell/guard/walk"
)

// This file checks the line-oriented command languages of the interpreter
// table: sqlite3's dot commands, psql and mysql meta commands, gdb's
// commands, ex commands, ed, dc, gnuplot, MATLAB's shell escape, IPython's
// escapes and m4's syscmd.

// lineRule is a command of a line-oriented language (the dot commands of
// sqlite3, gdb's commands, ex commands, ed, dc, psql and mysql meta
// commands, IPython's escapes) that runs something. Group 1, when the
// pattern has one, is what it runs; otherwise the rest of the line.
type lineRule struct {
	re *regexp.Regexp
	// kind is what runs: "shell" code, "run" a program's arguments through
	// a shell (gdb run), "file" a script in the same language, "native"
	// code loaded from a library (held), "eval" code built at run time
	// (held), or "lang:X" code in language X.
	kind string
}

// vimLead strips what may come before an ex command: colons, a range,
// silent and similar modifiers.
var vimLead = regexp.MustCompile(`^[\s:]*(?:(?:[%.$]|\d+|'[a-z<>]|[+-]\d*)(?:[,;](?:[%.$]|\d+|'[a-z<>]|[+-]\d*))*)?\s*(?:(?:sil(?:ent)?!?|keepa(?:lt)?|noa(?:utocmd)?|sandbox|verb(?:ose)?|uns(?:ilent)?|conf(?:irm)?|lefta(?:bove)?|bel(?:owright)?|vert(?:ical)?|tab|hid(?:e)?)\s+)*`)

var lineRules = map[string][]lineRule{
	"sqlite": {
		{regexp.MustCompile(`^\.(?:shell|system)\s+(.*)$`), "shell"},
		{regexp.MustCompile(`^\.(?:once|output|import|read|excel|log)\s+(?:-\S+\s+)*['"]?\|\s*([^'"]*)`), "shell"},
		{regexp.MustCompile(`^\.read\s+['"]?([^\s'"|][^'"]*?)['"]?\s*$`), "file"},
		{regexp.MustCompile(`^\.load\b`), "native"},
		{regexp.MustCompile(`(?i)\bload_extension\s*\(`), "native"},
	},
	"psql": {
		{regexp.MustCompile(`^\\!\s*(.*)$`), "shell"},
		{regexp.MustCompile(`^\\(?:o|out|g|gx|w|write|gset)\s+\|\s*(.*)$`), "shell"},
		{regexp.MustCompile(`(?i)\b(?:from|to)\s+program\s+'((?:[^']|'')*)'`), "shell"},
		{regexp.MustCompile(`^\\(?:i|include|ir|include_relative)\s+(\S+)`), "file"},
	},
	"mysql": {
		{regexp.MustCompile(`^(?:system|\\!)\s+(.*)$`), "shell"},
		{regexp.MustCompile(`^(?:pager|\\P)\s+(.*)$`), "shell"},
		{regexp.MustCompile(`^(?:source|\\\.)\s+(\S+)`), "file"},
	},
	"gdb": {
		{regexp.MustCompile(`^(?:shell\s+|!)\s*(.*)$`), "shell"},
		{regexp.MustCompile(`^(?:pipe\s+|\|)[^|]*\|\s*(.*)$`), "shell"},
		{regexp.MustCompile(`^(?:python|py|python-interactive|pi)(?:\s+(.*))?$`), "lang:python"},
		{regexp.MustCompile(`^(?:guile|gu)(?:\s+(.*))?$`), "lang:scheme"},
		{regexp.MustCompile(`^(?:run|r|start|starti)\s+(.+)$`), "run"},
		{regexp.MustCompile(`^source\s+(?:-\w+\s+)*(\S+)`), "file"},
		{regexp.MustCompile(`^eval\s`), "eval"},
	},
	"ed": {
		{regexp.MustCompile(`^[\d,.$;'a-z+\-]*\s*[rweEW]?\s*!(.*)$`), "shell"},
	},
	"dc": {
		{regexp.MustCompile(`!([^<>=].*)$`), "shell"},
	},
	"vim": {
		{regexp.MustCompile(`^(?:r|re|rea|read|w|wr|wri|writ|write)?\s*!(.*)$`), "shell"},
		{regexp.MustCompile(`^ter(?:m|mi|min|mina|minal)?!?\s+(?:\+\+\w+(?:=\S+)?\s+)*(.+)$`), "shell"},
		{regexp.MustCompile(`^(?:py|py3|python|python3|pyx|pythonx|pydo|py3do)\s+(.*)$`), "lang:python"},
		{regexp.MustCompile(`^(?:lua|luado)\s+(.*)$`), "lang:lua"},
		{regexp.MustCompile(`^(?:perl|perldo)\s+(.*)$`), "lang:perl"},
		{regexp.MustCompile(`^(?:rub|ruby|rubydo)\s+(.*)$`), "lang:ruby"},
		{regexp.MustCompile(`^(?:so|sou|sour|sourc|source|ru|runtime)!?\s+(\S+)`), "file"},
		{regexp.MustCompile(`^(?:exe|exec|execu|execut|execute)\s`), "eval"},
	},
	"gnuplot": {
		{regexp.MustCompile(`^!(.*)$`), "shell"},
		{regexp.MustCompile(`['"]\s*[<|]\s*([^'"]*)['"]`), "shell"},
		{regexp.MustCompile(`^(?:load|call)\s+['"]([^'"]+)['"]`), "file"},
		{regexp.MustCompile(`^eval\b`), "eval"},
	},
	"matlab": {
		{regexp.MustCompile(`^!(.*)$`), "shell"},
	},
	"ipython": {
		{regexp.MustCompile(`^!!?(.*)$`), "shell"},
		{regexp.MustCompile(`^%(?:system|sx|sc)\s+(.*)$`), "shell"},
		{regexp.MustCompile(`^[^#'"]*=\s*!(.*)$`), "shell"},
		{regexp.MustCompile(`^%run\s+(?:-\w+\s+)*(\S+)`), "file"},
	},
	"m4": {
		{regexp.MustCompile(`\b(?:syscmd|esyscmd)\s*\(`), "m4shell"},
	},
}

// cellMagic matches an IPython cell magic whose cell is shell code.
var cellMagic = regexp.MustCompile(`(?m)^%%(?:bash|sh|script\s+\S*sh|system)\b[^\n]*\n`)

// scanLines checks the commands of a line-oriented language that run
// shell code, other code or files.
func (g *checker) scanLines(st *walk.State, lang, code, origin string, strict bool) {
	rules := lineRules[lang]
	if lang == "ipython" {
		if loc := cellMagic.FindStringIndex(code); loc != nil {
			g.Code(st.Clone(), code[loc[1]:], "the shell cell of "+origin)
			code = code[:loc[0]]
		}
	}
	lines := strings.Split(code, "\n")
	for i := 0; i < len(lines) && i < 4096; i++ {
		line := strings.TrimSpace(lines[i])
		if lang == "vim" {
			line = strings.TrimSpace(vimLead.ReplaceAllString(line, ""))
		}
		if lang == "dc" {
			line = regexp.MustCompile(`\[[^\]]*\]`).ReplaceAllString(line, "")
		}
		if lang == "m4" {
			g.m4Shell(st, line, origin)
			continue
		}
		for _, r := range rules {
			m := r.re.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			rest := ""
			if len(m) > 1 {
				rest = strings.TrimSpace(m[1])
			}
			what := "`" + walk.Clip(line, 60) + "` in " + origin
			switch {
			case r.kind == "shell":
				if lang == "psql" {
					rest = strings.ReplaceAll(rest, "''", "'")
				}
				g.Code(st.Clone(), rest, what)
			case r.kind == "run":
				g.Code(st.Clone(), "true "+rest, what)
			case r.kind == "file":
				g.ScriptFile(st, walk.Known(strings.Trim(rest, `'"`)), what, lang)
			case r.kind == "native":
				g.Hold("%s loads a native library, whose code cannot be checked before it runs.", what)
			case r.kind == "eval":
				g.Hold("%s runs a command built when it runs, which cannot be checked before it runs.", what)
			case strings.HasPrefix(r.kind, "lang:"):
				sub := strings.TrimPrefix(r.kind, "lang:")
				body := rest
				if body == "" {
					// A block: the lines up to "end".
					var b []string
					for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "end"; i++ {
						b = append(b, lines[i])
					}
					body = strings.Join(b, "\n")
				}
				if spec := interpreterFor(sub); spec != nil && !spec.follows {
					g.Hold("%s runs %s code, which the guard cannot follow, so what it does cannot be checked before it runs.", what, spec.title)
				}
				g.scanCode(st, sub, body, what, strict)
			}
			break
		}
	}
}

// m4Shell checks the commands m4's syscmd and esyscmd run.
func (g *checker) m4Shell(st *walk.State, line, origin string) {
	for _, loc := range lineRules["m4"][0].re.FindAllStringIndex(line, 8) {
		arg := callArgs(line, loc[1], true)
		arg = strings.TrimSpace(arg)
		if strings.HasPrefix(arg, "`") && strings.HasSuffix(arg, "'") {
			arg = arg[1 : len(arg)-1]
		}
		if strings.Contains(arg, "$") {
			g.Hold("The command `syscmd` in %s runs is built when it runs and cannot be checked before it runs.", origin)
		}
		g.Code(st.Clone(), arg, "`syscmd` in "+origin)
	}
}
