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
func (g *shellGuard) destroy(c *shCall, kind destroyKind, verb string, targets []shArg) {
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

func (g *shellGuard) destroyOne(c *shCall, kind destroyKind, verb string, a shArg, j judged) {
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
			msg := fmt.Sprintf("The %s `%s` %s come from %s cannot be checked before it runs.", words[1], verb, words[2], and(j.src.desc))
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
func (g *shellGuard) emptyHint(st *shState, a shArg) string {
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
func (g *shellGuard) verb(c *shCall) {
	args, base := c.args, c.base
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
				ops = slices.DeleteFunc(ops, func(o shArg) bool { return o.val == args[i+2].val && o.raw == args[i+2].raw })
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
	case (base == "loginctl" || base == "systemctl") && slices.ContainsFunc(args[1:], func(a shArg) bool {
		return slices.Contains([]string{"terminate-user", "kill-user", "terminate-session", "kill-session", "terminate-seat"}, a.val)
	}):
		g.deny("Refused: %s would kill every process of the user's session, including the desktop.", c.cmdText())
	case isPower(c):
		g.deny("Refused: %s would shut down or restart the computer.", c.cmdText())
	case base == "kill" || base == "pkill" || base == "killall" || base == "killall5" || base == "skill" || base == "slay" || base == "pgrep":
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
	case base == "vim" || base == "nvim" || base == "vi" || base == "ex" || base == "view":
		for i := 1; i < len(args); i++ {
			v := args[i].val
			cmd := ""
			switch {
			case (v == "-c" || v == "--cmd") && i+1 < len(args):
				cmd = args[i+1].val
			case strings.HasPrefix(v, "+"):
				cmd = v[1:]
			}
			if sh, ok := strings.CutPrefix(strings.TrimLeft(cmd, ": "), "!"); ok {
				g.code(c.env.child(), sh, "`"+base+" -c '!…'`")
			}
		}
	case base == "gdb":
		for i := 1; i+1 < len(args); i++ {
			if args[i].val == "-ex" || args[i].val == "--eval-command" {
				cmd := strings.TrimSpace(args[i+1].val)
				for _, p := range []string{"shell ", "!", "pipe "} {
					if sh, ok := strings.CutPrefix(cmd, p); ok {
						g.code(c.env.child(), sh, "`gdb -ex`")
					}
				}
			}
		}
	case base == "sqlite3":
		for _, a := range args[1:] {
			for _, p := range []string{".shell ", ".system "} {
				if i := strings.Index(a.val, p); i >= 0 {
					g.code(c.env.child(), a.val[i+len(p):], "`sqlite3 "+strings.TrimSpace(p)+"`")
				}
			}
		}
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
func (g *shellGuard) codeArgs(c *shCall) {
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

var driveLetter = regexp.MustCompile(`^[A-Za-z]:[\\/]?$`)

// checkRm judges rm: recursive deletes of catastrophic targets are refused,
// of unknown or outside ones held.
func (g *shellGuard) checkRm(c *shCall) {
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
func (g *shellGuard) checkPerms(c *shCall) {
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
func (g *shellGuard) checkMv(c *shCall) {
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
func (g *shellGuard) checkRsync(c *shCall) {
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
func (g *shellGuard) noteCopy(env *shState, src, dst shArg) {
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
func (g *shellGuard) linkPath(env *shState, v string) (string, bool) {
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
func (g *shellGuard) checkLn(c *shCall) {
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

// checkDd refuses dd onto a disk device.
func (g *shellGuard) checkDd(c *shCall) {
	for _, a := range c.args[1:] {
		for _, key := range []string{"of=", "hof=", "errlog="} {
			of, ok := strings.CutPrefix(a.val, key)
			if !ok {
				continue
			}
			w := shArg{val: of, raw: a.raw, lost: a.lost}
			if w.dynamic() {
				g.hold("The device or file `%s` writes to comes from %s cannot be checked before it runs.", c.base, and(g.argSource(w).desc))
				continue
			}
			g.checkWrite(c.env, w, c.cmdText()+" writing to")
			if p, ok := g.absPath(c.env, of); ok {
				if cl, what := g.classify(p); cl == classSystem || cl == classCritical {
					g.hold("%s overwrites %s, so it needs your approval.", c.cmdText(), what)
				}
				g.written[p] = fileNote{by: display(c.args)}
			}
		}
	}
}

// checkWriters refuses the usual writers aimed at a disk device.
func (g *shellGuard) checkWriters(c *shCall) {
	args := c.args[1:]
	var targets []shArg
	add := func(v shArg) { targets = append(targets, v) }
	switch c.base {
	case "tee", "truncate", "badblocks":
		if c.base == "badblocks" && !hasFlag(args, "wn", "") {
			break
		}
		targets = operands(args)
	case "cp", "install", "ddrescue":
		ops := operands(args)
		dest := false
		for i, a := range args {
			if (a.val == "-t" || a.val == "--target-directory") && i+1 < len(args) {
				add(args[i+1])
				dest = true
			}
		}
		if !dest && len(ops) > 1 {
			add(ops[len(ops)-1])
			defer g.noteCopy(c.env, ops[0], ops[len(ops)-1]) // after the write is judged
		}
		g.markWritten(c, targets, c.base)
	case "sort":
		for i, a := range args {
			if a.val == "-o" && i+1 < len(args) {
				add(args[i+1])
			} else if v, ok := strings.CutPrefix(a.val, "--output="); ok {
				add(shArg{val: v, raw: a.raw})
			}
		}
	case "tar", "bsdtar":
		g.checkTar(c)
		return
	case "wget", "curl", "pv", "flashrom":
		for i, a := range args {
			v := a.val
			switch {
			case (c.base == "wget" && (v == "-O" || v == "--output-document")) || (c.base == "curl" && (v == "-o" || v == "--output")) || (c.base == "flashrom" && (v == "-w" || v == "--write")):
				if i+1 < len(args) {
					add(args[i+1])
				}
			case strings.HasPrefix(v, "--output-document=") || strings.HasPrefix(v, "--output="):
				_, val, _ := strings.Cut(v, "=")
				add(shArg{val: val, raw: a.raw})
			case c.base == "wget" && strings.HasPrefix(v, "-O") && len(v) > 2:
				add(shArg{val: v[2:], raw: a.raw})
			case c.base == "curl" && strings.HasPrefix(v, "-o") && len(v) > 2:
				add(shArg{val: v[2:], raw: a.raw})
			case c.base == "pv" && !isFlagArg(a):
			}
		}
		g.markWritten(c, targets, c.base)
	case "socat":
		for _, a := range args {
			u := strings.ToUpper(a.val)
			for _, p := range []string{"EXEC:", "SYSTEM:"} {
				if strings.HasPrefix(u, p) {
					cmd, _, _ := strings.Cut(a.val[len(p):], ",")
					g.code(c.env.child(), cmd, "`socat "+strings.TrimSuffix(p, ":")+"`")
				}
			}
			for _, p := range []string{"OPEN:", "CREATE:", "GOPEN:", "FILE:"} {
				if strings.HasPrefix(u, p) {
					f, _, _ := strings.Cut(a.val[len(p):], ",")
					add(shArg{val: f, raw: a.raw})
				}
			}
			if strings.HasPrefix(a.val, "/dev/") {
				add(a)
			}
		}
	}
	for _, t := range targets {
		g.checkWrite(c.env, t, c.cmdText()+" writing to")
	}
}

// checkTar refuses tar writing an archive onto a disk device and follows
// the commands its options run.
func (g *shellGuard) checkTar(c *shCall) {
	args := c.args[1:]
	creating := false
	if len(args) > 0 && !strings.HasPrefix(args[0].val, "-") && strings.ContainsAny(args[0].val, "crufAd") {
		creating = true
	}
	extracting := len(args) > 0 && !strings.HasPrefix(args[0].val, "-") && strings.Contains(args[0].val, "x")
	for i, a := range args {
		v := a.val
		if strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.ContainsAny(v, "cruA") {
			creating = true
		}
		if v == "--create" || v == "--append" || v == "--update" || v == "--concatenate" {
			creating = true
		}
		if v == "--extract" || v == "--get" || strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.Contains(v, "x") {
			extracting = true
		}
		for _, opt := range []string{"--to-command=", "--use-compress-program=", "--rsh-command=", "--info-script=", "--new-volume-script=", "--checkpoint-action=exec="} {
			if cmd, ok := strings.CutPrefix(v, opt); ok {
				g.code(c.env.child(), cmd, "`tar "+strings.TrimSuffix(opt, "=")+"`")
			}
		}
		if (v == "-I" || v == "-F" || v == "--to-command" || v == "--use-compress-program") && i+1 < len(args) {
			g.code(c.env.child(), args[i+1].val, "`tar "+v+"`")
		}
	}
	if hasFlag(args, "", "--remove-files") {
		var sources []shArg
		skip := false
		for i, a := range args {
			switch {
			case skip:
				skip = false
			case i == 0 && !strings.HasPrefix(a.val, "-"):
				skip = strings.HasSuffix(a.val, "f")
			case a.val == "-f" || a.val == "--file" || a.val == "-C" || a.val == "--directory" || a.val == "-T" || a.val == "-X" || (strings.HasPrefix(a.val, "-") && !strings.HasPrefix(a.val, "--") && strings.HasSuffix(a.val, "f")):
				skip = true
			case !isFlagArg(a):
				sources = append(sources, a)
			}
		}
		g.destroy(c, killRecursive, "tar --remove-files", sources)
	}
	if extracting {
		g.dirty = display(c.args)
		g.unpacked = display(c.args)
		dir := known(".")
		for i, a := range args {
			if (a.val == "-C" || a.val == "--directory") && i+1 < len(args) {
				dir = args[i+1]
			} else if d, ok := strings.CutPrefix(a.val, "--directory="); ok {
				dir = known(d)
			}
		}
		if j := g.judge(c.env, dir); j.class == classCritical || j.class == classSystem {
			g.hold("%s extracts files over %s, so it needs your approval.", c.cmdText(), j.what)
		} else if j.class == classUnknown {
			g.hold("The folder `tar` extracts into comes from %s cannot be checked before it runs.", and(j.src.desc))
		}
	}
	if !creating {
		return
	}
	for i, a := range args {
		v := a.val
		var f shArg
		switch {
		case strings.HasPrefix(v, "--file="):
			f = shArg{val: strings.TrimPrefix(v, "--file="), raw: a.raw}
		case v == "--file" || (strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.HasSuffix(v, "f")) || (i == 0 && !strings.HasPrefix(v, "-") && strings.HasSuffix(v, "f")):
			if i+1 < len(args) {
				f = args[i+1]
			}
		case strings.HasPrefix(v, "-f") && len(v) > 2:
			f = shArg{val: v[2:], raw: a.raw}
		default:
			continue
		}
		g.checkWrite(c.env, f, c.cmdText()+" writing an archive to")
	}
}

// isEraser reports whether base creates file systems or erases disks.
func isEraser(base string) bool {
	switch {
	case strings.HasPrefix(base, "mkfs"), strings.HasPrefix(base, "newfs"), strings.HasPrefix(base, "mke2fs"):
		return true
	}
	switch base {
	case "mkswap", "mkdosfs", "mkntfs", "mkexfatfs", "mkreiserfs", "mkudffs", "wipefs", "blkdiscard", "cryptsetup", "hdparm", "nvme", "mdadm", "lvremove", "vgremove", "pvremove", "zpool", "zfs", "dmsetup", "sg_format", "sg_sanitize", "blkzone", "e2fsck", "tune2fs", "zerofree", "dumpe2fs", "mke2fs.ext4", "lvcreate", "pvcreate", "vgcreate":
		return true
	}
	return false
}

// checkEraser refuses erasing a disk and holds it when the target cannot
// be known; making a file system in an image file is fine.
func (g *shellGuard) checkEraser(c *shCall) {
	args := c.args[1:]
	sub := ""
	if ops := operands(args); len(ops) > 0 {
		sub = ops[0].val
	}
	switch c.base {
	case "cryptsetup":
		if sub != "luksFormat" && sub != "erase" && sub != "luksErase" && sub != "reencrypt" {
			return
		}
	case "hdparm":
		if !slices.ContainsFunc(args, func(a shArg) bool {
			return strings.HasPrefix(a.val, "--security-erase") || strings.HasPrefix(a.val, "--trim-sector") || strings.HasPrefix(a.val, "--write-sector") || a.val == "--yes-i-know-what-i-am-doing"
		}) {
			return
		}
	case "nvme":
		if sub != "format" && sub != "sanitize" && sub != "write-zeroes" && sub != "ns-delete" && sub != "delete-ns" {
			return
		}
	case "mdadm":
		if !hasFlag(args, "C", "--create") && !hasFlag(args, "", "--zero-superblock") {
			return
		}
	case "zpool", "zfs":
		if sub != "destroy" && sub != "labelclear" && sub != "create" {
			return
		}
		g.deny("Refused: %s destroys a storage pool or dataset and its data.", c.cmdText())
		return
	case "lvremove", "vgremove", "pvremove", "blkzone":
		g.deny("Refused: %s removes disk volumes and their data.", c.cmdText())
		return
	case "dmsetup":
		if sub != "remove_all" && sub != "wipe_table" && sub != "remove" {
			return
		}
	case "e2fsck", "tune2fs", "dumpe2fs", "lvcreate", "pvcreate", "vgcreate":
		return
	}
	devices := 0
	for _, a := range operands(args) {
		switch {
		case a.dynamic():
			g.hold("The device `%s` erases comes from %s cannot be checked before it runs.", c.base, and(g.argSource(a).desc))
		case strings.HasPrefix(a.val, "/dev/") || isDiskDevice(a.val):
			devices++
		}
	}
	if devices > 0 || c.base == "wipefs" || c.base == "blkdiscard" || c.base == "cryptsetup" || c.base == "nvme" || c.base == "mdadm" || c.base == "dmsetup" || c.base == "hdparm" || strings.HasPrefix(c.base, "sg_") {
		g.deny("Refused: %s erases a disk or creates a file system on it, which destroys its data.", c.cmdText())
		return
	}
	g.warn("Creates a file system (%s).", clip(display(c.args), 80))
}

// checkPartitioner refuses partitioning a disk; listing partitions is fine.
func (g *shellGuard) checkPartitioner(c *shCall) {
	device := ""
	listing := map[string][]string{
		"fdisk":  {"-l", "--list", "-x", "--list-details", "--help", "-h", "--version", "-V"},
		"sfdisk": {"-l", "--list", "-d", "--dump", "-J", "--json", "-s", "--show-size", "-V", "--verify", "-F", "--list-free", "-r", "--reorder-dry-run", "--help", "-h", "--version", "-v"},
		"parted": {"-l", "--list", "print", "p", "--help", "-h", "--version", "-v"},
		"gdisk":  {"-l", "--help", "-h"},
		"sgdisk": {"-p", "--print", "-i", "--info", "-v", "--verify", "-L", "--list-types", "-P", "--pretend", "--help", "-h", "-V", "--version"},
	}[c.base]
	if c.base == "parted" {
		// parted's commands after the device; only print lists.
		ops := operands(c.args[1:])
		if len(ops) > 1 && slices.ContainsFunc(ops[1:], func(a shArg) bool {
			return !slices.Contains([]string{"print", "p", "unit", "s", "B", "MB", "GB", "MiB", "GiB", "%", "cyl", "chs", "compact", "TB", "kB"}, a.val)
		}) {
			listing = nil
		}
	}
	for _, a := range c.args[1:] {
		if slices.Contains(listing, a.val) {
			return
		}
		if a.dynamic() {
			g.hold("The disk `%s` partitions comes from %s cannot be checked before it runs.", c.base, and(g.argSource(a).desc))
		}
		if strings.HasPrefix(a.val, "/dev/") && device == "" {
			device = a.val
		}
	}
	if device != "" {
		g.deny("Refused: %s would change the partition table of %s.", c.cmdText(), device)
	}
}

// isPower reports whether a command shuts down, restarts or suspends the
// machine into a state that kills the session.
func isPower(c *shCall) bool {
	args := c.args
	switch c.base {
	case "shutdown":
		return !slices.ContainsFunc(args[1:], func(a shArg) bool { return a.val == "-c" || a.val == "--help" || a.val == "--show" })
	case "reboot", "halt", "poweroff", "kexec", "uadmin", "systemd-shutdown", "x-session-manager-quit":
		if c.base == "kexec" {
			return hasFlag(args[1:], "e", "--exec") || hasFlag(args[1:], "f", "--force")
		}
		return !slices.ContainsFunc(args[1:], func(a shArg) bool { return a.val == "--help" })
	case "init", "telinit":
		return len(args) > 1 && slices.Contains([]string{"0", "1", "6", "s", "S", "single"}, args[1].val)
	case "systemctl", "loginctl":
		for i, a := range args[1:] {
			switch a.val {
			case "poweroff", "reboot", "halt", "kexec", "soft-reboot", "emergency", "rescue":
				return true
			case "isolate", "start":
				if i+2 < len(args) {
					t := strings.TrimSuffix(args[i+2].val, ".target")
					return slices.Contains([]string{"poweroff", "reboot", "halt", "rescue", "emergency", "kexec", "shutdown"}, t)
				}
			}
		}
	case "gnome-session-quit", "xfce4-session-logout", "lxqt-leave", "qdbus":
		return slices.ContainsFunc(args[1:], func(a shArg) bool {
			return strings.Contains(a.val, "power-off") || strings.Contains(a.val, "reboot") || strings.Contains(a.val, "halt") || strings.Contains(a.val, "logout")
		})
	case "dbus-send", "busctl", "gdbus":
		return slices.ContainsFunc(args[1:], func(a shArg) bool {
			return strings.Contains(a.val, "PowerOff") || strings.Contains(a.val, "Reboot") || strings.Contains(a.val, "Halt")
		})
	}
	return false
}

// checkKill refuses signalling every process (kill -1, killall5, pkill
// with an inverted or all-matching pattern, killing all of a user's
// processes) and holds kill whose targets cannot be known.
func (g *shellGuard) checkKill(c *shCall) {
	args := c.args[1:]
	killAll := func() {
		g.deny("Refused: %s would kill every process of the user, including the desktop session.", c.cmdText())
	}
	switch c.base {
	case "killall5":
		killAll()
		return
	case "kill":
		signalGiven := false
		for i := 0; i < len(args); i++ {
			a := args[i]
			v := a.val
			switch {
			case a.dynamic():
				g.hold("The processes `kill` signals come from %s cannot be checked before it runs (if it is -1, every process is killed).", and(g.argSource(a).desc))
			case v == "--":
				for _, t := range args[i+1:] {
					if t.dynamic() {
						g.hold("The processes `kill` signals come from %s cannot be checked before it runs (if it is -1, every process is killed).", and(g.argSource(t).desc))
					} else if t.val == "-1" {
						killAll()
					}
				}
				return
			case v == "-s" || v == "-n" || v == "--signal":
				i++
				signalGiven = true
			case v == "-l" || v == "-L" || v == "--list" || v == "--table":
				return
			case v == "-1" && signalGiven:
				killAll()
			case strings.HasPrefix(v, "-") && !signalGiven:
				signalGiven = true
			}
		}
	case "pkill", "killall", "skill", "slay", "pgrep":
		if c.base == "pgrep" {
			return
		}
		inverse, byUser := false, false
		var patterns []shArg
		for i := 0; i < len(args); i++ {
			a := args[i]
			v := a.val
			switch {
			case v == "-v" || v == "--inverse":
				inverse = true
			case v == "-u" || v == "-U" || v == "--user" || v == "--euid" || v == "--uid":
				byUser = true
				i++
			case v == "-P" || v == "--parent":
				byUser = byUser || (i+1 < len(args) && args[i+1].val == "1")
				i++
			case v == "-g" || v == "-G" || v == "-s" || v == "-t" || v == "--session" || v == "--terminal" || v == "--pgroup" || v == "--group":
				i++
			case v == "--signal" || v == "-o" || v == "-y" || v == "--older-than" || v == "--younger-than" || v == "-n" || v == "--ns" || v == "--nslist" || v == "-F" || v == "--pidfile":
				i++
			case v == "-r" || v == "--regexp":
			case isFlagArg(a):
				if c.base == "pkill" && strings.Contains(v, "v") && !strings.HasPrefix(v, "--") && len(v) <= 4 && !strings.ContainsAny(v[1:], "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
					inverse = true
				}
			default:
				patterns = append(patterns, a)
			}
		}
		if inverse && c.base == "pkill" {
			g.deny("Refused: %s kills every process that does not match its pattern, which is nearly everything.", c.cmdText())
			return
		}
		if len(patterns) == 0 && byUser {
			killAll()
			return
		}
		for _, p := range patterns {
			if p.dynamic() {
				g.hold("The processes `%s` kills come from %s cannot be checked before it runs.", c.base, and(g.argSource(p).desc))
				continue
			}
			if matchesEverything(p.val) && (c.base != "killall" || slices.ContainsFunc(args, func(a shArg) bool { return a.val == "-r" || a.val == "--regexp" })) {
				killAll()
				return
			}
		}
	}
}

// isPackageManager reports whether base installs and removes system
// packages.
func isPackageManager(base string) bool {
	switch base {
	case "apt", "apt-get", "aptitude", "dpkg", "yum", "dnf", "microdnf", "pacman", "zypper", "apk", "rpm", "emerge", "xbps-remove", "snap", "port":
		return true
	}
	return false
}

// essentialPackages break the system when removed.
var essentialPackages = regexp.MustCompile(`^(bash|coreutils|libc6|libc-bin|glibc|systemd|systemd-sysv|sudo|util-linux|dpkg|apt|rpm|yum|dnf|pacman|base|filesystem|linux(-image.*)?|kernel(-core)?|init|login|passwd|libpam.*|openssh-server|python3(\.\d+)?-minimal|busybox|musl|apk-tools|grub.*|shim.*|e2fsprogs|mount|tar|gzip|sed|grep|findutils|perl-base|debianutils|base-files|base-passwd|ncurses-base|zlib1g)$`)

// checkPackageRemoval refuses removing every package or the ones the
// system cannot run without.
func (g *shellGuard) checkPackageRemoval(c *shCall) {
	args := c.args[1:]
	removing := false
	var pkgs []shArg
	for _, a := range args {
		v := a.val
		switch {
		case slices.Contains([]string{"remove", "purge", "autoremove", "erase", "uninstall", "del", "-R", "-Rns", "-Rs", "-Rdd", "-Rcns", "-r", "-e", "--erase", "--remove", "--purge", "-P", "-Rn"}, v) || (c.base == "pacman" && strings.HasPrefix(v, "-R")):
			removing = true
		case isFlagArg(a):
		default:
			if removing {
				pkgs = append(pkgs, a)
			}
		}
	}
	if !removing {
		return
	}
	for _, p := range pkgs {
		switch {
		case p.dynamic():
			g.hold("The packages `%s` removes come from %s cannot be checked before it runs.", c.base, and(g.argSource(p).desc))
		case strings.ContainsAny(p.val, "*?") || essentialPackages.MatchString(strings.SplitN(p.val, ":", 2)[0]):
			g.deny("Refused: %s would remove %s, which the system cannot run without.", c.cmdText(), p.val)
			return
		}
	}
	g.warn("Removes system packages (%s).", clip(display(c.args), 80))
}

// matchesEverything reports whether a process pattern matches every name.
func matchesEverything(pat string) bool {
	re, err := regexp.Compile(pat)
	if err != nil {
		return false
	}
	for _, name := range []string{"systemd", "bash", "Xorg", "gnome-shell", "sshd", "tinyelf", "a", "1"} {
		if !re.MatchString(name) {
			return false
		}
	}
	return true
}
