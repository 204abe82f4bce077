package tools

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Verdict is CheckCommand's judgement of a shell command. It has three
// outcomes: refused (Denied), held for a person's approval even in auto mode
// (Held), or free to run (neither), with warnings in every case.
type Verdict struct {
	// Denied is set when the command would destroy the system, the user's
	// home folder, a folder holding the workspace or a disk, start a fork
	// bomb, signal PID 1, every process or every process of the user, or
	// shut down, restart or suspend the computer. Such a command must not
	// run at all, in any mode.
	Denied bool
	// Reason explains, for the model and the user, what was refused and why.
	// It is empty unless Denied.
	Reason string
	// Held is set when the command does something destructive whose targets
	// cannot be known before it runs (they come from a pipe, stdin, a
	// command substitution, an unknown variable, a glob the guard cannot
	// expand), runs code the guard cannot see, or destroys something outside
	// the workspace. A person must approve it, whatever the mode.
	Held bool
	// Holds says exactly why the command is held, one sentence per reason.
	Holds []string
	// Warnings name the high-risk things the command does (sudo, paths
	// outside the workspace, recursive deletes, force pushes…). The approval
	// card shows them; they do not stop the command.
	Warnings []string
}

// maxShellDepth bounds how deeply nested scripts (bash -c '…', eval "…",
// heredocs fed to a shell, sourced files) are followed; anything deeper is
// only checked with the text patterns of the fallback and held.
const maxShellDepth = 8

// maxWrapperLayers bounds how many command wrappers (env, sudo, nohup…) are
// peeled off one simple command.
const maxWrapperLayers = 32

// maxGuardSteps bounds the statements one check walks (loops and function
// calls are walked more than once); past it the command is held.
const maxGuardSteps = 20000

// denyFooter ends every deny reason.
const denyFooter = " This command is on TinyElf's deny list of critical operations and was not run. If it is really needed, ask the user to run it themselves."

// guardOptions adjust what the walker takes for the user's folders.
type guardOptions struct {
	// Home is the home folder the command gets ($HOME); empty means the
	// user's own.
	Home string
	// TempDirs are the temporary folders, whose contents are free to
	// delete; nil means /tmp, /var/tmp, /dev/shm and $TMPDIR.
	TempDirs []string
}

// guardCommands is the guard's knowledge of what programs do, which the
// walker consults for every simple command it cannot judge as shell alone
// (builtins, shells, wrappers and scripts are its own). It is bound to one
// check (newShellGuard takes it) and called from that check only.
type guardCommands interface {
	// Program checks c as what its program does: the code an interpreter
	// is handed (python -c, awk '…', sqlite3 DB SQL), and what rm, dd,
	// kill, git, make and the rest would destroy.
	Program(c *shCall)
	// Code checks text, a program in lang (a language of the interpreter
	// table other than "sh"), that runs in st; origin names it in
	// messages. Scripts are judged, not held, for what they compute.
	Code(st *shState, lang, text, origin string)
	// Interp returns the interpreter prog names (a program base name), or
	// nil when it is none.
	Interp(prog string) guardInterp
}

// guardInterp is an interpreter as the walker sees it: one row of the
// guard's interpreter table. Two names of one interpreter return the same
// value.
type guardInterp interface {
	// Lang is the language its scripts are read as (Code's lang).
	Lang() string
	// Unfollowed warns, when the guard cannot follow the language, that
	// the script a was checked only for its obvious destructive calls.
	Unfollowed(g *shellGuard, a shArg)
}

// shellGuard carries the state of one CheckCommand run.
type shellGuard struct {
	// mu guards sources, varSource and dirsRead, which the sandbox's
	// pipeline stages reach from goroutines of their own.
	mu sync.Mutex

	wsDir    string // "" when there is no workspace
	home     string // "" when unknown
	user     string
	tmpDir   string   // $TMPDIR when set and absolute
	tempDirs []string // folders whose contents are temporary

	verdict Verdict
	seen    map[string]bool

	sources   []source       // what each unknown marker stands for
	varSource map[string]int // marker of each unknown environment variable
	steps     int
	depth     int
	quiet     int // >0 while walking code that may never run: holds become warnings
	sandboxes int
	dirsRead  int
	procs     map[string]procSubst // /dev/fd paths handed out for <(…)
	written   map[string]fileNote  // files the command writes before it may read or run them
	copies    map[string]string    // files the command copies from a program: copy → original
	dirty     string               // a command that may have changed any file (tar x, git checkout)
	unpacked  string               // a command that unpacked an archive (which may hold symlinks)
	funcDecls []funcDecl           // every function the script defines, for the final check
	calling   map[*syntax.Stmt]int // function bodies being walked (recursion guard)
	reals     map[string]string    // realPath answers
	configs   map[*shState]*expand.Config
	printer   *syntax.Printer
	parser    *syntax.Parser
	traps     []string // trap handlers, walked at the end
	collect   bool     // record every command checked, for ResolvedCommands
	collected [][]string
	cmds      guardCommands
}

// newShellGuard returns the walker of one check: paths are judged against
// wsDir ("" means no workspace), programs through cmds.
func newShellGuard(wsDir string, opts guardOptions, cmds guardCommands) *shellGuard {
	g := &shellGuard{
		cmds:      cmds,
		seen:      map[string]bool{},
		varSource: map[string]int{},
		procs:     map[string]procSubst{},
		written:   map[string]fileNote{},
		reals:     map[string]string{},
		configs:   map[*shState]*expand.Config{},
		copies:    map[string]string{},
		calling:   map[*syntax.Stmt]int{},
	}
	g.sources = append(g.sources, source{desc: "a value computed when the command runs"})
	if wsDir != "" {
		g.wsDir = filepath.Clean(wsDir)
	}
	if h, err := os.UserHomeDir(); err == nil && filepath.IsAbs(h) {
		g.home = filepath.Clean(h)
	}
	if u, err := user.Current(); err == nil {
		g.user = u.Username
	}
	if t := os.Getenv("TMPDIR"); filepath.IsAbs(t) {
		g.tmpDir = filepath.Clean(t)
	}
	g.tempDirs = []string{"/tmp", "/var/tmp", "/dev/shm", "/private/tmp", g.tmpDir, filepath.ToSlash(os.TempDir())}
	if opts.Home != "" {
		g.home = filepath.Clean(opts.Home)
	}
	if opts.TempDirs != nil {
		g.tempDirs = opts.TempDirs
		if len(opts.TempDirs) > 0 {
			g.tmpDir = filepath.Clean(opts.TempDirs[0])
		}
	}
	return g
}

// run checks command, the code of a whole Bash call.
func (g *shellGuard) run(command string) {
	st := g.topState()
	g.script(st, command, 0, "")
	g.finish(st)
}

// resolve walks script to record the commands it runs (ResolvedCommands);
// the verdict is not used.
func (g *shellGuard) resolve(script string) [][]string {
	g.collect = true
	g.script(g.topState(), script, 0, "")
	return g.collected
}

// result is the verdict of the check.
func (g *shellGuard) result() Verdict { return g.verdict }

// deny records the first reason a command is refused.
func (g *shellGuard) deny(format string, args ...any) {
	if g.verdict.Denied {
		return
	}
	g.verdict.Denied = true
	g.verdict.Reason = fmt.Sprintf(format, args...) + denyFooter
}

// hold records a reason the command needs a person's approval. Inside code
// that may never run (a function nobody calls) it is only a warning.
func (g *shellGuard) hold(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if g.quiet > 0 {
		g.warn("%s", msg)
		return
	}
	if g.seen["hold:"+msg] {
		return
	}
	g.seen["hold:"+msg] = true
	g.verdict.Held = true
	g.verdict.Holds = append(g.verdict.Holds, msg)
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

// parse reads a bash script.
func parseScript(src string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
}

// script parses src and walks it in st. origin names where the code comes
// from ("bash -c", "the file x.sh") for messages; "" is the command itself.
func (g *shellGuard) script(st *shState, src string, depth int, origin string) {
	if depth > maxShellDepth {
		g.warn("Shell code is nested more than %d levels deep; the innermost code was only checked against text patterns.", maxShellDepth)
		g.hold("The code nested more than %d levels deep cannot be checked before it runs.", maxShellDepth)
		g.checkText(src)
		return
	}
	if g.parser == nil {
		g.parser = syntax.NewParser(syntax.Variant(syntax.LangBash))
	}
	f, err := g.parser.Parse(strings.NewReader(src), "")
	if err != nil {
		what := "The command"
		if origin != "" {
			what = "The code " + origin + " runs"
		}
		g.warn("%s could not be parsed as a bash script (%v), so it was only checked against text patterns.", what, err)
		if origin != "" {
			// The shell that runs it may read it (fish, csh), but the
			// guard cannot tell what it does.
			g.hold("%s could not be parsed, so what it does cannot be checked before it runs.", what)
		}
		g.checkText(src)
		return
	}
	old := g.depth
	g.depth = depth
	g.stmts(st, f.Stmts)
	g.depth = old
}

// finish walks the functions the script defined but never called (they may
// still run, from a trap or a computed name): what they would destroy is
// refused, what cannot be known is only a warning.
func (g *shellGuard) finish(st *shState) {
	for i := 0; i < len(g.traps); i++ {
		g.code(st.clone(), g.traps[i], "`trap`")
	}
	for i := 0; i < len(g.funcDecls); i++ {
		fd := g.funcDecls[i]
		if fd.called {
			continue
		}
		g.funcDecls[i].called = true
		c := fd.st.clone()
		c.params = []string{g.unknown(source{desc: "the arguments of the function " + fd.name})}
		g.quiet++
		g.stmt(c, fd.body)
		g.quiet--
	}
}

// print writes a node back as one line of shell, with one printer per check.
func (g *shellGuard) print(n syntax.Node) string {
	if g.printer == nil {
		g.printer = syntax.NewPrinter(syntax.SingleLine(true))
	}
	var b strings.Builder
	if g.printer.Print(&b, n) != nil {
		return ""
	}
	return b.String()
}

// step counts one walked statement and reports whether the budget is left.
func (g *shellGuard) step() bool {
	g.steps++
	if g.steps == maxGuardSteps {
		g.hold("The command is too long or loops too much to be checked completely before it runs.")
	}
	return g.steps < maxGuardSteps
}
