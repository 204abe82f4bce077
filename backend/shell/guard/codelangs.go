package guard

import (
	"regexp"
	"strings"
	"tinyelf/backend/shell/guard/walk"
)

// This file holds the call tables of the languages the interpreter table
// names beyond the usual scripting languages (code.go): the
// obvious ways each runs a command, deletes a folder tree or evaluates
// code built at run time, so that their destructive inline code is
// refused even where the language as a whole is not followed.

// spaceArgs are the languages whose call arguments are separated by
// spaces, inside the call's parentheses (Lisp: (system "rm -rf /")) or up
// to the end of the command (Tcl: exec rm -rf /, Haskell: callProcess "rm"
// ["-rf", "/"]).
var spaceArgs = map[string]bool{"scheme": true, "lisp": true, "elisp": true, "clojure": true, "haskell": true, "tcl": true}

// lispLangs open every call with a parenthesis.
var lispLangs = map[string]bool{"scheme": true, "lisp": true, "elisp": true, "clojure": true}

// lisp returns the pattern of a Lisp call of one of names: "(name ".
func lisp(names string) *regexp.Regexp {
	return regexp.MustCompile(`\(\s*(` + names + `)\s+`)
}

// moreCalls are the call tables of the languages of the interpreter table
// that code.go does not define.
var moreCalls = map[string][]codeCall{
	"julia": {
		{re: regexp.MustCompile(`\brm\s*\(`), kind: "rmtree", recursive: regexp.MustCompile(`recursive\s*=\s*true`)},
		{re: regexp.MustCompile(`\b(eval|include_string)\s*\(`), kind: "eval"},
	},
	"scheme": {
		{re: lisp(`system|process|shell-command|open-input-pipe|open-output-pipe`), kind: "shell"},
		{re: lisp(`system\*|process\*`), kind: "argv"},
		{re: lisp(`delete-directory/files|delete-directory\*`), kind: "rmtree"},
		{re: lisp(`delete-file|delete-directory`), kind: "remove"},
		{re: lisp(`eval|eval-string|primitive-eval`), kind: "eval"},
	},
	"lisp": {
		{re: lisp(`uiop:run-program|uiop:launch-program|uiop:run-shell-command|ext:shell|ext:run-shell-command|asdf:run-shell-command`), kind: "shell"},
		{re: lisp(`sb-ext:run-program|ext:run-program|ccl:run-program|run-program`), kind: "argv"},
		{re: lisp(`uiop:delete-directory-tree|cl-fad:delete-directory-and-files`), kind: "rmtree"},
		{re: lisp(`sb-ext:delete-directory`), kind: "rmtree", recursive: regexp.MustCompile(`:recursive\s+t\b`)},
		{re: lisp(`delete-file`), kind: "remove"},
		{re: lisp(`eval`), kind: "eval"},
	},
	"elisp": {
		{re: lisp(`shell-command|shell-command-to-string|async-shell-command`), kind: "shell"},
		{re: lisp(`start-process-shell-command|start-file-process-shell-command`), kind: "shell", skip: 2},
		{re: lisp(`call-process`), kind: "argv", gap: 3},
		{re: lisp(`start-process|start-file-process`), kind: "argv", skip: 2},
		{re: lisp(`process-lines`), kind: "argv"},
		{re: lisp(`delete-directory`), kind: "rmtree", recursive: regexp.MustCompile(`^\s*\S+\s+(t|'t|[^n\s)][^\s)]*)`)},
		{re: lisp(`delete-file`), kind: "remove"},
		{re: lisp(`eval`), kind: "eval"},
	},
	"clojure": {
		{re: lisp(`clojure\.java\.shell/sh|shell/sh|sh|shell|babashka\.process/shell|babashka\.process/process|p/shell|p/process|process`), kind: "argv"},
		{re: lisp(`fs/delete-tree|babashka\.fs/delete-tree`), kind: "rmtree"},
		{re: lisp(`fs/delete|fs/delete-if-exists|io/delete-file|clojure\.java\.io/delete-file`), kind: "remove"},
		{re: lisp(`eval|load-string`), kind: "eval"},
		{re: regexp.MustCompile(`\(\.exec\s+\(Runtime/getRuntime\)\s+`), kind: "shell"},
	},
	"tcl": {
		{re: regexp.MustCompile(`(?:^|[\s;\[{])(exec|spawn)\s+`), kind: "argv"},
		{re: regexp.MustCompile(`(?:^|[\s;\[{])file\s+delete\s+`), kind: "rmtree", recursive: regexp.MustCompile(`(^|\s)-force\b`)},
		{re: regexp.MustCompile(`(?:^|[\s;\[{])open\s+["{]?\|`), kind: "shell"},
		{re: regexp.MustCompile(`(?:^|[\s;\[{])(eval|uplevel)\s+`), kind: "eval"},
	},
	"haskell": {
		{re: regexp.MustCompile(`\b(system|callCommand|spawnCommand|shell)\s+`), kind: "shell"},
		{re: regexp.MustCompile(`\b(callProcess|readProcess|readProcessWithExitCode|spawnProcess|rawSystem|proc)\s+`), kind: "argv"},
		{re: regexp.MustCompile(`\b(removeDirectoryRecursive|removePathForcibly)\s+`), kind: "rmtree"},
		{re: regexp.MustCompile(`\b(removeFile|removeDirectory)\s+`), kind: "remove"},
	},
	"matlab": {
		{re: regexp.MustCompile(`\b(system|unix|dos|shell_cmd)\s*\(`), kind: "shell"},
		{re: regexp.MustCompile(`\brmdir\s*\(`), kind: "rmtree", recursive: regexp.MustCompile(`,\s*['"]s['"]`)},
		{re: regexp.MustCompile(`\bdelete\s*\(`), kind: "remove"},
		{re: regexp.MustCompile(`\b(eval|evalin|evalc)\s*\(`), kind: "eval"},
	},
	"erlang": {
		{re: regexp.MustCompile(`\bos:cmd\s*\(`), kind: "shell"},
		{re: regexp.MustCompile(`\bopen_port\s*\(\s*\{\s*spawn\s*,`), kind: "shell"},
		{re: regexp.MustCompile(`\bfile:del_dir_r\s*\(`), kind: "rmtree"},
		{re: regexp.MustCompile(`\bfile:(delete|del_dir)\s*\(`), kind: "remove"},
	},
	"elixir": {
		{re: regexp.MustCompile(`\bSystem\.cmd\s*\(?`), kind: "argv"},
		{re: regexp.MustCompile(`\b(System\.shell|:os\.cmd)\s*\(?`), kind: "shell"},
		{re: regexp.MustCompile(`\bFile\.rm_rf!?\s*\(?`), kind: "rmtree"},
		{re: regexp.MustCompile(`\bFile\.(rm|rmdir)!?\s*\(?`), kind: "remove"},
		{re: regexp.MustCompile(`\bCode\.(eval_string|eval_quoted)\s*\(?`), kind: "eval"},
	},
	"swift": {
		{re: regexp.MustCompile(`\bsystem\s*\(`), kind: "shell"},
		{re: regexp.MustCompile(`\bremoveItem\s*\(\s*(atPath|at)\s*:`), kind: "rmtree"},
	},
	"groovy": {
		{re: regexp.MustCompile(`\bRuntime\.getRuntime\(\)\.exec\s*\(`), kind: "shell"},
		{re: regexp.MustCompile(`\bnew\s+ProcessBuilder\s*\(`), kind: "argv"},
		{re: regexp.MustCompile(`\bevaluate\s*\(`), kind: "eval"},
	},
	"java": {
		{re: regexp.MustCompile(`\bRuntime\.getRuntime\(\)\.exec\s*\(`), kind: "shell"},
		{re: regexp.MustCompile(`\bnew\s+ProcessBuilder\s*\(`), kind: "argv"},
		{re: regexp.MustCompile(`\bFileUtils\.deleteDirectory\s*\(\s*new\s+File\s*\(`), kind: "rmtree"},
	},
	"scala": {
		{re: regexp.MustCompile(`\bProcess\s*\(`), kind: "shell"},
		{re: regexp.MustCompile(`\bos\.proc\s*\(`), kind: "argv"},
		{re: regexp.MustCompile(`\bos\.remove\.all\s*\(\s*os\.Path\s*\(`), kind: "rmtree"},
	},
	"kotlin": {
		{re: regexp.MustCompile(`\bRuntime\.getRuntime\(\)\.exec\s*\(`), kind: "shell"},
		{re: regexp.MustCompile(`\bProcessBuilder\s*\(`), kind: "argv"},
	},
	"raku": {
		{re: regexp.MustCompile(`\bshell\s*\(?`), kind: "shell"},
		{re: regexp.MustCompile(`\brun\s*\(?`), kind: "argv"},
		{re: regexp.MustCompile(`\bEVAL\s*\(?`), kind: "eval"},
	},
	"crystal": {
		{re: regexp.MustCompile(`\bsystem\s*\(?`), kind: "argv"},
		{re: regexp.MustCompile(`\bProcess\.(run|new|exec)\s*\(`), kind: "argv"},
		{re: regexp.MustCompile(`\bFileUtils\.(rm_rf|rm_r)\s*\(?`), kind: "rmtree"},
		{re: regexp.MustCompile(`\b(FileUtils\.rm|File\.delete|Dir\.delete)\s*\(?`), kind: "remove"},
	},
	"c": {
		{re: regexp.MustCompile(`\b(system|popen)\s*\(`), kind: "shell"},
		{re: regexp.MustCompile(`\bexecl?p?\s*\(`), kind: "argv", skip: 1},
		{re: regexp.MustCompile(`\b(remove|unlink|rmdir)\s*\(`), kind: "remove"},
	},
	"applescript": {
		{re: regexp.MustCompile(`(?i)\bdo\s+shell\s+script\s+`), kind: "shell"},
		{re: regexp.MustCompile(`\bdoShellScript\s*\(`), kind: "shell"},
	},
	"gnuplot": {
		{re: regexp.MustCompile(`\bsystem\s*\(`), kind: "shell"},
	},
	"vim": {
		{re: regexp.MustCompile(`\b(system|systemlist|jobstart|termopen)\s*\(`), kind: "shell"},
		{re: regexp.MustCompile(`\bdelete\s*\(`), kind: "rmtree", recursive: regexp.MustCompile(`,\s*['"]rf?['"]`)},
	},
	"gdb": {
		{re: regexp.MustCompile(`\b(system|popen)\s*\(`), kind: "shell"},
		{re: regexp.MustCompile(`\bexecl?p?\s*\(`), kind: "argv", skip: 1},
	},
}

// receiverCall is a call whose command or path is the value it is called
// on, not an argument ("rm -rf /".execute() in Groovy, "rm -rf /".! in
// Scala, File("/").deleteRecursively() in Kotlin): group 1 is a string
// literal or a list of them.
type receiverCall struct {
	re   *regexp.Regexp
	kind string // "shell", "argv", "rmtree", "remove"
}

const litPattern = `("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|\[[^\]\n]*\])`

var receiverCalls = map[string][]receiverCall{
	"groovy": {
		{regexp.MustCompile(litPattern + `\s*\.\s*execute\s*\(`), "shell"},
		{regexp.MustCompile(`new\s+File\s*\(\s*` + litPattern + `\s*\)\s*\.\s*deleteDir\s*\(`), "rmtree"},
		{regexp.MustCompile(`new\s+File\s*\(\s*` + litPattern + `\s*\)\s*\.\s*delete\s*\(`), "remove"},
	},
	"scala": {
		{regexp.MustCompile(litPattern + `\s*\.?\s*!!?`), "shell"},
		{regexp.MustCompile(`Seq\s*\(([^)\n]*)\)\s*\.?\s*!!?`), "argv"},
	},
	"kotlin": {
		{regexp.MustCompile(`File\s*\(\s*` + litPattern + `\s*\)\s*\.\s*deleteRecursively\s*\(`), "rmtree"},
		{regexp.MustCompile(`File\s*\(\s*` + litPattern + `\s*\)\s*\.\s*delete\s*\(`), "remove"},
		{regexp.MustCompile(litPattern + `\s*\.\s*runCommand\s*\(`), "shell"},
	},
	"java": {
		{regexp.MustCompile(`Files\s*\.\s*delete(?:IfExists)?\s*\(\s*(?:Path\.of|Paths\.get)\s*\(\s*` + litPattern), "remove"},
	},
}

// evalParts evaluates the space-separated arguments of a Lisp, Tcl or
// Haskell call: each is a string literal, a list of them ('("a" "b"),
// (list "a" "b"), ["a", "b"]), or, in Tcl, a bare or braced word; ok is
// false for any other value (a variable, a nested call, nil).
func (g *checker) evalParts(lang, text string) (vals []string, ok []bool) {
	for _, p := range splitSpace(text) {
		switch {
		case strings.HasPrefix(p, "'(") || strings.HasPrefix(p, "(list ") || strings.HasPrefix(p, "[") && lang != "tcl":
			inner := strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(p, "'"), "(list "), "(")
			inner = strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(inner, "["), "]"), ")")
			elems := splitSpace(strings.ReplaceAll(inner, ",", " "))
			all := len(elems) > 0
			var vs []string
			for _, e := range elems {
				v, good := g.evalString("py", e)
				all = all && good
				vs = append(vs, v)
			}
			if !all {
				vals, ok = append(vals, ""), append(ok, false)
				continue
			}
			for _, v := range vs {
				vals, ok = append(vals, v), append(ok, true)
			}
		case lang == "tcl":
			v, good := tclWord(p)
			vals, ok = append(vals, v), append(ok, good)
		default:
			v, good := g.evalString("py", p)
			vals, ok = append(vals, v), append(ok, good)
		}
	}
	return vals, ok
}

// tclWord evaluates one Tcl word without substitutions: {braced},
// "quoted" without $ or [, or bare.
func tclWord(w string) (string, bool) {
	switch {
	case strings.HasPrefix(w, "{") && strings.HasSuffix(w, "}"):
		return w[1 : len(w)-1], true
	case strings.ContainsAny(w, "$[\\"):
		return "", false
	case strings.HasPrefix(w, `"`) && strings.HasSuffix(w, `"`) && len(w) > 1:
		return w[1 : len(w)-1], true
	}
	return w, true
}

// splitSpace splits s at whitespace outside quotes and brackets.
func splitSpace(s string) []string {
	var out []string
	depth, start := 0, -1
	var quote byte
	for i := 0; i <= len(s); i++ {
		if i == len(s) {
			if start >= 0 {
				out = append(out, s[start:])
			}
			break
		}
		ch := s[i]
		switch {
		case quote != 0:
			if ch == '\\' {
				i++
			} else if ch == quote {
				quote = 0
			}
			continue
		case ch == '"' || ch == '`':
			quote = ch
		case ch == '(' || ch == '[' || ch == '{':
			depth++
		case ch == ')' || ch == ']' || ch == '}':
			depth--
		case (ch == ' ' || ch == '\t' || ch == '\n') && depth == 0:
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	return out
}

// callValues evaluates a call's arguments as its language writes them,
// dropping the skip arguments before the command and the gap arguments
// after the program (Emacs' call-process PROGRAM INFILE DEST DISPLAY ARGS).
func (g *checker) callValues(lang string, cc codeCall, argText string) ([]string, bool) {
	if lang == "julia" {
		argText = strings.Replace(argText, ";", ",", 1) // rm(path; recursive=true)
	}
	if lang == "swift" {
		argText = regexp.MustCompile(`^\s*(atPath|at)\s*:`).ReplaceAllString(argText, "")
	}
	if !spaceArgs[lang] {
		vals, ok := g.evalArgs(lang, argText)
		if ok && cc.skip > 0 && len(vals) > cc.skip {
			vals = vals[cc.skip:]
		}
		return vals, ok
	}
	vals, oks := g.evalParts(lang, argText)
	if len(vals) <= cc.skip || !oks[cc.skip] {
		return nil, false
	}
	vals, oks = vals[cc.skip:], oks[cc.skip:]
	if lang == "tcl" && (cc.kind == "rmtree" || cc.kind == "remove") {
		// file delete -force -- PATH…: the paths follow the options.
		for len(vals) > 1 && strings.HasPrefix(vals[0], "-") && oks[0] {
			vals, oks = vals[1:], oks[1:]
		}
		if !oks[0] {
			return nil, false
		}
	}
	out := []string{vals[0]}
	rest, restOK := vals[1:], oks[1:]
	if cc.gap > 0 {
		rest, restOK = rest[min(cc.gap, len(rest)):], restOK[min(cc.gap, len(restOK)):]
	}
	for i, v := range rest {
		if !restOK[i] {
			break
		}
		out = append(out, v)
	}
	return out, true
}

// scanReceivers checks the calls whose command or path is the value they
// are called on.
func (g *checker) scanReceivers(st *walk.State, lang, code, origin string) {
	for _, rc := range receiverCalls[lang] {
		for _, m := range rc.re.FindAllStringSubmatch(code, 8) {
			vals, ok := g.evalArgs("py", m[1])
			if !ok || len(vals) == 0 {
				continue
			}
			what := "`" + walk.Clip(m[0], 60) + "` in " + origin
			switch rc.kind {
			case "shell":
				g.Code(st.Clone(), strings.Join(vals, " "), what)
			case "argv":
				words := make([]walk.Arg, len(vals))
				for i, v := range vals {
					words[i] = walk.Known(v)
				}
				g.Command(nil, st.Clone(), words, &walk.Src{Text: what})
			case "rmtree", "remove":
				kind := killRecursive
				if rc.kind == "remove" {
					kind = killFiles
				}
				g.destroy(&walk.Call{Env: st, Args: []walk.Arg{walk.Known(rc.kind), walk.Known(vals[0])}, Label: what}, kind, rc.kind, []walk.Arg{walk.Known(vals[0])})
			}
		}
	}
}

// appleScriptPower matches AppleScript that shuts down, restarts or puts
// the Mac to sleep through System Events or the Finder.
var (
	appleScriptTell  = regexp.MustCompile(`(?i)\btell\s+app(lication)?\s+"(System Events|Finder|loginwindow)"`)
	appleScriptPower = regexp.MustCompile(`(?i)\b(shut\s*down|restart|log\s*out|sleep)\b`)
)

// jsShellTemplate matches a shell command in a tagged template (zx's and
// Bun's $`…`), and jsDenoCommand Deno's subprocess APIs.
var (
	jsShellTemplate = regexp.MustCompile("(?:^|[^\\w$])\\$\\s*`([^`]*)`")
	jsDenoCommand   = regexp.MustCompile(`\bnew\s+Deno\.Command\s*\(\s*` + litPattern + `\s*(?:,\s*\{[^}]*\bargs\s*:\s*(\[[^\]]*\]))?`)
	jsDenoRun       = regexp.MustCompile(`\bDeno\.run\s*\(\s*\{[^}]*\bcmd\s*:\s*(\[[^\]]*\])`)
)

// scanJSRuntimes checks the subprocess calls of Deno, Bun and zx.
func (g *checker) scanJSRuntimes(st *walk.State, code, origin string, unknown func(string, ...any)) {
	for _, m := range jsShellTemplate.FindAllStringSubmatch(code, 8) {
		what := "the shell command $`…` in " + origin
		if strings.Contains(m[1], "${") {
			unknown("The command %s runs is built when it runs and cannot be checked before it runs.", what)
		}
		g.Code(st.Clone(), m[1], what)
	}
	argv := func(m []string, what string) {
		var words []walk.Arg
		for _, part := range m[1:] {
			if part == "" {
				continue
			}
			vals, ok := g.evalArgs("js", part)
			if !ok {
				unknown("The command %s runs is built when it runs and cannot be checked before it runs.", what)
				return
			}
			for _, v := range vals {
				words = append(words, walk.Known(v))
			}
		}
		if len(words) > 0 {
			g.Command(nil, st.Clone(), words, &walk.Src{Text: what})
		}
	}
	for _, m := range jsDenoCommand.FindAllStringSubmatch(code, 8) {
		argv(m, "`Deno.Command` in "+origin)
	}
	for _, m := range jsDenoRun.FindAllStringSubmatch(code, 8) {
		argv(m, "`Deno.run` in "+origin)
	}
}
