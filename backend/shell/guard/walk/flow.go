package walk

import (
	"fmt"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// pipeline walks the stages of a pipeline, each in a subshell, with the
// output of one stage as the next stage's input.
func (g *Walker) pipeline(st *State, b *syntax.BinaryCmd) {
	var stages []*syntax.Stmt
	var flatten func(s *syntax.Stmt)
	flatten = func(s *syntax.Stmt) {
		if bc, ok := s.Cmd.(*syntax.BinaryCmd); ok && (bc.Op == syntax.Pipe || bc.Op == syntax.PipeAll) && len(s.Redirs) == 0 && !s.Background {
			flatten(bc.X)
			flatten(bc.Y)
			return
		}
		stages = append(stages, s)
	}
	flatten(b.X)
	flatten(b.Y)
	var prev *syntax.Stmt
	var prevState *State
	for _, s := range stages {
		c := st.Clone()
		if prev != nil {
			c.Stdin = Input{Set: true, producer: prev, pst: prevState}
			c.Stdin.under, c.Stdin.all, c.Stdin.nul = g.findOutput(prevState, prev)
		}
		prevState = c.Clone()
		g.stmt(c, s)
		prev = s
	}
}

// FindStarts splits find's arguments into its starting points and its
// expression.
func FindStarts(args []Arg) (starts, expr []Arg) {
	i := 0
	for i < len(args) && (args[i].Val == "-H" || args[i].Val == "-L" || args[i].Val == "-P" || strings.HasPrefix(args[i].Val, "-O") || args[i].Val == "-D") {
		if args[i].Val == "-D" {
			i++
		}
		i++
	}
	for ; i < len(args); i++ {
		v := args[i].Val
		if !args[i].Dynamic() && (strings.HasPrefix(v, "-") || v == "(" || v == "!" || v == ")" || v == ",") {
			break
		}
		starts = append(starts, args[i])
	}
	if len(starts) == 0 {
		starts = []Arg{Known(".")}
	}
	return starts, args[min(i, len(args)):]
}

// FindSelects reports whether a find expression narrows what it matches
// (a name, a time, a size…) rather than matching everything. An "or" or a
// negation may widen it again, so they count as matching everything.
func FindSelects(expr []Arg) bool {
	selects := false
	for i := 0; i < len(expr); i++ {
		v := expr[i].Val
		switch v {
		case "-o", "-or", "!", "-not", ",":
			return false
		case "-type", "-xtype", "-maxdepth", "-mindepth", "-regextype", "-files0-from":
			i++
		case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-lname", "-ilname":
			if i+1 < len(expr) && !everything(expr[i+1].Val) && expr[i+1].Val != "*" && expr[i+1].Val != ".*" {
				selects = true
			}
			i++
		case "-exec", "-execdir", "-ok", "-okdir":
			for i < len(expr) && expr[i].Val != ";" && expr[i].Val != "+" {
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

// findOutput recognises `find START … -print0`, whose output is NUL
// separated paths under START: a consumer that splits on NUL gets paths it
// can judge.
func (g *Walker) findOutput(st *State, s *syntax.Stmt) (under string, all, nul bool) {
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 || call.Args[0].Lit() != "find" {
		return "", false, false
	}
	args := g.fields(st.Clone(), call.Args)
	if !slices.ContainsFunc(args, func(a Arg) bool { return a.Val == "-print0" }) {
		return "", false, false
	}
	starts, expr := FindStarts(args[1:])
	if len(starts) != 1 || starts[0].Dynamic() {
		return "", false, false
	}
	p, ok := g.AbsPath(st, starts[0].Val)
	if !ok {
		return "", false, false
	}
	return p, !FindSelects(expr), true
}

// InputText returns what a command reads on standard input, computing a
// pipeline stage's output in the sandbox. ok is false when it cannot be
// known at all.
func (g *Walker) InputText(in Input) (string, bool) {
	switch {
	case !in.Set:
		return "", true // the Bash tool's stdin is /dev/null
	case in.known:
		return in.text, true
	case in.producer != nil:
		return g.sandbox(in.pst, []*syntax.Stmt{in.producer}, in.pst.Stdin), true
	}
	return "", false
}

// fileInput is the input of `cmd < file`.
func (g *Walker) fileInput(st *State, a Arg) Input {
	if a.Dynamic() {
		return Input{Set: true, Desc: "the file `" + a.RawText() + "`, whose name comes from " + g.ArgSource(a).Text()}
	}
	switch a.Val {
	case "/dev/null":
		return Input{Set: true, known: true}
	case "/dev/stdin", "/dev/fd/0":
		return st.Stdin
	}
	p, ok := g.AbsPath(st, a.Val)
	if !ok {
		return Input{Set: true, Desc: "the file " + a.Val}
	}
	text, known, exists := g.FileText(st, p)
	switch {
	case !exists:
		// Missing, or too large for the guard to read.
		return Input{Set: true, Desc: "the file " + a.Val, File: true}
	case !known:
		return Input{Set: true, Desc: "the file " + a.Val}
	}
	return Input{Set: true, known: true, text: text, Desc: "the file " + a.Val, File: true}
}

// maxInputItems bounds the input items of xargs and parallel checked one by
// one.
const maxInputItems = 16

// xargs checks the command xargs runs with the items it reads.
func (g *Walker) xargs(c *Call) {
	args := c.Args[1:]
	mode, delim, replace := "blank", "", ""
	procs0 := false
	in := c.Env.Stdin
	for len(args) > 0 && strings.HasPrefix(args[0].Val, "-") && !args[0].Dynamic() {
		v := args[0].Val
		args = args[1:]
		value := func() string {
			if len(args) == 0 {
				return ""
			}
			s := args[0].Val
			args = args[1:]
			return s
		}
		switch {
		case v == "--":
			goto done
		case v == "-0" || v == "--null":
			mode = "nul"
		case v == "-d" || v == "--delimiter":
			mode, delim = "delim", unescapeDelim(value())
		case strings.HasPrefix(v, "--delimiter="):
			mode, delim = "delim", unescapeDelim(strings.TrimPrefix(v, "--delimiter="))
		case strings.HasPrefix(v, "-d") && len(v) > 2:
			mode, delim = "delim", unescapeDelim(v[2:])
		case v == "-I":
			replace = value()
			mode = "line"
		case v == "-i" || v == "--replace":
			replace, mode = "{}", "line"
		case strings.HasPrefix(v, "--replace="):
			replace, mode = strings.TrimPrefix(v, "--replace="), "line"
		case strings.HasPrefix(v, "-I") || strings.HasPrefix(v, "-i"):
			replace, mode = v[2:], "line"
		case v == "-a" || v == "--arg-file":
			in = g.fileInput(c.Env, Arg{Val: value()})
		case strings.HasPrefix(v, "--arg-file="):
			in = g.fileInput(c.Env, Known(strings.TrimPrefix(v, "--arg-file=")))
		case v == "-P" || v == "--max-procs":
			procs0 = value() == "0"
		case strings.HasPrefix(v, "--max-procs="):
			procs0 = strings.TrimPrefix(v, "--max-procs=") == "0"
		case v == "-P0":
			procs0 = true
		case slices.Contains([]string{"-n", "--max-args", "-L", "--max-lines", "-s", "--max-chars", "-E", "-e", "--eof", "--process-slot-var"}, v):
			value()
		}
	}
done:
	cmd := args
	if len(cmd) == 0 {
		cmd = []Arg{Known("echo")}
	}
	if procs0 && in.producer != nil {
		if p, ok := in.producer.Cmd.(*syntax.CallExpr); ok && len(p.Args) > 0 && (p.Args[0].Lit() == "yes" || p.Args[0].Lit() == "seq") {
			g.Deny("Refused: %s starts processes without limit from an endless input (a fork bomb).", c.Text())
		}
	}
	var items []string
	text, ok := g.InputText(in)
	if ok && !HasMarker(text) {
		items = splitItems(text, mode, delim)
	} else {
		src := Source{Desc: "`xargs`"}
		if in.nul && mode == "nul" {
			src.Under, src.All = in.under, in.all
			src.Desc = "`xargs` (the paths " + in.What() + " finds)"
		}
		items = []string{g.Unknown(src)}
	}
	if len(items) > maxInputItems {
		items = append(items[:maxInputItems], g.Unknown(Source{Desc: fmt.Sprintf("`xargs` (more than %d items)", maxInputItems)}))
	}
	run := func(words []Arg) {
		g.Command(nil, c.Env, words, c.Src)
	}
	if replace != "" {
		for _, it := range items {
			words := make([]Arg, len(cmd))
			for i, w := range cmd {
				words[i] = w
				words[i].Val = strings.ReplaceAll(w.Val, replace, it)
			}
			run(words)
		}
		return
	}
	words := slices.Clone(cmd)
	for _, it := range items {
		words = append(words, Arg{Val: it, Raw: "(from xargs)"})
	}
	run(words)
}

// unescapeDelim reads xargs -d's delimiter ("\n", "\t", "x").
func unescapeDelim(s string) string {
	switch s {
	case `\n`:
		return "\n"
	case `\t`:
		return "\t"
	case `\0`, "":
		return "\x00"
	}
	return s[:1]
}

// splitItems splits xargs input.
func splitItems(text, mode, delim string) []string {
	switch mode {
	case "nul":
		return slices.DeleteFunc(strings.Split(text, "\x00"), func(s string) bool { return s == "" })
	case "delim":
		return slices.DeleteFunc(strings.Split(text, delim), func(s string) bool { return s == "" })
	case "line":
		var out []string
		for _, l := range strings.Split(text, "\n") {
			if l = strings.TrimLeft(l, " \t"); l != "" {
				out = append(out, l)
			}
		}
		return out
	}
	// xargs' default: blanks separate, quotes and backslashes group.
	f, err := Parse("x " + text)
	if err == nil && len(f.Stmts) == 1 {
		if call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr); ok {
			var out []string
			for _, w := range call.Args[1:] {
				out = append(out, unquoteWord(w))
			}
			return out
		}
	}
	return strings.Fields(text)
}

// unquoteWord removes quotes from a literal word.
func unquoteWord(w *syntax.Word) string {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					b.WriteString(l.Value)
				} else {
					b.WriteString(Print(q))
				}
			}
		default:
			b.WriteString(Print(p))
		}
	}
	return b.String()
}

// parallelValueOpts are GNU parallel's options that take a value.
var parallelValueOpts = []string{"-j", "--jobs", "-S", "--sshlogin", "-a", "--arg-file", "--colsep", "-C", "-d", "--delimiter", "-E", "-I", "--joblog", "--results", "--res", "--timeout", "-n", "-N", "--max-args", "--halt", "--delay", "--load", "--memfree", "--tmpdir", "--workdir", "--wd", "--basefile", "--bf", "--env", "-L", "--max-lines", "-s", "--max-chars", "--tagstring", "--retries", "--sshloginfile", "--slf", "--block", "--rpl", "--tag-string", "--shebang-wrap", "--limit", "--nice", "--hgrp", "--ssh", "--transferfile", "--tf", "--return"}

// parallel checks the command lines GNU parallel builds from its inputs.
func (g *Walker) parallel(c *Call) {
	args := c.Args[1:]
	for len(args) > 0 && strings.HasPrefix(args[0].Val, "-") && !strings.HasPrefix(args[0].Val, ":::") {
		v := args[0].Val
		args = args[1:]
		if slices.Contains(parallelValueOpts, v) && len(args) > 0 {
			args = args[1:]
		}
		if v == "--" {
			break
		}
	}
	var tmpl, inputs []Arg
	fromFiles, sep := false, false
	for _, a := range args {
		switch a.Val {
		case ":::", ":::+":
			sep, fromFiles = true, false
			continue
		case "::::", "::::+":
			sep, fromFiles = true, true
			continue
		}
		if !sep {
			tmpl = append(tmpl, a)
		} else if fromFiles {
			inputs = append(inputs, Arg{Val: g.Unknown(Source{Desc: "`parallel` (the lines of " + a.Val + ")"})})
		} else {
			inputs = append(inputs, a)
		}
	}
	if !sep {
		text, ok := g.InputText(c.Env.Stdin)
		if ok && !HasMarker(text) {
			for _, l := range strings.Split(text, "\n") {
				if l != "" {
					inputs = append(inputs, Known(l))
				}
			}
		} else {
			inputs = []Arg{{Val: g.Unknown(Source{Desc: "`parallel`"})}}
		}
	}
	if len(inputs) > maxInputItems {
		inputs = inputs[:maxInputItems]
	}
	line := JoinArgs(tmpl)
	for _, in := range inputs {
		var text string
		switch {
		case len(tmpl) == 0:
			// No command: every input is a command line of its own.
			g.Code(c.Env.Child(), in.Val, "`parallel`")
			continue
		case strings.Contains(line, "{"):
			q := QuoteArgs([]Arg{in})
			text = line
			for _, r := range []string{"{}", "{.}", "{/}", "{//}", "{/.}", "{1}", "{2}", "{3}"} {
				text = strings.ReplaceAll(text, r, q)
			}
		default:
			text = line + " " + QuoteArgs([]Arg{in})
		}
		if HasMarker(line) {
			g.Code(c.Env.Child(), text, "`parallel`")
			continue
		}
		// The template is known; its inputs are single words.
		g.script(c.Env.Child(), text, g.Depth+1, "`parallel`")
	}
}

// sshValueOpts are ssh's options that take a value.
const sshValueOpts = "bcDEeFIiJLlmOopQRSWw"

// ssh checks the command ssh runs on the other machine, and the local
// commands its options run (ProxyCommand, LocalCommand).
func (g *Walker) ssh(c *Call) {
	args := c.Args[1:]
	for len(args) > 0 && strings.HasPrefix(args[0].Val, "-") && len(args[0].Val) > 1 {
		v := args[0].Val
		args = args[1:]
		if v == "--" {
			break
		}
		last := v[len(v)-1]
		value := ""
		if strings.IndexByte(sshValueOpts, last) >= 0 && len(args) > 0 {
			value = args[0].Val
			args = args[1:]
		} else if i := strings.IndexByte(v, 'o'); i > 0 && i < len(v)-1 {
			value = v[i+1:]
			last = 'o'
		}
		if last == 'o' {
			g.sshOption(c, value)
		}
	}
	if len(args) < 2 {
		return
	}
	remote := c.Env.Child()
	remote.remote, remote.Cwd, remote.cwdWhy = true, g.Home, "the command runs on another machine"
	remote.inherit = false
	if g.Home != "" {
		// Judged as if the other machine were laid out like this one: ~ is
		// the home folder there too.
		remote.vars["HOME"] = expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: g.Home}
	}
	g.Code(remote, JoinArgs(args[1:]), "`ssh "+args[0].Val+"`")
}

// sshOption checks -o options that run local commands.
func (g *Walker) sshOption(c *Call, opt string) {
	key, val, ok := strings.Cut(opt, "=")
	if !ok {
		key, val, _ = strings.Cut(opt, " ")
	}
	switch strings.ToLower(strings.TrimSpace(key)) {
	case "proxycommand", "localcommand", "knownhostscommand", "remotecommand":
		g.Code(c.Env.Child(), val, "`ssh -o "+key+"`")
	}
}

// tmux checks the commands tmux is told to run or to type.
func (g *Walker) tmux(c *Call) {
	args := c.Args[1:]
	for len(args) > 0 && strings.HasPrefix(args[0].Val, "-") {
		if strings.ContainsAny(args[0].Val[len(args[0].Val)-1:], "LSfc") && len(args) > 1 {
			args = args[1:]
		}
		args = args[1:]
	}
	if len(args) == 0 {
		return
	}
	sub := args[0].Val
	var words []Arg
	rest := args[1:]
	for i := 0; i < len(rest); i++ {
		v := rest[i].Val
		if strings.HasPrefix(v, "-") && len(v) > 1 {
			if strings.ContainsAny(v[len(v)-1:], "tsnNcFlexXyTwhzEbdBSPR") && i+1 < len(rest) && !slices.Contains([]string{"-d", "-P", "-R", "-E", "-b", "-h", "-v", "-Z", "-l", "-X"}, v) {
				i++
			}
			continue
		}
		words = append(words, rest[i])
	}
	switch sub {
	case "new-session", "new", "new-window", "neww", "split-window", "splitw", "respawn-pane", "respawnp", "respawn-window", "respawnw", "run-shell", "run", "display-popup", "popup", "pipe-pane", "pipep", "if-shell", "if":
		g.Code(c.Env.Child(), JoinArgs(words), "`tmux "+sub+"`")
	case "send-keys", "send":
		var keys []string
		for _, w := range words {
			switch w.Val {
			case "Enter", "C-m", "KPEnter", "C-j":
				keys = append(keys, "\n")
			default:
				keys = append(keys, w.Val)
			}
		}
		g.Code(c.Env.Child(), strings.Join(keys, " "), "`tmux send-keys`")
	}
}

// checkEnvAssigns warns about prefix assignments that change what a command
// loads or runs.
func (g *Walker) checkEnvAssigns(st *State, as []*syntax.Assign) {
	for _, a := range as {
		if a.Name == nil {
			continue
		}
		v := st.vars[a.Name.Value]
		g.envRisk(a.Name.Value, v.Str)
	}
}

// envRisk warns about environment variables that inject code.
func (g *Walker) envRisk(name, val string) {
	switch {
	case strings.HasPrefix(name, "LD_") || strings.HasPrefix(name, "DYLD_"):
		g.Warn("Sets %s, which makes programs load other code (%s).", name, Clip(val, 60))
	case name == "PATH":
		g.Warn("Changes PATH (%s): commands may run other programs than usual.", Clip(val, 80))
	case name == "BASH_ENV" || name == "ENV" || name == "PROMPT_COMMAND" || name == "GIT_SSH_COMMAND" || name == "GIT_EXTERNAL_DIFF" || name == "PAGER" || name == "GIT_PAGER" || name == "EDITOR" || name == "VISUAL" || name == "NODE_OPTIONS" || name == "PYTHONSTARTUP" || name == "PERL5OPT":
		g.Warn("Sets %s, which makes programs run other code (%s).", name, Clip(val, 60))
	}
}
