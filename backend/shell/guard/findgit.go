package guard

import (
	"path"
	"regexp"
	"slices"
	"strings"
	"tinyelf/backend/shell/guard/walk"
)

// This file follows the code that find, git, make, npm, crontab and sed run,
// and keeps track of the files commands write.

// checkFind checks the commands find runs with -exec, -execdir, -ok and
// -okdir, and what -delete deletes: the files it selects under its start.
func (g *checker) checkFind(c *walk.Call) {
	starts, expr := walk.FindStarts(c.Args[1:])
	if len(starts) > 4 {
		starts = starts[:4]
	}
	selects := walk.FindSelects(expr)
	selection := func(start walk.Arg, what string) walk.Arg {
		src := walk.Source{Desc: "the files `find " + walk.Shown(start.Val) + "` " + what}
		if !start.Dynamic() {
			if p, ok := g.AbsPath(c.Env, start.Val); ok {
				src.Under, src.All = p, !selects
			}
		} else {
			src.Desc += ", under " + g.ArgSource(start).Text()
		}
		return walk.Arg{Val: g.Unknown(src), Raw: "{}"}
	}
	for i := 0; i < len(expr); i++ {
		v := expr[i].Val
		switch v {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(expr) && expr[j].Val != ";" && expr[j].Val != "+" {
				j++
			}
			if j > i+1 {
				for _, start := range starts {
					sel := selection(start, "selects")
					words := make([]walk.Arg, j-i-1)
					for k, w := range expr[i+1 : j] {
						words[k] = w
						words[k].Val = strings.ReplaceAll(w.Val, "{}", sel.Val)
					}
					env := c.Env
					if v == "-execdir" || v == "-okdir" {
						env = g.InDir(c.Env, start)
					}
					g.Command(nil, env, words, c.Src)
				}
			}
			i = j
		case "-delete":
			for _, start := range starts {
				g.destroy(c, killRecursive, "find -delete", []walk.Arg{selection(start, "selects")})
			}
		case "-fprint", "-fprint0", "-fls", "-fprintf":
			if i+1 < len(expr) {
				g.CheckWrite(c.Env, expr[i+1], c.Text()+" writing to")
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
func (g *checker) checkGit(c *walk.Call) {
	args := c.Args[1:]
	env := c.Env
	aliases := map[string]string{}
	config := func(key, val, how string) {
		k := strings.ToLower(key)
		if !gitCommandKeys.MatchString(k) {
			return
		}
		if strings.HasPrefix(k, "alias.") {
			aliases[k[len("alias."):]] = val
			if sh, ok := strings.CutPrefix(val, "!"); ok {
				g.Code(env.Child(), sh, "the git alias "+key[len("alias."):])
			}
			return
		}
		if k == "credential.helper" || strings.HasSuffix(k, ".helper") {
			if sh, ok := strings.CutPrefix(val, "!"); ok {
				g.Code(env.Child(), sh, "`git "+how+" "+key+"`")
			}
			return
		}
		g.Code(env.Child(), val, "`git "+how+" "+key+"`")
	}
	i := 0
	for ; i < len(args); i++ {
		v := args[i].Val
		switch {
		case v == "-c" && i+1 < len(args):
			key, val, _ := strings.Cut(args[i+1].Val, "=")
			config(key, val, "-c")
			i++
		case v == "-C" && i+1 < len(args):
			env = g.InDir(env, args[i+1])
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
	sub, rest := args[i].Val, args[i+1:]
	if val, ok := aliases[strings.ToLower(sub)]; ok {
		if sh, ok := strings.CutPrefix(val, "!"); ok {
			g.Code(env.Child(), sh+" "+walk.QuoteArgs(rest), "the git alias "+sub)
		}
	}
	codeArg := func(flags ...string) {
		for j, a := range rest {
			for _, f := range flags {
				if a.Val == f && j+1 < len(rest) {
					g.Code(env.Child(), rest[j+1].Val, "`git "+sub+" "+f+"`")
				} else if after, ok := strings.CutPrefix(a.Val, f+"="); ok && strings.HasPrefix(f, "--") {
					g.Code(env.Child(), after, "`git "+sub+" "+f+"`")
				} else if len(f) == 2 && strings.HasPrefix(a.Val, f) && len(a.Val) > 2 && !strings.HasPrefix(a.Val, "--") {
					g.Code(env.Child(), a.Val[2:], "`git "+sub+" "+f+"`")
				}
			}
		}
	}
	switch sub {
	case "push":
		if walk.HasFlag(rest, "f", "--force") || slices.ContainsFunc(rest, func(a walk.Arg) bool {
			return strings.HasPrefix(a.Val, "--force") || strings.HasPrefix(a.Val, "+")
		}) {
			g.Warn("Force-pushes (%s): history on the remote can be overwritten.", walk.Clip(walk.Display(c.Args), 80))
		}
		codeArg("--receive-pack", "--exec")
	case "reset":
		if slices.ContainsFunc(rest, func(a walk.Arg) bool { return a.Val == "--hard" }) {
			g.Warn("Discards uncommitted changes (%s).", walk.Clip(walk.Display(c.Args), 80))
		}
		g.Dirty = walk.Display(c.Args)
	case "clean":
		if walk.HasFlag(rest, "f", "--force") {
			g.Warn("Deletes untracked files (%s).", walk.Clip(walk.Display(c.Args), 80))
			if env.Cwd != "" && g.WorkspaceDir != "" && !g.Inside(env, env.Cwd) {
				g.destroy(c, killRecursive, "git clean", []walk.Arg{walk.Known(env.Cwd)})
			}
		}
	case "rebase":
		codeArg("-x", "--exec")
		g.Dirty = walk.Display(c.Args)
	case "bisect":
		if len(rest) > 1 && rest[0].Val == "run" {
			g.Command(nil, env, rest[1:], c.Src)
		}
	case "submodule":
		for j, a := range rest {
			if a.Val == "foreach" && j+1 < len(rest) {
				g.Code(env.Child(), walk.JoinArgs(rest[j+1:]), "`git submodule foreach`")
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
			if cmd, ok := strings.CutPrefix(a.Val, "ext::"); ok {
				g.Code(env.Child(), strings.NewReplacer("% ", " ", "%%", "%", "%s", "").Replace(cmd), "the git ext:: URL")
			}
		}
		if sub == "pull" || sub == "clone" {
			g.Dirty = walk.Display(c.Args)
			g.Unpacked = walk.Display(c.Args)
		}
	case "config":
		var ops []walk.Arg
		for j := 0; j < len(rest); j++ {
			if rest[j].Val == "-f" || rest[j].Val == "--file" || rest[j].Val == "--blob" {
				j++
				continue
			}
			if !strings.HasPrefix(rest[j].Val, "-") {
				ops = append(ops, rest[j])
			}
		}
		if len(ops) >= 2 {
			config(ops[0].Val, ops[1].Val, "config")
		}
	case "checkout", "switch", "restore", "merge", "stash", "apply", "am", "cherry-pick", "revert", "worktree", "read-tree", "checkout-index":
		g.Dirty = walk.Display(c.Args)
	}
}

// markWritten remembers that a command writes files whose content the
// guard cannot know.
func (g *checker) markWritten(c *walk.Call, targets []walk.Arg, by string) {
	for _, t := range targets {
		if t.Dynamic() {
			g.Dirty = walk.Display(c.Args)
			continue
		}
		if p, ok := g.AbsPath(c.Env, t.Val); ok {
			g.Written[p] = walk.FileNote{By: walk.Display(c.Args)}
			if strings.HasSuffix(t.Val, "/") || walk.IsDir(p) {
				g.Dirty = walk.Display(c.Args)
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
func (g *checker) noteMentions(c *walk.Call) {
	if readOnlyCommands[c.Base] {
		return
	}
	for _, a := range c.Args[1:] {
		if a.Dynamic() || a.Val == "" || strings.HasPrefix(a.Val, "-") && !strings.Contains(a.Val, "=") {
			continue
		}
		v := a.Val
		if _, after, ok := strings.Cut(v, "="); ok {
			v = after
		}
		if !strings.ContainsAny(v, "./") || strings.Contains(v, "://") {
			continue
		}
		if p, ok := g.AbsPath(c.Env, v); ok && path.Clean(p) != "/" {
			if _, done := g.Written[p]; !done {
				g.Written[p] = walk.FileNote{By: walk.Display(c.Args)}
			}
		}
	}
}
