package walk

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
func (g *Walker) builtin(c *Call) bool {
	st, args := c.Shell, c.Args
	switch c.Args[0].Val {
	case "cd", "pushd":
		g.checkCd(st, args)
	case "popd":
		st.Cwd, st.cwdWhy = "", "popd returns to a folder the guard did not follow"
	case "set":
		for i := 1; i < len(args); i++ {
			v := args[i].Val
			switch {
			case v == "--" || (v == "-" && i == 1):
				st.Params = nil
				for _, p := range args[i+1:] {
					st.Params = append(st.Params, p.Val)
				}
				return true
			case v == "-a" || v == "-o" && i+1 < len(args) && args[i+1].Val == "allexport":
				st.allexport = true
			case v == "+a" || v == "+o" && i+1 < len(args) && args[i+1].Val == "allexport":
				st.allexport = false
			case v == "-f" || v == "-o" && i+1 < len(args) && args[i+1].Val == "noglob":
				st.glob.noglob = true
			case v == "+f" || v == "+o" && i+1 < len(args) && args[i+1].Val == "noglob":
				st.glob.noglob = false
			case !strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "+"):
				st.Params = nil
				for _, p := range args[i:] {
					st.Params = append(st.Params, p.Val)
				}
				return true
			}
		}
	case "shift":
		n := 1
		if len(args) > 1 {
			if _, err := fmt.Sscanf(args[1].Val, "%d", &n); err != nil || args[1].Dynamic() {
				st.Params = []string{g.Unknown(Source{Desc: "the positional parameters after `" + Display(args) + "`"})}
				return true
			}
		}
		st.Params = st.Params[min(n, len(st.Params)):]
	case "shopt":
		on := slices.ContainsFunc(args, func(a Arg) bool { return a.Val == "-s" })
		for _, a := range args[1:] {
			switch a.Val {
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
			switch a.Val {
			case "-f":
				fn = true
			case "-v", "-n":
			default:
				if fn {
					delete(st.funcs, a.Val)
				} else {
					st.vars[a.Val] = expand.Variable{}
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
		if len(args) < 4 || args[1].Val != "-v" {
			return false
		}
		vals := make([]string, 0, len(args)-4)
		for _, a := range args[4:] {
			vals = append(vals, a.Val)
		}
		out, _, err := expand.Format(nil, args[3].Val, vals)
		if err != nil {
			out = g.Unknown(Source{Desc: "the output of `" + Display(args) + "`"})
		}
		st.setVar(args[2].Val, expand.Variable{Set: true, Kind: expand.String, Str: out})
	case "eval":
		g.Code(st, JoinArgs(args[1:]), "`eval`")
	case "source", ".":
		if len(args) < 2 {
			return true
		}
		if len(args) > 2 {
			saved := st.Params
			st.Params = nil
			for _, p := range args[2:] {
				st.Params = append(st.Params, p.Val)
			}
			defer func() { st.Params = saved }()
		}
		g.ScriptFile(st, args[1], "`"+args[0].Val+"`", "sh")
	case "trap":
		rest := args[1:]
		if len(rest) > 0 && rest[0].Val == "--" {
			rest = rest[1:]
		}
		if len(rest) > 1 && rest[0].Val != "-" && !strings.HasPrefix(rest[0].Val, "-") {
			// The handler runs later (at exit, on a signal): it is walked
			// at the end, with what the script has set by then.
			g.traps = append(g.traps, rest[0].Val)
		}
	case "alias":
		for _, a := range args[1:] {
			if name, val, ok := strings.Cut(a.Val, "="); ok {
				st.aliases[name] = []string{val}
				// The alias may never be used; what it would destroy is
				// refused all the same.
				g.Quiet++
				g.Code(st.Clone(), val, "the alias "+name)
				g.Quiet--
			}
		}
	case "unalias":
		for _, a := range args[1:] {
			delete(st.aliases, a.Val)
		}
	case "hash":
		for i := 1; i+2 < len(args)+1 && i < len(args); i++ {
			if args[i].Val == "-p" && i+2 < len(args) {
				g.Warn("`hash -p` makes `%s` run %s instead of the usual program.", args[i+2].Val, args[i+1].Val)
				if st.hashed == nil {
					st.hashed = map[string]string{}
				}
				st.hashed[args[i+2].Val] = args[i+1].Val
			}
		}
	case "let":
		for _, a := range args[1:] {
			if name, _, ok := strings.Cut(a.Val, "="); ok && syntax.ValidName(strings.TrimRight(name, "+-*/%<>&|^ ")) {
				n := strings.TrimRight(name, "+-*/%<>&|^ ")
				st.setVar(n, g.unknownVar(n, "the variable $"+n+", computed by `let`"))
			}
		}
	case "getopts":
		if len(args) > 2 {
			st.setVar(args[2].Val, g.unknownVar(args[2].Val, "the option `getopts` reads"))
		}
	default:
		return false
	}
	return true
}

// declArgs handles export/declare/local/readonly run as plain commands
// (command export X=1, builtin declare …).
func (g *Walker) declArgs(c *Call) {
	export := c.Args[0].Val == "export"
	for _, a := range c.Args[1:] {
		if strings.HasPrefix(a.Val, "-") {
			export = export || strings.Contains(a.Val, "x")
			continue
		}
		name, val, ok := strings.Cut(a.Val, "=")
		if !syntax.ValidName(name) {
			continue
		}
		v := guardEnv{g, c.Shell}.Get(name)
		if ok {
			v = expand.Variable{Set: true, Kind: expand.String, Str: val}
		}
		v.Exported = v.Exported || export
		c.Shell.setVar(name, v)
	}
}

// readBuiltin gives read's variables the line it reads.
func (g *Walker) readBuiltin(c *Call) {
	st, args := c.Shell, c.Args
	var names []string
	array, delim := "", "\n"
	raw := false
	for i := 1; i < len(args); i++ {
		v := args[i].Val
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
				val = args[i].Val
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
	text, ok := g.InputText(st.Stdin)
	if !ok {
		desc := "what `read` reads from " + st.Stdin.What()
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
func (g *Walker) mapfileBuiltin(c *Call) {
	st, args := c.Shell, c.Args
	name, delim, trim := "MAPFILE", "\n", false
	for i := 1; i < len(args); i++ {
		switch v := args[i].Val; {
		case v == "-t":
			trim = true
		case v == "-d" && i+1 < len(args):
			delim = args[i+1].Val + "\x00"
			i++
		case v == "-n" || v == "-O" || v == "-s" || v == "-u" || v == "-C" || v == "-c":
			i++
		case !strings.HasPrefix(v, "-"):
			name = v
		}
	}
	text, ok := g.InputText(st.Stdin)
	if !ok {
		st.setVar(name, expand.Variable{Set: true, Kind: expand.Indexed, List: []string{g.Unknown(Source{Desc: "what `" + args[0].Val + "` reads from " + st.Stdin.What()})}})
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
func (g *Walker) checkCd(st *State, args []Arg) {
	ops := Operands(args[1:])
	target := Known(g.Home)
	if len(ops) > 0 {
		target = ops[0]
	} else if g.Home == "" {
		st.Cwd, st.cwdWhy = "", "cd went to a home folder the guard does not know"
		return
	}
	if target.Dynamic() {
		st.Cwd, st.cwdWhy = "", "`cd "+target.RawText()+"` goes to "+g.ArgSource(target).Text()
		return
	}
	if target.Val == "-" {
		st.Cwd, st.oldpwd = st.oldpwd, st.Cwd
		if st.Cwd == "" {
			st.cwdWhy = "`cd -` returns to a folder the guard did not follow"
		}
		return
	}
	if cdpath := (guardEnv{g, st}).Get("CDPATH"); cdpath.Set && cdpath.Str != "" && !strings.HasPrefix(target.Val, "/") && !strings.HasPrefix(target.Val, ".") {
		st.Cwd, st.cwdWhy = "", "CDPATH decides where `cd "+target.Val+"` goes"
		return
	}
	p, ok := g.AbsPath(st, target.Val)
	if !ok {
		st.Cwd, st.cwdWhy = "", "cd went where the guard cannot follow"
		return
	}
	if g.WorkspaceDir != "" && !g.Inside(st, p) && !harmlessPath(p) {
		g.Warn("Changes directory outside the workspace: %s", p)
	}
	st.oldpwd, st.Cwd = st.Cwd, p
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

// InDir returns a copy of env whose folder is dir (env --chdir, sudo -D).
func (g *Walker) InDir(env *State, dir Arg) *State {
	c := env.Clone()
	if dir.Dynamic() {
		c.Cwd, c.cwdWhy = "", "the folder `"+dir.RawText()+"` comes from "+g.ArgSource(dir).Text()
		return c
	}
	p, ok := g.AbsPath(env, dir.Val)
	if !ok {
		c.Cwd, c.cwdWhy = "", "it is relative to a folder the guard cannot follow"
		return c
	}
	c.oldpwd, c.Cwd = c.Cwd, p
	return c
}

// withHome returns a copy of env whose HOME is the user's (sudo, su -).
func withHome(env *State, home string) *State {
	c := env.Clone()
	if home == "" {
		c.vars["HOME"] = expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: string(rune(markerBase))}
		return c
	}
	c.vars["HOME"] = expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: path.Clean(home)}
	return c
}
