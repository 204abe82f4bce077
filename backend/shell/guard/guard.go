package tools

// CheckCommand inspects a bash command line before it runs and decides
// whether it is refused, held for approval or free to run.
//
// It reasons about what bash will do rather than how the command is spelled:
// the script is parsed with mvdan.cc/sh and walked as bash would run it,
// every branch of every if, case, loop and list included. Words are expanded
// with mvdan.cc/sh/v3/expand under bash's rules (quotes, escapes, brace,
// tilde, parameter and arithmetic expansion, IFS splitting, globs with
// `[!…]` and extglob) against the variables, arrays, namerefs, positional
// parameters, functions and aliases the script defines; the output of
// command substitutions and of the commands feeding pipes is computed in a
// sandboxed mvdan.cc/sh/v3/interp interpreter that runs no program and opens
// no file. The code handed to other shells and runners is followed: bash -c,
// eval, source, here-docs, here-strings, process substitutions and pipes fed
// to a shell, script files, find -exec, xargs, parallel, env -S, sudo, su -c,
// watch, ssh, git -c alias.x=!…, make -f. The programs that run code of
// their own are one table (shellguard_interp.go): the inline code of the
// languages the guard follows (python, perl, node, ruby, php, awk, and the
// command languages of sqlite3, psql, mysql, gdb, ed, dc, m4 and gnuplot)
// is scanned for its obvious destructive calls; inline code of any other
// known interpreter (Lua, R, Julia, Tcl, PowerShell, Lisps, Vim script…)
// is held, its obvious destructive calls refused all the same.
//
// A value the guard cannot know is carried as an opaque marker naming where
// it comes from, so a destructive verb whose targets include one is held
// with a warning that says exactly why. Paths are judged against the
// workspace folder wsDir ("" means no workspace). CheckCommand never runs
// anything; it stats, lists and reads (small script) files the command
// names. It is safe for concurrent use.
func CheckCommand(command, wsDir string) Verdict {
	return CheckCommandWith(command, wsDir, guardOptions{})
}

// CheckCommandWith is CheckCommand with the user's folders given.
func CheckCommandWith(command, wsDir string, opts guardOptions) Verdict {
	g := newChecker(wsDir, opts)
	g.run(command)
	return g.result()
}

// checker is one check: the walker, with the per-command knowledge of
// this file's neighbours as its guardCommands.
type checker struct {
	*shellGuard
	codeVars map[string]string // NAME = "literal" in the interpreter code being scanned
}

func newChecker(wsDir string, opts guardOptions) *checker {
	g := &checker{}
	g.shellGuard = newShellGuard(wsDir, opts, g)
	return g
}

// Program implements guardCommands: an interpreter's code, else the verb.
func (g *checker) Program(c *shCall) {
	if g.interpreter(c) {
		return
	}
	g.verb(c)
}

// Code implements guardCommands: a script in lang, judged as a script.
func (g *checker) Code(st *shState, lang, text, origin string) {
	g.scanCode(st, lang, text, origin, false)
}

// Interp implements guardCommands with the interpreter table.
func (g *checker) Interp(prog string) guardInterp {
	if s := interpreterFor(prog); s != nil {
		return s
	}
	return nil
}
