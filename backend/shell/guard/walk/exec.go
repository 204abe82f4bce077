package walk

import (
	"os"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Call is one simple command being checked.
type Call struct {
	// Shell is the shell whose builtins the command may be (cd, set, read…);
	// nil once a wrapper has made it a program of its own.
	Shell *State
	// Env is what the command's process sees: variables, folder, stdin.
	Env *State
	// Args are the command's fields, the program's name first.
	Args []Arg
	// Base is the name the program is judged as (CommandBase of what it
	// really runs).
	Base string
	// Src is the command as written, for messages.
	Src *Src
	// Label, when set, names the command in messages instead (a call in
	// interpreter code).
	Label string
	text  string // Text, once built
	// AsCalled, when set, is the name the program is judged as instead of
	// what its file is (the name a link to a multi-call program gives it).
	AsCalled string
}

// Text names the command in messages.
func (c *Call) Text() string {
	if c.Label != "" {
		return c.Label
	}
	if c.text != "" {
		return c.text
	}
	c.text = c.buildText()
	return c.text
}

func (c *Call) buildText() string {
	shownArgs := Display(c.Args)
	if src := c.Src.String(); src != "" && Clip(src, 120) != shownArgs {
		if strings.HasPrefix(src, "`") {
			return src + " (which runs `" + shownArgs + "`)" // already a label: `system` in `perl -e`
		}
		return "`" + Clip(src, 100) + "` (which runs `" + shownArgs + "`)"
	}
	return "`" + shownArgs + "`"
}

// Src is a command as written, printed only when a message needs it.
type Src struct {
	node syntax.Node
	// Text is the command as written; empty until String prints it.
	Text string
}

// String is the command as written (printed from its node when no text
// was given).
func (s *Src) String() string {
	if s == nil {
		return ""
	}
	if s.Text == "" && s.node != nil {
		s.Text = Print(s.node)
	}
	return s.Text
}

// Command checks a simple command given as expanded fields, peeling off
// wrappers and following the code it hands to other programs.
func (g *Walker) Command(st, env *State, args []Arg, src *Src) {
	g.peel(&Call{Shell: st, Env: env, Args: args, Src: src}, 0)
}

// peel checks c and, layer by layer, the commands it wraps.
func (g *Walker) peel(c *Call, layer int) {
	for ; len(c.Args) > 0 && layer < maxWrapperLayers; layer++ {
		name := c.Args[0]
		if c.AsCalled == "" {
			if name.Dynamic() {
				g.Hold("The command name `%s` comes from %s cannot be checked before it runs.", Clip(name.RawText(), 60), And(g.ArgSource(name).Text()))
				g.CheckPaths(c.Env, c.Args[1:])
				return
			}
			if p, ok := c.Env.hashed[name.Val]; ok && c.Shell != nil {
				c.Args = append([]Arg{Known(p)}, c.Args[1:]...)
				name = c.Args[0]
			}
		}
		alias := ""
		if c.AsCalled != "" {
			c.Base = c.AsCalled
		} else {
			c.Base, alias = g.programNames(c.Env, name.Val)
		}
		if g.collect && c.AsCalled == "" {
			words := make([]string, len(c.Args))
			for i, a := range c.Args {
				words[i] = Shown(a.Val)
			}
			g.collected = append(g.collected, words)
		}
		if c.Shell != nil && !strings.Contains(name.Val, "/") && len(c.Shell.funcs[name.Val]) > 0 {
			// Functions come before builtins and programs. The program of
			// the same name is checked too: the function may call it, or
			// may not be defined on every path.
			g.callFunc(c.Shell, name.Val, c.Args[1:])
		}
		if msg, ok := privileged[c.Base]; ok {
			g.Warn("%s", msg)
		}
		if alias != "" && !g.sameProgram(c.Base, alias) {
			// A link to a multi-call program (systemctl, busybox, systemd)
			// acts as the name it is called by; any other program acts as
			// what it is. The guard cannot tell which, so it judges both.
			as := &Call{Env: c.Env, Args: c.Args, Src: c.Src, Label: c.Label, AsCalled: alias}
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
func (g *Walker) programNames(env *State, name string) (base, alias string) {
	called := CommandBase(name)
	if !strings.Contains(name, "/") {
		return called, ""
	}
	p, ok := g.AbsPath(env, name)
	if !ok {
		return called, ""
	}
	for range 8 {
		src, ok := g.Copies[p]
		if !ok {
			break
		}
		p = src
	}
	if r := CommandBase(g.RealPath(p)); r != called {
		return r, called
	}
	if r := CommandBase(p); r != called {
		return r, called
	}
	return called, ""
}

// sameProgram reports whether two names of one file are judged alike (sh
// and dash are both shells, python3 and python3.11 both Python), so that
// judging the file under both would only repeat the work.
func (g *Walker) sameProgram(a, b string) bool {
	if a == b || IsShell(a) && IsShell(b) {
		return true
	}
	ia, ib := g.cmds.Interp(a), g.cmds.Interp(b)
	return ia != nil && ia == ib
}

// dispatch checks one command and returns the command it wraps, if any.
func (g *Walker) dispatch(c *Call) (*Call, bool) {
	if c.Shell != nil {
		if g.builtin(c) {
			return nil, false
		}
	}
	if IsShell(c.Base) {
		g.shell(c)
		return nil, false
	}
	if strings.Contains(c.Args[0].Val, "/") && c.AsCalled == "" {
		g.executable(c)
	}
	if next, ok := g.wrapper(c); ok {
		if next == nil {
			return nil, false
		}
		return next, true
	}
	g.cmds.Program(*c)
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

// IsShell reports whether base is a shell that runs scripts given with -c.
func IsShell(base string) bool {
	switch base {
	case "sh", "bash", "zsh", "dash", "ksh", "ksh93", "mksh", "ash", "fish", "yash", "posh", "rbash", "csh", "tcsh", "lksh", "oksh", "loksh", "bosh", "hush":
		return true
	}
	return false
}

// Code checks a script given as text (bash -c, eval, a sourced file). Text
// built from unknown values is held: bash parses it again, so an unknown
// part may be any code.
func (g *Walker) Code(st *State, text, origin string) {
	if HasMarker(text) {
		s, _ := g.SourceOf(text)
		g.Hold("The code %s runs comes from %s cannot be checked before it runs.", origin, And(s.Text()))
	}
	g.script(st, text, g.Depth+1, origin)
}

// shell follows what a shell runs: -c code, a script file, or its input.
func (g *Walker) shell(c *Call) {
	child := c.Env.Child()
	args := c.Args
	i, hasC, fromStdin := 1, false, false
	for ; i < len(args); i++ {
		v := args[i].Val
		if args[i].Dynamic() {
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
					g.ScriptFile(child, args[i+1], "`"+c.Base+" "+v+"`", "sh")
				}
			}
			i++
		case strings.HasPrefix(v, "--"):
			if v == "--command" && c.Base == "fish" {
				hasC = true
			}
		case v[0] == '-':
			hasC = hasC || strings.Contains(v[1:], "c")
			fromStdin = fromStdin || strings.Contains(v[1:], "s")
		}
	}
	if be := (guardEnv{g, c.Env}).Get("BASH_ENV"); (c.Base == "bash" || c.Base == "rbash") && be.Set && be.Str != "" {
		g.ScriptFile(child, Arg{Val: be.Str, Raw: "$BASH_ENV"}, "`$BASH_ENV`", "sh")
	}
	ops := args[min(i, len(args)):]
	origin := "`" + c.Base + "`"
	switch {
	case hasC && len(ops) > 0:
		if len(ops) > 1 {
			child.arg0 = ops[1].Val
			for _, p := range ops[2:] {
				child.Params = append(child.Params, p.Val)
			}
		}
		script := ops[0]
		if script.Lost > 0 && !HasMarker(script.Val) {
			script.Val += string(rune(markerBase + script.Lost))
		}
		g.Code(child, script.Val, "`"+c.Base+" -c`")
	case !fromStdin && len(ops) > 0:
		child.arg0 = ops[0].Val
		for _, p := range ops[1:] {
			child.Params = append(child.Params, p.Val)
		}
		g.ScriptFile(child, ops[0], origin, "sh")
	default:
		for _, p := range ops {
			child.Params = append(child.Params, p.Val)
		}
		text, ok := g.InputText(c.Env.Stdin)
		if !ok {
			g.Hold("The code %s runs comes from %s cannot be checked before it runs.", origin, And(c.Env.Stdin.What()))
			return
		}
		child.Stdin = Input{}
		g.Code(child, text, origin+" (from its input)")
	}
}

// executable follows a program named by its path: a script the guard can
// read is checked like the code of its interpreter.
func (g *Walker) executable(c *Call) {
	p, ok := g.AbsPath(c.Env, c.Args[0].Val)
	if !ok {
		return
	}
	text, known, exists := g.FileText(c.Env, p)
	switch {
	case !exists:
		return
	case !known:
		g.Hold("The program %s is written by %s earlier in this command, so what it does cannot be checked before it runs.", c.Args[0].Val, text)
		return
	}
	lang := "sh"
	if first, _, _ := strings.Cut(text, "\n"); strings.HasPrefix(first, "#!") {
		fields := strings.Fields(first[2:])
		if len(fields) == 0 {
			return
		}
		interp := CommandBase(fields[0])
		if interp == "env" && len(fields) > 1 {
			interp = CommandBase(fields[len(fields)-1])
			if fields[1] == "-S" && len(fields) > 2 {
				interp = CommandBase(fields[2])
			}
		}
		ip := g.cmds.Interp(interp)
		switch {
		case IsShell(interp):
		case ip != nil:
			lang = ip.Lang()
			defer ip.Unfollowed(g, c.Args[0])
		default:
			return
		}
	} else if strings.ContainsRune(text, 0) {
		return // a binary program
	}
	child := c.Env.Child()
	child.arg0 = c.Args[0].Val
	for _, a := range c.Args[1:] {
		child.Params = append(child.Params, a.Val)
	}
	g.checkSource(child, text, lang, "the script "+c.Args[0].Val)
}

// checkSource checks the text of a program in its language.
func (g *Walker) checkSource(st *State, text, lang, origin string) {
	if lang == "sh" {
		g.Code(st, text, origin)
		return
	}
	if HasMarker(text) {
		s, _ := g.SourceOf(text)
		g.Hold("The code %s runs comes from %s cannot be checked before it runs.", origin, And(s.Text()))
	}
	g.cmds.Scan(st, lang, text, origin)
}

// maxScriptBytes bounds the script files the guard reads.
const maxScriptBytes = 512 << 10

// FileText returns a file's text as the command will see it: what the
// script wrote to it, or what is on disk. When the content cannot be known
// (known false), text names the command that writes it.
func (g *Walker) FileText(st *State, p string) (text string, known, exists bool) {
	if n, ok := g.Written[p]; ok {
		if n.writer != nil {
			return g.sandbox(n.wst, []*syntax.Stmt{n.writer}, n.wst.Stdin), true, true
		}
		return "`" + n.By + "`", false, true
	}
	if pr, ok := g.procs[p]; ok {
		return g.sandbox(pr.st, pr.node.Stmts, Input{}), true, true
	}
	fi, err := os.Stat(p)
	if err != nil {
		if g.Dirty != "" {
			return "`" + g.Dirty + "`", false, true
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

// ScriptFile checks a script file a shell or source runs.
func (g *Walker) ScriptFile(st *State, a Arg, origin, lang string) {
	if a.Dynamic() {
		g.Hold("The script %s runs comes from %s cannot be checked before it runs.", origin, And(g.ArgSource(a).Text()))
		return
	}
	switch a.Val {
	case "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "-":
		text, ok := g.InputText(st.Stdin)
		if !ok {
			g.Hold("The code %s runs comes from %s cannot be checked before it runs.", origin, And(st.Stdin.What()))
			return
		}
		g.checkSource(st, text, lang, origin+" (from its input)")
		return
	}
	p, ok := g.AbsPath(st, a.Val)
	if !ok {
		g.Hold("The script %s runs (%s) is in a folder the guard cannot follow (%s), so it cannot be checked before it runs.", origin, a.Val, st.cwdWhy)
		return
	}
	g.CheckPaths(st, []Arg{a})
	text, known, exists := g.FileText(st, p)
	switch {
	case !exists:
	case !known:
		g.Hold("The script %s runs (%s) is written by %s earlier in this command, so it cannot be checked before it runs.", origin, a.Val, text)
	default:
		g.checkSource(st, text, lang, origin+" "+a.Val)
	}
}
