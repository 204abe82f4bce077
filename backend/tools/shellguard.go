package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Verdict is CheckCommand's judgement of a shell command.
type Verdict struct {
	// Denied is set when the command contains an operation on the deny list
	// (rm -rf /, mkfs, a fork bomb, writing onto a disk device, shutdown…);
	// such a command must not run at all.
	Denied bool
	// Reason explains, for the model and the user, what was refused and why.
	// It is empty unless Denied.
	Reason string
	// Warnings name the high-risk things the command does (sudo, curl | sh,
	// permission changes, recursive deletes, force pushes, paths outside the
	// workspace, parts that could not be checked). The approval UI shows them;
	// they do not stop the command.
	Warnings []string
}

// maxShellDepth bounds how deeply nested scripts (bash -c '…', eval "…",
// heredocs fed to a shell) are parsed; anything deeper is only checked with
// the text patterns of the fallback.
const maxShellDepth = 6

// maxWrapperLayers bounds how many command wrappers (env, sudo, nohup…) are
// peeled off one simple command.
const maxWrapperLayers = 32

// CheckCommand inspects a bash command line before it runs. It parses the
// script with mvdan.cc/sh and checks every simple command in it: in lists,
// pipelines, subshells, command and process substitutions, function bodies and
// compound commands, after removing quotes and escapes and peeling off
// wrappers (env, nohup, sudo, doas, time, nice, timeout, xargs, exec, command,
// builtin, stdbuf, ionice, setsid, busybox…), and it parses the scripts handed
// to bash/sh/zsh -c, eval, su -c, trap, watch, heredocs and echo … | sh in
// turn, up to a depth limit.
//
// A command is denied when it would destroy the system or the user's data
// beyond repair (see Verdict.Denied). High-risk commands only get warnings.
// Paths are judged against ws (nil means no workspace: no outside-path
// warnings). Every path outside the workspace is reported, the temporary
// folder included, except the harmless devices (/dev/null, /dev/stdout…). A
// command name computed at run time ($CMD, $(…)) cannot be checked and gets
// a warning. A script that does not parse is not denied for that alone: it
// gets a warning and is checked against text patterns of the deny list.
//
// CheckCommand never runs anything; it may stat paths named by the command
// (to tell paths from patterns). It is safe for concurrent use.
func CheckCommand(command string, ws *Workspace) Verdict {
	g := newShellGuard(ws)
	g.checkScript(command, 0)
	return g.verdict
}

// shellGuard carries the state of one CheckCommand run: the folder a command
// would run in (tracked through cd), the variables the script assigns, and
// the verdict so far.
type shellGuard struct {
	wsDir   string // "" when there is no workspace
	home    string // "" when unknown
	cwd     string // "" once a cd the guard cannot follow has happened
	vars    map[string]string
	verdict Verdict
	seen    map[string]bool
	pipes   map[*syntax.BinaryCmd]bool
}

func newShellGuard(ws *Workspace) *shellGuard {
	g := &shellGuard{vars: map[string]string{}, seen: map[string]bool{}, pipes: map[*syntax.BinaryCmd]bool{}}
	if ws != nil {
		g.wsDir = ws.Dir()
		g.cwd = ws.Dir()
	}
	if h, err := os.UserHomeDir(); err == nil && filepath.IsAbs(h) {
		g.home = filepath.Clean(h)
	}
	return g
}

// deny records the first reason a command is refused.
func (g *shellGuard) deny(format string, args ...any) {
	if g.verdict.Denied {
		return
	}
	g.verdict.Denied = true
	g.verdict.Reason = fmt.Sprintf(format, args...)
}

// warn adds a warning once.
func (g *shellGuard) warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if g.seen[msg] {
		return
	}
	g.seen[msg] = true
	g.verdict.Warnings = append(g.verdict.Warnings, msg)
}

// checkScript parses src and checks every command in it.
func (g *shellGuard) checkScript(src string, depth int) {
	if depth > maxShellDepth {
		g.warn("Shell commands are nested more than %d levels deep; the innermost ones were only checked against text patterns.", maxShellDepth)
		g.checkText(src)
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		g.warn("The command could not be parsed as a bash script (%v), so it was only checked against text patterns.", err)
		g.checkText(src)
		return
	}
	g.walk(f, src, depth)
}

// walk checks every node of a parsed script.
func (g *shellGuard) walk(root syntax.Node, src string, depth int) {
	// A cd inside a subshell or substitution does not outlast it: remember
	// the folder on entering one and restore it on leaving (Walk reports
	// leaving a node as a nil node).
	type frame struct {
		node syntax.Node
		cwd  string
	}
	var stack []frame
	syntax.Walk(root, func(n syntax.Node) bool {
		if n == nil {
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			switch top.node.(type) {
			case *syntax.Subshell, *syntax.CmdSubst, *syntax.ProcSubst:
				g.cwd = top.cwd
			}
			return true
		}
		stack = append(stack, frame{n, g.cwd})
		switch n := n.(type) {
		case *syntax.Stmt:
			g.checkStmt(n, src, depth)
		case *syntax.BinaryCmd:
			if (n.Op == syntax.Pipe || n.Op == syntax.PipeAll) && !g.pipes[n] {
				g.checkPipeline(n, depth)
			}
		case *syntax.FuncDecl:
			g.checkFuncDecl(n)
		case *syntax.DeclClause:
			g.recordAssigns(n.Args)
		}
		return true
	})
}

// checkStmt checks one statement's redirections and, for a simple command,
// the command itself.
func (g *shellGuard) checkStmt(s *syntax.Stmt, src string, depth int) {
	for _, r := range s.Redirs {
		g.checkRedirect(r)
	}
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok {
		return
	}
	if len(call.Args) == 0 {
		g.recordAssigns(call.Assigns)
		return
	}
	g.checkCall(g.resolveArgs(call.Args), s.Redirs, snippet(src, call), depth)
}

// checkCall checks one simple command given as resolved words, peeling off
// wrappers and recursing into the scripts it hands to other shells.
func (g *shellGuard) checkCall(args []shWord, redirs []*syntax.Redirect, source string, depth int) {
	for layer := 0; len(args) > 0 && layer < maxWrapperLayers; layer++ {
		name := args[0]
		if !name.static {
			g.warn("The command name %s is computed when the script runs, so it could not be checked.", clip(name.raw, 60))
			g.checkPaths(args[1:])
			return
		}
		base := commandBase(name.val)
		if msg, ok := privileged[base]; ok {
			g.warn("%s", msg)
		}
		if script, ok, handled := g.innerScript(base, args, redirs, depth); handled {
			if ok {
				g.checkScript(script, depth+1)
			}
			return
		}
		if rest, ok := peelWrapper(base, args); ok {
			args = rest
			continue
		}
		g.checkSimple(base, args, source, depth)
		return
	}
}

// innerScript handles commands that run a script given as text: shells with
// -c or a heredoc, eval, su -c, env -S, watch, trap, alias. handled reports
// whether base is such a command; ok whether the script is known statically
// (a dynamic one gets a warning here).
func (g *shellGuard) innerScript(base string, args []shWord, redirs []*syntax.Redirect, depth int) (script string, ok, handled bool) {
	dynamic := func(w shWord, what string) (string, bool, bool) {
		if g.wordDownloads(w) {
			g.warn("Downloads a script and runs it (%s): the code is not seen before it runs.", clip(w.raw, 60))
		} else {
			g.warn("%s runs a script built when the command runs (%s); it could not be checked.", what, clip(w.raw, 60))
		}
		return "", false, true
	}
	switch {
	case isShell(base):
		if script, found := shellCommandString(args); found {
			if !script.static {
				return dynamic(script, base+" -c")
			}
			return script.val, true, true
		}
		if text, found := g.heredocText(redirs); found {
			return text, true, true
		}
		for _, a := range args[1:] {
			if !a.static && g.wordDownloads(a) {
				return dynamic(a, base)
			}
		}
		g.checkPaths(args[1:]) // a script file: its path is all that can be judged
		return "", false, true
	case base == "eval":
		var parts []string
		for _, a := range args[1:] {
			if !a.static {
				return dynamic(a, "eval")
			}
			parts = append(parts, a.val)
		}
		return strings.Join(parts, " "), true, true
	case base == "source" || base == ".":
		for _, a := range args[1:] {
			if !a.static && g.wordDownloads(a) {
				return dynamic(a, base)
			}
		}
		g.checkPaths(args[1:]) // a script file: its path is all that can be judged
		return "", false, true
	case base == "su" || base == "runuser" || base == "flock":
		for i := 1; i < len(args); i++ {
			v := args[i].val
			if (v == "-c" || v == "--command") && i+1 < len(args) {
				if !args[i+1].static {
					return dynamic(args[i+1], base+" -c")
				}
				return args[i+1].val, true, true
			}
			if after, found := strings.CutPrefix(v, "--command="); found {
				return after, args[i].static, true
			}
		}
		if base != "su" {
			return "", false, false // runuser -u user -- cmd and flock file cmd are wrappers
		}
		return "", false, true
	case base == "env":
		for i := 1; i < len(args); i++ {
			v := args[i].val
			var s string
			switch {
			case v == "-S" || v == "--split-string":
				if i+1 >= len(args) {
					return "", false, true
				}
				s = args[i+1].val
				i++
			case strings.HasPrefix(v, "--split-string="):
				s = strings.TrimPrefix(v, "--split-string=")
			case strings.HasPrefix(v, "-S") && len(v) > 2:
				s = v[2:]
			default:
				continue
			}
			return s + " " + joinWords(args[i+1:]), true, true
		}
		return "", false, false
	case base == "watch":
		rest := skipOptions(args[1:], wrapperSpec{shortArg: "n", longArg: []string{"--interval"}})
		return joinWords(rest), len(rest) > 0, true
	case base == "trap":
		if len(args) > 1 && args[1].static && !strings.HasPrefix(args[1].val, "-") {
			return args[1].val, true, true
		}
		return "", false, true
	case base == "alias":
		var parts []string
		for _, a := range args[1:] {
			if _, v, found := strings.Cut(a.val, "="); found {
				parts = append(parts, v)
			}
		}
		return strings.Join(parts, "\n"), len(parts) > 0, true
	}
	return "", false, false
}

// shellCommandString finds the script of sh -c 'script' (options may be
// combined, as in -ec, or come between -c and the script).
func shellCommandString(args []shWord) (shWord, bool) {
	hasC := false
	i := 1
	for ; i < len(args); i++ {
		a := args[i]
		if !a.static {
			break
		}
		v := a.val
		if v == "--" || v == "-" {
			i++
			break
		}
		if len(v) < 2 || (v[0] != '-' && v[0] != '+') {
			break
		}
		switch {
		case v == "--rcfile" || v == "--init-file" || v == "-o" || v == "+o" || v == "-O" || v == "+O":
			i++
		case strings.HasPrefix(v, "--"):
		case v[0] == '-' && strings.Contains(v[1:], "c"):
			hasC = true
		}
	}
	if !hasC || i >= len(args) {
		return shWord{}, false
	}
	return args[i], true
}

// heredocText returns the text a heredoc or here-string feeds to a command.
func (g *shellGuard) heredocText(redirs []*syntax.Redirect) (string, bool) {
	for _, r := range redirs {
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			if r.Hdoc != nil {
				return g.resolveQuoted(r.Hdoc), true
			}
		case syntax.WordHdoc:
			return g.resolveWord(r.Word).val, true
		}
	}
	return "", false
}

// recordAssigns remembers VAR=literal assignments so later $VAR can be
// resolved; an assignment the guard cannot follow forgets the variable.
func (g *shellGuard) recordAssigns(as []*syntax.Assign) {
	for _, a := range as {
		if a.Name == nil {
			continue
		}
		name := a.Name.Value
		if a.Value == nil || a.Array != nil || a.Index != nil || a.Append {
			delete(g.vars, name)
			continue
		}
		w := g.resolveWord(a.Value)
		if w.static {
			g.vars[name] = w.val
		} else {
			delete(g.vars, name)
		}
	}
}

// privileged names the commands that run something with other privileges.
var privileged = map[string]string{
	"sudo":    "Runs with elevated privileges (sudo): it can change anything on the system.",
	"doas":    "Runs with elevated privileges (doas): it can change anything on the system.",
	"su":      "Switches user (su): it can run anything as another user, usually root.",
	"pkexec":  "Runs with elevated privileges (pkexec): it can change anything on the system.",
	"runuser": "Runs a command as another user (runuser).",
}

// wrapperSpec describes how a wrapper command takes its options before the
// command it runs.
type wrapperSpec struct {
	shortArg   string   // short options taking a value: "u" for -u root / -uroot
	longArg    []string // long options taking the next word as their value
	assigns    bool     // NAME=value words may come before the command
	positional int      // operands before the command (timeout's duration)
	noCommand  string   // short options after which nothing is run (command -v)
}

// wrappers are the commands that run the rest of their arguments as a
// command.
var wrappers = map[string]wrapperSpec{
	"env":      {shortArg: "uC", longArg: []string{"--unset", "--chdir"}, assigns: true},
	"nohup":    {},
	"sudo":     {shortArg: "ugpChDrtTUR", longArg: []string{"--user", "--group", "--prompt", "--close-from", "--host", "--chdir", "--role", "--type", "--command-timeout", "--other-user", "--chroot"}, assigns: true, noCommand: "elvK"},
	"doas":     {shortArg: "uC"},
	"pkexec":   {longArg: []string{"--user"}},
	"runuser":  {shortArg: "ugG", longArg: []string{"--user", "--group", "--supp-group"}},
	"time":     {shortArg: "fo", longArg: []string{"--format", "--output"}},
	"nice":     {shortArg: "n", longArg: []string{"--adjustment"}},
	"timeout":  {shortArg: "sk", longArg: []string{"--signal", "--kill-after"}, positional: 1},
	"xargs":    {shortArg: "IdLnPsEa", longArg: []string{"--arg-file", "--delimiter", "--max-args", "--max-lines", "--max-procs", "--max-chars", "--eof", "--replace", "--process-slot-var"}},
	"exec":     {shortArg: "a"},
	"command":  {noCommand: "vV"},
	"builtin":  {},
	"stdbuf":   {shortArg: "ioe", longArg: []string{"--input", "--output", "--error"}},
	"ionice":   {shortArg: "cnu", longArg: []string{"--class", "--classdata", "--uid"}, noCommand: "pP"},
	"setsid":   {},
	"busybox":  {},
	"chroot":   {longArg: []string{"--userspec", "--groups"}, positional: 1},
	"taskset":  {positional: 1, noCommand: "p"},
	"chrt":     {positional: 1, noCommand: "p"},
	"unbuffer": {},
	"fakeroot": {},
	"nocache":  {},
	"flock":    {shortArg: "wEc", longArg: []string{"--timeout", "--conflict-exit-code", "--command"}, positional: 1},
}

// peelWrapper returns the command a wrapper runs, if base is a wrapper and
// it runs one.
func peelWrapper(base string, args []shWord) ([]shWord, bool) {
	spec, ok := wrappers[base]
	if !ok {
		return nil, false
	}
	rest, runs := skipWrapperOptions(args[1:], spec)
	if !runs {
		return nil, true
	}
	return rest, true
}

// skipOptions drops leading options (and their values) from args.
func skipOptions(args []shWord, spec wrapperSpec) []shWord {
	rest, _ := skipWrapperOptions(args, spec)
	return rest
}

// skipWrapperOptions drops a wrapper's options, assignments and operands; it
// reports false when an option means nothing is run.
func skipWrapperOptions(args []shWord, spec wrapperSpec) ([]shWord, bool) {
	i := 0
	for i < len(args) {
		v := args[i].val
		if !args[i].static {
			break
		}
		if v == "--" {
			i++
			break
		}
		if spec.assigns && !strings.HasPrefix(v, "-") && isAssignment(v) {
			i++
			continue
		}
		if len(v) < 2 || v[0] != '-' {
			break
		}
		if strings.HasPrefix(v, "--") {
			if !strings.Contains(v, "=") && slices.Contains(spec.longArg, v) {
				i++
			}
			i++
			continue
		}
		for j := 1; j < len(v); j++ {
			if strings.IndexByte(spec.noCommand, v[j]) >= 0 {
				return nil, false
			}
			if strings.IndexByte(spec.shortArg, v[j]) >= 0 {
				if j == len(v)-1 {
					i++ // the value is the next word
				}
				break
			}
		}
		i++
	}
	i += spec.positional
	if i >= len(args) {
		return nil, false
	}
	return args[i:], true
}

// finalCall returns the command a statement runs after its wrappers.
func (g *shellGuard) finalCall(s *syntax.Stmt) []shWord {
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return nil
	}
	args := g.resolveArgs(call.Args)
	for layer := 0; len(args) > 0 && layer < maxWrapperLayers; layer++ {
		if !args[0].static {
			return args
		}
		rest, ok := peelWrapper(commandBase(args[0].val), args)
		if !ok {
			return args
		}
		args = rest
	}
	return args
}

var assignmentPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

func isAssignment(v string) bool { return assignmentPattern.MatchString(v) }

// isShell reports whether base is a shell that runs scripts given with -c.
func isShell(base string) bool {
	switch base {
	case "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "yash", "posh", "rbash", "csh", "tcsh":
		return true
	}
	return false
}
