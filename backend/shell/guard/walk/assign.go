package walk

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// This file follows what assignments, declarations and functions do to the
// shell's state, and refuses fork bombs.

// funcDecl is a function the script defines.
type funcDecl struct {
	name   string
	body   *syntax.Stmt
	st     *State
	called bool
}

// assigns applies NAME=value assignments.
func (g *Walker) assigns(st *State, as []*syntax.Assign, export bool) {
	for _, a := range as {
		if a.Name == nil {
			continue
		}
		name := a.Name.Value
		var vr expand.Variable
		switch {
		case a.Array != nil:
			vr = g.arrayValue(st, name, a)
		case a.Index != nil:
			cur := guardEnv{g, st}.Get(name)
			val := g.literal(st, a.Value)
			switch cur.Kind {
			case expand.Associative:
				key, err := expand.Literal(g.config(st), arithWord(a.Index))
				if err != nil || HasMarker(key) {
					vr = g.unknownVar(name, "the array $"+name+", indexed by a value the guard cannot know")
					break
				}
				cur.Map = copyMap(cur.Map)
				cur.Map[key] = val.Val
				vr = cur
			default:
				i, err := expand.Arithm(g.config(st), a.Index)
				if err != nil || i < 0 || i > 1024 {
					vr = g.unknownVar(name, "the array $"+name+", indexed by a value the guard cannot know")
					break
				}
				list := slices.Clone(cur.List)
				if cur.Kind == expand.String && cur.Set {
					list = []string{cur.Str}
				}
				for len(list) <= i {
					list = append(list, "")
				}
				list[i] = val.Val
				vr = expand.Variable{Set: true, Kind: expand.Indexed, List: list}
			}
		default:
			val := g.literal(st, a.Value)
			if val.Lost > 0 && !HasMarker(val.Val) {
				val.Val += string(rune(markerBase + val.Lost))
			}
			if a.Append {
				cur := guardEnv{g, st}.Get(name)
				if cur.Kind == expand.Indexed {
					cur.List = append(slices.Clone(cur.List), val.Val)
					vr = cur
					break
				}
				val.Val = cur.Str + val.Val
			}
			vr = expand.Variable{Set: true, Kind: expand.String, Str: val.Val}
			if cur, ok := st.vars[name]; ok && cur.Kind == expand.NameRef {
				vr.Kind = expand.String
			}
		}
		if export || st.allexport {
			vr.Exported = true
		}
		st.setVar(name, vr)
		g.specialVar(st, name, vr)
	}
}

func arithWord(x syntax.ArithmExpr) *syntax.Word {
	if w, ok := x.(*syntax.Word); ok {
		return w
	}
	return &syntax.Word{}
}

func copyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// arrayValue evaluates name=(…) and name+=(…).
func (g *Walker) arrayValue(st *State, name string, a *syntax.Assign) expand.Variable {
	cur := guardEnv{g, st}.Get(name)
	if cur.Kind == expand.Associative || (len(a.Array.Elems) > 0 && a.Array.Elems[0].Index != nil && !isNumericIndex(a.Array.Elems[0].Index)) {
		m := map[string]string{}
		if a.Append {
			m = copyMap(cur.Map)
		}
		for _, e := range a.Array.Elems {
			key := ""
			if e.Index != nil {
				key, _ = expand.Literal(g.config(st), arithWord(e.Index))
			}
			m[key] = g.literal(st, e.Value).Val
		}
		return expand.Variable{Set: true, Kind: expand.Associative, Map: m}
	}
	var list []string
	if a.Append {
		list = slices.Clone(cur.List)
	}
	for _, e := range a.Array.Elems {
		if e.Value == nil {
			continue
		}
		if e.Index != nil {
			list = append(list, g.literal(st, e.Value).Val)
			continue
		}
		for _, f := range g.wordFields(st, e.Value) {
			v := f.Val
			if f.Lost > 0 && !HasMarker(v) {
				v += string(rune(markerBase + f.Lost))
			}
			list = append(list, v)
		}
	}
	return expand.Variable{Set: true, Kind: expand.Indexed, List: list}
}

func isNumericIndex(x syntax.ArithmExpr) bool {
	w, ok := x.(*syntax.Word)
	return !ok || w.Lit() == "" || strings.Trim(w.Lit(), "0123456789") == ""
}

// declClause handles declare, local, export, readonly, typeset, nameref.
func (g *Walker) declClause(st *State, c *syntax.DeclClause) {
	variant := c.Variant.Value
	export := variant == "export"
	local := variant == "local"
	nameref := variant == "nameref"
	assoc, indexed := false, false
	for _, a := range c.Args {
		g.substs(st, a.Value)
		g.substs(st, a.Array)
		if a.Naked && a.Name == nil && a.Value != nil {
			flag := g.literal(st, a.Value).Val
			if strings.HasPrefix(flag, "-") {
				export = export || strings.Contains(flag, "x")
				nameref = nameref || strings.Contains(flag, "n")
				assoc = assoc || strings.Contains(flag, "A")
				indexed = indexed || strings.Contains(flag, "a")
				if strings.Contains(flag, "f") || strings.Contains(flag, "p") && len(c.Args) == 1 {
					return // declare -f / -p: only prints
				}
			}
			continue
		}
		if a.Name == nil {
			continue
		}
		name := a.Name.Value
		if local || variant == "declare" || variant == "typeset" {
			st.declareLocal(name)
		}
		switch {
		case nameref && a.Value != nil:
			target := g.literal(st, a.Value)
			if target.Dynamic() || !syntax.ValidName(strings.SplitN(target.Val, "[", 2)[0]) {
				st.vars[name] = g.unknownVar(name, "the nameref $"+name+", whose target is not known")
				continue
			}
			st.vars[name] = expand.Variable{Set: true, Kind: expand.NameRef, Str: target.Val, Exported: export}
		case a.Naked:
			v := guardEnv{g, st}.Get(name)
			if export {
				v.Exported = true
				if !v.Set {
					v = expand.Variable{Exported: true}
				}
			}
			if assoc && !v.Set {
				v.Kind = expand.Associative
			} else if indexed && !v.Set {
				v.Kind = expand.Indexed
			}
			if local {
				v = expand.Variable{Exported: export}
			}
			st.vars[name] = v
		default:
			if assoc && a.Array != nil {
				st.vars[name] = expand.Variable{Kind: expand.Associative, Set: true, Map: map[string]string{}}
			}
			g.assigns(st, []*syntax.Assign{a}, export)
		}
	}
}

// specialVar handles assignments that make bash run code later: prompt and
// trace strings, PROMPT_COMMAND, BASH_ENV and exported functions.
func (g *Walker) specialVar(st *State, name string, vr expand.Variable) {
	if vr.Kind != expand.String {
		return
	}
	switch {
	case name == "PROMPT_COMMAND":
		g.Code(st.Clone(), vr.Str, "PROMPT_COMMAND")
	case name == "PS0" || name == "PS1" || name == "PS2" || name == "PS4":
		// Prompts are expanded like double-quoted words: $(…) in them runs.
		g.Code(st.Clone(), "echo \""+strings.ReplaceAll(vr.Str, `"`, `\"`)+"\"", "$"+name)
	case strings.HasPrefix(name, "BASH_FUNC_") || strings.HasPrefix(strings.TrimSpace(vr.Str), "() {"):
		g.Code(st.Clone(), "f "+strings.TrimSpace(vr.Str)+"; f", "the exported function "+name)
	}
}

// funcDecl records a function and refuses fork bombs.
func (g *Walker) funcDecl(st *State, fn *syntax.FuncDecl) {
	if fn.Name == nil || fn.Body == nil {
		return
	}
	name := fn.Name.Value
	st.funcs[name] = []*syntax.Stmt{fn.Body}
	g.funcDecls = append(g.funcDecls, funcDecl{name: name, body: fn.Body, st: st.Clone()})
	if g.forkBomb(st, name, fn.Body, 0) {
		g.Deny("Refused: the function `%s` starts copies of itself in a pipeline or in the background (a fork bomb), which exhausts the system's processes.", name)
	}
}

// forkBomb reports whether a function body starts two or more copies of
// the function, or one in the background or a pipeline, directly or
// through other functions of the script.
func (g *Walker) forkBomb(st *State, name string, body *syntax.Stmt, depth int) bool {
	if depth > 4 {
		return false
	}
	calls, spawned := 0, false
	var visit func(n syntax.Node, async bool)
	visit = func(n syntax.Node, async bool) {
		syntax.Walk(n, func(m syntax.Node) bool {
			switch m := m.(type) {
			case *syntax.Stmt:
				if m.Background && !async {
					visit(m.Cmd, true)
					return false
				}
			case *syntax.BinaryCmd:
				if (m.Op == syntax.Pipe || m.Op == syntax.PipeAll) && !async {
					visit(m.X, true)
					visit(m.Y, true)
					return false
				}
			case *syntax.CallExpr:
				if len(m.Args) == 0 {
					return true
				}
				callee := m.Args[0].Lit()
				if callee == name {
					calls++
					spawned = spawned || async
				} else if bodies := st.funcs[callee]; len(bodies) > 0 && callee != "" && depth < 4 {
					for _, b := range bodies {
						if b != body && g.forkBomb(st, name, b, depth+1) {
							calls += 2
						}
					}
				}
			}
			return true
		})
	}
	visit(body, false)
	return calls >= 2 || spawned
}

// callFunc walks a function body called with args, in the caller's state
// (functions share the shell's variables), restoring local variables and
// positional parameters afterwards.
func (g *Walker) callFunc(st *State, name string, args []Arg) {
	for i := range g.funcDecls {
		if g.funcDecls[i].name == name {
			g.funcDecls[i].called = true
		}
	}
	for _, body := range st.funcs[name] {
		if g.calling[body] > 0 {
			continue
		}
		g.calling[body]++
		oldParams := st.Params
		st.Params = make([]string, 0, len(args))
		for _, a := range args {
			v := a.Val
			if a.Lost > 0 && !HasMarker(v) {
				v += string(rune(markerBase + a.Lost))
			}
			st.Params = append(st.Params, v)
		}
		st.locals = append(st.locals, map[string]*expand.Variable{})
		g.stmt(st, body)
		top := st.locals[len(st.locals)-1]
		st.locals = st.locals[:len(st.locals)-1]
		for k, v := range top {
			if v == nil {
				delete(st.vars, k)
			} else {
				st.vars[k] = *v
			}
		}
		st.Params = oldParams
		g.calling[body]--
	}
}
