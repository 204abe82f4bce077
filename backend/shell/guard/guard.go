// Package guard is TinyElf's shell guard: Check decides, before a Bash
// command runs, whether it is refused, held for a person's approval or
// free to run, and the Bash permission rules (ParseBashRule,
// SimpleCommands, CommandRisk, SuggestBashRules, ResolvedCommands) read
// commands the same way.
//
// The package is the per-command knowledge: what rm, mv, ln, rsync, dd,
// the disk and package tools, kill and its kin, the power commands, make,
// npm scripts, crontab, sed, find and git do to files and to the machine
// (verbs.go and its neighbours), and the programs that run code of their
// own — one interpreter table (interp.go) and the scanners of the code
// they run (code*.go). Following the script itself (parsing, expansion,
// state, control flow, wrappers, nested shells, paths) is package walk's;
// the walker calls this package through walk.Commands, which checker
// implements for one check.
package guard

import "tinyelf/backend/shell/guard/walk"

// Check inspects a bash command line before it runs and decides
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
// their own are one table (interp.go): the inline code of the
// languages the guard follows (python, perl, node, ruby, php, awk, and the
// command languages of sqlite3, psql, mysql, gdb, ed, dc, m4 and gnuplot)
// is scanned for its obvious destructive calls; inline code of any other
// known interpreter (Lua, R, Julia, Tcl, PowerShell, Lisps, Vim script…)
// is held, its obvious destructive calls refused all the same.
//
// A value the guard cannot know is carried as an opaque marker naming where
// it comes from, so a destructive verb whose targets include one is held
// with a warning that says exactly why. Paths are judged against the
// workspace folder wsDir ("" means no workspace). Check never runs
// anything; it stats, lists and reads (small script) files the command
// names. It is safe for concurrent use.
func Check(command, wsDir string) walk.Verdict {
	return CheckWith(command, wsDir, walk.Options{})
}

// CheckWith is Check with the user's folders given.
func CheckWith(command, wsDir string, opts walk.Options) walk.Verdict {
	g := newChecker(wsDir, opts)
	g.Run(command)
	return g.Verdict()
}

// checker is one check: the walker, and the per-command knowledge (this
// package) as its walk.Commands. The verbs are checker's methods, so they
// reach the walker's vocabulary (Hold, Judge, Code…) directly.
type checker struct {
	*walk.Walker
	codeVars map[string]string // NAME = "literal" in the interpreter code being scanned
}

// newChecker returns the checker of one check.
func newChecker(wsDir string, opts walk.Options) *checker {
	g := &checker{}
	g.Walker = walk.New(wsDir, opts, g)
	return g
}

// Program implements walk.Commands: an interpreter's code, else the verb.
func (g *checker) Program(c walk.Call) {
	if g.interpreter(&c) {
		return
	}
	g.verb(&c)
}

// Scan implements walk.Commands: a script in lang, judged as a script.
func (g *checker) Scan(st *walk.State, lang, text, origin string) {
	g.scanCode(st, lang, text, origin, false)
}

// Interp implements walk.Commands with the interpreter table.
func (g *checker) Interp(prog string) walk.Interpreter {
	if s := interpreterFor(prog); s != nil {
		return s
	}
	return nil
}
