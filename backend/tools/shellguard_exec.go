package tools

import (
	"fmt"
	"os"
	"os/user"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// shCall is one simple command being checked.
type shCall struct {
	// st is the shell whose builtins the command may be (cd, set, read…);
	// nil once a wrapper has made it a program of its own.
	st *shState
	// env is what the command's process sees: variables, folder, stdin.
	env  *shState
	args []shArg
	base string
	src  string // the command as written, for messages
	// label, when set, names the command in messages instead (a call in
	// interpreter code).
	label string
	text  string // cmdText, once built
}

// cmdText names the command in messages.
func (c *shCall) cmdText() string {
	if c.label != "" {
		return c.label
	}
	if c.text != "" {
		return c.text
	}
	c.text = c.buildText()
	return c.text
}

func (c *shCall) buildText() string {
	shownArgs := display(c.args)
	if c.src != "" && clip(c.src, 120) != shownArgs {
		return "`" + clip(c.src, 100) + "` (which runs `" + shownArgs + "`)"
	}
	return "`" + shownArgs + "`"
}

// command checks a simple command given as expanded fields, peeling off
// wrappers and following the code it hands to other programs.
func (g *shellGuard) command(st, env *shState, args []shArg, src string) {
	c := &shCall{st: st, env: env, args: args, src: src}
	for layer := 0; len(c.args) > 0 && layer < maxWrapperLayers; layer++ {
		name := c.args[0]
		if name.dynamic() {
			g.hold("The command name `%s` comes from %s cannot be checked before it runs.", clip(name.raw, 60), and(g.argSource(name).desc))
			g.checkPaths(c.env, c.args[1:])
			return
		}
		if p, ok := c.env.hashed[name.val]; ok && c.st != nil {
			c.args = append([]shArg{known(p)}, c.args[1:]...)
			name = c.args[0]
		}
		c.base = g.programBase(c.env, name.val)
		if g.collect {
			words := make([]string, len(c.args))
			for i, a := range c.args {
				words[i] = shown(a.val)
			}
			g.collected = append(g.collected, words)
		}
		if c.st != nil && !strings.Contains(name.val, "/") && len(c.st.funcs[name.val]) > 0 {
			// Functions come before builtins and programs. The program of
			// the same name is checked too: the function may call it, or
			// may not be defined on every path.
			g.callFunc(c.st, name.val, c.args[1:])
		}
		if msg, ok := privileged[c.base]; ok {
			g.warn("%s", msg)
		}
		next, ok := g.dispatch(c)
		if !ok {
			return
		}
		c = next
	}
}

// programBase names the program a command runs: for a path, what the file
// really is (a symlink to rm, a copy of rm made earlier in the command).
func (g *shellGuard) programBase(env *shState, name string) string {
	base := commandBase(name)
	if !strings.Contains(name, "/") {
		return base
	}
	p, ok := g.absPath(env, name)
	if !ok {
		return base
	}
	for range 8 {
		src, ok := g.copies[p]
		if !ok {
			break
		}
		p = src
	}
	if r := g.realPath(p); commandBase(r) != base && commandBase(r) != "busybox" && r != p {
		return commandBase(r)
	}
	return commandBase(p)
}

// dispatch checks one command and returns the command it wraps, if any.
func (g *shellGuard) dispatch(c *shCall) (*shCall, bool) {
	if c.st != nil {
		if g.builtin(c) {
			return nil, false
		}
	}
	if isShell(c.base) {
		g.shell(c)
		return nil, false
	}
	if strings.Contains(c.args[0].val, "/") {
		g.executable(c)
	}
	if next, ok := g.wrapper(c); ok {
		if next == nil {
			return nil, false
		}
		return next, true
	}
	if g.interpreter(c) {
		return nil, false
	}
	g.verb(c)
	return nil, false
}

// privileged names the commands that run something with other privileges.
var privileged = map[string]string{
	"sudo":    "Runs with elevated privileges (sudo): it can change anything on the system.",
	"doas":    "Runs with elevated privileges (doas): it can change anything on the system.",
	"su":      "Switches user (su): it can run anything as another user, usually root.",
	"pkexec":  "Runs with elevated privileges (pkexec): it can change anything on the system.",
	"runuser": "Runs a command as another user (runuser).",
}

// isShell reports whether base is a shell that runs scripts given with -c.
func isShell(base string) bool {
	switch base {
	case "sh", "bash", "zsh", "dash", "ksh", "ksh93", "mksh", "ash", "fish", "yash", "posh", "rbash", "csh", "tcsh", "lksh", "oksh", "loksh", "bosh", "hush":
		return true
	}
	return false
}

// code checks a script given as text (bash -c, eval, a sourced file). Text
// built from unknown values is held: bash parses it again, so an unknown
// part may be any code.
func (g *shellGuard) code(st *shState, text, origin string) {
	if hasMarker(text) {
		s, _ := g.sourceOf(text)
		g.hold("The code %s runs comes from %s cannot be checked before it runs.", origin, and(s.desc))
	}
	g.script(st, text, g.depth+1, origin)
}

// shell follows what a shell runs: -c code, a script file, or its input.
func (g *shellGuard) shell(c *shCall) {
	child := c.env.child()
	args := c.args
	i, hasC, fromStdin := 1, false, false
	for ; i < len(args); i++ {
		v := args[i].val
		if args[i].dynamic() {
			break
		}
		if v == "--" || v == "-" {
			i++
			break
		}
		if len(v) < 2 || (v[0] != '-' && v[0] != '+') {
			break
		}
		switch {
		case v == "--rcfile" || v == "--init-file" || v == "-o" || v == "+o" || v == "-O" || v == "+O":
			if v == "--rcfile" || v == "--init-file" {
				if i+1 < len(args) {
					g.scriptFile(child, args[i+1], "`"+c.base+" "+v+"`", "sh")
				}
			}
			i++
		case strings.HasPrefix(v, "--"):
			if v == "--command" && c.base == "fish" {
				hasC = true
			}
		case v[0] == '-':
			hasC = hasC || strings.Contains(v[1:], "c")
			fromStdin = fromStdin || strings.Contains(v[1:], "s")
		}
	}
	if be := (guardEnv{g, c.env}).Get("BASH_ENV"); (c.base == "bash" || c.base == "rbash") && be.Set && be.Str != "" {
		g.scriptFile(child, shArg{val: be.Str, raw: "$BASH_ENV"}, "`$BASH_ENV`", "sh")
	}
	ops := args[min(i, len(args)):]
	origin := "`" + c.base + "`"
	switch {
	case hasC && len(ops) > 0:
		if len(ops) > 1 {
			child.arg0 = ops[1].val
			for _, p := range ops[2:] {
				child.params = append(child.params, p.val)
			}
		}
		script := ops[0]
		if script.lost > 0 && !hasMarker(script.val) {
			script.val += string(rune(markerBase + script.lost))
		}
		g.code(child, script.val, "`"+c.base+" -c`")
	case !fromStdin && len(ops) > 0:
		child.arg0 = ops[0].val
		for _, p := range ops[1:] {
			child.params = append(child.params, p.val)
		}
		g.scriptFile(child, ops[0], origin, "sh")
	default:
		for _, p := range ops {
			child.params = append(child.params, p.val)
		}
		text, ok := g.inputText(c.env.stdin)
		if !ok {
			g.hold("The code %s runs comes from %s cannot be checked before it runs.", origin, and(c.env.stdin.desc))
			return
		}
		child.stdin = input{}
		g.code(child, text, origin+" (from its input)")
	}
}

// executable follows a program named by its path: a script the guard can
// read is checked like the code of its interpreter.
func (g *shellGuard) executable(c *shCall) {
	p, ok := g.absPath(c.env, c.args[0].val)
	if !ok {
		return
	}
	text, known, exists := g.fileText(c.env, p)
	switch {
	case !exists:
		return
	case !known:
		g.hold("The program %s is written by %s earlier in this command, so what it does cannot be checked before it runs.", c.args[0].val, text)
		return
	}
	lang := "sh"
	if first, _, _ := strings.Cut(text, "\n"); strings.HasPrefix(first, "#!") {
		fields := strings.Fields(first[2:])
		if len(fields) == 0 {
			return
		}
		interp := commandBase(fields[0])
		if interp == "env" && len(fields) > 1 {
			interp = commandBase(fields[len(fields)-1])
			if fields[1] == "-S" && len(fields) > 2 {
				interp = commandBase(fields[2])
			}
		}
		switch {
		case isShell(interp):
		case codeLang(interp) != "":
			lang = codeLang(interp)
		default:
			return
		}
	} else if strings.ContainsRune(text, 0) {
		return // a binary program
	}
	child := c.env.child()
	child.arg0 = c.args[0].val
	for _, a := range c.args[1:] {
		child.params = append(child.params, a.val)
	}
	g.checkSource(child, text, lang, "the script "+c.args[0].val)
}

// checkSource checks the text of a program in its language.
func (g *shellGuard) checkSource(st *shState, text, lang, origin string) {
	if lang == "sh" {
		g.code(st, text, origin)
		return
	}
	g.scanCode(st, lang, text, origin, false)
}

// maxScriptBytes bounds the script files the guard reads.
const maxScriptBytes = 512 << 10

// fileText returns a file's text as the command will see it: what the
// script wrote to it, or what is on disk. When the content cannot be known
// (known false), text names the command that writes it.
func (g *shellGuard) fileText(st *shState, p string) (text string, known, exists bool) {
	if n, ok := g.written[p]; ok {
		if n.writer != nil {
			return g.sandbox(n.wst, []*syntax.Stmt{n.writer}, n.wst.stdin), true, true
		}
		return "`" + n.by + "`", false, true
	}
	if pr, ok := g.procs[p]; ok {
		return g.sandbox(pr.st, pr.node.Stmts, input{}), true, true
	}
	fi, err := os.Stat(p)
	if err != nil {
		if g.dirty != "" {
			return "`" + g.dirty + "`", false, true
		}
		return "", false, false
	}
	if !fi.Mode().IsRegular() {
		return "", false, false
	}
	if fi.Size() > maxScriptBytes {
		return "", false, false
	}
	f, err := openRegular(p)
	if err != nil {
		return "", false, false
	}
	defer f.Close()
	b := make([]byte, fi.Size())
	n, _ := f.Read(b)
	return string(b[:n]), true, true
}

// scriptFile checks a script file a shell or source runs.
func (g *shellGuard) scriptFile(st *shState, a shArg, origin, lang string) {
	if a.dynamic() {
		g.hold("The script %s runs comes from %s cannot be checked before it runs.", origin, and(g.argSource(a).desc))
		return
	}
	switch a.val {
	case "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "-":
		text, ok := g.inputText(st.stdin)
		if !ok {
			g.hold("The code %s runs comes from %s cannot be checked before it runs.", origin, and(st.stdin.desc))
			return
		}
		g.checkSource(st, text, lang, origin+" (from its input)")
		return
	}
	p, ok := g.absPath(st, a.val)
	if !ok {
		g.hold("The script %s runs (%s) is in a folder the guard cannot follow (%s), so it cannot be checked before it runs.", origin, a.val, st.cwdWhy)
		return
	}
	g.checkPaths(st, []shArg{a})
	text, known, exists := g.fileText(st, p)
	switch {
	case !exists:
	case !known:
		g.hold("The script %s runs (%s) is written by %s earlier in this command, so it cannot be checked before it runs.", origin, a.val, text)
	default:
		g.checkSource(st, text, lang, origin+" "+a.val)
	}
}

// builtin handles the shell's own commands that change its state or run
// code in it. It reports whether the command was fully handled.
func (g *shellGuard) builtin(c *shCall) bool {
	st, args := c.st, c.args
	switch c.args[0].val {
	case "cd", "pushd":
		g.checkCd(st, args)
	case "popd":
		st.cwd, st.cwdWhy = "", "popd returns to a folder the guard did not follow"
	case "set":
		for i := 1; i < len(args); i++ {
			v := args[i].val
			switch {
			case v == "--" || (v == "-" && i == 1):
				st.params = nil
				for _, p := range args[i+1:] {
					st.params = append(st.params, p.val)
				}
				return true
			case v == "-a" || v == "-o" && i+1 < len(args) && args[i+1].val == "allexport":
				st.allexport = true
			case v == "+a" || v == "+o" && i+1 < len(args) && args[i+1].val == "allexport":
				st.allexport = false
			case v == "-f" || v == "-o" && i+1 < len(args) && args[i+1].val == "noglob":
				st.glob.noglob = true
			case v == "+f" || v == "+o" && i+1 < len(args) && args[i+1].val == "noglob":
				st.glob.noglob = false
			case !strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "+"):
				st.params = nil
				for _, p := range args[i:] {
					st.params = append(st.params, p.val)
				}
				return true
			}
		}
	case "shift":
		n := 1
		if len(args) > 1 {
			if _, err := fmt.Sscanf(args[1].val, "%d", &n); err != nil || args[1].dynamic() {
				st.params = []string{g.unknown(source{desc: "the positional parameters after `" + display(args) + "`"})}
				return true
			}
		}
		st.params = st.params[min(n, len(st.params)):]
	case "shopt":
		on := slices.ContainsFunc(args, func(a shArg) bool { return a.val == "-s" })
		for _, a := range args[1:] {
			switch a.val {
			case "extglob":
			case "nullglob":
				st.glob.nullglob = on
			case "dotglob":
				st.glob.dotglob = on
			case "globstar":
				st.glob.globstar = on
			case "nocaseglob":
				st.glob.nocaseglob = on
			case "expand_aliases":
				st.glob.expandAliases = on
			}
		}
	case "unset":
		fn := false
		for _, a := range args[1:] {
			switch a.val {
			case "-f":
				fn = true
			case "-v", "-n":
			default:
				if fn {
					delete(st.funcs, a.val)
				} else {
					st.vars[a.val] = expand.Variable{}
				}
			}
		}
	case "export", "declare", "typeset", "local", "readonly":
		g.declArgs(c)
	case "read":
		g.readBuiltin(c)
	case "mapfile", "readarray":
		g.mapfileBuiltin(c)
	case "printf":
		if len(args) < 4 || args[1].val != "-v" {
			return false
		}
		vals := make([]string, 0, len(args)-4)
		for _, a := range args[4:] {
			vals = append(vals, a.val)
		}
		out, _, err := expand.Format(nil, args[3].val, vals)
		if err != nil {
			out = g.unknown(source{desc: "the output of `" + display(args) + "`"})
		}
		st.setVar(args[2].val, expand.Variable{Set: true, Kind: expand.String, Str: out})
	case "eval":
		g.code(st, joinArgs(args[1:]), "`eval`")
	case "source", ".":
		if len(args) < 2 {
			return true
		}
		if len(args) > 2 {
			saved := st.params
			st.params = nil
			for _, p := range args[2:] {
				st.params = append(st.params, p.val)
			}
			defer func() { st.params = saved }()
		}
		g.scriptFile(st, args[1], "`"+args[0].val+"`", "sh")
	case "trap":
		rest := args[1:]
		if len(rest) > 0 && rest[0].val == "--" {
			rest = rest[1:]
		}
		if len(rest) > 1 && rest[0].val != "-" && !strings.HasPrefix(rest[0].val, "-") {
			// The handler runs later (at exit, on a signal): it is walked
			// at the end, with what the script has set by then.
			g.traps = append(g.traps, rest[0].val)
		}
	case "alias":
		for _, a := range args[1:] {
			if name, val, ok := strings.Cut(a.val, "="); ok {
				st.aliases[name] = []string{val}
				// The alias may never be used; what it would destroy is
				// refused all the same.
				g.quiet++
				g.code(st.clone(), val, "the alias "+name)
				g.quiet--
			}
		}
	case "unalias":
		for _, a := range args[1:] {
			delete(st.aliases, a.val)
		}
	case "hash":
		for i := 1; i+2 < len(args)+1 && i < len(args); i++ {
			if args[i].val == "-p" && i+2 < len(args) {
				g.warn("`hash -p` makes `%s` run %s instead of the usual program.", args[i+2].val, args[i+1].val)
				if st.hashed == nil {
					st.hashed = map[string]string{}
				}
				st.hashed[args[i+2].val] = args[i+1].val
			}
		}
	case "let":
		for _, a := range args[1:] {
			if name, _, ok := strings.Cut(a.val, "="); ok && syntax.ValidName(strings.TrimRight(name, "+-*/%<>&|^ ")) {
				n := strings.TrimRight(name, "+-*/%<>&|^ ")
				st.setVar(n, g.unknownVar(n, "the variable $"+n+", computed by `let`"))
			}
		}
	case "getopts":
		if len(args) > 2 {
			st.setVar(args[2].val, g.unknownVar(args[2].val, "the option `getopts` reads"))
		}
	default:
		return false
	}
	return true
}

// declArgs handles export/declare/local/readonly run as plain commands
// (command export X=1, builtin declare …).
func (g *shellGuard) declArgs(c *shCall) {
	export := c.args[0].val == "export"
	for _, a := range c.args[1:] {
		if strings.HasPrefix(a.val, "-") {
			export = export || strings.Contains(a.val, "x")
			continue
		}
		name, val, ok := strings.Cut(a.val, "=")
		if !syntax.ValidName(name) {
			continue
		}
		v := guardEnv{g, c.st}.Get(name)
		if ok {
			v = expand.Variable{Set: true, Kind: expand.String, Str: val}
		}
		v.Exported = v.Exported || export
		c.st.setVar(name, v)
	}
}

// readBuiltin gives read's variables the line it reads.
func (g *shellGuard) readBuiltin(c *shCall) {
	st, args := c.st, c.args
	var names []string
	array, delim := "", "\n"
	raw := false
	for i := 1; i < len(args); i++ {
		v := args[i].val
		if !strings.HasPrefix(v, "-") || len(v) < 2 {
			names = append(names, v)
			continue
		}
		raw = raw || strings.ContainsRune(v, 'r')
		// A cluster of short options: -ra NAME, -rd '' …
		for j := 1; j < len(v); j++ {
			if !strings.ContainsRune("adpntNui", rune(v[j])) {
				continue
			}
			val := v[j+1:]
			if val == "" && i+1 < len(args) {
				i++
				val = args[i].val
			}
			switch v[j] {
			case 'a':
				array = val
			case 'd':
				delim = val
				if delim == "" {
					delim = "\x00"
				}
			}
			break
		}
	}
	if len(names) == 0 && array == "" {
		names = []string{"REPLY"}
	}
	text, ok := g.inputText(st.stdin)
	if !ok {
		desc := "what `read` reads from " + st.stdin.desc
		for _, n := range append(names, array) {
			if n != "" {
				st.setVar(n, g.unknownVar(n, desc))
			}
		}
		return
	}
	line, _, _ := strings.Cut(text, delim[:1])
	if !raw {
		// Without -r, read removes backslashes (and joins escaped newlines).
		var b strings.Builder
		for k := 0; k < len(text); k++ {
			if text[k] == '\\' && k+1 < len(text) {
				k++
				if text[k] == '\n' {
					continue
				}
			} else if text[k] == delim[0] {
				break
			}
			b.WriteByte(text[k])
		}
		line = b.String()
	}
	ifs := guardEnv{g, st}.Get("IFS").Str
	fields := strings.FieldsFunc(line, func(r rune) bool { return strings.ContainsRune(ifs, r) })
	if array != "" {
		st.setVar(array, expand.Variable{Set: true, Kind: expand.Indexed, List: fields})
		return
	}
	for i, n := range names {
		v := ""
		switch {
		case i == len(names)-1 && i < len(fields):
			v = strings.Join(fields[i:], " ")
		case i < len(fields):
			v = fields[i]
		}
		st.setVar(n, expand.Variable{Set: true, Kind: expand.String, Str: v})
	}
}

// mapfileBuiltin gives mapfile's array the lines it reads.
func (g *shellGuard) mapfileBuiltin(c *shCall) {
	st, args := c.st, c.args
	name, delim, trim := "MAPFILE", "\n", false
	for i := 1; i < len(args); i++ {
		switch v := args[i].val; {
		case v == "-t":
			trim = true
		case v == "-d" && i+1 < len(args):
			delim = args[i+1].val + "\x00"
			i++
		case v == "-n" || v == "-O" || v == "-s" || v == "-u" || v == "-C" || v == "-c":
			i++
		case !strings.HasPrefix(v, "-"):
			name = v
		}
	}
	text, ok := g.inputText(st.stdin)
	if !ok {
		st.setVar(name, expand.Variable{Set: true, Kind: expand.Indexed, List: []string{g.unknown(source{desc: "what `" + args[0].val + "` reads from " + st.stdin.desc})}})
		return
	}
	var list []string
	for _, l := range strings.SplitAfter(text, delim[:1]) {
		if l == "" {
			continue
		}
		if trim {
			l = strings.TrimSuffix(l, delim[:1])
		}
		list = append(list, l)
	}
	st.setVar(name, expand.Variable{Set: true, Kind: expand.Indexed, List: list})
}

// checkCd follows cd so that relative paths are judged from the right
// folder, and warns when it leaves the workspace.
func (g *shellGuard) checkCd(st *shState, args []shArg) {
	ops := operands(args[1:])
	target := known(g.home)
	if len(ops) > 0 {
		target = ops[0]
	} else if g.home == "" {
		st.cwd, st.cwdWhy = "", "cd went to a home folder the guard does not know"
		return
	}
	if target.dynamic() {
		st.cwd, st.cwdWhy = "", "`cd "+target.raw+"` goes to "+g.argSource(target).desc
		return
	}
	if target.val == "-" {
		st.cwd, st.oldpwd = st.oldpwd, st.cwd
		if st.cwd == "" {
			st.cwdWhy = "`cd -` returns to a folder the guard did not follow"
		}
		return
	}
	if cdpath := (guardEnv{g, st}).Get("CDPATH"); cdpath.Set && cdpath.Str != "" && !strings.HasPrefix(target.val, "/") && !strings.HasPrefix(target.val, ".") {
		st.cwd, st.cwdWhy = "", "CDPATH decides where `cd "+target.val+"` goes"
		return
	}
	p, ok := g.absPath(st, target.val)
	if !ok {
		st.cwd, st.cwdWhy = "", "cd went where the guard cannot follow"
		return
	}
	if g.wsDir != "" && !g.inside(st, p) && !harmlessPath(p) {
		g.warn("Changes directory outside the workspace: %s", p)
	}
	st.oldpwd, st.cwd = st.cwd, p
}

// homeOf returns a user's home folder.
func homeOf(name string) string {
	if name == "" {
		name = "root"
	}
	if u, err := user.Lookup(name); err == nil {
		return u.HomeDir
	}
	if name == "root" {
		return "/root"
	}
	return ""
}

// inDir returns a copy of env whose folder is dir (env --chdir, sudo -D).
func (g *shellGuard) inDir(env *shState, dir shArg) *shState {
	c := env.clone()
	if dir.dynamic() {
		c.cwd, c.cwdWhy = "", "the folder `"+dir.raw+"` comes from "+g.argSource(dir).desc
		return c
	}
	p, ok := g.absPath(env, dir.val)
	if !ok {
		c.cwd, c.cwdWhy = "", "it is relative to a folder the guard cannot follow"
		return c
	}
	c.oldpwd, c.cwd = c.cwd, p
	return c
}

// withHome returns a copy of env whose HOME is the user's (sudo, su -).
func withHome(env *shState, home string) *shState {
	c := env.clone()
	if home == "" {
		c.vars["HOME"] = expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: string(rune(markerBase))}
		return c
	}
	c.vars["HOME"] = expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: path.Clean(home)}
	return c
}
