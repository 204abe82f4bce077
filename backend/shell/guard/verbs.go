package tools

import (
	"fmt"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
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
func (g *checker) destroy(c *shCall, kind destroyKind, verb string, targets []shArg) {
	for i, a := range targets {
		if i == maxTargets {
			g.hold("%s names more than %d paths, too many to check before it runs.", c.cmdText(), maxTargets)
			return
		}
		j := g.judge(c.env, a)
		k := kind
		if j.every {
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

func (g *checker) destroyOne(c *shCall, kind destroyKind, verb string, a shArg, j judged) {
	words := destroyWords[kind]
	if g.unpacked != "" && (kind == killRecursive || kind == changeTree) && !a.dynamic() && j.class < classWorkspace {
		// An archive unpacked earlier may have put a symlink there.
		if p, ok := g.absPath(c.env, a.val); ok {
			if _, err := os.Lstat(strings.TrimSuffix(p, "/")); err != nil {
				g.hold("The path %s `%s` %s does not exist yet: it may come from `%s` earlier in this command (a symlink, say), so it cannot be checked before it runs.", a.val, verb, words[2], g.unpacked)
				return
			}
		}
	}
	{
		switch j.class {
		case classUnknown:
			if kind == changeOne || kind == killFiles {
				return
			}
			msg := fmt.Sprintf("The %s `%s` %s come from %s cannot be checked before it runs.", words[1], verb, words[2], and(j.src.text()))
			if hint := g.emptyHint(c.env, a); hint != "" {
				msg = strings.TrimSuffix(msg, ".") + fmt.Sprintf(" (if it is empty, `%s` gets %s).", verb, hint)
			}
			g.hold("%s", msg)
		case classCritical:
			switch {
			case kind == changeOne || (kind == killFiles && !strings.HasPrefix(j.what, "everything")):
				g.hold("%s %s %s, so it needs your approval.", c.cmdText(), words[3], j.what)
			default:
				g.deny("Refused: %s %s %s.", c.cmdText(), words[0], j.what)
			}
		case classWorkspace:
			if kind == killRecursive || kind == killShred || kind == moveAway {
				g.hold("%s %s %s, so it needs your approval.", c.cmdText(), words[3], j.what)
			}
		case classSystem:
			if kind == changeOne {
				g.warn("%s changes %s.", c.cmdText(), j.what)
				return
			}
			g.hold("%s %s %s, so it needs your approval.", c.cmdText(), words[3], j.what)
		case classOutside:
			if kind == killRecursive || kind == killShred || kind == changeTree {
				g.hold("%s %s %s, so it needs your approval.", c.cmdText(), words[3], j.what)
			}
		}
	}
}

// emptyHint says what a target becomes if its unknown parts are empty,
// when that is catastrophic ("$DIR/" is "/").
func (g *checker) emptyHint(st *shState, a shArg) string {
	v := strings.Map(func(r rune) rune {
		if isMarker(r) {
			return -1
		}
		return r
	}, a.val)
	if v == a.val || v == "" {
		return ""
	}
	p, ok := g.absPath(st, v)
	if !ok {
		return ""
	}
	if c, what := g.classify(p); c == classCritical {
		return what
	}
	return ""
}

// isFlagArg reports whether a is an option (known, starting with '-').
func isFlagArg(a shArg) bool {
	return !a.dynamic() && len(a.val) > 1 && a.val[0] == '-'
}

// verb applies the deny list and the warnings to one unwrapped command.
func (g *checker) verb(c *shCall) {
	args, base := c.args, c.base
	pw := power(c)
	switch {
	case base == "rm":
		g.checkRm(c)
	case base == "unlink" || base == "srm" || base == "wipe" || base == "sdelete" || base == "shred":
		kind := killFiles
		if base != "unlink" {
			kind = killShred
		}
		ops := operands(args[1:])
		if base == "shred" {
			ops = slices.DeleteFunc(ops, func(a shArg) bool { return a.val == "-" })
		}
		for _, a := range ops {
			g.checkWrite(c.env, a, c.cmdText()+" on")
		}
		g.destroy(c, kind, base, ops)
	case base == "rimraf" || base == "del" || base == "del-cli" || base == "trash-empty":
		g.destroy(c, killRecursive, base, operands(args[1:]))
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
		ops := operands(args[1:])
		for i, a := range args[1:] {
			if (a.val == "-s" || a.val == "--size" || a.val == "-r" || a.val == "--reference") && i+1 < len(args)-1 {
				ops = slices.DeleteFunc(ops, func(o shArg) bool { return o.val == args[i+2].val && o.rawText() == args[i+2].raw })
			}
		}
		for _, a := range ops {
			g.checkWrite(c.env, a, c.cmdText()+" on")
		}
		g.destroy(c, killShred, "truncate", ops)
	case base == "tee" || base == "cp" || base == "install" || base == "ddrescue" || base == "truncate" || base == "sort" || base == "tar" || base == "bsdtar" || base == "wget" || base == "curl" || base == "pv" || base == "socat" || base == "badblocks" || base == "flashrom":
		g.checkWriters(c)
	case isEraser(base):
		g.checkEraser(c)
	case base == "fdisk" || base == "sfdisk" || base == "parted" || base == "gdisk" || base == "sgdisk" || base == "cfdisk" || base == "cgdisk":
		g.checkPartitioner(c)
	case base == "format" || base == "format.com" || base == "diskpart":
		if base == "diskpart" || slices.ContainsFunc(args[1:], func(a shArg) bool { return driveLetter.MatchString(a.val) }) {
			g.deny("Refused: %s would format a drive.", c.cmdText())
		}
	case endsSession(c):
		g.deny("Refused: %s would kill every process of the user's session, including the desktop.", c.cmdText())
	case pw != "":
		g.deny("Refused: %s would %s.", c.cmdText(), pw)
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
	case base == "zip" && slices.ContainsFunc(args[1:], func(a shArg) bool {
		return a.val == "-m" || a.val == "--move" || isFlagArg(a) && !strings.HasPrefix(a.val, "--") && strings.Contains(a.val, "m")
	}):
		if ops := operands(args[1:]); len(ops) > 1 {
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
			switch args[i].val {
			case "-e", "-c", "--exec", "--sh-exec", "--lua-exec":
				g.code(c.env.child(), args[i+1].val, "`"+base+" "+args[i].val+"`")
			}
		}
	case base == "userdel" || base == "deluser":
		if hasFlag(args[1:], "r", "--remove") || hasFlag(args[1:], "", "--remove-home") {
			for _, a := range operands(args[1:]) {
				if a.val == g.user || a.val == "root" || a.dynamic() {
					g.deny("Refused: %s would delete a user account and its home folder.", c.cmdText())
				}
			}
		}
	default:
		g.codeArgs(c)
	}
	g.noteMentions(c)
	g.checkPaths(c.env, args[1:])
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
func (g *checker) codeArgs(c *shCall) {
	if textTools[c.base] || isShell(c.base) {
		return
	}
	args := c.args[1:]
	g.quiet++
	defer func() { g.quiet-- }()
	for i, a := range args {
		v := a.val
		if a.dynamic() {
			continue
		}
		if v == "--" && i+1 < len(args) {
			if next := args[i+1]; !next.dynamic() && (isShell(commandBase(next.val)) || isDestructive(commandBase(next.val))) {
				g.command(nil, c.env, args[i+1:], c.src)
			}
			return
		}
		for _, f := range codeFlags {
			val := ""
			switch {
			case v == f && i+1 < len(args):
				val = args[i+1].val
			case strings.HasPrefix(v, f+"="):
				val = strings.TrimPrefix(v, f+"=")
			default:
				continue
			}
			if strings.ContainsAny(val, " \t;|&") {
				g.code(c.env.child(), val, "`"+c.base+" "+f+"`")
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
func (g *checker) checkRm(c *shCall) {
	args := c.args[1:]
	if slices.ContainsFunc(args, func(a shArg) bool { return len(a.val) > 5 && strings.HasPrefix("--no-preserve-root", a.val) }) {
		g.deny("Refused: %s uses --no-preserve-root, which turns off rm's protection of the root folder.", c.cmdText())
		return
	}
	verb := "rm"
	kind := killFiles
	if hasFlag(args, "rR", "--recursive") {
		kind = killRecursive
		verb = "rm -r"
		if hasFlag(args, "f", "--force") {
			verb = "rm -rf"
		}
		g.warn("Deletes recursively without a way back (%s).", clip(display(c.args), 80))
	}
	g.destroy(c, kind, verb, operands(args))
}

// checkPerms judges chmod, chown, chgrp, chattr, setfacl and chcon.
func (g *checker) checkPerms(c *shCall) {
	args := c.args[1:]
	verbName := map[string]string{"chmod": "permissions", "chown": "ownership", "chgrp": "group ownership", "chattr": "attributes", "setfacl": "access control lists", "chcon": "security context"}[c.base]
	g.warn("Changes file %s (%s).", verbName, clip(display(c.args), 80))
	recursive := hasFlag(args, "R", "--recursive")
	var ops []shArg
	mode := c.base != "setfacl"
	reference := hasFlag(args, "", "--reference")
	for i := 0; i < len(args); i++ {
		a := args[i]
		v := a.val
		if v == "--" {
			ops = append(ops, args[i+1:]...)
			break
		}
		if c.base == "chattr" && !a.dynamic() && (strings.HasPrefix(v, "+") || strings.HasPrefix(v, "-") && strings.Trim(v[1:], "aAcCdDeFijmPsStTux") == "" && v != "-R" && v != "-V" && v != "-f") {
			mode = false
			continue
		}
		if c.base == "setfacl" && (v == "-m" || v == "-x" || v == "-M" || v == "-X" || v == "--modify" || v == "--remove" || v == "--set") {
			i++
			continue
		}
		if isFlagArg(a) && !(c.base == "chmod" && regexp.MustCompile(`^-[rwxXst]+$`).MatchString(v)) {
			continue
		}
		ops = append(ops, a)
	}
	if mode && !reference && c.base != "chattr" && len(ops) > 0 {
		ops = ops[1:] // the mode or the owner
	}
	kind, verb := changeOne, c.base
	if recursive {
		kind, verb = changeTree, c.base+" -R"
	}
	g.destroy(c, kind, verb, ops)
}

// checkMv refuses moving away catastrophic sources.
func (g *checker) checkMv(c *shCall) {
	ops := operands(c.args[1:])
	for i, a := range c.args[1:] {
		if (a.val == "-t" || a.val == "--target-directory") && i+2 < len(c.args) {
			dst := c.args[i+2]
			ops = slices.DeleteFunc(ops, func(o shArg) bool { return o.val == dst.val })
			g.markWritten(c, ops, "mv")
			g.destroy(c, moveAway, "mv", ops)
			return
		}
	}
	if len(ops) < 2 {
		return
	}
	g.markWritten(c, ops[len(ops)-1:], "mv")
	g.noteCopy(c.env, ops[0], ops[len(ops)-1])
	g.destroy(c, moveAway, "mv", ops[:len(ops)-1])
}

// checkRsync judges rsync --delete by its destination.
func (g *checker) checkRsync(c *shCall) {
	args := c.args[1:]
	deletes := slices.ContainsFunc(args, func(a shArg) bool {
		return strings.HasPrefix(a.val, "--del") || a.val == "--remove-source-files" || a.val == "--remove-sent-files"
	})
	var ops []shArg
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case v == "-e" || v == "--rsh":
			if i+1 < len(args) {
				g.code(c.env.child(), args[i+1].val, "`rsync -e`")
			}
			i++
		case strings.HasPrefix(v, "--rsh=") || strings.HasPrefix(v, "--rsync-path="):
			_, cmd, _ := strings.Cut(v, "=")
			g.code(c.env.child(), cmd, "`rsync "+strings.SplitN(v, "=", 2)[0]+"`")
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
		if !a.dynamic() && isDiskDevice(a.val) && a.val == dst.val {
			g.deny("Refused: %s would overwrite the disk device %s and destroy its data.", c.cmdText(), a.val)
		}
	}
	if hasFlag(args, "", "--remove-source-files") || hasFlag(args, "", "--remove-sent-files") {
		g.destroy(c, killRecursive, "rsync --remove-source-files", ops[:len(ops)-1])
	}
	if !deletes || !slices.ContainsFunc(args, func(a shArg) bool { return strings.HasPrefix(a.val, "--del") }) {
		return
	}
	if !dst.dynamic() && strings.Contains(dst.val, ":") && !strings.HasPrefix(dst.val, "/") {
		g.warn("Deletes files on another machine that are not in the source (%s).", clip(display(c.args), 80))
		return
	}
	g.destroy(c, killRecursive, "rsync --delete", []shArg{dst})
}

// noteCopy remembers that dst is now a copy of src, so that running dst is
// judged as running src.
func (g *checker) noteCopy(env *shState, src, dst shArg) {
	if src.dynamic() || dst.dynamic() {
		return
	}
	sp, ok1 := g.linkPath(env, src.val)
	dp, ok2 := g.linkPath(env, dst.val)
	if !ok1 || !ok2 {
		return
	}
	if isDir(dp) {
		dp = path.Join(dp, path.Base(sp))
	}
	g.copies[dp] = sp
	// A symlink moved or copied as a link still points where it did.
	target, ok := env.links[sp]
	if !ok {
		if fi, err := os.Lstat(sp); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			target, ok = g.realPath(sp), true
		}
	}
	if ok {
		env.links[dp] = target
	}
}

// linkPath resolves a path whose last element is not followed: the path of
// a symlink itself.
func (g *checker) linkPath(env *shState, v string) (string, bool) {
	v = strings.TrimSuffix(v, "/")
	if v == "" {
		return "", false
	}
	dir, err := g.absPath(env, path.Dir(v))
	if !err {
		return "", false
	}
	return path.Join(dir, path.Base(v)), true
}

// checkLn remembers symlinks the script creates, so that later commands
// that go through them are judged by where they point.
func (g *checker) checkLn(c *shCall) {
	args := c.args[1:]
	if !hasFlag(args, "s", "--symbolic") {
		if ops := operands(args); len(ops) == 2 {
			g.noteCopy(c.env, ops[0], ops[1]) // a hard link
		}
		return
	}
	ops := operands(args)
	if len(ops) == 0 || ops[0].dynamic() {
		return
	}
	target := ops[0].val
	link := path.Base(target)
	if len(ops) > 1 {
		link = ops[len(ops)-1].val
	}
	lp, ok := g.linkPath(c.env, link)
	if !ok {
		return
	}
	if len(ops) > 1 && isDir(g.realPath(lp)) && !hasFlag(args, "nT", "--no-dereference") {
		lp = path.Join(lp, path.Base(target)) // ln -s x dir puts the link in the folder
	}
	tp := target
	if !strings.HasPrefix(tp, "/") {
		tp = path.Join(path.Dir(lp), tp)
	}
	for _, st := range []*shState{c.st, c.env} {
		if st != nil {
			st.links[lp] = path.Clean(tp)
		}
	}
}
