package tools

import (
	"os"
	"strings"

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
	src  *srcText // the command as written, for messages
	// label, when set, names the command in messages instead (a call in
	// interpreter code).
	label string
	text  string // cmdText, once built
	// asCalled, when set, is the name the program is judged as instead of
	// what its file is (the name a link to a multi-call program gives it).
	asCalled string
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
	if src := c.src.String(); src != "" && clip(src, 120) != shownArgs {
		if strings.HasPrefix(src, "`") {
			return src + " (which runs `" + shownArgs + "`)" // already a label: `system` in `perl -e`
		}
		return "`" + clip(src, 100) + "` (which runs `" + shownArgs + "`)"
	}
	return "`" + shownArgs + "`"
}

// srcText is a command as written, printed only when a message needs it.
type srcText struct {
	node syntax.Node
	text string
}

func (s *srcText) String() string {
	if s == nil {
		return ""
	}
	if s.text == "" && s.node != nil {
		s.text = printNode(s.node)
	}
	return s.text
}

// command checks a simple command given as expanded fields, peeling off
// wrappers and following the code it hands to other programs.
func (g *shellGuard) command(st, env *shState, args []shArg, src *srcText) {
	g.peel(&shCall{st: st, env: env, args: args, src: src}, 0)
}

// peel checks c and, layer by layer, the commands it wraps.
func (g *shellGuard) peel(c *shCall, layer int) {
	for ; len(c.args) > 0 && layer < maxWrapperLayers; layer++ {
		name := c.args[0]
		if c.asCalled == "" {
			if name.dynamic() {
				g.hold("The command name `%s` comes from %s cannot be checked before it runs.", clip(name.rawText(), 60), and(g.argSource(name).text()))
				g.checkPaths(c.env, c.args[1:])
				return
			}
			if p, ok := c.env.hashed[name.val]; ok && c.st != nil {
				c.args = append([]shArg{known(p)}, c.args[1:]...)
				name = c.args[0]
			}
		}
		alias := ""
		if c.asCalled != "" {
			c.base = c.asCalled
		} else {
			c.base, alias = g.programNames(c.env, name.val)
		}
		if g.collect && c.asCalled == "" {
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
		if alias != "" && !g.sameProgram(c.base, alias) {
			// A link to a multi-call program (systemctl, busybox, systemd)
			// acts as the name it is called by; any other program acts as
			// what it is. The guard cannot tell which, so it judges both.
			as := &shCall{env: c.env, args: c.args, src: c.src, label: c.label, asCalled: alias}
			g.peel(as, layer)
		}
		next, ok := g.dispatch(c)
		if !ok {
			return
		}
		c = next
	}
}

// programNames names the program a command runs: for a path, what the
// file really is (a symlink to rm, a copy of rm made earlier in the
// command) and, when that differs, the name it is called by (alias).
func (g *shellGuard) programNames(env *shState, name string) (base, alias string) {
	called := commandBase(name)
	if !strings.Contains(name, "/") {
		return called, ""
	}
	p, ok := g.absPath(env, name)
	if !ok {
		return called, ""
	}
	for range 8 {
		src, ok := g.copies[p]
		if !ok {
			break
		}
		p = src
	}
	if r := commandBase(g.realPath(p)); r != called {
		return r, called
	}
	if r := commandBase(p); r != called {
		return r, called
	}
	return called, ""
}

// sameProgram reports whether two names of one file are judged alike (sh
// and dash are both shells, python3 and python3.11 both Python), so that
// judging the file under both would only repeat the work.
func (g *shellGuard) sameProgram(a, b string) bool {
	if a == b || isShell(a) && isShell(b) {
		return true
	}
	ia, ib := g.cmds.Interp(a), g.cmds.Interp(b)
	return ia != nil && ia == ib
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
	if strings.Contains(c.args[0].val, "/") && c.asCalled == "" {
		g.executable(c)
	}
	if next, ok := g.wrapper(c); ok {
		if next == nil {
			return nil, false
		}
		return next, true
	}
	g.cmds.Program(c)
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
		g.hold("The code %s runs comes from %s cannot be checked before it runs.", origin, and(s.text()))
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
			g.hold("The code %s runs comes from %s cannot be checked before it runs.", origin, and(c.env.stdin.what()))
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
		ip := g.cmds.Interp(interp)
		switch {
		case isShell(interp):
		case ip != nil:
			lang = ip.Lang()
			defer ip.Unfollowed(g, c.args[0])
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
	if hasMarker(text) {
		s, _ := g.sourceOf(text)
		g.hold("The code %s runs comes from %s cannot be checked before it runs.", origin, and(s.text()))
	}
	g.cmds.Code(st, lang, text, origin)
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
		g.hold("The script %s runs comes from %s cannot be checked before it runs.", origin, and(g.argSource(a).text()))
		return
	}
	switch a.val {
	case "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "-":
		text, ok := g.inputText(st.stdin)
		if !ok {
			g.hold("The code %s runs comes from %s cannot be checked before it runs.", origin, and(st.stdin.what()))
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
