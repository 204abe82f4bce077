package tools

import (
	"path"
	"regexp"
	"slices"
	"strings"
)

// This file follows the code that find, git, make, npm, crontab and sed run,
// and keeps track of the files commands write.

// checkFind checks the commands find runs with -exec, -execdir, -ok and
// -okdir, and what -delete deletes: the files it selects under its start.
func (g *checker) checkFind(c *shCall) {
	starts, expr := findStarts(c.args[1:])
	if len(starts) > 4 {
		starts = starts[:4]
	}
	selects := findSelects(expr)
	selection := func(start shArg, what string) shArg {
		src := source{desc: "the files `find " + shown(start.val) + "` " + what}
		if !start.dynamic() {
			if p, ok := g.absPath(c.env, start.val); ok {
				src.under, src.all = p, !selects
			}
		} else {
			src.desc += ", under " + g.argSource(start).text()
		}
		return shArg{val: g.unknown(src), raw: "{}"}
	}
	for i := 0; i < len(expr); i++ {
		v := expr[i].val
		switch v {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(expr) && expr[j].val != ";" && expr[j].val != "+" {
				j++
			}
			if j > i+1 {
				for _, start := range starts {
					sel := selection(start, "selects")
					words := make([]shArg, j-i-1)
					for k, w := range expr[i+1 : j] {
						words[k] = w
						words[k].val = strings.ReplaceAll(w.val, "{}", sel.val)
					}
					env := c.env
					if v == "-execdir" || v == "-okdir" {
						env = g.inDir(c.env, start)
					}
					g.command(nil, env, words, c.src)
				}
			}
			i = j
		case "-delete":
			for _, start := range starts {
				g.destroy(c, killRecursive, "find -delete", []shArg{selection(start, "selects")})
			}
		case "-fprint", "-fprint0", "-fls", "-fprintf":
			if i+1 < len(expr) {
				g.checkWrite(c.env, expr[i+1], c.cmdText()+" writing to")
			}
			i++
		}
	}
}

// gitCommandKeys are git settings whose value is a command git runs.
var gitCommandKeys = regexp.MustCompile(`(?i)^(core\.(pager|editor|sshcommand|fsmonitor|askpass)|diff\.external|diff\..*\.(textconv|command)|filter\..*\.(clean|smudge|process)|merge\..*\.driver|sequence\.editor|gpg(\..*)?\.program|pager\..*|uploadpack\.packobjectshook|difftool\..*\.cmd|mergetool\..*\.cmd|remote\..*\.(uploadpack|receivepack)|sendemail\..*cmd|credential\.helper|credential\..*\.helper|core\.gitproxy|web\.browser|browser\..*\.cmd|man\..*\.cmd|alias\..*)$`)

// checkGit follows the code git runs (aliases with !, command settings,
// rebase --exec, submodule foreach…) and warns about commands that discard
// work.
func (g *checker) checkGit(c *shCall) {
	args := c.args[1:]
	env := c.env
	aliases := map[string]string{}
	config := func(key, val, how string) {
		k := strings.ToLower(key)
		if !gitCommandKeys.MatchString(k) {
			return
		}
		if strings.HasPrefix(k, "alias.") {
			aliases[k[len("alias."):]] = val
			if sh, ok := strings.CutPrefix(val, "!"); ok {
				g.code(env.child(), sh, "the git alias "+key[len("alias."):])
			}
			return
		}
		if k == "credential.helper" || strings.HasSuffix(k, ".helper") {
			if sh, ok := strings.CutPrefix(val, "!"); ok {
				g.code(env.child(), sh, "`git "+how+" "+key+"`")
			}
			return
		}
		g.code(env.child(), val, "`git "+how+" "+key+"`")
	}
	i := 0
	for ; i < len(args); i++ {
		v := args[i].val
		switch {
		case v == "-c" && i+1 < len(args):
			key, val, _ := strings.Cut(args[i+1].val, "=")
			config(key, val, "-c")
			i++
		case v == "-C" && i+1 < len(args):
			env = g.inDir(env, args[i+1])
			i++
		case v == "--git-dir" || v == "--work-tree" || v == "--namespace" || v == "--exec-path" || v == "--config-env" || v == "--super-prefix" || v == "--list-cmds":
			i++
		case strings.HasPrefix(v, "-"):
		default:
			goto sub
		}
	}
	return
sub:
	sub, rest := args[i].val, args[i+1:]
	if val, ok := aliases[strings.ToLower(sub)]; ok {
		if sh, ok := strings.CutPrefix(val, "!"); ok {
			g.code(env.child(), sh+" "+quoteArgs(rest), "the git alias "+sub)
		}
	}
	codeArg := func(flags ...string) {
		for j, a := range rest {
			for _, f := range flags {
				if a.val == f && j+1 < len(rest) {
					g.code(env.child(), rest[j+1].val, "`git "+sub+" "+f+"`")
				} else if after, ok := strings.CutPrefix(a.val, f+"="); ok && strings.HasPrefix(f, "--") {
					g.code(env.child(), after, "`git "+sub+" "+f+"`")
				} else if len(f) == 2 && strings.HasPrefix(a.val, f) && len(a.val) > 2 && !strings.HasPrefix(a.val, "--") {
					g.code(env.child(), a.val[2:], "`git "+sub+" "+f+"`")
				}
			}
		}
	}
	switch sub {
	case "push":
		if hasFlag(rest, "f", "--force") || slices.ContainsFunc(rest, func(a shArg) bool {
			return strings.HasPrefix(a.val, "--force") || strings.HasPrefix(a.val, "+")
		}) {
			g.warn("Force-pushes (%s): history on the remote can be overwritten.", clip(display(c.args), 80))
		}
		codeArg("--receive-pack", "--exec")
	case "reset":
		if slices.ContainsFunc(rest, func(a shArg) bool { return a.val == "--hard" }) {
			g.warn("Discards uncommitted changes (%s).", clip(display(c.args), 80))
		}
		g.dirty = display(c.args)
	case "clean":
		if hasFlag(rest, "f", "--force") {
			g.warn("Deletes untracked files (%s).", clip(display(c.args), 80))
			if env.cwd != "" && g.wsDir != "" && !g.inside(env, env.cwd) {
				g.destroy(c, killRecursive, "git clean", []shArg{known(env.cwd)})
			}
		}
	case "rebase":
		codeArg("-x", "--exec")
		g.dirty = display(c.args)
	case "bisect":
		if len(rest) > 1 && rest[0].val == "run" {
			g.command(nil, env, rest[1:], c.src)
		}
	case "submodule":
		for j, a := range rest {
			if a.val == "foreach" && j+1 < len(rest) {
				g.code(env.child(), joinArgs(rest[j+1:]), "`git submodule foreach`")
			}
		}
	case "filter-branch":
		codeArg("--env-filter", "--tree-filter", "--index-filter", "--parent-filter", "--msg-filter", "--commit-filter", "--tag-name-filter")
	case "difftool", "mergetool":
		codeArg("-x", "--extcmd", "--tool-cmd")
	case "grep":
		codeArg("-O", "--open-files-in-pager")
	case "fetch", "pull", "clone", "ls-remote", "archive":
		codeArg("--upload-pack", "--exec")
		if sub == "clone" || sub == "ls-remote" {
			codeArg("-u")
		}
		for _, a := range rest {
			if cmd, ok := strings.CutPrefix(a.val, "ext::"); ok {
				g.code(env.child(), strings.NewReplacer("% ", " ", "%%", "%", "%s", "").Replace(cmd), "the git ext:: URL")
			}
		}
		if sub == "pull" || sub == "clone" {
			g.dirty = display(c.args)
			g.unpacked = display(c.args)
		}
	case "config":
		var ops []shArg
		for j := 0; j < len(rest); j++ {
			if rest[j].val == "-f" || rest[j].val == "--file" || rest[j].val == "--blob" {
				j++
				continue
			}
			if !strings.HasPrefix(rest[j].val, "-") {
				ops = append(ops, rest[j])
			}
		}
		if len(ops) >= 2 {
			config(ops[0].val, ops[1].val, "config")
		}
	case "checkout", "switch", "restore", "merge", "stash", "apply", "am", "cherry-pick", "revert", "worktree", "read-tree", "checkout-index":
		g.dirty = display(c.args)
	}
}

// markWritten remembers that a command writes files whose content the
// guard cannot know.
func (g *checker) markWritten(c *shCall, targets []shArg, by string) {
	for _, t := range targets {
		if t.dynamic() {
			g.dirty = display(c.args)
			continue
		}
		if p, ok := g.absPath(c.env, t.val); ok {
			g.written[p] = fileNote{by: display(c.args)}
			if strings.HasSuffix(t.val, "/") || isDir(p) {
				g.dirty = display(c.args)
			}
		}
	}
}

// readOnlyCommands do not write the files they name.
var readOnlyCommands = map[string]bool{
	"ls": true, "cat": true, "grep": true, "egrep": true, "fgrep": true, "rg": true, "head": true, "tail": true, "wc": true,
	"file": true, "stat": true, "echo": true, "printf": true, "test": true, "[": true, "[[": true, "diff": true, "cmp": true,
	"less": true, "more": true, "chmod": true, "chown": true, "chgrp": true, "which": true, "type": true, "realpath": true,
	"readlink": true, "dirname": true, "basename": true, "md5sum": true, "sha1sum": true, "sha256sum": true, "sha512sum": true,
	"du": true, "df": true, "sort": true, "uniq": true, "cut": true, "tr": true, "jq": true, "yq": true, "mkdir": true,
	"rmdir": true, "touch": true, "ln": true, "kill": true, "ps": true, "sleep": true, "date": true, "git": true, "find": true,
	"tree": true, "bat": true, "od": true, "hexdump": true, "xxd": true, "strings": true, "nl": true, "column": true, "rm": true,
	"cd": true, "pwd": true, "true": true, "false": true, "exit": true, "wait": true, "source": true, ".": true, "export": true,
}

// noteMentions remembers files named by a command that may write them
// (a compiler's -o, a generator's argument), so that running one of them
// later in the same command is not judged by its old content.
func (g *checker) noteMentions(c *shCall) {
	if readOnlyCommands[c.base] {
		return
	}
	for _, a := range c.args[1:] {
		if a.dynamic() || a.val == "" || strings.HasPrefix(a.val, "-") && !strings.Contains(a.val, "=") {
			continue
		}
		v := a.val
		if _, after, ok := strings.Cut(v, "="); ok {
			v = after
		}
		if !strings.ContainsAny(v, "./") || strings.Contains(v, "://") {
			continue
		}
		if p, ok := g.absPath(c.env, v); ok && path.Clean(p) != "/" {
			if _, done := g.written[p]; !done {
				g.written[p] = fileNote{by: display(c.args)}
			}
		}
	}
}
