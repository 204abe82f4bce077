package guard

import (
	"regexp"
	"strings"
)

// This file reads the arguments of calls in interpreter code: string
// literals, their concatenations and the usual names of the home folder.

var pyImportAs = regexp.MustCompile(`\bimport\s+(os|shutil|subprocess|pty|pathlib)\s+as\s+([A-Za-z_]\w*)`)

var pyFromImport = regexp.MustCompile(`from\s+(os|shutil|subprocess|pty|commands)\s+import\s+\(?([\w\s,]+)\)?`)

// pyAliases rewrites calls of functions imported under another name (from
// os import system as run) to their full names, for the call patterns.
func pyAliases(code string) string {
	for _, m := range pyImportAs.FindAllStringSubmatch(code, -1) {
		code = regexp.MustCompile(`\b`+regexp.QuoteMeta(m[2])+`\.`).ReplaceAllString(code, m[1]+".")
	}
	for _, m := range pyFromImport.FindAllStringSubmatch(code, -1) {
		for _, item := range strings.Split(m[2], ",") {
			f := strings.Fields(item)
			if len(f) == 0 {
				continue
			}
			name, alias := f[0], f[0]
			if len(f) == 3 && f[1] == "as" {
				alias = f[2]
			}
			if !syntaxName.MatchString(alias) {
				continue
			}
			code = regexp.MustCompile(`\b`+regexp.QuoteMeta(alias)+`\s*\(`).ReplaceAllString(code, m[1]+"."+name+"(")
		}
	}
	return code
}

var syntaxName = regexp.MustCompile(`^[A-Za-z_]\w*$`)

// callArgs returns the argument text of a call whose arguments start at i:
// up to the matching parenthesis, or (without one) to the end of the
// statement.
func callArgs(code string, i int, paren bool) string {
	depth := 0
	if paren {
		depth = 1
	}
	var quote byte
	for j := i; j < len(code); j++ {
		ch := code[j]
		switch {
		case quote != 0:
			if ch == '\\' {
				j++
			} else if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"' || ch == '`':
			quote = ch
		case ch == '(' || ch == '[' || ch == '{':
			depth++
		case ch == ')' || ch == ']' || ch == '}':
			depth--
			if depth == 0 && paren || depth < 0 {
				return code[i:j]
			}
		case !paren && depth == 0 && (ch == ';' || ch == '\n'):
			return code[i:j]
		}
	}
	return code[i:]
}

// evalArgs evaluates the leading string arguments of a call: literals,
// their concatenations, home-folder lookups, and lists of literals. ok is
// false when the first argument is anything else.
func (g *checker) evalArgs(lang, text string) ([]string, bool) {
	parts := splitTop(text, ',')
	if len(parts) == 0 || strings.TrimSpace(parts[0]) == "" {
		return nil, false
	}
	var out []string
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if strings.HasPrefix(p, "[") && strings.HasSuffix(p, "]") || lang == "ruby" && strings.HasPrefix(p, "%w") {
			inner := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(p, "%w"), "["), "]")
			elems := splitTop(inner, ',')
			if lang == "ruby" && strings.HasPrefix(p, "%w") {
				elems = strings.Fields(strings.Trim(inner, "()"))
				for j := range elems {
					elems[j] = "'" + elems[j] + "'"
				}
			}
			for _, e := range elems {
				v, ok := g.evalString(lang, strings.TrimSpace(e))
				if !ok {
					return nil, false
				}
				out = append(out, v)
			}
			continue
		}
		v, ok := g.evalString(lang, p)
		if !ok {
			if i == 0 {
				return nil, false
			}
			break
		}
		out = append(out, v)
	}
	return out, len(out) > 0
}

// evalString evaluates a string expression made of literals, + or .
// concatenations and the usual ways of naming the home folder.
func (g *checker) evalString(lang, expr string) (string, bool) {
	sep := byte('+')
	if lang == "perl" || lang == "php" {
		sep = '.'
	}
	var b strings.Builder
	for _, term := range splitTop(expr, sep) {
		t := strings.TrimSpace(term)
		for len(t) > 1 && strings.ContainsRune("rRbBuU", rune(t[0])) && (t[1] == '\'' || t[1] == '"' || strings.ContainsRune("rRbB", rune(t[1])) && len(t) > 2 && (t[2] == '\'' || t[2] == '"')) {
			t = t[1:]
		}
		switch {
		case len(t) >= 6 && (strings.HasPrefix(t, `'''`) && strings.HasSuffix(t, `'''`) || strings.HasPrefix(t, `"""`) && strings.HasSuffix(t, `"""`)):
			b.WriteString(t[3 : len(t)-3])
		case len(t) >= 2 && (t[0] == '\'' || t[0] == '"' || lang == "js" && t[0] == '`'):
			// One literal, or several side by side (Python and awk join them).
			lits := stringLitRe.FindAllStringIndex(t, -1)
			if lang == "js" && t[0] == '`' {
				lits = [][]int{{0, len(t)}}
			}
			end := 0
			for _, l := range lits {
				if strings.TrimSpace(t[end:l[0]]) != "" {
					return "", false
				}
				lit := t[l[0]:l[1]]
				body := lit[1 : len(lit)-1]
				if (lit[0] == '"' && (lang == "perl" || lang == "php" || lang == "ruby") && (strings.Contains(body, "$") || strings.Contains(body, "#{") || strings.Contains(body, "@"))) || (lit[0] == '`' && strings.Contains(body, "${")) || (lang == "python" && strings.ContainsAny(body, "{}") && strings.HasPrefix(strings.TrimSpace(term), "f")) {
					return "", false
				}
				b.WriteString(unquoteCode(lit))
				end = l[1]
			}
			if strings.TrimSpace(t[end:]) != "" || len(lits) == 0 {
				return "", false
			}
		case g.Home != "" && regexp.MustCompile(`^(os\.path\.expanduser\(\s*['"]~['"]\s*\)|(pathlib\.)?Path\.home\(\)|os\.environ\[\s*['"]HOME['"]\s*\]|os\.getenv\(\s*['"]HOME['"]\s*\)|(require\(['"]os['"]\)|os)\.homedir\(\)|process\.env\.HOME|\$ENV\{\s*['"]?HOME['"]?\s*\}|ENV\[\s*['"]HOME['"]\s*\]|Dir\.home|getenv\(\s*['"]HOME['"]\s*\)|\$_SERVER\[\s*['"]HOME['"]\s*\])$`).MatchString(t):
			b.WriteString(g.Home)
		case regexp.MustCompile(`^(os\.path\.expanduser|(pathlib\.)?Path|File\.expand_path|path\.resolve)\(\s*(['"][^'"]*['"])\s*\)$`).MatchString(t):
			m := regexp.MustCompile(`['"]([^'"]*)['"]`).FindStringSubmatch(t)
			v := m[1]
			if strings.HasPrefix(v, "~") && g.Home != "" {
				v = g.Home + v[1:]
			}
			b.WriteString(v)
		default:
			if v, ok := g.codeVars[strings.TrimPrefix(t, "$")]; ok {
				b.WriteString(v)
				continue
			}
			return "", false
		}
	}
	return b.String(), true
}

var codeAssignRe = regexp.MustCompile(`(?m)(?:^|[;{(\s])(?:my\s+|local\s+|const\s+|let\s+|var\s+)?\$?([A-Za-z_]\w*)\s*=\s*('(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")\s*(?:;|$|\n|\})`)

// codeAssignments collects NAME = "literal" assignments of interpreter
// code (assigned once), so that system(cmd) is judged by cmd's value.
func codeAssignments(code string) map[string]string {
	out := map[string]string{}
	count := map[string]int{}
	for _, m := range codeAssignRe.FindAllStringSubmatch(code, 64) {
		count[m[1]]++
		out[m[1]] = unquoteCode(m[2])
	}
	for k, n := range count {
		if n > 1 {
			delete(out, k) // assigned more than once: not followed
		}
	}
	return out
}

// unquoteCode removes the quotes of a string literal and its common escapes.
func unquoteCode(lit string) string {
	if len(lit) < 2 {
		return lit
	}
	body := lit[1 : len(lit)-1]
	if lit[0] == '\'' {
		return strings.NewReplacer(`\'`, `'`, `\\`, `\`).Replace(body)
	}
	return strings.NewReplacer(`\"`, `"`, `\\`, `\`, `\n`, "\n", `\t`, "\t", `\$`, `$`, "\\`", "`").Replace(body)
}

// splitTop splits s at sep outside quotes and brackets.
func splitTop(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote != 0:
			if ch == '\\' {
				i++
			} else if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"' || ch == '`':
			quote = ch
		case ch == '(' || ch == '[' || ch == '{':
			depth++
		case ch == ')' || ch == ']' || ch == '}':
			depth--
		case ch == sep && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
