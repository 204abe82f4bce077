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
	printer := syntax.NewPrinter()
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		words := make([]string, 0, len(call.Args))
		for _, w := range call.Args {
			if lit, ok := literalWord(w); ok {
				words = append(words, lit)
				continue
			}
			var sb strings.Builder
			if err := printer.Print(&sb, w); err != nil {
				sb.WriteString("$?")
			}
			words = append(words, "\x00"+sb.String()) // never equal to a literal
		}
		cmds = append(cmds, strings.Join(words, " "))
		return true
	})
	return cmds, nil
}

// literalWord returns a word's value when it has no expansions: plain
// literals, single quotes, double quotes around literals, and backslash
// escapes.
func literalWord(w *syntax.Word) (string, bool) {
	var sb strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(p.Value, "*?[") {
				return "", false // a glob: its value depends on the files present
			}
			sb.WriteString(unescapeLit(p.Value))
		case *syntax.SglQuoted:
			sb.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, inner := range p.Parts {
				lit, ok := inner.(*syntax.Lit)
				if !ok {
					return "", false
				}
				sb.WriteString(lit.Value)
			}
		default:
			return "", false
		}
	}
	return sb.String(), true
}

// unescapeLit removes the backslashes of an unquoted literal (\r\m is rm).
func unescapeLit(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		sb.WriteByte(s[i])
	}
	return sb.String()
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
