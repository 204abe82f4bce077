package guard

import (
	"slices"
	"strings"
	"tinyelf/backend/shell/guard/walk"
)

// This file reads an interpreter's command line by its row of the
// interpreter table (interp.go) and follows the code it runs.

// codeArg is one piece of code given to an interpreter, or a script file,
// with the option that gave it.
type codeArg struct {
	flag string
	arg  walk.Arg
}

// invocation is what an interpreter's command line gives it to run.
type invocation struct {
	codes  []codeArg  // inline code, in order
	files  []codeArg  // script files named by options
	script *walk.Arg  // the script operand
	params []walk.Arg // the arguments after the script or the code
	stdin  bool       // the code comes from standard input
	verb   bool       // a subcommand the interpreter check leaves alone
	none   bool       // an option says nothing is run (python -m, tcc without -run)
	rest   []walk.Arg // a command line the program runs (gdb --args …)
}

// match reports whether option v is one of opts, and returns the option
// as written without its value and the value it carries attached
// ("--eval=CODE", and "-eCODE" for getopt programs).
func (s *interpreterSpec) match(v string, opts []string) (opt, attached string, hasValue, ok bool) {
	name, val, eq := strings.Cut(v, "=")
	for _, o := range opts {
		switch {
		case v == o || s.fold && strings.EqualFold(v, o):
			return v, "", false, true
		case eq && len(o) > 2 && (name == o || s.fold && strings.EqualFold(name, o)):
			return name, val, true, true
		}
	}
	if s.fold && len(v) >= 3 {
		lv := strings.ToLower(name)
		for _, o := range opts {
			if len(o) > len(lv) && strings.HasPrefix(o, lv) {
				return name, val, eq, true
			}
		}
	}
	if s.getopt && len(v) > 2 && v[1] != '-' {
		for _, o := range opts {
			if len(o) == 2 && strings.HasPrefix(v, o) {
				return o, v[2:], true, true
			}
		}
	}
	return "", "", false, false
}

// isOption reports whether a word is an option of the program.
func (s *interpreterSpec) isOption(a walk.Arg) bool {
	v := a.Val
	if a.Dynamic() || len(v) < 2 {
		return false
	}
	return v[0] == '-' || s.plus && v[0] == '+'
}

// parse reads an interpreter's command line.
func (s *interpreterSpec) parse(args []walk.Arg) invocation {
	var inv invocation
	required := len(s.requires) == 0
	codeMode := false
	var ops []walk.Arg
	i := 0
	take := func() (walk.Arg, bool) {
		if i+1 < len(args) {
			i++
			return args[i], true
		}
		return walk.Arg{}, false
	}
	addCode := func(flag string, a walk.Arg) {
		inv.codes = append(inv.codes, codeArg{flag, a})
	}
	// option judges one option word; it reports false when what follows
	// is no longer the interpreter's (code that stops the options, rest).
	var option func(a walk.Arg) bool
	option = func(a walk.Arg) bool {
		v := a.Val
		if v == "--" {
			return false
		}
		if slices.Contains(s.rest, v) {
			inv.rest = args[i+1:]
			i = len(args)
			return false
		}
		if s.plus && v[0] == '+' {
			cmd := v[1:]
			if cmd != "" && strings.Trim(cmd, "0123456789") != "" && cmd[0] != '/' && cmd[0] != '?' {
				addCode("+", walk.Arg{Val: cmd, Raw: a.RawText(), Lost: a.Lost})
			}
			return true
		}
		if slices.Contains(s.requires, v) {
			required = true
			return true
		}
		if slices.Contains(s.stop, v) || s.getopt && len(v) > 2 && v[1] != '-' && slices.Contains(s.stop, v[:2]) {
			inv.none = true
			i = len(args)
			return false
		}
		if slices.Contains(s.argsAfter, v) {
			inv.params = append(inv.params, args[i+1:]...)
			i = len(args)
			return false
		}
		if _, _, _, ok := s.match(v, s.stdinWith); ok && !strings.Contains(v, "=") {
			inv.stdin = true
			return true
		}
		if _, _, _, ok := s.match(v, s.codeMode); ok {
			codeMode = true
			return true
		}
		for _, kind := range []int{0, 1, 2, 3, 4} {
			list := [][]string{s.code, s.encoded, s.files, s.values, s.attachedOnly}[kind]
			opt, val, has, ok := s.match(v, list)
			if !ok {
				continue
			}
			arg := walk.Arg{Val: val, Raw: a.RawText(), Lost: a.Lost}
			if !has && kind != 4 {
				var more bool
				if arg, more = take(); !more {
					return true
				}
			}
			switch kind {
			case 0:
				if s.fold && !arg.Dynamic() && arg.Val == "-" {
					inv.stdin = true // pwsh -Command - reads its input
					i = len(args)
					return false
				}
				if s.restCode {
					for _, r := range args[i+1:] {
						arg.Val += " " + r.Val
						arg.Lost = max(arg.Lost, r.Lost)
					}
					i = len(args)
				}
				addCode(opt, arg)
				if s.codeStops {
					inv.params = args[min(i+1, len(args)):]
					i = len(args)
					return false
				}
			case 1:
				if !arg.Dynamic() {
					arg = walk.Arg{Val: decodePwsh(arg.Val), Raw: arg.RawText()}
				}
				addCode(opt, arg)
				i = len(args)
				return false
			case 2:
				inv.files = append(inv.files, codeArg{opt, arg})
			}
			return true
		}
		if s.getopt && len(v) > 2 && v[1] != '-' {
			// A cluster of short flags: the first that takes a value takes
			// the rest of the word, or the next one.
			for j := 2; j < len(v); j++ {
				o := "-" + v[j:j+1]
				if slices.Contains(s.code, o) || slices.Contains(s.files, o) || slices.Contains(s.values, o) || slices.Contains(s.stop, o) {
					return option(walk.Arg{Val: o + v[j+1:], Raw: a.RawText(), Lost: a.Lost}) // shorter: no loop
				}
			}
		}
		return true
	}
	for ; i < len(args); i++ {
		a := args[i]
		if s.isOption(a) && len(ops) == 0 {
			if !option(a) {
				if a.Val == "--" {
					ops = append(ops, args[i+1:]...)
				}
				break
			}
			continue
		}
		if len(ops) == 0 && !a.Dynamic() {
			if slices.Contains(s.subCode, a.Val) {
				if code, ok := take(); ok {
					addCode(a.Val, code)
				}
				inv.params = args[min(i+1, len(args)):]
				break
			}
			if slices.Contains(s.subPass, a.Val) {
				continue
			}
		}
		ops = append(ops, args[i:]...)
		break
	}
	if !required {
		inv.none = true
		return inv
	}
	if inv.none {
		return inv
	}
	if codeMode {
		for _, o := range ops {
			addCode("--eval", o)
		}
		return inv
	}
	if len(inv.codes) > 0 && s.operand != "db" {
		inv.params = append(inv.params, ops...)
		inv.stdin = inv.stdin || s.cmdStdin && s.stdin
		return inv
	}
	switch s.operand {
	case "code":
		switch {
		case len(inv.files) > 0 || len(ops) == 0:
		case s.restCode:
			code := ops[0]
			for _, r := range ops[1:] {
				code.Val += " " + r.Val
				code.Lost = max(code.Lost, r.Lost)
			}
			addCode("program", code)
		default:
			addCode("program", ops[0])
			inv.params = ops[1:]
		}
	case "file":
		switch {
		case len(ops) > 0 && ops[0].Val == "-" && !ops[0].Dynamic():
			inv.stdin = true
			inv.params = ops[1:]
		case len(ops) > 0:
			inv.script = &ops[0]
			inv.params = ops[1:]
		}
	case "db":
		for _, o := range ops[min(1, len(ops)):] {
			addCode("", o)
		}
		if s.cmdStdin && len(ops) <= 1 {
			inv.stdin = true
		}
	case "verb":
		if len(ops) > 0 && len(inv.files) == 0 {
			inv.verb = true
		}
	}
	if len(inv.codes) == 0 && inv.script == nil && len(inv.files) == 0 && s.stdin {
		inv.stdin = true
	}
	return inv
}

// interpreter follows the code an interpreter runs. It reports whether
// base is an interpreter it handled.
func (g *checker) interpreter(c *walk.Call) bool {
	spec := interpreterFor(c.Base)
	if spec == nil {
		return false
	}
	inv := spec.parse(c.Args[1:])
	if inv.verb {
		return false
	}
	name := c.Base
	if a := c.Args[0]; !a.Dynamic() && c.AsCalled == "" {
		name = strings.TrimSuffix(a.Val[strings.LastIndexAny(a.Val, `/\`)+1:], ".exe")
	}
	origin := "`" + name + "`"
	child := c.Env.Child()
	unfollowed := func(what string) {
		if !spec.follows {
			g.Hold("The code %s is %s, which the guard cannot follow, so what it does cannot be checked before it runs.", what, spec.title)
		}
	}
	for _, f := range inv.files {
		g.ScriptFile(child, f.arg, origin+" "+f.flag, spec.lang)
		spec.Unfollowed(g.Walker, f.arg)
	}
	switch {
	case len(inv.codes) > 0:
		var parts []string
		dyn := walk.Arg{}
		flag := inv.codes[0].flag
		for _, cd := range inv.codes {
			parts = append(parts, cd.arg.Val)
			if cd.arg.Dynamic() {
				dyn = cd.arg
			}
		}
		o := "`" + name + " " + flag + "`"
		if flag == "" || flag == "program" {
			o = origin
		}
		for _, p := range inv.params {
			child.Params = append(child.Params, p.Val)
		}
		code := walk.Arg{Val: strings.Join(parts, "\n"), Raw: dyn.RawText(), Lost: dyn.Lost}
		if code.Dynamic() {
			g.Hold("The code %s runs comes from %s cannot be checked before it runs.", o, walk.And(g.ArgSource(code).Text()))
		}
		unfollowed(o + " runs")
		g.scanCode(child, spec.lang, code.Val, o, true)
	case inv.script != nil:
		for _, p := range inv.params {
			child.Params = append(child.Params, p.Val)
		}
		g.ScriptFile(child, *inv.script, origin, spec.lang)
		spec.Unfollowed(g.Walker, *inv.script)
	}
	if inv.stdin {
		g.stdinCode(spec, c, child, origin)
	}
	if len(inv.rest) > 0 {
		g.Command(nil, c.Env, inv.rest, c.Src)
	}
	return true
}

// stdinCode follows the code an interpreter reads from standard input.
func (g *checker) stdinCode(spec *interpreterSpec, c *walk.Call, child *walk.State, origin string) {
	text, ok := g.InputText(c.Env.Stdin)
	switch {
	case !ok && c.Env.Stdin.File:
		// A file too large to read (mysql db < dump.sql), or missing: as
		// a script operand, it runs without asking.
		spec.Unfollowed(g.Walker, walk.Known(strings.TrimPrefix(c.Env.Stdin.Desc, "the file ")))
		return
	case !ok:
		g.Hold("The code %s runs comes from %s cannot be checked before it runs.", origin, walk.And(c.Env.Stdin.What()))
		return
	}
	if strings.TrimSpace(text) == "" {
		return
	}
	if walk.HasMarker(text) {
		s, _ := g.SourceOf(text)
		g.Hold("The code %s runs comes from %s cannot be checked before it runs.", origin, walk.And(s.Text()))
	}
	switch {
	case c.Env.Stdin.File:
		// cmd < script.R is a script, judged as one.
		spec.Unfollowed(g.Walker, walk.Known(strings.TrimPrefix(c.Env.Stdin.Desc, "the file ")))
		g.scanCode(child, spec.lang, text, origin+" (from "+c.Env.Stdin.Desc+")", false)
		return
	case !spec.follows:
		g.Hold("The code %s reads from its input is %s, which the guard cannot follow, so what it does cannot be checked before it runs.", origin, spec.title)
	}
	g.scanCode(child, spec.lang, text, origin+" (from its input)", c.Env.Stdin.Set)
}

// Lang implements walk.Interpreter.
func (s *interpreterSpec) Lang() string { return s.lang }

// Unfollowed implements walk.Interpreter: it warns that a script of a language
// the guard does not follow was checked only for its obvious destructive
// calls.
func (s *interpreterSpec) Unfollowed(g *walk.Walker, a walk.Arg) {
	if s.follows || a.Dynamic() {
		return
	}
	g.Warn("Runs the %s script %s; the guard cannot follow %s, so it checked only its obvious destructive calls.", s.title, a.Val, s.title)
}
