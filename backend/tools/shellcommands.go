package tools

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// ShellCommands returns every simple command of a bash script, each as its
// words joined by single spaces with quoting removed, in source order,
// including commands inside pipelines, lists, subshells, command
// substitutions and function bodies. A word whose value is only known at run
// time (a parameter expansion, a glob, a command substitution) is kept as
// its source text, so a permission rule written for literal commands does
// not match it by accident. Assignments alone (FOO=1) are not commands.
func ShellCommands(script string) ([]string, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), "")
	if err != nil {
		return nil, fmt.Errorf("parse shell command: %w", err)
	}
	var cmds []string
	// A guard that knows no variables, home or folder: every expansion stays
	// dynamic, so a rule only ever matches what is literally written.
	g := &shellGuard{vars: map[string]string{}}
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		words := make([]string, 0, len(call.Args))
		for _, w := range call.Args {
			r := g.resolveWord(w)
			if r.static && !hasGlob(w) {
				words = append(words, r.val)
			} else {
				words = append(words, "\x00"+r.raw) // never equal to a literal
			}
		}
		cmds = append(cmds, strings.Join(words, " "))
		return true
	})
	return cmds, nil
}

// hasGlob reports whether a word has an unquoted glob character: its value
// depends on the files present.
func hasGlob(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if lit, ok := p.(*syntax.Lit); ok && strings.ContainsAny(lit.Value, "*?[") {
			return true
		}
	}
	return false
}

// CommandMatchesPrefix reports whether a command from ShellCommands starts
// with prefix on a word boundary: "git status -s" matches "git status", but
// "git statusx" and "git" followed by "status" in another command do not.
func CommandMatchesPrefix(command, prefix string) bool {
	prefix = strings.Join(strings.Fields(prefix), " ")
	if prefix == "" {
		return false
	}
	return command == prefix || strings.HasPrefix(command, prefix+" ")
}
