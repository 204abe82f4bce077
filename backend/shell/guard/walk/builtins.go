package tools

import (
	"fmt"
	"os/user"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// This file handles the shell's own commands that change its state or run
// code in it: cd, set, shift, shopt, read, mapfile, eval, source, trap,
// alias and the declarations.

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
		desc := "what `read` reads from " + st.stdin.what()
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
		st.setVar(name, expand.Variable{Set: true, Kind: expand.Indexed, List: []string{g.unknown(source{desc: "what `" + args[0].val + "` reads from " + st.stdin.what()})}})
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
		st.cwd, st.cwdWhy = "", "`cd "+target.rawText()+"` goes to "+g.argSource(target).text()
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
		c.cwd, c.cwdWhy = "", "the folder `"+dir.rawText()+"` comes from "+g.argSource(dir).text()
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
