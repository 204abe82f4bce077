package walk

import (
	"fmt"
	"path"
	"reflect"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// maxLoopValues bounds the values of a for loop walked one by one.
const maxLoopValues = 16

func (g *Walker) stmts(st *State, list []*syntax.Stmt) {
	for _, s := range list {
		g.stmt(st, s)
	}
}

// stmt walks one statement as bash would run it.
func (g *Walker) stmt(st *State, s *syntax.Stmt) {
	if s == nil || !g.step() {
		return
	}
	if s.Background {
		// A background job runs in a subshell of its own.
		c := st.Clone()
		g.stmtIn(c, s)
		return
	}
	g.stmtIn(st, s)
}

func (g *Walker) stmtIn(st *State, s *syntax.Stmt) {
	saved := st.Stdin
	defer func() { st.Stdin = saved }()
	for _, r := range s.Redirs {
		g.redirect(st, r)
	}
	g.noteWrites(st, s, saved)
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		g.callExpr(st, s, c)
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.AndStmt, syntax.OrStmt:
			done, others := g.andOr(st, c)
			for _, o := range others {
				done = g.merge(done, o)
			}
			*st = *done
		default:
			g.pipeline(st, c)
		}
	case *syntax.Subshell:
		g.stmts(st.Clone(), c.Stmts)
	case *syntax.Block:
		g.stmts(st, c.Stmts)
	case *syntax.IfClause:
		g.ifClause(st, c)
	case *syntax.WhileClause:
		g.whileClause(st, c)
	case *syntax.ForClause:
		g.forClause(st, c)
	case *syntax.CaseClause:
		g.substs(st, c.Word)
		g.literal(st, c.Word)
		out := st.Clone()
		for _, item := range c.Items {
			for _, p := range item.Patterns {
				g.substs(st, p)
			}
			b := st.Clone()
			g.stmts(b, item.Stmts)
			out = g.merge(out, b)
		}
		*st = *out
	case *syntax.FuncDecl:
		g.funcDecl(st, c)
	case *syntax.ArithmCmd:
		g.substs(st, c)
		g.arithm(st, c.X)
	case *syntax.LetClause:
		for _, x := range c.Exprs {
			g.substs(st, x)
			g.arithm(st, x)
		}
	case *syntax.TestClause:
		g.substs(st, c)
	case *syntax.DeclClause:
		g.declClause(st, c)
	case *syntax.TimeClause:
		g.stmt(st, c.Stmt)
	case *syntax.CoprocClause:
		g.stmt(st.Clone(), c.Stmt)
	}
}

// andOr walks a chain of && and ||: in `a && b && c`, c runs in the state
// where a and b have both run. It returns that state and the states of the
// paths that stopped early.
func (g *Walker) andOr(st *State, b *syntax.BinaryCmd) (*State, []*State) {
	var cur *State
	var others []*State
	if inner, ok := b.X.Cmd.(*syntax.BinaryCmd); ok && (inner.Op == syntax.AndStmt || inner.Op == syntax.OrStmt) && len(b.X.Redirs) == 0 && !b.X.Background && !b.X.Negated {
		cur, others = g.andOr(st, inner)
	} else {
		// The chain's first command runs in st itself: the caller replaces
		// st with the merge of the paths anyway.
		cur = st
		g.stmt(cur, b.X)
	}
	if b.Op == syntax.AndStmt {
		others = append(others, cur.Clone())
		g.stmt(cur, b.Y)
		return cur, others
	}
	y := cur.Clone()
	g.stmt(y, b.Y)
	return cur, append(others, y)
}

func (g *Walker) ifClause(st *State, c *syntax.IfClause) {
	g.stmts(st, c.Cond)
	then := st.Clone()
	g.stmts(then, c.Then)
	els := st.Clone()
	if c.Else != nil {
		if !c.Else.ThenPos.IsValid() && len(c.Else.Cond) == 0 {
			g.stmts(els, c.Else.Then)
		} else {
			g.ifClause(els, c.Else)
		}
	}
	*st = *g.merge(then, els)
}

// whileClause walks a loop twice (the second time with what the first
// changed) and refuses an endless loop that starts background jobs.
func (g *Walker) whileClause(st *State, c *syntax.WhileClause) {
	if (endless(c.Cond, c.Until) || g.readsEndlessly(st, c.Cond)) && startsJobs(c.Do) {
		g.Deny("Refused: `%s` starts background jobs in an endless loop (a fork bomb), which exhausts the system's processes.", Clip(g.print(c), 80))
	}
	first := st.Clone()
	g.stmts(first, c.Cond)
	g.stmts(first, c.Do)
	m := g.merge(st, first)
	second := m.Clone()
	g.stmts(second, c.Cond)
	g.stmts(second, c.Do)
	*st = *g.merge(m, second)
}

func (g *Walker) forClause(st *State, c *syntax.ForClause) {
	switch l := c.Loop.(type) {
	case *syntax.CStyleLoop:
		if l.Cond == nil && startsJobs(c.Do) {
			g.Deny("Refused: `%s` starts background jobs in an endless loop (a fork bomb), which exhausts the system's processes.", Clip(g.print(c), 80))
		}
		for _, x := range []syntax.ArithmExpr{l.Init, l.Cond, l.Post} {
			if x != nil {
				g.substs(st, x)
				g.arithm(st, x)
			}
		}
		first := st.Clone()
		g.stmts(first, c.Do)
		m := g.merge(st, first)
		second := m.Clone()
		g.stmts(second, c.Do)
		*st = *g.merge(m, second)
	case *syntax.WordIter:
		var items []Arg
		if len(l.Items) == 0 && !l.InPos.IsValid() {
			for _, p := range st.Params {
				items = append(items, Known(p))
			}
		} else {
			for _, w := range l.Items {
				g.substs(st, w)
			}
			items = g.fields(st, l.Items)
		}
		name := l.Name.Value
		walked := 0
		pre := st.Clone()
		for _, it := range items {
			if walked == maxLoopValues {
				break
			}
			walked++
			st.setVar(name, expand.Variable{Set: true, Kind: expand.String, Str: it.Val})
			g.stmts(st, c.Do)
		}
		if walked < len(items) || walked == 0 {
			// Values not walked one by one, or a loop that may not run:
			// once more with the variable unknown.
			desc := fmt.Sprintf("the loop variable $%s", name)
			if walked < len(items) {
				desc += fmt.Sprintf(", which takes more values than the guard follows (%d)", len(items))
			}
			rest := st.Clone()
			if walked < len(items) {
				rest.setVar(name, g.unknownVar(name, desc))
				g.stmts(rest, c.Do)
			}
			*st = *g.merge(g.merge(pre, st), rest)
		}
	}
}

// endless reports whether a loop condition is always true.
func endless(cond []*syntax.Stmt, until bool) bool {
	if len(cond) != 1 {
		return false
	}
	switch c := cond[0].Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Args) == 0 {
			return false
		}
		name := c.Args[0].Lit()
		if until {
			return name == "false" && len(c.Args) == 1
		}
		switch name {
		case "true", ":":
			return len(c.Args) == 1
		case "sleep", "echo", "printf":
			return true
		case "[", "test":
			return len(c.Args) <= 3 && c.Args[1].Lit() != "" && c.Args[1].Lit() != "]"
		}
	case *syntax.ArithmCmd:
		if lit, ok := c.X.(*syntax.Word); ok {
			v := lit.Lit()
			return v != "" && strings.Trim(v, "0") != "" && strings.Trim(v, "0123456789") == "" != until
		}
	}
	return false
}

// readsEndlessly reports whether a loop condition reads an endless input
// (yes | while read …).
func (g *Walker) readsEndlessly(st *State, cond []*syntax.Stmt) bool {
	if len(cond) != 1 || st.Stdin.producer == nil {
		return false
	}
	c, ok := cond[0].Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) == 0 || c.Args[0].Lit() != "read" {
		return false
	}
	p, ok := st.Stdin.producer.Cmd.(*syntax.CallExpr)
	if !ok || len(p.Args) == 0 {
		return false
	}
	switch p.Args[0].Lit() {
	case "yes":
		return true
	case "cat":
		return len(p.Args) > 1 && (p.Args[1].Lit() == "/dev/zero" || p.Args[1].Lit() == "/dev/urandom")
	}
	return false
}

// startsJobs reports whether statements start a background job or a
// pipeline of new processes.
func startsJobs(list []*syntax.Stmt) bool {
	found := false
	for _, s := range list {
		syntax.Walk(s, func(n syntax.Node) bool {
			if st, ok := n.(*syntax.Stmt); ok && st.Background {
				found = true
			}
			return !found
		})
	}
	return found
}

// Print writes a node back as one line of shell, "" when it cannot.
func Print(n syntax.Node) string {
	var b strings.Builder
	_ = syntax.NewPrinter(syntax.SingleLine(true)).Print(&b, n)
	return b.String()
}

// substs walks the command and process substitutions inside a node as the
// subshells they are. Their output, when needed, is computed separately.
func (g *Walker) substs(st *State, n syntax.Node) {
	if n == nil || reflect.ValueOf(n).IsNil() {
		return
	}
	syntax.Walk(n, func(m syntax.Node) bool {
		switch m := m.(type) {
		case *syntax.CmdSubst:
			c := st.Clone()
			c.Stdin = Input{}
			g.stmts(c, m.Stmts)
			return false
		case *syntax.ProcSubst:
			c := st.Clone()
			if m.Op == syntax.CmdOut {
				c.Stdin = Input{Set: true, Desc: "the data written to `" + Clip(g.print(m), 60) + "`"}
			}
			g.stmts(c, m.Stmts)
			return false
		}
		return true
	})
}

// arithm evaluates an arithmetic expression for its assignments; variables
// it cannot evaluate become unknown.
func (g *Walker) arithm(st *State, x syntax.ArithmExpr) {
	if _, err := expand.Arithm(g.config(st), x); err == nil {
		return
	}
	syntax.Walk(x, func(n syntax.Node) bool {
		if b, ok := n.(*syntax.BinaryArithm); ok && b.Op >= syntax.Assgn && b.Op <= syntax.ShrAssgn {
			if w, ok := b.X.(*syntax.Word); ok && syntax.ValidName(w.Lit()) {
				st.setVar(w.Lit(), g.unknownVar(w.Lit(), "the variable $"+w.Lit()+", computed by arithmetic the guard cannot evaluate"))
			}
		}
		if u, ok := n.(*syntax.UnaryArithm); ok && (u.Op == syntax.Inc || u.Op == syntax.Dec) {
			if w, ok := u.X.(*syntax.Word); ok && syntax.ValidName(w.Lit()) {
				st.setVar(w.Lit(), g.unknownVar(w.Lit(), "the variable $"+w.Lit()+", computed by arithmetic the guard cannot evaluate"))
			}
		}
		return true
	})
}

// redirect checks one redirection and, for input, sets what the command
// reads.
func (g *Walker) redirect(st *State, r *syntax.Redirect) {
	g.substs(st, r.Word)
	g.substs(st, r.Hdoc)
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		if r.N == nil || r.N.Value == "0" {
			st.Stdin = Input{Set: true, known: true, text: g.document(st, r.Hdoc), Desc: "a here-document"}
		}
		return
	case syntax.WordHdoc:
		if r.N == nil || r.N.Value == "0" {
			a := g.literal(st, r.Word)
			st.Stdin = Input{Set: true, known: !a.Dynamic(), text: a.Val + "\n", Desc: "a here-string"}
			if a.Dynamic() {
				st.Stdin.Desc = g.ArgSource(a).Text()
			}
		}
		return
	}
	if r.Word == nil {
		return
	}
	a := g.literal(st, r.Word)
	if (r.Op == syntax.DplOut || r.Op == syntax.DplIn) && (a.Val == "-" || (a.Val != "" && strings.Trim(a.Val, "0123456789") == "")) {
		return
	}
	switch r.Op {
	case syntax.RdrIn:
		if r.N == nil || r.N.Value == "0" {
			st.Stdin = g.fileInput(st, a)
		}
		g.CheckPaths(st, []Arg{a})
	case syntax.DplIn:
		g.CheckPaths(st, []Arg{a})
	default: // >, >>, >|, &>, &>>, <>, >&file
		g.CheckWrite(st, a, "redirecting output onto")
		if p, ok := g.AbsPath(st, a.Val); ok && !a.Dynamic() {
			g.Written[p] = FileNote{By: "a redirection"}
		}
	}
}

// startupFiles are the files shells run when they start.
var startupFiles = map[string]bool{
	".bashrc": true, ".bash_profile": true, ".bash_login": true, ".profile": true, ".zshrc": true, ".zprofile": true,
	".zshenv": true, ".zlogin": true, ".kshrc": true, ".mkshrc": true, "bash.bashrc": true, "profile": true, "environment": true,
}

// noteWrites remembers what `cmd > file` puts in file, to be computed if
// the command later runs or reads that file.
func (g *Walker) noteWrites(st *State, s *syntax.Stmt, stdin Input) {
	if _, ok := s.Cmd.(*syntax.CallExpr); !ok {
		return
	}
	var keep []*syntax.Redirect
	for _, r := range s.Redirs {
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc, syntax.RdrIn:
			keep = append(keep, r)
		}
	}
	for _, r := range s.Redirs {
		appends := r.Op == syntax.AppOut || r.Op == syntax.AppAll
		if r.Op != syntax.RdrOut && r.Op != syntax.ClbOut && r.Op != syntax.RdrAll && !appends || r.N != nil && r.N.Value != "1" {
			continue
		}
		a := g.literal(st, r.Word)
		p, ok := g.AbsPath(st, a.Val)
		if !ok || a.Dynamic() {
			continue
		}
		wst := st.Clone()
		wst.Stdin = stdin
		writer := &syntax.Stmt{Cmd: s.Cmd, Redirs: keep}
		if !appends {
			g.Written[p] = FileNote{By: g.print(s), writer: writer, wst: wst}
		}
		if startupFiles[path.Base(p)] {
			// A shell start-up file runs in every new shell.
			g.Code(st.Clone(), g.sandbox(wst, []*syntax.Stmt{writer}, stdin), "the shell start-up file "+p)
		}
	}
}

// callExpr walks a simple command: its assignments, its words, and then
// what it runs.
func (g *Walker) callExpr(st *State, s *syntax.Stmt, call *syntax.CallExpr) {
	for _, a := range call.Assigns {
		g.substs(st, a.Value)
		g.substs(st, a.Array)
		g.substs(st, a.Index)
	}
	for _, w := range call.Args {
		g.substs(st, w)
	}
	if len(call.Args) == 0 {
		g.assigns(st, call.Assigns, false)
		return
	}
	// An alias replaces the first word when bash expands aliases; bash -c
	// does not unless told to, so both readings are checked.
	if name := call.Args[0].Lit(); name != "" && len(st.aliases[name]) > 0 {
		rest := g.fields(st, call.Args[1:])
		for _, val := range st.aliases[name] {
			g.script(st.Clone(), val+" "+QuoteArgs(rest), g.Depth+1, "the alias "+name)
		}
	}
	args := g.fields(st, call.Args)
	if len(args) == 0 {
		g.assigns(st, call.Assigns, false)
		return
	}
	env := st
	if len(call.Assigns) > 0 {
		// NAME=value before a command is in the command's environment only.
		env = st.Clone()
		g.assigns(env, call.Assigns, true)
		g.checkEnvAssigns(env, call.Assigns)
	}
	g.Command(st, env, args, &Src{node: call})
}
