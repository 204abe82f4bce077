package tools

import (
	"slices"
	"strings"
)

// This file reads an interpreter's command line by its row of the
// interpreter table (shellguard_interp.go) and follows the code it runs.

// codeArg is one piece of code given to an interpreter, or a script file,
// with the option that gave it.
type codeArg struct {
	flag string
	arg  shArg
}

// invocation is what an interpreter's command line gives it to run.
type invocation struct {
	codes  []codeArg // inline code, in order
	files  []codeArg // script files named by options
	script *shArg    // the script operand
	params []shArg   // the arguments after the script or the code
	stdin  bool      // the code comes from standard input
	verb   bool      // a subcommand the interpreter check leaves alone
	none   bool      // an option says nothing is run (python -m, tcc without -run)
	rest   []shArg   // a command line the program runs (gdb --args …)
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
func (s *interpreterSpec) isOption(a shArg) bool {
	v := a.val
	if a.dynamic() || len(v) < 2 {
		return false
	}
	return v[0] == '-' || s.plus && v[0] == '+'
}

// parse reads an interpreter's command line.
func (s *interpreterSpec) parse(args []shArg) invocation {
	var inv invocation
	required := len(s.requires) == 0
	codeMode := false
	var ops []shArg
	i := 0
	take := func() (shArg, bool) {
		if i+1 < len(args) {
			i++
			return args[i], true
		}
		return shArg{}, false
	}
	addCode := func(flag string, a shArg) {
		inv.codes = append(inv.codes, codeArg{flag, a})
	}
	// option judges one option word; it reports false when what follows
	// is no longer the interpreter's (code that stops the options, rest).
	var option func(a shArg) bool
	option = func(a shArg) bool {
		v := a.val
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
				addCode("+", shArg{val: cmd, raw: a.rawText(), lost: a.lost})
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
			arg := shArg{val: val, raw: a.rawText(), lost: a.lost}
			if !has && kind != 4 {
				var more bool
				if arg, more = take(); !more {
					return true
				}
			}
			switch kind {
			case 0:
				if s.fold && !arg.dynamic() && arg.val == "-" {
					inv.stdin = true // pwsh -Command - reads its input
					i = len(args)
					return false
				}
				if s.restCode {
					for _, r := range args[i+1:] {
						arg.val += " " + r.val
						arg.lost = max(arg.lost, r.lost)
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
				if !arg.dynamic() {
					arg = shArg{val: decodePwsh(arg.val), raw: arg.rawText()}
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
					return option(shArg{val: o + v[j+1:], raw: a.rawText(), lost: a.lost}) // shorter: no loop
				}
			}
		}
		return true
	}
	for ; i < len(args); i++ {
		a := args[i]
		if s.isOption(a) && len(ops) == 0 {
			if !option(a) {
				if a.val == "--" {
					ops = append(ops, args[i+1:]...)
				}
				break
			}
			continue
		}
		if len(ops) == 0 && !a.dynamic() {
			if slices.Contains(s.subCode, a.val) {
				if code, ok := take(); ok {
					addCode(a.val, code)
				}
				inv.params = args[min(i+1, len(args)):]
				break
			}
			if slices.Contains(s.subPass, a.val) {
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
				code.val += " " + r.val
				code.lost = max(code.lost, r.lost)
			}
			addCode("program", code)
		default:
			addCode("program", ops[0])
			inv.params = ops[1:]
		}
	case "file":
		switch {
		case len(ops) > 0 && ops[0].val == "-" && !ops[0].dynamic():
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
func (g *checker) interpreter(c *shCall) bool {
	spec := interpreterFor(c.base)
	if spec == nil {
		return false
	}
	inv := spec.parse(c.args[1:])
	if inv.verb {
		return false
	}
	name := c.base
	if a := c.args[0]; !a.dynamic() && c.asCalled == "" {
		name = strings.TrimSuffix(a.val[strings.LastIndexAny(a.val, `/\`)+1:], ".exe")
	}
	origin := "`" + name + "`"
	child := c.env.child()
	unfollowed := func(what string) {
		if !spec.follows {
			g.hold("The code %s is %s, which the guard cannot follow, so what it does cannot be checked before it runs.", what, spec.title)
		}
	}
	for _, f := range inv.files {
		g.scriptFile(child, f.arg, origin+" "+f.flag, spec.lang)
		spec.Unfollowed(g.shellGuard, f.arg)
	}
	switch {
	case len(inv.codes) > 0:
		var parts []string
		dyn := shArg{}
		flag := inv.codes[0].flag
		for _, cd := range inv.codes {
			parts = append(parts, cd.arg.val)
			if cd.arg.dynamic() {
				dyn = cd.arg
			}
		}
		o := "`" + name + " " + flag + "`"
		if flag == "" || flag == "program" {
			o = origin
		}
		for _, p := range inv.params {
			child.params = append(child.params, p.val)
		}
		code := shArg{val: strings.Join(parts, "\n"), raw: dyn.rawText(), lost: dyn.lost}
		if code.dynamic() {
			g.hold("The code %s runs comes from %s cannot be checked before it runs.", o, and(g.argSource(code).text()))
		}
		unfollowed(o + " runs")
		g.scanCode(child, spec.lang, code.val, o, true)
	case inv.script != nil:
		for _, p := range inv.params {
			child.params = append(child.params, p.val)
		}
		g.scriptFile(child, *inv.script, origin, spec.lang)
		spec.Unfollowed(g.shellGuard, *inv.script)
	}
	if inv.stdin {
		g.stdinCode(spec, c, child, origin)
	}
	if len(inv.rest) > 0 {
		g.command(nil, c.env, inv.rest, c.src)
	}
	return true
}

// stdinCode follows the code an interpreter reads from standard input.
func (g *checker) stdinCode(spec *interpreterSpec, c *shCall, child *shState, origin string) {
	text, ok := g.inputText(c.env.stdin)
	switch {
	case !ok && c.env.stdin.file:
		// A file too large to read (mysql db < dump.sql), or missing: as
		// a script operand, it runs without asking.
		spec.Unfollowed(g.shellGuard, known(strings.TrimPrefix(c.env.stdin.desc, "the file ")))
		return
	case !ok:
		g.hold("The code %s runs comes from %s cannot be checked before it runs.", origin, and(c.env.stdin.what()))
		return
	}
	if strings.TrimSpace(text) == "" {
		return
	}
	if hasMarker(text) {
		s, _ := g.sourceOf(text)
		g.hold("The code %s runs comes from %s cannot be checked before it runs.", origin, and(s.text()))
	}
	switch {
	case c.env.stdin.file:
		// cmd < script.R is a script, judged as one.
		spec.Unfollowed(g.shellGuard, known(strings.TrimPrefix(c.env.stdin.desc, "the file ")))
		g.scanCode(child, spec.lang, text, origin+" (from "+c.env.stdin.desc+")", false)
		return
	case !spec.follows:
		g.hold("The code %s reads from its input is %s, which the guard cannot follow, so what it does cannot be checked before it runs.", origin, spec.title)
	}
	g.scanCode(child, spec.lang, text, origin+" (from its input)", c.env.stdin.set)
}

// Lang implements guardInterp.
func (s *interpreterSpec) Lang() string { return s.lang }

// Unfollowed implements guardInterp: it warns that a script of a language
// the guard does not follow was checked only for its obvious destructive
// calls.
func (s *interpreterSpec) Unfollowed(g *shellGuard, a shArg) {
	if s.follows || a.dynamic() {
		return
	}
	g.warn("Runs the %s script %s; the guard cannot follow %s, so it checked only its obvious destructive calls.", s.title, a.val, s.title)
}
