package walk

import (
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// A value the guard cannot know (the output of a program, an environment
// variable it does not know, what read gets from a pipe) is represented in
// strings by one marker rune from Unicode's supplementary private use area,
// which no command line uses. Each marker indexes a source that says where
// the value comes from. Because markers are plain characters they survive
// bash's expansions, concatenation and field splitting the way the real
// value would, so a path "/$x" stays recognisably "a path under / whose rest
// is not known".
const (
	markerBase = 0xF0000
	markerMax  = 0xFFFFD
)

// Source describes one unknown value.
type Source struct {
	// Desc names it in messages: "`xargs`", "the command substitution `$(cat list)`".
	Desc string
	// output, when set, is the code whose output the value is: desc is
	// then "the output of `…`", printed only when a message needs it.
	output []*syntax.Stmt
	// Under, when set, is an absolute folder every value is known to lie
	// in (the files find selects).
	Under string
	// All reports, with under, that the values may be everything under it
	// (find without a selecting test).
	All bool
}

// Text names the source in messages.
func (s Source) Text() string {
	if s.Desc == "" && len(s.output) > 0 {
		parts := make([]string, 0, len(s.output))
		for _, st := range s.output {
			parts = append(parts, Print(st))
		}
		return "the output of `" + Clip(strings.Join(parts, "; "), 60) + "`"
	}
	return s.Desc
}

// Unknown returns a new marker for src.
func (g *Walker) Unknown(src Source) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if markerBase+len(g.sources) > markerMax {
		return string(rune(markerBase))
	}
	g.sources = append(g.sources, src)
	return string(rune(markerBase + len(g.sources) - 1))
}

// IsMarker reports whether r stands for an unknown value.
func IsMarker(r rune) bool { return r >= markerBase && r <= markerMax }

// HasMarker reports whether s contains an unknown value.
func HasMarker(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0xf3 { // the UTF-8 lead byte of plane 15
			return strings.IndexFunc(s, IsMarker) >= 0
		}
	}
	return false
}

// SourceOf returns the source of the first unknown value in s.
func (g *Walker) SourceOf(s string) (Source, bool) {
	i := strings.IndexFunc(s, IsMarker)
	if i < 0 {
		return Source{}, false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	g.mu.Lock()
	defer g.mu.Unlock()
	if n := int(r - markerBase); n < len(g.sources) {
		return g.sources[n], true
	}
	return g.sources[0], true
}

// sourceAt returns the source with index i (the generic one when out of
// range).
func (g *Walker) sourceAt(i int) Source {
	g.mu.Lock()
	defer g.mu.Unlock()
	if i > 0 && i < len(g.sources) {
		return g.sources[i]
	}
	return g.sources[0]
}

// Shown replaces the markers in s with "…" for messages.
func Shown(s string) string {
	if !HasMarker(s) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if IsMarker(r) {
			return '…'
		}
		return r
	}, s)
}

// globOpts are the shell options that change pathname expansion.
type globOpts struct {
	noglob, nullglob, dotglob, globstar, nocaseglob, expandAliases bool
}

// Input is what a command reads on standard input.
type Input struct {
	Set   bool   // false: the Bash tool's own stdin, /dev/null
	text  string // when known (markers allowed)
	known bool
	Desc  string // where it comes from, for messages
	// producer, when set, is the pipeline stage whose output this is,
	// computed on demand in the sandbox.
	producer *syntax.Stmt
	pst      *State
	// nul reports that the producer separates paths with NUL bytes
	// (find -print0), under the folder under.
	nul   bool
	under string
	all   bool
	// File reports that the input is a file on disk (cmd < script), which
	// an interpreter runs as a script rather than as inline code; unless
	// known, the file is missing or too large for the guard to read.
	File bool
}

// What names where the input comes from, for messages.
func (in Input) What() string {
	if in.Desc == "" && in.producer != nil {
		return "`" + Clip(Print(in.producer), 60) + "`"
	}
	if in.Desc == "" {
		return "its input"
	}
	return in.Desc
}

// FileNote is what the guard knows of a file the script writes.
type FileNote struct {
	By string // the command that writes it
	// writer and wst, when set, are the statement whose output fills the
	// file, to compute on demand; appends to an existing file are unknown.
	writer *syntax.Stmt
	wst    *State
}

// State is what the guard knows while walking a script: the shell's
// variables, functions, aliases, folder and options.
type State struct {
	vars    map[string]expand.Variable // present: set by the script (Set=false: unset)
	funcs   map[string][]*syntax.Stmt  // every body a name may have
	aliases map[string][]string
	// Cwd is the folder the code runs in, "" when the guard cannot follow
	// a cd.
	Cwd    string
	cwdWhy string // why cwd is unknown
	oldpwd string
	arg0   string
	// Params are the positional parameters ($1…).
	Params  []string
	inherit bool // variables not set by the script come from TinyElf's environment
	glob    globOpts
	// Links are the symlinks the script creates: link → target.
	Links map[string]string
	// Stdin is what the code reads on standard input.
	Stdin     Input
	remote    bool // the code runs on another machine (ssh)
	allexport bool // set -a: every assignment is exported
	// mounts, in a container, map container folders to host folders; a
	// container path no mount covers is the container's own.
	mounts    map[string]string
	container bool
	hashed    map[string]string // hash -p PATH NAME
	locals    []map[string]*expand.Variable
}

func (g *Walker) topState() *State {
	st := &State{
		vars:    map[string]expand.Variable{},
		funcs:   map[string][]*syntax.Stmt{},
		aliases: map[string][]string{},
		arg0:    "bash",
		inherit: true,
		Links:   map[string]string{},
	}
	st.Cwd = g.WorkspaceDir
	if st.Cwd == "" {
		st.cwdWhy = "no workspace is open"
	}
	return st
}

// Clone copies the state for a branch or a subshell.
func (st *State) Clone() *State {
	c := *st
	c.vars = maps.Clone(st.vars)
	c.funcs = maps.Clone(st.funcs)
	c.aliases = maps.Clone(st.aliases)
	c.Links = maps.Clone(st.Links)
	c.Params = slices.Clone(st.Params)
	c.hashed = maps.Clone(st.hashed)
	c.locals = nil
	return &c
}

// Child returns the state a new shell process starts with: only exported
// variables, no functions but exported ones (kept, to be safe), no aliases.
func (st *State) Child() *State {
	c := st.Clone()
	c.vars = map[string]expand.Variable{}
	for k, v := range st.vars {
		switch _, env := os.LookupEnv(k); {
		case v.Exported:
			c.vars[k] = v
		case env && st.inherit:
			// bash exports what it got from its environment, so the child
			// may see the new value or, if the Bash tool's environment
			// lacks the variable, nothing: unknown either way.
			c.vars[k] = expand.Variable{Set: true, Kind: expand.String, Str: string(rune(markerBase))}
		default:
			c.vars[k] = expand.Variable{} // not exported: unset in the child
		}
	}
	c.aliases = map[string][]string{}
	c.Params = nil
	c.arg0 = "bash"
	c.glob = globOpts{}
	c.Stdin = Input{}
	return c
}

// merge joins the states at the end of two paths the shell may take.
func (g *Walker) merge(a, b *State) *State {
	out := a.Clone()
	for k, va := range a.vars {
		vb, ok := b.vars[k]
		if !ok {
			vb = g.envVar(b, k)
		}
		if !sameVar(va, vb) {
			out.vars[k] = g.unknownVar(k, "the variable $"+k+", which the command sets differently on different paths")
		}
	}
	for k, vb := range b.vars {
		if _, ok := a.vars[k]; ok {
			continue
		}
		if !sameVar(g.envVar(a, k), vb) {
			out.vars[k] = g.unknownVar(k, "the variable $"+k+", which the command sets differently on different paths")
		}
	}
	for k, bodies := range b.funcs {
		for _, body := range bodies {
			if !slices.Contains(out.funcs[k], body) {
				out.funcs[k] = append(slices.Clone(out.funcs[k]), body)
			}
		}
	}
	for k, vals := range b.aliases {
		for _, v := range vals {
			if !slices.Contains(out.aliases[k], v) {
				out.aliases[k] = append(slices.Clone(out.aliases[k]), v)
			}
		}
	}
	if a.Cwd != b.Cwd {
		out.Cwd, out.cwdWhy = "", "the folder depends on which way the command goes"
	}
	if !slices.Equal(a.Params, b.Params) {
		out.Params = []string{g.Unknown(Source{Desc: "the positional parameters, which the command sets differently on different paths"})}
	}
	maps.Copy(out.Links, b.Links)
	out.glob = globOpts{
		noglob: a.glob.noglob && b.glob.noglob, nullglob: a.glob.nullglob || b.glob.nullglob,
		dotglob: a.glob.dotglob || b.glob.dotglob, globstar: a.glob.globstar || b.glob.globstar,
		nocaseglob: a.glob.nocaseglob || b.glob.nocaseglob, expandAliases: a.glob.expandAliases || b.glob.expandAliases,
	}
	return out
}

func sameVar(a, b expand.Variable) bool {
	return a.Set == b.Set && a.Kind == b.Kind && a.Str == b.Str && slices.Equal(a.List, b.List) &&
		maps.Equal(a.Map, b.Map) && slices.Equal(a.Indexes, b.Indexes)
}

// unknownVar returns a string variable whose value is not known; the marker
// of an environment variable is reused so that $X and $X compare equal.
func (g *Walker) unknownVar(name, desc string) expand.Variable {
	return expand.Variable{Set: true, Kind: expand.String, Str: g.Unknown(Source{Desc: desc})}
}

// knownEnv lists the environment variables whose values the command is
// known to get from TinyElf's environment. Every other variable the script
// does not set is treated as unknown: guessing it empty, or reading a value
// TinyElf has but the command does not get, could both be wrong.
var knownEnv = []string{"HOME", "USER", "LOGNAME", "PATH", "TMPDIR", "SHELL", "LANG", "CDPATH", "BASH_ENV", "ENV"}

// envVar is the value of a variable the script did not set.
func (g *Walker) envVar(st *State, name string) expand.Variable {
	str := func(s string) expand.Variable {
		return expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: s}
	}
	switch name {
	case "IFS":
		return expand.Variable{Set: true, Kind: expand.String, Str: " \t\n"}
	case "PWD":
		if st.Cwd != "" {
			return str(st.Cwd)
		}
		return g.envUnknown(name, "the current folder, "+st.cwdWhy)
	case "OLDPWD":
		if st.oldpwd != "" {
			return str(st.oldpwd)
		}
	case "0":
		return str(st.arg0)
	case "#":
		return str(strconv.Itoa(len(st.Params)))
	case "@", "*":
		return expand.Variable{Set: true, Kind: expand.Indexed, List: st.Params}
	case "?", "$", "!", "BASHPID", "PPID", "RANDOM", "SRANDOM", "SECONDS", "EPOCHSECONDS", "LINENO", "OPTIND", "COLUMNS", "LINES", "SHLVL":
		// Numbers: whatever they are, they cannot turn a path into another kind of path.
		return str("4242")
	case "UID", "EUID":
		return str(strconv.Itoa(os.Getuid()))
	case "GID":
		return str(strconv.Itoa(os.Getgid()))
	case "-":
		return str("hB")
	}
	if n, err := strconv.Atoi(name); err == nil && n > 0 {
		if n <= len(st.Params) {
			return str(st.Params[n-1])
		}
		return expand.Variable{}
	}
	switch name {
	case "HOME +": // ~+ is $PWD
		return g.lookup(st, "PWD")
	case "HOME -": // ~- is $OLDPWD
		return g.lookup(st, "OLDPWD")
	}
	if strings.HasPrefix(name, "HOME ") {
		return expand.Variable{} // ~user: expand looks the user up
	}
	if !st.inherit {
		return expand.Variable{}
	}
	if slices.Contains(knownEnv, name) {
		switch name {
		case "HOME":
			if g.Home != "" && !st.remote {
				return str(g.Home)
			}
		case "USER", "LOGNAME":
			if g.User != "" {
				return str(g.User)
			}
		default:
			if v, ok := os.LookupEnv(name); ok && !st.remote {
				return str(v)
			}
			return expand.Variable{}
		}
	}
	return g.envUnknown(name, "the variable $"+name+", whose value is not known")
}

func (g *Walker) envUnknown(name, desc string) expand.Variable {
	g.mu.Lock()
	id, ok := g.varSource[name+"\x00"+desc]
	g.mu.Unlock()
	if !ok {
		m := g.Unknown(Source{Desc: desc})
		r, _ := utf8.DecodeRuneInString(m)
		id = int(r - markerBase)
		g.mu.Lock()
		g.varSource[name+"\x00"+desc] = id
		g.mu.Unlock()
	}
	return expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: string(rune(markerBase + id))}
}

// lookup is a variable's value in st: set by the script or from the
// environment.
func (g *Walker) lookup(st *State, name string) expand.Variable {
	if v, ok := st.vars[name]; ok {
		return v
	}
	return g.envVar(st, name)
}

// guardEnv is the shell environment expand sees: the state's variables over
// what the guard knows of the environment. It implements expand.WriteEnviron
// so that ${x:=v} and arithmetic assignments update the state.
type guardEnv struct {
	g  *Walker
	st *State
}

func (e guardEnv) Get(name string) expand.Variable {
	if v, ok := e.st.vars[name]; ok {
		return v
	}
	return e.g.envVar(e.st, name)
}

func (e guardEnv) Each(fn func(name string, vr expand.Variable) bool) {
	for _, k := range slices.Sorted(maps.Keys(e.st.vars)) {
		if !fn(k, e.st.vars[k]) {
			return
		}
	}
}

func (e guardEnv) Set(name string, vr expand.Variable) error {
	if vr.Kind == expand.KeepValue {
		old := e.Get(name)
		old.Exported = old.Exported || vr.Exported
		old.ReadOnly = old.ReadOnly || vr.ReadOnly
		vr = old
	}
	e.st.setVar(name, vr)
	return nil
}

// Bounds on the values the guard follows.
const (
	maxValueBytes = 64 << 10
	maxValueItems = 4096
)

// setVar assigns a variable, following a nameref, and remembers the old
// value when the variable is local to the function being walked.
func (st *State) setVar(name string, vr expand.Variable) {
	// A value that grows without bound (x=$x$x in a loop) is not followed.
	size := len(vr.Str)
	for _, v := range vr.List {
		size += len(v) + 1
	}
	if size > maxValueBytes || len(vr.List) > maxValueItems || len(vr.Map) > maxValueItems {
		vr = expand.Variable{Set: true, Exported: vr.Exported, Kind: expand.String, Str: string(rune(markerBase))}
	}
	for range 8 {
		cur, ok := st.vars[name]
		if !ok || cur.Kind != expand.NameRef || vr.Kind == expand.NameRef {
			break
		}
		name = cur.Str
	}
	if old, ok := st.vars[name]; ok && old.Exported {
		vr.Exported = true
	}
	st.vars[name] = vr
}

// declareLocal saves a variable's value to be restored when the function
// being walked returns.
func (st *State) declareLocal(name string) {
	if len(st.locals) == 0 {
		return
	}
	top := st.locals[len(st.locals)-1]
	if _, done := top[name]; done {
		return
	}
	if v, ok := st.vars[name]; ok {
		top[name] = &v
	} else {
		top[name] = nil
	}
}
