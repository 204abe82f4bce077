package guard

import (
	"fmt"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"tinyelf/backend/shell/guard/walk"
)

// destroyKind is what a destructive command does to its targets.
type destroyKind int

const (
	killRecursive destroyKind = iota // rm -r, find -delete, rsync --delete, rmtree
	killFiles                        // rm, unlink
	killShred                        // shred: overwrite and delete
	changeTree                       // chmod -R, chown -R, chattr -R, setfacl -R
	changeOne                        // chmod, chown without -R
	moveAway                         // mv's sources
)

// destroyWords are the phrases of each kind: the refusal's verb, the noun
// and verb of the hold message.
var destroyWords = map[destroyKind][4]string{
	killRecursive: {"would recursively delete", "folders", "gets", "recursively deletes"},
	killFiles:     {"would delete", "files", "gets", "deletes"},
	killShred:     {"would overwrite and destroy", "files", "destroys", "overwrites and destroys"},
	changeTree:    {"would recursively change", "paths", "changes", "recursively changes"},
	changeOne:     {"would change", "paths", "changes", "changes"},
	moveAway:      {"would move away", "paths", "moves", "moves away"},
}

// maxTargets bounds the paths of one destructive command the guard judges.
const maxTargets = 2048

// destroy judges each target of a destructive command: refused when it is
// catastrophic, held when it cannot be known or lies outside the workspace,
// warned about otherwise.
func (g *checker) destroy(c *walk.Call, kind destroyKind, verb string, targets []walk.Arg) {
	for i, a := range targets {
		if i == maxTargets {
			g.Hold("%s names more than %d paths, too many to check before it runs.", c.Text(), maxTargets)
			return
		}
		j := g.Judge(c.Env, a)
		k := kind
		if j.Every {
			// Every file under a folder, one by one, is the folder.
			switch kind {
			case killFiles:
				k = killRecursive
			case changeOne:
				k = changeTree
			}
		}
		g.destroyOne(c, k, verb, a, j)
	}
}

func (g *checker) destroyOne(c *walk.Call, kind destroyKind, verb string, a walk.Arg, j walk.Judged) {
	words := destroyWords[kind]
	if g.Unpacked != "" && (kind == killRecursive || kind == changeTree) && !a.Dynamic() && j.Class < walk.ClassWorkspace {
		// An archive unpacked earlier may have put a symlink there.
		if p, ok := g.AbsPath(c.Env, a.Val); ok {
			if _, err := os.Lstat(strings.TrimSuffix(p, "/")); err != nil {
				g.Hold("The path %s `%s` %s does not exist yet: it may come from `%s` earlier in this command (a symlink, say), so it cannot be checked before it runs.", a.Val, verb, words[2], g.Unpacked)
				return
			}
		}
	}
	{
		switch j.Class {
		case walk.ClassUnknown:
			if kind == changeOne || kind == killFiles {
				return
			}
			msg := fmt.Sprintf("The %s `%s` %s come from %s cannot be checked before it runs.", words[1], verb, words[2], walk.And(j.Src.Text()))
			if hint := g.emptyHint(c.Env, a); hint != "" {
				msg = strings.TrimSuffix(msg, ".") + fmt.Sprintf(" (if it is empty, `%s` gets %s).", verb, hint)
			}
			g.Hold("%s", msg)
		case walk.ClassCritical:
			switch {
			case kind == changeOne || (kind == killFiles && !strings.HasPrefix(j.What, "everything")):
				g.Hold("%s %s %s, so it needs your approval.", c.Text(), words[3], j.What)
			default:
				g.Deny("Refused: %s %s %s.", c.Text(), words[0], j.What)
			}
		case walk.ClassWorkspace:
			if kind == killRecursive || kind == killShred || kind == moveAway {
				g.Hold("%s %s %s, so it needs your approval.", c.Text(), words[3], j.What)
			}
		case walk.ClassSystem:
			if kind == changeOne {
				g.Warn("%s changes %s.", c.Text(), j.What)
				return
			}
			g.Hold("%s %s %s, so it needs your approval.", c.Text(), words[3], j.What)
		case walk.ClassOutside:
			if kind == killRecursive || kind == killShred || kind == changeTree {
				g.Hold("%s %s %s, so it needs your approval.", c.Text(), words[3], j.What)
			}
		}
	}
}

// emptyHint says what a target becomes if its unknown parts are empty,
// when that is catastrophic ("$DIR/" is "/").
func (g *checker) emptyHint(st *walk.State, a walk.Arg) string {
	v := strings.Map(func(r rune) rune {
		if walk.IsMarker(r) {
			return -1
		}
		return r
	}, a.Val)
	if v == a.Val || v == "" {
		return ""
	}
	p, ok := g.AbsPath(st, v)
	if !ok {
		return ""
	}
	if c, what := g.Classify(p); c == walk.ClassCritical {
		return what
	}
	return ""
}

// isFlagArg reports whether a is an option (known, starting with '-').
func isFlagArg(a walk.Arg) bool {
	return !a.Dynamic() && len(a.Val) > 1 && a.Val[0] == '-'
}

// verb applies the deny list and the warnings to one unwrapped command.
func (g *checker) verb(c *walk.Call) {
	args, base := c.Args, c.Base
	pw := power(c)
	switch {
	case base == "rm":
		g.checkRm(c)
	case base == "unlink" || base == "srm" || base == "wipe" || base == "sdelete" || base == "shred":
		kind := killFiles
		if base != "unlink" {
			kind = killShred
		}
		ops := walk.Operands(args[1:])
		if base == "shred" {
			ops = slices.DeleteFunc(ops, func(a walk.Arg) bool { return a.Val == "-" })
		}
		for _, a := range ops {
			g.CheckWrite(c.Env, a, c.Text()+" on")
		}
		g.destroy(c, kind, base, ops)
	case base == "rimraf" || base == "del" || base == "del-cli" || base == "trash-empty":
		g.destroy(c, killRecursive, base, walk.Operands(args[1:]))
	case base == "chmod" || base == "chown" || base == "chgrp" || base == "chattr" || base == "setfacl" || base == "chcon":
		g.checkPerms(c)
	case base == "mv":
		g.checkMv(c)
	case base == "rsync":
		g.checkRsync(c)
	case base == "ln":
		g.checkLn(c)
	case base == "dd" || base == "dcfldd" || base == "dc3dd" || base == "sg_dd":
		g.checkDd(c)
	case base == "truncate":
		ops := walk.Operands(args[1:])
		for i, a := range args[1:] {
			if (a.Val == "-s" || a.Val == "--size" || a.Val == "-r" || a.Val == "--reference") && i+1 < len(args)-1 {
				ops = slices.DeleteFunc(ops, func(o walk.Arg) bool { return o.Val == args[i+2].Val && o.RawText() == args[i+2].Raw })
			}
		}
		for _, a := range ops {
			g.CheckWrite(c.Env, a, c.Text()+" on")
		}
		g.destroy(c, killShred, "truncate", ops)
	case base == "tee" || base == "cp" || base == "install" || base == "ddrescue" || base == "truncate" || base == "sort" || base == "tar" || base == "bsdtar" || base == "wget" || base == "curl" || base == "pv" || base == "socat" || base == "badblocks" || base == "flashrom":
		g.checkWriters(c)
	case isEraser(base):
		g.checkEraser(c)
	case base == "fdisk" || base == "sfdisk" || base == "parted" || base == "gdisk" || base == "sgdisk" || base == "cfdisk" || base == "cgdisk":
		g.checkPartitioner(c)
	case base == "format" || base == "format.com" || base == "diskpart":
		if base == "diskpart" || slices.ContainsFunc(args[1:], func(a walk.Arg) bool { return driveLetter.MatchString(a.Val) }) {
			g.Deny("Refused: %s would format a drive.", c.Text())
		}
	case endsSession(c):
		g.Deny("Refused: %s would kill every process of the user's session, including the desktop.", c.Text())
	case pw != "":
		g.Deny("Refused: %s would %s.", c.Text(), pw)
	case isKiller(base):
		g.checkKill(c)
	case base == "find":
		g.checkFind(c)
	case base == "git":
		g.checkGit(c)
	case base == "make" || base == "gmake" || base == "bmake":
		g.checkMake(c)
	case base == "npm" || base == "pnpm" || base == "yarn" || base == "bun":
		g.checkPackageScripts(c)
	case base == "zip" && slices.ContainsFunc(args[1:], func(a walk.Arg) bool {
		return a.Val == "-m" || a.Val == "--move" || isFlagArg(a) && !strings.HasPrefix(a.Val, "--") && strings.Contains(a.Val, "m")
	}):
		if ops := walk.Operands(args[1:]); len(ops) > 1 {
			g.destroy(c, killRecursive, "zip -m", ops[1:])
		}
	case isPackageManager(base):
		g.checkPackageRemoval(c)
	case base == "crontab":
		g.checkCrontab(c)
	case base == "sed" || base == "gsed":
		g.checkSed(c)
	case base == "nc" || base == "ncat" || base == "netcat":
		for i := 1; i+1 < len(args); i++ {
			switch args[i].Val {
			case "-e", "-c", "--exec", "--sh-exec", "--lua-exec":
				g.Code(c.Env.Child(), args[i+1].Val, "`"+base+" "+args[i].Val+"`")
			}
		}
	case base == "userdel" || base == "deluser":
		if walk.HasFlag(args[1:], "r", "--remove") || walk.HasFlag(args[1:], "", "--remove-home") {
			for _, a := range walk.Operands(args[1:]) {
				if a.Val == g.User || a.Val == "root" || a.Dynamic() {
					g.Deny("Refused: %s would delete a user account and its home folder.", c.Text())
				}
			}
		}
	default:
		g.codeArgs(c)
	}
	g.noteMentions(c)
	g.CheckPaths(c.Env, args[1:])
}

// textTools take text, not code, after their options.
var textTools = map[string]bool{
	"grep": true, "egrep": true, "fgrep": true, "rg": true, "ag": true, "ack": true, "jq": true, "yq": true, "echo": true,
	"printf": true, "cat": true, "less": true, "more": true, "sort": true, "uniq": true, "cut": true, "tr": true, "wc": true,
	"head": true, "tail": true, "xxd": true, "base64": true, "diff": true, "patch": true, "git": true, "gh": true, "curl": true,
	"wget": true, "gcc": true, "cc": true, "clang": true, "g++": true, "go": true, "cargo": true, "rustc": true, "test": true,
	"[": true, "expr": true, "column": true, "fold": true, "fmt": true, "tee": true, "logger": true, "notify-send": true,
}

// codeFlags are options whose value is, for most programs, a command to run.
var codeFlags = []string{"-c", "--command", "--exec", "--run", "--cmd", "--eval", "--sh-exec", "--shell-command", "-exec", "--execute"}

// codeArgs checks, for a program the guard does not know, the values of
// options that usually carry a command (tool -c 'rm -rf /', tool
// --exec='…') and what follows a "--" separator. Only what would be
// refused counts: these may be plain text.
func (g *checker) codeArgs(c *walk.Call) {
	if textTools[c.Base] || walk.IsShell(c.Base) {
		return
	}
	args := c.Args[1:]
	g.Quiet++
	defer func() { g.Quiet-- }()
	for i, a := range args {
		v := a.Val
		if a.Dynamic() {
			continue
		}
		if v == "--" && i+1 < len(args) {
			if next := args[i+1]; !next.Dynamic() && (walk.IsShell(walk.CommandBase(next.Val)) || isDestructive(walk.CommandBase(next.Val))) {
				g.Command(nil, c.Env, args[i+1:], c.Src)
			}
			return
		}
		for _, f := range codeFlags {
			val := ""
			switch {
			case v == f && i+1 < len(args):
				val = args[i+1].Val
			case strings.HasPrefix(v, f+"="):
				val = strings.TrimPrefix(v, f+"=")
			default:
				continue
			}
			if strings.ContainsAny(val, " \t;|&") {
				g.Code(c.Env.Child(), val, "`"+c.Base+" "+f+"`")
			}
		}
	}
}

// isDestructive reports whether base is a command the deny list knows.
func isDestructive(base string) bool {
	switch base {
	case "rm", "shred", "dd", "mkfs", "wipefs", "chmod", "chown", "chattr", "mv", "rsync", "kill", "pkill", "killall", "killall5", "shutdown", "reboot", "halt", "poweroff", "find", "truncate", "tee", "cp":
		return true
	}
	return isEraser(base)
}

// checkRm judges rm: recursive deletes of catastrophic targets are refused,
// of unknown or outside ones held.
func (g *checker) checkRm(c *walk.Call) {
	args := c.Args[1:]
	if slices.ContainsFunc(args, func(a walk.Arg) bool { return len(a.Val) > 5 && strings.HasPrefix("--no-preserve-root", a.Val) }) {
		g.Deny("Refused: %s uses --no-preserve-root, which turns off rm's protection of the root folder.", c.Text())
		return
	}
	verb := "rm"
	kind := killFiles
	if walk.HasFlag(args, "rR", "--recursive") {
		kind = killRecursive
		verb = "rm -r"
		if walk.HasFlag(args, "f", "--force") {
			verb = "rm -rf"
		}
		g.Warn("Deletes recursively without a way back (%s).", walk.Clip(walk.Display(c.Args), 80))
	}
	g.destroy(c, kind, verb, walk.Operands(args))
}

// checkPerms judges chmod, chown, chgrp, chattr, setfacl and chcon.
func (g *checker) checkPerms(c *walk.Call) {
	args := c.Args[1:]
	verbName := map[string]string{"chmod": "permissions", "chown": "ownership", "chgrp": "group ownership", "chattr": "attributes", "setfacl": "access control lists", "chcon": "security context"}[c.Base]
	g.Warn("Changes file %s (%s).", verbName, walk.Clip(walk.Display(c.Args), 80))
	recursive := walk.HasFlag(args, "R", "--recursive")
	var ops []walk.Arg
	mode := c.Base != "setfacl"
	reference := walk.HasFlag(args, "", "--reference")
	for i := 0; i < len(args); i++ {
		a := args[i]
		v := a.Val
		if v == "--" {
			ops = append(ops, args[i+1:]...)
			break
		}
		if c.Base == "chattr" && !a.Dynamic() && (strings.HasPrefix(v, "+") || strings.HasPrefix(v, "-") && strings.Trim(v[1:], "aAcCdDeFijmPsStTux") == "" && v != "-R" && v != "-V" && v != "-f") {
			mode = false
			continue
		}
		if c.Base == "setfacl" && (v == "-m" || v == "-x" || v == "-M" || v == "-X" || v == "--modify" || v == "--remove" || v == "--set") {
			i++
			continue
		}
		if isFlagArg(a) && !(c.Base == "chmod" && regexp.MustCompile(`^-[rwxXst]+$`).MatchString(v)) {
			continue
		}
		ops = append(ops, a)
	}
	if mode && !reference && c.Base != "chattr" && len(ops) > 0 {
		ops = ops[1:] // the mode or the owner
	}
	kind, verb := changeOne, c.Base
	if recursive {
		kind, verb = changeTree, c.Base+" -R"
	}
	g.destroy(c, kind, verb, ops)
}

// checkMv refuses moving away catastrophic sources.
func (g *checker) checkMv(c *walk.Call) {
	ops := walk.Operands(c.Args[1:])
	for i, a := range c.Args[1:] {
		if (a.Val == "-t" || a.Val == "--target-directory") && i+2 < len(c.Args) {
			dst := c.Args[i+2]
			ops = slices.DeleteFunc(ops, func(o walk.Arg) bool { return o.Val == dst.Val })
			g.markWritten(c, ops, "mv")
			g.destroy(c, moveAway, "mv", ops)
			return
		}
	}
	if len(ops) < 2 {
		return
	}
	g.markWritten(c, ops[len(ops)-1:], "mv")
	g.noteCopy(c.Env, ops[0], ops[len(ops)-1])
	g.destroy(c, moveAway, "mv", ops[:len(ops)-1])
}

// checkRsync judges rsync --delete by its destination.
func (g *checker) checkRsync(c *walk.Call) {
	args := c.Args[1:]
	deletes := slices.ContainsFunc(args, func(a walk.Arg) bool {
		return strings.HasPrefix(a.Val, "--del") || a.Val == "--remove-source-files" || a.Val == "--remove-sent-files"
	})
	var ops []walk.Arg
	for i := 0; i < len(args); i++ {
		v := args[i].Val
		switch {
		case v == "-e" || v == "--rsh":
			if i+1 < len(args) {
				g.Code(c.Env.Child(), args[i+1].Val, "`rsync -e`")
			}
			i++
		case strings.HasPrefix(v, "--rsh=") || strings.HasPrefix(v, "--rsync-path="):
			_, cmd, _ := strings.Cut(v, "=")
			g.Code(c.Env.Child(), cmd, "`rsync "+strings.SplitN(v, "=", 2)[0]+"`")
		case v == "--rsync-path" || v == "--exclude" || v == "--include" || v == "--filter" || v == "-f" || v == "--files-from" || v == "--exclude-from" || v == "--include-from" || v == "--chmod" || v == "--backup-dir" || v == "--partial-dir" || v == "--temp-dir" || v == "-T" || v == "--log-file" || v == "--password-file" || v == "--port" || v == "--bwlimit" || v == "--max-size" || v == "--min-size" || v == "--timeout" || v == "--compare-dest" || v == "--copy-dest" || v == "--link-dest":
			i++
		case isFlagArg(args[i]):
		default:
			ops = append(ops, args[i])
		}
	}
	if len(ops) < 2 {
		return
	}
	dst := ops[len(ops)-1]
	for _, a := range ops {
		if !a.Dynamic() && walk.IsDiskDevice(a.Val) && a.Val == dst.Val {
			g.Deny("Refused: %s would overwrite the disk device %s and destroy its data.", c.Text(), a.Val)
		}
	}
	if walk.HasFlag(args, "", "--remove-source-files") || walk.HasFlag(args, "", "--remove-sent-files") {
		g.destroy(c, killRecursive, "rsync --remove-source-files", ops[:len(ops)-1])
	}
	if !deletes || !slices.ContainsFunc(args, func(a walk.Arg) bool { return strings.HasPrefix(a.Val, "--del") }) {
		return
	}
	if !dst.Dynamic() && strings.Contains(dst.Val, ":") && !strings.HasPrefix(dst.Val, "/") {
		g.Warn("Deletes files on another machine that are not in the source (%s).", walk.Clip(walk.Display(c.Args), 80))
		return
	}
	g.destroy(c, killRecursive, "rsync --delete", []walk.Arg{dst})
}

// noteCopy remembers that dst is now a copy of src, so that running dst is
// judged as running src.
func (g *checker) noteCopy(env *walk.State, src, dst walk.Arg) {
	if src.Dynamic() || dst.Dynamic() {
		return
	}
	sp, ok1 := g.linkPath(env, src.Val)
	dp, ok2 := g.linkPath(env, dst.Val)
	if !ok1 || !ok2 {
		return
	}
	if walk.IsDir(dp) {
		dp = path.Join(dp, path.Base(sp))
	}
	g.Copies[dp] = sp
	// A symlink moved or copied as a link still points where it did.
	target, ok := env.Links[sp]
	if !ok {
		if fi, err := os.Lstat(sp); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			target, ok = g.RealPath(sp), true
		}
	}
	if ok {
		env.Links[dp] = target
	}
}

// linkPath resolves a path whose last element is not followed: the path of
// a symlink itself.
func (g *checker) linkPath(env *walk.State, v string) (string, bool) {
	v = strings.TrimSuffix(v, "/")
	if v == "" {
		return "", false
	}
	dir, err := g.AbsPath(env, path.Dir(v))
	if !err {
		return "", false
	}
	return path.Join(dir, path.Base(v)), true
}

// checkLn remembers symlinks the script creates, so that later commands
// that go through them are judged by where they point.
func (g *checker) checkLn(c *walk.Call) {
	args := c.Args[1:]
	if !walk.HasFlag(args, "s", "--symbolic") {
		if ops := walk.Operands(args); len(ops) == 2 {
			g.noteCopy(c.Env, ops[0], ops[1]) // a hard link
		}
		return
	}
	ops := walk.Operands(args)
	if len(ops) == 0 || ops[0].Dynamic() {
		return
	}
	target := ops[0].Val
	link := path.Base(target)
	if len(ops) > 1 {
		link = ops[len(ops)-1].Val
	}
	lp, ok := g.linkPath(c.Env, link)
	if !ok {
		return
	}
	if len(ops) > 1 && walk.IsDir(g.RealPath(lp)) && !walk.HasFlag(args, "nT", "--no-dereference") {
		lp = path.Join(lp, path.Base(target)) // ln -s x dir puts the link in the folder
	}
	tp := target
	if !strings.HasPrefix(tp, "/") {
		tp = path.Join(path.Dir(lp), tp)
	}
	for _, st := range []*walk.State{c.Shell, c.Env} {
		if st != nil {
			st.Links[lp] = path.Clean(tp)
		}
	}
}
