package tools

import (
	"path"
	"regexp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// denyFooter ends every deny reason.
const denyFooter = " This command is on TinyElf's deny list of critical operations and was not run. If it is really needed, ask the user to run it themselves."

var driveLetter = regexp.MustCompile(`^[A-Za-z]:[\\/]?$`)

// isInterpreter reports whether base runs a program read from standard input.
func isInterpreter(base string) bool {
	if isShell(base) {
		return true
	}
	for _, p := range []string{"python", "perl", "ruby", "node", "nodejs", "php", "lua", "pwsh", "powershell", "deno", "bun"} {
		if base == p || strings.HasPrefix(base, p) && strings.Trim(base[len(p):], "0123456789.") == "" {
			return true
		}
	}
	return false
}

// isDownloader reports whether base fetches from the network.
func isDownloader(base string) bool {
	switch base {
	case "curl", "wget", "fetch", "aria2c", "http", "https", "xh", "lwp-request", "invoke-webrequest", "iwr":
		return true
	}
	return false
}

// checkSimple applies the deny list and the warnings to one unwrapped
// simple command.
func (g *shellGuard) checkSimple(base string, args []shWord, source string, depth int) {
	shown := display(args)
	cmdText := "`" + shown + "`"
	if source != "" && source != shown {
		cmdText = "`" + source + "` (which runs `" + shown + "`)"
	}
	switch {
	case base == "rm":
		g.checkRm(args, shown, cmdText)
	case base == "mv":
		ops := operands(args[1:])
		if len(ops) > 1 {
			for _, a := range ops[:len(ops)-1] {
				if what, ok := g.criticalTarget(a); ok {
					g.deny("Refused: %s would move away %s.%s", cmdText, what, denyFooter)
				}
			}
		}
	case base == "chmod" || base == "chown" || base == "chgrp":
		verb := map[string]string{"chmod": "permissions", "chown": "ownership", "chgrp": "group ownership"}[base]
		g.warn("Changes file %s (%s).", verb, clip(shown, 80))
		if hasFlag(args[1:], "R", "--recursive") {
			for _, a := range operands(args[1:]) {
				if what, ok := g.criticalTarget(a); ok {
					g.deny("Refused: %s would recursively change the %s of %s.%s", cmdText, verb, what, denyFooter)
				}
			}
		}
	case base == "dd":
		for _, a := range args[1:] {
			if of, ok := strings.CutPrefix(a.val, "of="); ok && a.static && isDiskDevice(of) {
				g.deny("Refused: %s would overwrite the disk device %s and destroy its data.%s", cmdText, of, denyFooter)
			}
		}
	case strings.HasPrefix(base, "mkfs") || base == "mke2fs" || base == "mkswap" || strings.HasPrefix(base, "newfs") || base == "mkdosfs" || base == "mkntfs":
		g.deny("Refused: %s creates a file system, which erases the device it is given.%s", cmdText, denyFooter)
	case base == "format" || base == "format.com":
		for _, a := range args[1:] {
			if driveLetter.MatchString(a.val) {
				g.deny("Refused: %s would format the drive %s.%s", cmdText, a.val, denyFooter)
			}
		}
	case base == "diskpart" || base == "wipefs" || base == "blkdiscard":
		g.deny("Refused: %s can erase disks or their partition tables.%s", cmdText, denyFooter)
	case base == "shred" || base == "tee" || base == "cp" || base == "ddrescue":
		ops := operands(args[1:])
		if (base == "cp" || base == "ddrescue") && len(ops) > 1 {
			ops = ops[len(ops)-1:] // only the destination is written
		}
		for _, a := range ops {
			if a.static && isDiskDevice(a.val) {
				g.deny("Refused: %s would overwrite the disk device %s and destroy its data.%s", cmdText, a.val, denyFooter)
			}
		}
	case base == "fdisk" || base == "sfdisk" || base == "parted" || base == "gdisk" || base == "sgdisk" || base == "cfdisk":
		g.checkPartitioner(args, cmdText)
	case base == "shutdown" || base == "reboot" || base == "halt" || base == "poweroff":
		g.deny("Refused: %s would shut down or restart the computer.%s", cmdText, denyFooter)
	case base == "init" || base == "telinit":
		if len(args) > 1 && (args[1].val == "0" || args[1].val == "6") {
			g.deny("Refused: %s would shut down or restart the computer.%s", cmdText, denyFooter)
		}
	case base == "systemctl" || base == "loginctl":
		for _, a := range args[1:] {
			switch a.val {
			case "poweroff", "reboot", "halt", "kexec", "soft-reboot":
				g.deny("Refused: %s would shut down or restart the computer.%s", cmdText, denyFooter)
			}
		}
	case base == "kill":
		g.checkKill(args, cmdText)
	case base == "git":
		g.checkGit(args, shown)
	case base == "cd" || base == "pushd":
		g.checkCd(args)
		return
	case base == "popd":
		g.cwd = ""
		return
	case base == "find":
		g.checkFind(args, source, depth)
	}
	g.checkPaths(args[1:])
}

// checkRm denies recursive deletes of the root, system folders, the home
// folder and folders containing the workspace, and warns about the rest.
func (g *shellGuard) checkRm(args []shWord, shown, cmdText string) {
	if slices.ContainsFunc(args[1:], func(a shWord) bool { return a.val == "--no-preserve-root" }) {
		g.deny("Refused: %s uses --no-preserve-root, which turns off rm's protection of the root folder.%s", cmdText, denyFooter)
		return
	}
	if !hasFlag(args[1:], "rR", "--recursive") {
		return
	}
	g.warn("Deletes recursively without a way back (%s).", clip(shown, 80))
	for _, a := range operands(args[1:]) {
		if !a.static {
			if what, ok := g.criticalTarget(shWord{val: a.val, static: true}); ok && a.val != "" {
				g.warn("`%s` builds its target from a variable (%s): if the variable is empty it deletes %s.", clip(shown, 80), a.raw, what)
			} else {
				g.warn("`%s` deletes a path computed when the command runs (%s); it could not be checked.", clip(shown, 80), a.raw)
			}
			continue
		}
		if what, ok := g.criticalTarget(a); ok {
			g.deny("Refused: %s would recursively delete %s.%s", cmdText, what, denyFooter)
			return
		}
		if p, ok := g.absPath(a.val); ok && g.wsDir != "" && p == g.wsDir {
			g.warn("Deletes the whole workspace folder (%s).", clip(shown, 80))
		}
	}
}

// checkPartitioner denies partitioning a disk; listing partitions is fine.
func (g *shellGuard) checkPartitioner(args []shWord, cmdText string) {
	device := ""
	for _, a := range args[1:] {
		switch a.val {
		case "-l", "--list", "-d", "--dump", "-J", "--json", "-s", "--show-size", "-V", "--verify", "print", "-p", "--print":
			return
		}
		if strings.HasPrefix(a.val, "/dev/") && device == "" {
			device = a.val
		}
	}
	if device != "" {
		g.deny("Refused: %s would change the partition table of %s.%s", cmdText, device, denyFooter)
	}
}

// checkKill denies signalling every process the user may signal (pid -1).
func (g *shellGuard) checkKill(args []shWord, cmdText string) {
	signalGiven := false
	for i := 1; i < len(args); i++ {
		v := args[i].val
		switch {
		case v == "--":
			for _, a := range args[i+1:] {
				if a.val == "-1" {
					g.deny("Refused: %s would kill every process of the user, including the desktop session.%s", cmdText, denyFooter)
				}
			}
			return
		case v == "-s" || v == "-n":
			i++
			signalGiven = true
		case v == "-1" && signalGiven:
			g.deny("Refused: %s would kill every process of the user, including the desktop session.%s", cmdText, denyFooter)
		case strings.HasPrefix(v, "-") && !signalGiven:
			signalGiven = true
		}
	}
}

// checkGit warns about git commands that discard work.
func (g *shellGuard) checkGit(args []shWord, shown string) {
	sub, rest := "", []shWord(nil)
	for i := 1; i < len(args); i++ {
		v := args[i].val
		if v == "-C" || v == "-c" || v == "--git-dir" || v == "--work-tree" {
			i++
			continue
		}
		if !strings.HasPrefix(v, "-") {
			sub, rest = v, args[i+1:]
			break
		}
	}
	switch sub {
	case "push":
		if hasFlag(rest, "f", "--force") || slices.ContainsFunc(rest, func(a shWord) bool {
			return strings.HasPrefix(a.val, "--force") || strings.HasPrefix(a.val, "+")
		}) {
			g.warn("Force-pushes (%s): history on the remote can be overwritten.", clip(shown, 80))
		}
	case "reset":
		if slices.ContainsFunc(rest, func(a shWord) bool { return a.val == "--hard" }) {
			g.warn("Discards uncommitted changes (%s).", clip(shown, 80))
		}
	case "clean":
		if hasFlag(rest, "f", "--force") {
			g.warn("Deletes untracked files (%s).", clip(shown, 80))
		}
	}
}

// checkCd follows cd so that relative paths are judged from the right
// folder, and warns when it leaves the workspace.
func (g *shellGuard) checkCd(args []shWord) {
	ops := operands(args[1:])
	target := shWord{val: g.home, static: g.home != ""}
	if len(ops) > 0 {
		target = ops[0]
	}
	if !target.static || target.val == "-" {
		g.cwd = ""
		return
	}
	p, ok := g.absPath(target.val)
	if !ok {
		g.cwd = ""
		return
	}
	if g.wsDir != "" && !g.inside(p) && !g.harmless(p) {
		g.warn("Changes directory outside the workspace: %s", p)
	}
	g.cwd = p
}

// checkFind checks the commands find runs with -exec, -execdir, -ok.
func (g *shellGuard) checkFind(args []shWord, source string, depth int) {
	for i := 1; i < len(args); i++ {
		switch args[i].val {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && args[j].val != ";" && args[j].val != "+" {
				j++
			}
			if j > i+1 {
				g.checkCall(args[i+1:j], nil, source, depth)
			}
			i = j
		case "-delete":
			starts := findStartPaths(args[1:])
			for _, a := range starts {
				what, ok := g.criticalTarget(a)
				switch {
				case !ok:
				case findHasTests(args[1+len(starts):]):
					g.warn("Deletes the files find selects under %s (%s).", what, clip(display(args), 80))
				default:
					g.deny("Refused: `%s` would delete everything under %s.%s", display(args), what, denyFooter)
				}
			}
		}
	}
}

// findHasTests reports whether a find expression selects files (-name,
// -type…) rather than matching everything.
func findHasTests(expr []shWord) bool {
	for _, a := range expr {
		switch a.val {
		case "-delete", "-depth", "-xdev", "-mount", "-print", "-print0", "-noleaf", "-ignore_readdir_race", "-d":
			continue
		}
		if strings.HasPrefix(a.val, "-") && !strings.HasPrefix(a.val, "-max") && !strings.HasPrefix(a.val, "-min") {
			return true
		}
	}
	return false
}

// findStartPaths returns the folders find starts from.
func findStartPaths(args []shWord) []shWord {
	i := 0
	for i < len(args) && (args[i].val == "-H" || args[i].val == "-L" || args[i].val == "-P" || strings.HasPrefix(args[i].val, "-O") || args[i].val == "-D") {
		if args[i].val == "-D" {
			i++
		}
		i++
	}
	var out []shWord
	for ; i < len(args); i++ {
		v := args[i].val
		if strings.HasPrefix(v, "-") || v == "(" || v == "!" {
			break
		}
		out = append(out, args[i])
	}
	if len(out) == 0 {
		out = append(out, shWord{val: ".", static: true})
	}
	return out
}

// checkRedirect denies writing onto a disk device and warns about files
// outside the workspace.
func (g *shellGuard) checkRedirect(r *syntax.Redirect) {
	if r.Word == nil {
		return
	}
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return
	}
	w := g.resolveWord(r.Word)
	if !w.static {
		return
	}
	if (r.Op == syntax.DplOut || r.Op == syntax.DplIn) && (w.val == "-" || strings.Trim(w.val, "0123456789") == "") {
		return
	}
	if r.Op != syntax.RdrIn && r.Op != syntax.DplIn && isDiskDevice(w.val) {
		g.deny("Refused: redirecting output onto %s would overwrite the disk device and destroy its data.%s", w.val, denyFooter)
		return
	}
	g.checkPaths([]shWord{w})
}

// checkPipeline warns about downloads piped into an interpreter and checks
// echo '…' | sh.
func (g *shellGuard) checkPipeline(b *syntax.BinaryCmd, depth int) {
	var stmts []*syntax.Stmt
	var flatten func(s *syntax.Stmt)
	flatten = func(s *syntax.Stmt) {
		if bc, ok := s.Cmd.(*syntax.BinaryCmd); ok && (bc.Op == syntax.Pipe || bc.Op == syntax.PipeAll) {
			g.pipes[bc] = true
			flatten(bc.X)
			flatten(bc.Y)
			return
		}
		stmts = append(stmts, s)
	}
	g.pipes[b] = true
	flatten(b.X)
	flatten(b.Y)
	calls := make([][]shWord, len(stmts))
	for i, s := range stmts {
		calls[i] = g.finalCall(s)
	}
	for i := 1; i < len(calls); i++ {
		if len(calls[i]) == 0 || !calls[i][0].static {
			continue
		}
		base := commandBase(calls[i][0].val)
		if !isInterpreter(base) || readsProgramFromArgs(calls[i]) {
			continue
		}
		downloaded := slices.ContainsFunc(calls[:i], func(c []shWord) bool {
			return len(c) > 0 && isDownloader(commandBase(c[0].val))
		})
		prev := calls[i-1]
		switch {
		case downloaded:
			g.warn("Downloads a script and pipes it into %s: the code is not seen before it runs.", base)
		case isShell(base) && len(prev) > 1 && (commandBase(prev[0].val) == "echo" || commandBase(prev[0].val) == "printf") && allStatic(prev[1:]):
			text := joinWords(skipOptions(prev[1:], wrapperSpec{}))
			if commandBase(prev[0].val) == "printf" {
				text = strings.ReplaceAll(text, `\n`, "\n")
			}
			g.checkScript(text, depth+1)
		case isShell(base):
			g.warn("Pipes generated text into %s; the script it runs could not be checked.", base)
		}
	}
}

// readsProgramFromArgs reports whether an interpreter runs a program named
// on its command line rather than one read from standard input.
func readsProgramFromArgs(args []shWord) bool {
	for _, a := range args[1:] {
		switch {
		case a.val == "-" || a.val == "-s":
			return false
		case a.val == "-c" || a.val == "-e" || a.val == "-E" || a.val == "-m":
			return true
		case !strings.HasPrefix(a.val, "-"):
			return true
		}
	}
	return false
}

// checkFuncDecl denies fork bombs: a function that starts copies of itself
// in a pipeline or in the background.
func (g *shellGuard) checkFuncDecl(fn *syntax.FuncDecl) {
	if fn.Name == nil || fn.Body == nil {
		return
	}
	name := fn.Name.Value
	callsSelf := func(s *syntax.Stmt) bool {
		c, ok := s.Cmd.(*syntax.CallExpr)
		return ok && len(c.Args) > 0 && c.Args[0].Lit() == name
	}
	bomb := false
	syntax.Walk(fn.Body, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			if n.Background && (callsSelf(n) || containsSelfCall(n, callsSelf)) {
				bomb = true
			}
		case *syntax.BinaryCmd:
			if (n.Op == syntax.Pipe || n.Op == syntax.PipeAll) && (callsSelf(n.X) || callsSelf(n.Y)) {
				bomb = true
			}
		}
		return !bomb
	})
	if bomb {
		g.deny("Refused: the function `%s` starts copies of itself in a pipeline or in the background (a fork bomb), which exhausts the system's processes.%s", name, denyFooter)
	}
}

func containsSelfCall(s *syntax.Stmt, callsSelf func(*syntax.Stmt) bool) bool {
	found := false
	syntax.Walk(s, func(n syntax.Node) bool {
		if st, ok := n.(*syntax.Stmt); ok && callsSelf(st) {
			found = true
		}
		return !found
	})
	return found
}

// wordDownloads reports whether a word's command or process substitutions
// fetch something from the network.
func (g *shellGuard) wordDownloads(w shWord) bool {
	if w.word == nil {
		return false
	}
	found := false
	syntax.Walk(w.word, func(n syntax.Node) bool {
		if s, ok := n.(*syntax.Stmt); ok {
			if c := g.finalCall(s); len(c) > 0 && isDownloader(commandBase(c[0].val)) {
				found = true
			}
		}
		return !found
	})
	return found
}

// diskDevice matches block devices and raw memory, whose overwriting
// destroys data.
var diskDevice = regexp.MustCompile(`^/dev/(sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|r?disk\d|dm-\d|md\d|nbd\d|loop\d|mapper/|disk/|mem$|kmem$|port$)`)

func isDiskDevice(p string) bool { return diskDevice.MatchString(path.Clean(p)) }

// textRules are the deny list as text patterns, for scripts that do not
// parse. They run on the text with quotes and backslashes removed.
var textRules = []struct {
	re   *regexp.Regexp
	what string
}{
	{regexp.MustCompile(`(^|[\s;&|({` + "`" + `])rm\s+([^;&|\n]*\s)?(-[a-z]*r[a-z]*|--recursive)\s+([^;&|\n]*\s)?(/|/\*|~|~/|~/\*|\$home|\$\{home\}|/(bin|boot|dev|etc|home|lib|lib64|opt|root|sbin|srv|sys|usr|var|users|system|library))/?(\s|$|[;&|)])`), "a recursive delete of the root, home or a system folder"},
	{regexp.MustCompile(`--no-preserve-root`), "rm --no-preserve-root"},
	{regexp.MustCompile(`(^|[\s;&|(])(mkfs(\.\w+)?|mke2fs|wipefs|diskpart|blkdiscard)(\s|$)`), "a command that erases disks"},
	{regexp.MustCompile(`:\s*\(\)\s*\{\s*:\s*\|\s*:\s*&`), "a fork bomb"},
	{regexp.MustCompile(`\bdd\s[^;&|\n]*\bof=/dev/(sd|hd|vd|xvd|nvme|mmcblk|r?disk|dm-|md)`), "dd onto a disk device"},
	{regexp.MustCompile(`>\s*/dev/(sd|hd|vd|xvd|nvme|mmcblk|r?disk|dm-|md)`), "a redirect onto a disk device"},
	{regexp.MustCompile(`(^|[\s;&|(])(shutdown|reboot|halt|poweroff)(\s|$|[;&|)])|\b(init|telinit)\s+[06]\b|\bsystemctl\s+(poweroff|reboot|halt|kexec)`), "shutting down or restarting the computer"},
	{regexp.MustCompile(`\b(fdisk|sfdisk|parted|shred)\s[^;&|\n]*/dev/(sd|hd|vd|xvd|nvme|mmcblk|r?disk)`), "a command that overwrites a disk device"},
	{regexp.MustCompile(`\b(chmod|chown|chgrp)\s+([^;&|\n]*\s)?-[a-z]*r[a-z]*\s+([^;&|\n]*\s)?/(\s|$|[;&|)])`), "a recursive permission change of /"},
}

// checkText applies the deny list's text patterns to a script the parser
// could not read.
func (g *shellGuard) checkText(src string) {
	norm := strings.NewReplacer(`'`, "", `"`, "", `\`, "").Replace(strings.ToLower(src))
	for _, r := range textRules {
		if r.re.MatchString(norm) {
			g.deny("Refused: the command contains %s (it could not be parsed, so it was checked as text).%s", r.what, denyFooter)
			return
		}
	}
}
