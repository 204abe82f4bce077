package guard

import (
	"encoding/json"
	"regexp"
	"strings"
	"tinyelf/backend/shell/guard/walk"
)

// This file follows the code build tools and schedulers run (make recipes,
// package.json scripts, crontab lines) and what sed scripts execute.

// checkMake checks the recipes of the makefile make runs (and -E/--eval
// code), after substituting the variables it defines.
func (g *checker) checkMake(c *walk.Call) {
	args := c.Args[1:]
	env := c.Env
	var files []walk.Arg
	overrides := map[string]string{}
	var evals, goals []string
	for i := 0; i < len(args); i++ {
		v := args[i].Val
		switch {
		case v == "-n" || v == "--just-print" || v == "--dry-run" || v == "--recon" || v == "-q" || v == "--question" || v == "-p" || v == "--print-data-base" || v == "--help" || v == "-v" || v == "--version":
			return
		case (v == "-f" || v == "--file" || v == "--makefile") && i+1 < len(args):
			files = append(files, args[i+1])
			i++
		case strings.HasPrefix(v, "--file=") || strings.HasPrefix(v, "--makefile="):
			_, f, _ := strings.Cut(v, "=")
			files = append(files, walk.Known(f))
		case strings.HasPrefix(v, "-f") && len(v) > 2 && !strings.HasPrefix(v, "--"):
			files = append(files, walk.Known(v[2:]))
		case (v == "-C" || v == "--directory") && i+1 < len(args):
			env = g.InDir(env, args[i+1])
			i++
		case strings.HasPrefix(v, "--directory="):
			env = g.InDir(env, walk.Known(strings.TrimPrefix(v, "--directory=")))
		case (v == "-E" || v == "--eval") && i+1 < len(args):
			evals = append(evals, args[i+1].Val)
			i++
		case strings.HasPrefix(v, "--eval="):
			evals = append(evals, strings.TrimPrefix(v, "--eval="))
		case v == "-j" || v == "-l" || v == "-I" || v == "-o" || v == "-W" || v == "--jobs" || v == "--include-dir":
			i++
		case walk.IsAssignment(v):
			name, val, _ := strings.Cut(v, "=")
			overrides[name] = val
		case !strings.HasPrefix(v, "-"):
			goals = append(goals, v)
		}
	}
	if len(files) == 0 {
		for _, name := range []string{"GNUmakefile", "makefile", "Makefile"} {
			if p, ok := g.AbsPath(env, name); ok {
				if _, _, exists := g.FileText(env, p); exists {
					files = append(files, walk.Known(name))
					break
				}
			}
		}
	}
	texts := evals
	for _, f := range files {
		if f.Dynamic() {
			g.Hold("The makefile `make` runs comes from %s cannot be checked before it runs.", walk.And(g.ArgSource(f).Text()))
			continue
		}
		if f.Val == "-" || f.Val == "/dev/stdin" {
			text, ok := g.InputText(env.Stdin)
			if !ok || walk.HasMarker(text) {
				g.Hold("The makefile `make -f -` reads comes from %s cannot be checked before it runs.", walk.And(env.Stdin.What()))
				continue
			}
			texts = append(texts, text)
			continue
		}
		p, ok := g.AbsPath(env, f.Val)
		if !ok {
			continue
		}
		text, known, exists := g.FileText(env, p)
		switch {
		case !exists:
		case !known:
			g.Hold("The makefile %s is written by %s earlier in this command, so its recipes cannot be checked before they run.", f.Val, text)
		default:
			texts = append(texts, text)
		}
	}
	child := env.Child()
	for _, t := range texts {
		origin := "`make`"
		if len(goals) > 0 {
			origin = "`make " + strings.Join(goals, " ") + "`"
		}
		for _, recipe := range g.makeRecipes(t, overrides, goals) {
			g.Code(child.Clone(), recipe, origin)
		}
	}
}

var makeVarRe = regexp.MustCompile(`^\s*(override\s+|export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*(\?=|:::=|::=|:=|\+=|!=|=)\s*(.*)$`)

// makeRecipes returns the recipe lines make runs for the goals (the first
// target when none is given) and their prerequisites, pattern rules and
// $(shell …) commands, with the variables it can resolve substituted; the
// others are unknown.
func (g *checker) makeRecipes(text string, overrides map[string]string, goals []string) []string {
	text = strings.ReplaceAll(text, "\\\n", " ")
	vars := map[string]string{}
	type rule struct {
		prereqs []string
		recipes []string
	}
	rules := map[string]*rule{}
	var always []string // $(shell …), != assignments and pattern rules
	var current []*rule
	first := ""
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "\t") {
			r := strings.TrimLeft(strings.TrimSpace(line), "@-+")
			for _, cur := range current {
				cur.recipes = append(cur.recipes, r)
			}
			continue
		}
		trim := strings.TrimSpace(line)
		if trim == "" || strings.HasPrefix(trim, "#") {
			continue
		}
		if m := makeVarRe.FindStringSubmatch(line); m != nil && !strings.Contains(m[2], ":") {
			val := m[4]
			if m[3] == "!=" {
				always = append(always, val)
				val = g.Unknown(walk.Source{Desc: "the make variable $(" + m[2] + ")"})
			}
			if m[3] == "+=" {
				val = vars[m[2]] + " " + val
			}
			if m[3] != "?=" || vars[m[2]] == "" {
				vars[m[2]] = val
			}
			current = nil
			continue
		}
		targets, rest, ok := strings.Cut(trim, ":")
		if !ok || strings.HasPrefix(rest, "=") {
			current = nil
			continue
		}
		rest = strings.TrimPrefix(rest, ":")
		deps, inline, _ := strings.Cut(rest, ";")
		current = nil
		for _, t := range strings.Fields(targets) {
			r := rules[t]
			if r == nil {
				r = &rule{}
				rules[t] = r
			}
			r.prereqs = append(r.prereqs, strings.Fields(deps)...)
			if strings.TrimSpace(inline) != "" {
				r.recipes = append(r.recipes, strings.TrimSpace(inline))
			}
			current = append(current, r)
			if first == "" && !strings.HasPrefix(t, ".") && !strings.Contains(t, "%") {
				first = t
			}
		}
	}
	for k, v := range overrides {
		vars[k] = v
	}
	for _, m := range regexp.MustCompile(`\$\(shell ([^)]*)\)`).FindAllStringSubmatch(text, -1) {
		always = append(always, m[1])
	}
	if len(goals) == 0 && first != "" {
		goals = []string{first}
	}
	var recipes []string
	seen := map[string]bool{}
	var visit func(t string, depth int)
	visit = func(t string, depth int) {
		if seen[t] || depth > 16 {
			return
		}
		seen[t] = true
		r := rules[t]
		if r == nil {
			return
		}
		for _, p := range r.prereqs {
			visit(p, depth+1)
		}
		for _, rc := range r.recipes {
			recipes = append(recipes, strings.ReplaceAll(rc, "$@", t))
		}
	}
	for _, goal := range goals {
		visit(goal, 0)
	}
	for t, r := range rules {
		if strings.Contains(t, "%") {
			recipes = append(recipes, r.recipes...)
		}
	}
	recipes = append(recipes, always...)
	ref := regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)|\$\{([A-Za-z_][A-Za-z0-9_.-]*)\}|\$\(([a-z]+ [^)]*)\)|\$([<^?*+|%])`)
	var subst func(s string, depth int) string
	subst = func(s string, depth int) string {
		s = strings.ReplaceAll(s, "$$", "\x00")
		s = ref.ReplaceAllStringFunc(s, func(m string) string {
			sm := ref.FindStringSubmatch(m)
			name := sm[1] + sm[2]
			if v, ok := vars[name]; ok && depth < 8 {
				return subst(v, depth+1)
			}
			return g.Unknown(walk.Source{Desc: "the make expression " + m})
		})
		return strings.ReplaceAll(s, "\x00", "$")
	}
	for i, r := range recipes {
		recipes[i] = subst(r, 0)
	}
	return recipes
}

// checkPackageScripts checks the package.json scripts npm, pnpm, yarn and
// bun run.
func (g *checker) checkPackageScripts(c *walk.Call) {
	args := c.Args[1:]
	env := c.Env
	var ops []walk.Arg
	for i := 0; i < len(args); i++ {
		v := args[i].Val
		switch {
		case (v == "--prefix" || v == "-C" || v == "--dir" || v == "--cwd") && i+1 < len(args):
			env = g.InDir(env, args[i+1])
			i++
		case strings.HasPrefix(v, "--prefix=") || strings.HasPrefix(v, "--dir=") || strings.HasPrefix(v, "--cwd="):
			_, d, _ := strings.Cut(v, "=")
			env = g.InDir(env, walk.Known(d))
		case strings.HasPrefix(v, "-"):
		default:
			ops = append(ops, args[i])
		}
	}
	if len(ops) == 0 {
		if c.Base != "yarn" {
			return
		}
		ops = []walk.Arg{walk.Known("install")}
	}
	sub := ops[0].Val
	var names []string
	switch sub {
	case "run", "run-script", "rum", "urn":
		if len(ops) > 1 {
			n := ops[1].Val
			names = []string{"pre" + n, n, "post" + n}
		}
	case "test", "t", "tst", "start", "stop", "restart":
		n := map[string]string{"t": "test", "tst": "test"}[sub]
		if n == "" {
			n = sub
		}
		names = []string{"pre" + n, n, "post" + n}
	case "install", "i", "ci", "add", "rebuild":
		names = []string{"preinstall", "install", "postinstall", "prepare"}
	case "exec", "x", "dlx":
		if len(ops) > 1 {
			g.Command(nil, env, ops[1:], c.Src)
		}
		return
	default:
		if c.Base == "yarn" || c.Base == "pnpm" || c.Base == "bun" {
			names = []string{sub}
		}
	}
	if len(names) == 0 {
		return
	}
	p, ok := g.AbsPath(env, "package.json")
	if !ok {
		return
	}
	text, known, exists := g.FileText(env, p)
	if !exists {
		return
	}
	if !known {
		g.Hold("The scripts `%s %s` runs come from a package.json written by %s earlier in this command and cannot be checked before they run.", c.Base, sub, text)
		return
	}
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if json.Unmarshal([]byte(text), &pkg) != nil {
		return
	}
	for _, n := range names {
		if s, ok := pkg.Scripts[n]; ok {
			g.Code(env.Child(), s, "the package.json script "+n)
		}
	}
}

// checkCrontab checks the commands a crontab installs.
func (g *checker) checkCrontab(c *walk.Call) {
	ops := walk.Operands(c.Args[1:])
	if walk.HasFlag(c.Args[1:], "r", "") {
		g.Warn("Removes your crontab (%s).", walk.Clip(walk.Display(c.Args), 80))
		return
	}
	if walk.HasFlag(c.Args[1:], "le", "") {
		return
	}
	var text string
	var ok bool
	if len(ops) == 0 || ops[0].Val == "-" {
		text, ok = g.InputText(c.Env.Stdin)
	} else if p, pok := g.AbsPath(c.Env, ops[0].Val); pok {
		text, ok, _ = g.FileText(c.Env, p)
	}
	if !ok || walk.HasMarker(text) {
		g.Hold("The commands `crontab` installs come from %s cannot be checked before they run.", walk.And(c.Env.Stdin.What()))
		return
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") || walk.IsAssignment(line) {
			continue
		}
		f := strings.Fields(line)
		n := 5
		if strings.HasPrefix(f[0], "@") {
			n = 1
		}
		if len(f) > n {
			g.Code(c.Env.Child(), strings.Join(f[n:], " "), "a crontab line")
		}
	}
}

// sedScript is what a sed script does besides editing text.
type sedScript struct {
	exec     []string // commands the e command runs
	runsText bool     // e without a command, or the e flag of s: runs the edited text
	writes   []string // files w and s///w write
}

// parseSed reads a sed script for its e and w commands.
func parseSed(script string) sedScript {
	var out sedScript
	for _, part := range splitSed(script) {
		cmd := strings.TrimLeft(part, " \t0123456789$,!~+")
		for strings.HasPrefix(cmd, "/") {
			end := strings.IndexByte(cmd[1:], '/')
			if end < 0 {
				break
			}
			cmd = strings.TrimLeft(cmd[end+2:], " \t0123456789$,!~+")
		}
		if cmd == "" {
			continue
		}
		switch cmd[0] {
		case 'e':
			if rest := strings.TrimSpace(cmd[1:]); rest != "" {
				out.exec = append(out.exec, rest)
			} else {
				out.runsText = true
			}
		case 'w', 'W':
			out.writes = append(out.writes, strings.TrimSpace(cmd[1:]))
		case 's', 'y':
			if len(cmd) < 2 {
				continue
			}
			d := cmd[1]
			n, i := 0, 2
			for ; i < len(cmd) && n < 2; i++ {
				if cmd[i] == '\\' {
					i++
				} else if cmd[i] == d {
					n++
				}
			}
			if cmd[0] == 's' && n == 2 {
				flags := cmd[i:]
				if j := strings.IndexByte(flags, 'w'); j >= 0 {
					out.writes = append(out.writes, strings.TrimSpace(flags[j+1:]))
					flags = flags[:j]
				}
				if strings.ContainsRune(flags, 'e') {
					out.runsText = true
				}
			}
		}
	}
	return out
}

// splitSed splits a sed script into commands at ; and newlines outside
// s/// and y/// arguments.
func splitSed(script string) []string {
	var parts []string
	start := 0
	for i := 0; i < len(script); i++ {
		switch script[i] {
		case ';', '\n', '{', '}':
			parts = append(parts, script[start:i])
			start = i + 1
		case 's', 'y':
			if i+1 < len(script) && strings.TrimLeft(script[start:i], " \t0123456789$,!") == "" {
				d := script[i+1]
				n := 0
				j := i + 2
				for ; j < len(script) && n < 2; j++ {
					if script[j] == '\\' {
						j++
					} else if script[j] == d {
						n++
					}
				}
				i = j - 1
			}
		}
	}
	return append(parts, script[start:])
}

// checkSed follows the commands sed's e runs and notes files -i edits.
func (g *checker) checkSed(c *walk.Call) {
	args := c.Args[1:]
	var scripts, rest []walk.Arg
	inPlace := false
	for i := 0; i < len(args); i++ {
		v := args[i].Val
		switch {
		case v == "-e" || v == "--expression":
			if i+1 < len(args) {
				scripts = append(scripts, args[i+1])
			}
			i++
		case v == "-f" || v == "--file":
			i++
		case strings.HasPrefix(v, "--in-place") || (strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.Contains(v, "i")):
			inPlace = true
		case strings.HasPrefix(v, "-"):
		default:
			rest = append(rest, args[i])
		}
	}
	if len(scripts) == 0 && len(rest) > 0 {
		scripts, rest = rest[:1], rest[1:]
	}
	for _, s := range scripts {
		sc := parseSed(s.Val)
		for _, cmd := range sc.exec {
			g.Code(c.Env.Child(), cmd, "`sed e`")
		}
		if sc.runsText {
			g.Hold("`%s` runs the text it edits as shell commands, which cannot be checked before it runs.", walk.Clip(walk.Display(c.Args), 80))
		}
		for _, w := range sc.writes {
			g.CheckWrite(c.Env, walk.Known(w), c.Text()+" writing to")
		}
	}
	if inPlace {
		g.markWritten(c, rest, "sed -i")
		for _, a := range rest {
			if j := g.Judge(c.Env, a); j.Class == walk.ClassCritical || j.Every {
				g.Hold("%s edits %s in place, so it needs your approval.", c.Text(), j.What)
			}
		}
	}
}
