// Package walk is the core of the shell guard: it follows a bash script
// as bash would run it. It parses the script (mvdan.cc/sh/v3/syntax),
// walks every branch of every list, loop and function, expands words under
// bash's rules against the state the script builds (State: variables,
// functions, aliases, the folder, standard input), computes command
// substitutions and pipe inputs in a sandboxed interpreter that runs no
// program, peels wrappers (sudo, env, xargs, timeout…), follows code handed
// to shells (bash -c, eval, source, here-docs, script files) and judges the
// paths commands write to.
//
// What programs do is not known here: for every simple command that is not
// a builtin, a shell or a wrapper, the Walker asks its Commands (the
// guard's per-command knowledge, in package guard), which judge it with
// the Walker's exported vocabulary: Call, Arg, State, Judge, Hold, Deny,
// Warn. A value the walker cannot know is carried as an opaque marker
// (Source says what it stands for), so a judgement can say why it holds.
package walk

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

// Verdict is the judgement of one check of a shell command. It has three
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

// MaxShellDepth bounds how deeply nested scripts (bash -c '…', eval "…",
// heredocs fed to a shell, sourced files) are followed; anything deeper is
// only checked with the text patterns of the fallback and held.
const MaxShellDepth = 8

// maxWrapperLayers bounds how many command wrappers (env, sudo, nohup…) are
// peeled off one simple command.
const maxWrapperLayers = 32

// maxGuardSteps bounds the statements one check walks (loops and function
// calls are walked more than once); past it the command is held.
const maxGuardSteps = 20000

// DenyFooter ends every deny reason.
const DenyFooter = " This command is on TinyElf's deny list of critical operations and was not run. If it is really needed, ask the user to run it themselves."

// Options adjust what the walker takes for the user's folders.
type Options struct {
	// Home is the home folder the command gets ($HOME); empty means the
	// user's own.
	Home string
	// TempDirs are the temporary folders, whose contents are free to
	// delete; nil means /tmp, /var/tmp, /dev/shm and $TMPDIR.
	TempDirs []string
}

// Commands is the guard's knowledge of what programs do, which the
// walker consults for every simple command it cannot judge as shell alone
// (builtins, shells, wrappers and scripts are its own). It is bound to one
// check (New takes it) and called from that check's goroutine only.
type Commands interface {
	// Program checks c as what its program does: the code an interpreter
	// is handed (python -c, awk '…', sqlite3 DB SQL), and what rm, dd,
	// kill, git, make and the rest would destroy. c is passed by value
	// (the walker is done with it), so that a call through the interface
	// does not move every Call to the heap.
	Program(c Call)
	// Scan checks text, a program in lang (a language of the interpreter
	// table other than "sh"), that runs in st; origin names it in
	// messages. Scripts are judged, not held, for what they compute.
	Scan(st *State, lang, text, origin string)
	// Interp returns the interpreter prog names (a program base name), or
	// nil when it is none.
	Interp(prog string) Interpreter
}

// Interpreter is an interpreter as the walker sees it: one row of the
// guard's interpreter table. Two names of one interpreter return the same
// value.
type Interpreter interface {
	// Lang is the language its scripts are read as (Scan's lang).
	Lang() string
	// Unfollowed warns, when the guard cannot follow the language, that
	// the script a was checked only for its obvious destructive calls.
	Unfollowed(g *Walker, a Arg)
}

// Walker carries the state of one check. Its exported fields are what
// the Commands judging a program read and record; the rest is the walk's
// own. A Walker is used by one check and is not safe for concurrent use,
// except that its sandbox's pipeline stages share it under mu.
type Walker struct {
	// mu guards sources, varSource and dirsRead, which the sandbox's
	// pipeline stages reach from goroutines of their own.
	mu sync.Mutex

	// WorkspaceDir is the workspace folder, "" when there is none.
	WorkspaceDir string
	// Home is the home folder the command gets, "" when unknown.
	Home string
	// User is the user's login name, "" when unknown.
	User     string
	tmpDir   string   // $TMPDIR when set and absolute
	tempDirs []string // folders whose contents are temporary

	verdict Verdict
	seen    map[string]bool

	sources   []Source       // what each unknown marker stands for
	varSource map[string]int // marker of each unknown environment variable
	steps     int
	// Depth is how deeply the code being walked is nested (bash -c in
	// eval…); code past MaxShellDepth is not followed.
	Depth int
	// Quiet is above 0 while walking code that may never run: holds
	// become warnings.
	Quiet     int
	sandboxes int
	dirsRead  int
	procs     map[string]procSubst // /dev/fd paths handed out for <(…)
	// Written are the files the command writes before it may read or run
	// them.
	Written map[string]FileNote
	// Copies are the files the command copies from a program: copy →
	// original.
	Copies map[string]string
	// Dirty names a command that may have changed any file (tar x, git
	// checkout), "" when none did.
	Dirty string
	// Unpacked names a command that unpacked an archive (which may hold
	// symlinks), "" when none did.
	Unpacked  string
	funcDecls []funcDecl           // every function the script defines, for the final check
	calling   map[*syntax.Stmt]int // function bodies being walked (recursion guard)
	reals     map[string]string    // realPath answers
	configs   map[*State]*expand.Config
	printer   *syntax.Printer
	parser    *syntax.Parser
	traps     []string // trap handlers, walked at the end
	collect   bool     // record every command checked, for Resolve
	collected [][]string
	cmds      Commands
}

// New returns the walker of one check: paths are judged against wsDir
// ("" means no workspace), programs through cmds, which must not be
// called before New returns.
func New(wsDir string, opts Options, cmds Commands) *Walker {
	g := &Walker{
		cmds:      cmds,
		seen:      map[string]bool{},
		varSource: map[string]int{},
		procs:     map[string]procSubst{},
		Written:   map[string]FileNote{},
		reals:     map[string]string{},
		configs:   map[*State]*expand.Config{},
		Copies:    map[string]string{},
		calling:   map[*syntax.Stmt]int{},
	}
	g.sources = append(g.sources, Source{Desc: "a value computed when the command runs"})
	if wsDir != "" {
		g.WorkspaceDir = filepath.Clean(wsDir)
	}
	if h, err := os.UserHomeDir(); err == nil && filepath.IsAbs(h) {
		g.Home = filepath.Clean(h)
	}
	if u, err := user.Current(); err == nil {
		g.User = u.Username
	}
	if t := os.Getenv("TMPDIR"); filepath.IsAbs(t) {
		g.tmpDir = filepath.Clean(t)
	}
	g.tempDirs = []string{"/tmp", "/var/tmp", "/dev/shm", "/private/tmp", g.tmpDir, filepath.ToSlash(os.TempDir())}
	if opts.Home != "" {
		g.Home = filepath.Clean(opts.Home)
	}
	if opts.TempDirs != nil {
		g.tempDirs = opts.TempDirs
		if len(opts.TempDirs) > 0 {
			g.tmpDir = filepath.Clean(opts.TempDirs[0])
		}
	}
	return g
}

// Run checks command, the code of a whole Bash call.
func (g *Walker) Run(command string) {
	st := g.topState()
	g.script(st, command, 0, "")
	g.finish(st)
}

// Resolve walks script and returns the commands it runs, as words, after
// expansions, wrappers and nested code are followed; the verdict is not
// used.
func (g *Walker) Resolve(script string) [][]string {
	g.collect = true
	g.script(g.topState(), script, 0, "")
	return g.collected
}

// Verdict is the verdict of the check so far (of Run, once it returned).
func (g *Walker) Verdict() Verdict { return g.verdict }

// Deny records the first reason a command is refused.
func (g *Walker) Deny(format string, args ...any) {
	if g.verdict.Denied {
		return
	}
	g.verdict.Denied = true
	g.verdict.Reason = fmt.Sprintf(format, args...) + DenyFooter
}

// Hold records a reason the command needs a person's approval. Inside code
// that may never run (a function nobody calls) it is only a warning.
func (g *Walker) Hold(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if g.Quiet > 0 {
		g.Warn("%s", msg)
		return
	}
	if g.seen["hold:"+msg] {
		return
	}
	g.seen["hold:"+msg] = true
	g.verdict.Held = true
	g.verdict.Holds = append(g.verdict.Holds, msg)
}

// Warn adds a warning once.
func (g *Walker) Warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if g.seen[msg] {
		return
	}
	g.seen[msg] = true
	g.verdict.Warnings = append(g.verdict.Warnings, msg)
}

// Parse reads a bash script.
func Parse(src string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
}

// script parses src and walks it in st. origin names where the code comes
// from ("bash -c", "the file x.sh") for messages; "" is the command itself.
func (g *Walker) script(st *State, src string, depth int, origin string) {
	if depth > MaxShellDepth {
		g.Warn("Shell code is nested more than %d levels deep; the innermost code was only checked against text patterns.", MaxShellDepth)
		g.Hold("The code nested more than %d levels deep cannot be checked before it runs.", MaxShellDepth)
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
		g.Warn("%s could not be parsed as a bash script (%v), so it was only checked against text patterns.", what, err)
		if origin != "" {
			// The shell that runs it may read it (fish, csh), but the
			// guard cannot tell what it does.
			g.Hold("%s could not be parsed, so what it does cannot be checked before it runs.", what)
		}
		g.checkText(src)
		return
	}
	old := g.Depth
	g.Depth = depth
	g.stmts(st, f.Stmts)
	g.Depth = old
}

// finish walks the functions the script defined but never called (they may
// still run, from a trap or a computed name): what they would destroy is
// refused, what cannot be known is only a warning.
func (g *Walker) finish(st *State) {
	for i := 0; i < len(g.traps); i++ {
		g.Code(st.Clone(), g.traps[i], "`trap`")
	}
	for i := 0; i < len(g.funcDecls); i++ {
		fd := g.funcDecls[i]
		if fd.called {
			continue
		}
		g.funcDecls[i].called = true
		c := fd.st.Clone()
		c.Params = []string{g.Unknown(Source{Desc: "the arguments of the function " + fd.name})}
		g.Quiet++
		g.stmt(c, fd.body)
		g.Quiet--
	}
}

// print writes a node back as one line of shell, with one printer per check.
func (g *Walker) print(n syntax.Node) string {
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
func (g *Walker) step() bool {
	g.steps++
	if g.steps == maxGuardSteps {
		g.Hold("The command is too long or loops too much to be checked completely before it runs.")
	}
	return g.steps < maxGuardSteps
}
