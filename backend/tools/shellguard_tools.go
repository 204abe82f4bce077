package tools

import (
	"encoding/json"
	"path"
	"regexp"
	"slices"
	"strings"
)

// This file follows the code that find, git, make, npm, crontab and sed run,
// and keeps track of the files commands write.

// findStarts splits find's arguments into its starting points and its
// expression.
func findStarts(args []shArg) (starts, expr []shArg) {
	i := 0
	for i < len(args) && (args[i].val == "-H" || args[i].val == "-L" || args[i].val == "-P" || strings.HasPrefix(args[i].val, "-O") || args[i].val == "-D") {
		if args[i].val == "-D" {
			i++
		}
		i++
	}
	for ; i < len(args); i++ {
		v := args[i].val
		if !args[i].dynamic() && (strings.HasPrefix(v, "-") || v == "(" || v == "!" || v == ")" || v == ",") {
			break
		}
		starts = append(starts, args[i])
	}
	if len(starts) == 0 {
		starts = []shArg{known(".")}
	}
	return starts, args[min(i, len(args)):]
}

// findSelects reports whether a find expression narrows what it matches
// (a name, a time, a size…) rather than matching everything. An "or" or a
// negation may widen it again, so they count as matching everything.
func findSelects(expr []shArg) bool {
	selects := false
	for i := 0; i < len(expr); i++ {
		v := expr[i].val
		switch v {
		case "-o", "-or", "!", "-not", ",":
			return false
		case "-type", "-xtype", "-maxdepth", "-mindepth", "-regextype", "-files0-from":
			i++
		case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-lname", "-ilname":
			if i+1 < len(expr) && !everything(expr[i+1].val) && expr[i+1].val != "*" && expr[i+1].val != ".*" {
				selects = true
			}
			i++
		case "-exec", "-execdir", "-ok", "-okdir":
			for i < len(expr) && expr[i].val != ";" && expr[i].val != "+" {
				i++
			}
		case "-delete", "-depth", "-d", "-xdev", "-mount", "-print", "-print0", "-ls", "-true", "-noleaf", "-ignore_readdir_race", "-follow", "-daystart", "-warn", "-nowarn", "-prune", "-quit", "-a", "-and", "(", ")":
		case "-fprint", "-fprint0", "-fls", "-printf", "-fprintf":
			i++
		default:
			if strings.HasPrefix(v, "-") {
				selects = true
			}
		}
	}
	return selects
}

// checkFind checks the commands find runs with -exec, -execdir, -ok and
// -okdir, and what -delete deletes: the files it selects under its start.
func (g *shellGuard) checkFind(c *shCall) {
	starts, expr := findStarts(c.args[1:])
	if len(starts) > 4 {
		starts = starts[:4]
	}
	selects := findSelects(expr)
	selection := func(start shArg, what string) shArg {
		src := source{desc: "the files `find " + shown(start.val) + "` " + what}
		if !start.dynamic() {
			if p, ok := g.absPath(c.env, start.val); ok {
				src.under, src.all = p, !selects
			}
		} else {
			src.desc += ", under " + g.argSource(start).desc
		}
		return shArg{val: g.unknown(src), raw: "{}"}
	}
	for i := 0; i < len(expr); i++ {
		v := expr[i].val
		switch v {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(expr) && expr[j].val != ";" && expr[j].val != "+" {
				j++
			}
			if j > i+1 {
				for _, start := range starts {
					sel := selection(start, "selects")
					words := make([]shArg, j-i-1)
					for k, w := range expr[i+1 : j] {
						words[k] = w
						words[k].val = strings.ReplaceAll(w.val, "{}", sel.val)
					}
					env := c.env
					if v == "-execdir" || v == "-okdir" {
						env = g.inDir(c.env, start)
					}
					g.command(nil, env, words, c.src)
				}
			}
			i = j
		case "-delete":
			for _, start := range starts {
				g.destroy(c, killRecursive, "find -delete", []shArg{selection(start, "selects")})
			}
		case "-fprint", "-fprint0", "-fls", "-fprintf":
			if i+1 < len(expr) {
				g.checkWrite(c.env, expr[i+1], c.cmdText()+" writing to")
			}
			i++
		}
	}
}

// gitCommandKeys are git settings whose value is a command git runs.
var gitCommandKeys = regexp.MustCompile(`(?i)^(core\.(pager|editor|sshcommand|fsmonitor|askpass)|diff\.external|diff\..*\.(textconv|command)|filter\..*\.(clean|smudge|process)|merge\..*\.driver|sequence\.editor|gpg(\..*)?\.program|pager\..*|uploadpack\.packobjectshook|difftool\..*\.cmd|mergetool\..*\.cmd|remote\..*\.(uploadpack|receivepack)|sendemail\..*cmd|credential\.helper|credential\..*\.helper|core\.gitproxy|web\.browser|browser\..*\.cmd|man\..*\.cmd|alias\..*)$`)

// checkGit follows the code git runs (aliases with !, command settings,
// rebase --exec, submodule foreach…) and warns about commands that discard
// work.
func (g *shellGuard) checkGit(c *shCall) {
	args := c.args[1:]
	env := c.env
	aliases := map[string]string{}
	config := func(key, val, how string) {
		k := strings.ToLower(key)
		if !gitCommandKeys.MatchString(k) {
			return
		}
		if strings.HasPrefix(k, "alias.") {
			aliases[k[len("alias."):]] = val
			if sh, ok := strings.CutPrefix(val, "!"); ok {
				g.code(env.child(), sh, "the git alias "+key[len("alias."):])
			}
			return
		}
		if k == "credential.helper" || strings.HasSuffix(k, ".helper") {
			if sh, ok := strings.CutPrefix(val, "!"); ok {
				g.code(env.child(), sh, "`git "+how+" "+key+"`")
			}
			return
		}
		g.code(env.child(), val, "`git "+how+" "+key+"`")
	}
	i := 0
	for ; i < len(args); i++ {
		v := args[i].val
		switch {
		case v == "-c" && i+1 < len(args):
			key, val, _ := strings.Cut(args[i+1].val, "=")
			config(key, val, "-c")
			i++
		case v == "-C" && i+1 < len(args):
			env = g.inDir(env, args[i+1])
			i++
		case v == "--git-dir" || v == "--work-tree" || v == "--namespace" || v == "--exec-path" || v == "--config-env" || v == "--super-prefix" || v == "--list-cmds":
			i++
		case strings.HasPrefix(v, "-"):
		default:
			goto sub
		}
	}
	return
sub:
	sub, rest := args[i].val, args[i+1:]
	if val, ok := aliases[strings.ToLower(sub)]; ok {
		if sh, ok := strings.CutPrefix(val, "!"); ok {
			g.code(env.child(), sh+" "+quoteArgs(rest), "the git alias "+sub)
		}
	}
	codeArg := func(flags ...string) {
		for j, a := range rest {
			for _, f := range flags {
				if a.val == f && j+1 < len(rest) {
					g.code(env.child(), rest[j+1].val, "`git "+sub+" "+f+"`")
				} else if after, ok := strings.CutPrefix(a.val, f+"="); ok && strings.HasPrefix(f, "--") {
					g.code(env.child(), after, "`git "+sub+" "+f+"`")
				} else if len(f) == 2 && strings.HasPrefix(a.val, f) && len(a.val) > 2 && !strings.HasPrefix(a.val, "--") {
					g.code(env.child(), a.val[2:], "`git "+sub+" "+f+"`")
				}
			}
		}
	}
	switch sub {
	case "push":
		if hasFlag(rest, "f", "--force") || slices.ContainsFunc(rest, func(a shArg) bool {
			return strings.HasPrefix(a.val, "--force") || strings.HasPrefix(a.val, "+")
		}) {
			g.warn("Force-pushes (%s): history on the remote can be overwritten.", clip(display(c.args), 80))
		}
		codeArg("--receive-pack", "--exec")
	case "reset":
		if slices.ContainsFunc(rest, func(a shArg) bool { return a.val == "--hard" }) {
			g.warn("Discards uncommitted changes (%s).", clip(display(c.args), 80))
		}
		g.dirty = display(c.args)
	case "clean":
		if hasFlag(rest, "f", "--force") {
			g.warn("Deletes untracked files (%s).", clip(display(c.args), 80))
			if env.cwd != "" && g.wsDir != "" && !g.inside(env, env.cwd) {
				g.destroy(c, killRecursive, "git clean", []shArg{known(env.cwd)})
			}
		}
	case "rebase":
		codeArg("-x", "--exec")
		g.dirty = display(c.args)
	case "bisect":
		if len(rest) > 1 && rest[0].val == "run" {
			g.command(nil, env, rest[1:], c.src)
		}
	case "submodule":
		for j, a := range rest {
			if a.val == "foreach" && j+1 < len(rest) {
				g.code(env.child(), joinArgs(rest[j+1:]), "`git submodule foreach`")
			}
		}
	case "filter-branch":
		codeArg("--env-filter", "--tree-filter", "--index-filter", "--parent-filter", "--msg-filter", "--commit-filter", "--tag-name-filter")
	case "difftool", "mergetool":
		codeArg("-x", "--extcmd", "--tool-cmd")
	case "grep":
		codeArg("-O", "--open-files-in-pager")
	case "fetch", "pull", "clone", "ls-remote", "archive":
		codeArg("--upload-pack", "--exec")
		if sub == "clone" || sub == "ls-remote" {
			codeArg("-u")
		}
		for _, a := range rest {
			if cmd, ok := strings.CutPrefix(a.val, "ext::"); ok {
				g.code(env.child(), strings.NewReplacer("% ", " ", "%%", "%", "%s", "").Replace(cmd), "the git ext:: URL")
			}
		}
		if sub == "pull" || sub == "clone" {
			g.dirty = display(c.args)
			g.unpacked = display(c.args)
		}
	case "config":
		var ops []shArg
		for j := 0; j < len(rest); j++ {
			if rest[j].val == "-f" || rest[j].val == "--file" || rest[j].val == "--blob" {
				j++
				continue
			}
			if !strings.HasPrefix(rest[j].val, "-") {
				ops = append(ops, rest[j])
			}
		}
		if len(ops) >= 2 {
			config(ops[0].val, ops[1].val, "config")
		}
	case "checkout", "switch", "restore", "merge", "stash", "apply", "am", "cherry-pick", "revert", "worktree", "read-tree", "checkout-index":
		g.dirty = display(c.args)
	}
}

// checkMake checks the recipes of the makefile make runs (and -E/--eval
// code), after substituting the variables it defines.
func (g *shellGuard) checkMake(c *shCall) {
	args := c.args[1:]
	env := c.env
	var files []shArg
	overrides := map[string]string{}
	var evals, goals []string
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case v == "-n" || v == "--just-print" || v == "--dry-run" || v == "--recon" || v == "-q" || v == "--question" || v == "-p" || v == "--print-data-base" || v == "--help" || v == "-v" || v == "--version":
			return
		case (v == "-f" || v == "--file" || v == "--makefile") && i+1 < len(args):
			files = append(files, args[i+1])
			i++
		case strings.HasPrefix(v, "--file=") || strings.HasPrefix(v, "--makefile="):
			_, f, _ := strings.Cut(v, "=")
			files = append(files, known(f))
		case strings.HasPrefix(v, "-f") && len(v) > 2 && !strings.HasPrefix(v, "--"):
			files = append(files, known(v[2:]))
		case (v == "-C" || v == "--directory") && i+1 < len(args):
			env = g.inDir(env, args[i+1])
			i++
		case strings.HasPrefix(v, "--directory="):
			env = g.inDir(env, known(strings.TrimPrefix(v, "--directory=")))
		case (v == "-E" || v == "--eval") && i+1 < len(args):
			evals = append(evals, args[i+1].val)
			i++
		case strings.HasPrefix(v, "--eval="):
			evals = append(evals, strings.TrimPrefix(v, "--eval="))
		case v == "-j" || v == "-l" || v == "-I" || v == "-o" || v == "-W" || v == "--jobs" || v == "--include-dir":
			i++
		case isAssignment(v):
			name, val, _ := strings.Cut(v, "=")
			overrides[name] = val
		case !strings.HasPrefix(v, "-"):
			goals = append(goals, v)
		}
	}
	if len(files) == 0 {
		for _, name := range []string{"GNUmakefile", "makefile", "Makefile"} {
			if p, ok := g.absPath(env, name); ok {
				if _, _, exists := g.fileText(env, p); exists {
					files = append(files, known(name))
					break
				}
			}
		}
	}
	texts := evals
	for _, f := range files {
		if f.dynamic() {
			g.hold("The makefile `make` runs comes from %s cannot be checked before it runs.", and(g.argSource(f).desc))
			continue
		}
		if f.val == "-" || f.val == "/dev/stdin" {
			text, ok := g.inputText(env.stdin)
			if !ok || hasMarker(text) {
				g.hold("The makefile `make -f -` reads comes from %s cannot be checked before it runs.", and(env.stdin.desc))
				continue
			}
			texts = append(texts, text)
			continue
		}
		p, ok := g.absPath(env, f.val)
		if !ok {
			continue
		}
		text, known, exists := g.fileText(env, p)
		switch {
		case !exists:
		case !known:
			g.hold("The makefile %s is written by %s earlier in this command, so its recipes cannot be checked before they run.", f.val, text)
		default:
			texts = append(texts, text)
		}
	}
	child := env.child()
	for _, t := range texts {
		origin := "`make`"
		if len(goals) > 0 {
			origin = "`make " + strings.Join(goals, " ") + "`"
		}
		for _, recipe := range g.makeRecipes(t, overrides, goals) {
			g.code(child.clone(), recipe, origin)
		}
	}
}

var makeVarRe = regexp.MustCompile(`^\s*(override\s+|export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*(\?=|:::=|::=|:=|\+=|!=|=)\s*(.*)$`)

// makeRecipes returns the recipe lines make runs for the goals (the first
// target when none is given) and their prerequisites, pattern rules and
// $(shell …) commands, with the variables it can resolve substituted; the
// others are unknown.
func (g *shellGuard) makeRecipes(text string, overrides map[string]string, goals []string) []string {
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
				val = g.unknown(source{desc: "the make variable $(" + m[2] + ")"})
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
			return g.unknown(source{desc: "the make expression " + m})
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
func (g *shellGuard) checkPackageScripts(c *shCall) {
	args := c.args[1:]
	env := c.env
	var ops []shArg
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case (v == "--prefix" || v == "-C" || v == "--dir" || v == "--cwd") && i+1 < len(args):
			env = g.inDir(env, args[i+1])
			i++
		case strings.HasPrefix(v, "--prefix=") || strings.HasPrefix(v, "--dir=") || strings.HasPrefix(v, "--cwd="):
			_, d, _ := strings.Cut(v, "=")
			env = g.inDir(env, known(d))
		case strings.HasPrefix(v, "-"):
		default:
			ops = append(ops, args[i])
		}
	}
	if len(ops) == 0 {
		if c.base != "yarn" {
			return
		}
		ops = []shArg{known("install")}
	}
	sub := ops[0].val
	var names []string
	switch sub {
	case "run", "run-script", "rum", "urn":
		if len(ops) > 1 {
			n := ops[1].val
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
			g.command(nil, env, ops[1:], c.src)
		}
		return
	default:
		if c.base == "yarn" || c.base == "pnpm" || c.base == "bun" {
			names = []string{sub}
		}
	}
	if len(names) == 0 {
		return
	}
	p, ok := g.absPath(env, "package.json")
	if !ok {
		return
	}
	text, known, exists := g.fileText(env, p)
	if !exists {
		return
	}
	if !known {
		g.hold("The scripts `%s %s` runs come from a package.json written by %s earlier in this command and cannot be checked before they run.", c.base, sub, text)
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
			g.code(env.child(), s, "the package.json script "+n)
		}
	}
}

// checkCrontab checks the commands a crontab installs.
func (g *shellGuard) checkCrontab(c *shCall) {
	ops := operands(c.args[1:])
	if hasFlag(c.args[1:], "r", "") {
		g.warn("Removes your crontab (%s).", clip(display(c.args), 80))
		return
	}
	if hasFlag(c.args[1:], "le", "") {
		return
	}
	var text string
	var ok bool
	if len(ops) == 0 || ops[0].val == "-" {
		text, ok = g.inputText(c.env.stdin)
	} else if p, pok := g.absPath(c.env, ops[0].val); pok {
		text, ok, _ = g.fileText(c.env, p)
	}
	if !ok || hasMarker(text) {
		g.hold("The commands `crontab` installs come from %s cannot be checked before they run.", and(c.env.stdin.desc))
		return
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") || isAssignment(line) {
			continue
		}
		f := strings.Fields(line)
		n := 5
		if strings.HasPrefix(f[0], "@") {
			n = 1
		}
		if len(f) > n {
			g.code(c.env.child(), strings.Join(f[n:], " "), "a crontab line")
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
func (g *shellGuard) checkSed(c *shCall) {
	args := c.args[1:]
	var scripts, rest []shArg
	inPlace := false
	for i := 0; i < len(args); i++ {
		v := args[i].val
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
		sc := parseSed(s.val)
		for _, cmd := range sc.exec {
			g.code(c.env.child(), cmd, "`sed e`")
		}
		if sc.runsText {
			g.hold("`%s` runs the text it edits as shell commands, which cannot be checked before it runs.", clip(display(c.args), 80))
		}
		for _, w := range sc.writes {
			g.checkWrite(c.env, known(w), c.cmdText()+" writing to")
		}
	}
	if inPlace {
		g.markWritten(c, rest, "sed -i")
		for _, a := range rest {
			if j := g.judge(c.env, a); j.class == classCritical || j.every {
				g.hold("%s edits %s in place, so it needs your approval.", c.cmdText(), j.what)
			}
		}
	}
}

// markWritten remembers that a command writes files whose content the
// guard cannot know.
func (g *shellGuard) markWritten(c *shCall, targets []shArg, by string) {
	for _, t := range targets {
		if t.dynamic() {
			g.dirty = display(c.args)
			continue
		}
		if p, ok := g.absPath(c.env, t.val); ok {
			g.written[p] = fileNote{by: display(c.args)}
			if strings.HasSuffix(t.val, "/") || isDir(p) {
				g.dirty = display(c.args)
			}
		}
	}
}

// readOnlyCommands do not write the files they name.
var readOnlyCommands = map[string]bool{
	"ls": true, "cat": true, "grep": true, "egrep": true, "fgrep": true, "rg": true, "head": true, "tail": true, "wc": true,
	"file": true, "stat": true, "echo": true, "printf": true, "test": true, "[": true, "[[": true, "diff": true, "cmp": true,
	"less": true, "more": true, "chmod": true, "chown": true, "chgrp": true, "which": true, "type": true, "realpath": true,
	"readlink": true, "dirname": true, "basename": true, "md5sum": true, "sha1sum": true, "sha256sum": true, "sha512sum": true,
	"du": true, "df": true, "sort": true, "uniq": true, "cut": true, "tr": true, "jq": true, "yq": true, "mkdir": true,
	"rmdir": true, "touch": true, "ln": true, "kill": true, "ps": true, "sleep": true, "date": true, "git": true, "find": true,
	"tree": true, "bat": true, "od": true, "hexdump": true, "xxd": true, "strings": true, "nl": true, "column": true, "rm": true,
	"cd": true, "pwd": true, "true": true, "false": true, "exit": true, "wait": true, "source": true, ".": true, "export": true,
}

// noteMentions remembers files named by a command that may write them
// (a compiler's -o, a generator's argument), so that running one of them
// later in the same command is not judged by its old content.
func (g *shellGuard) noteMentions(c *shCall) {
	if readOnlyCommands[c.base] {
		return
	}
	for _, a := range c.args[1:] {
		if a.dynamic() || a.val == "" || strings.HasPrefix(a.val, "-") && !strings.Contains(a.val, "=") {
			continue
		}
		v := a.val
		if _, after, ok := strings.Cut(v, "="); ok {
			v = after
		}
		if !strings.ContainsAny(v, "./") || strings.Contains(v, "://") {
			continue
		}
		if p, ok := g.absPath(c.env, v); ok && path.Clean(p) != "/" {
			if _, done := g.written[p]; !done {
				g.written[p] = fileNote{by: display(c.args)}
			}
		}
	}
}
