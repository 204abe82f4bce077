package guard

import (
	"os/user"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"tinyelf/backend/shell/guard/walk"
)

// This file holds the deny list for processes: signals to PID 1 (init), to
// -1 (every process) or to every process of a user (power-state changes are
// in power.go). They are refused in every mode, whatever the
// spelling, because no approval makes them safe for the user's machine.

// pid1Names are the names PID 1 runs under; pkill and killall reach it by
// name (and, as the user, the user's own service manager, `systemd --user`,
// which holds the whole session).
var pid1Names = []string{"systemd", "init", "launchd"}

// killTarget is what one operand of kill signals.
type killTarget int

const (
	targetOne      killTarget = iota // one process, a process group or a job
	targetInit                       // PID 1
	targetEvery                      // -1: every process the user may signal
	targetUnknown                    // a value the guard cannot know
	targetInitName                   // init or systemd by name (util-linux kill)
)

// classifyKillTarget reads one process operand of kill as the kill builtin
// and the kill programs do: a decimal number with an optional sign (bash
// and procps accept +1 and 01), a job (%1, %%), or a process name.
func classifyKillTarget(a walk.Arg) killTarget {
	if a.Dynamic() {
		return targetUnknown
	}
	v := strings.TrimSpace(a.Val)
	if strings.HasPrefix(v, "%") {
		return targetOne
	}
	n, err := strconv.ParseInt(v, 10, 64)
	switch {
	case err == nil && n == 1:
		return targetInit
	case err == nil && n == -1:
		return targetEvery
	case err == nil:
		// 0 is the command's own process group; -N the process group N.
		return targetOne
	case slices.Contains(pid1Names, strings.ToLower(v)):
		return targetInitName
	}
	return targetOne
}

// signalZero reports whether a signal spec means signal 0, which only
// checks that the process exists and sends nothing.
func signalZero(spec string) bool {
	s := strings.ToUpper(strings.TrimPrefix(spec, "-"))
	s = strings.TrimPrefix(s, "SIG")
	if n, err := strconv.Atoi(s); err == nil {
		return n == 0
	}
	return s == "EXIT" || s == "NULL"
}

// killSignal is the signal a kill command sends.
type killSignal struct {
	zero    bool     // signal 0: nothing is sent
	unknown bool     // the signal comes from a value the guard cannot know
	arg     walk.Arg // the unknown value
}

// readSignal judges a signal spec given as a separate word or attached
// (-9, -KILL, -SIGKILL, -s KILL, -n 9, --signal=KILL).
func readSignal(a walk.Arg, spec string) killSignal {
	if a.Dynamic() {
		return killSignal{unknown: true, arg: a}
	}
	return killSignal{zero: signalZero(spec)}
}

// kill judges the kill builtin and the kill programs (procps and
// util-linux): their signal and each process operand.
func (g *checker) kill(c *walk.Call) {
	args := c.Args[1:]
	sig := killSignal{}
	sigGiven, optsDone, printOnly := false, false, false
	var targets []walk.Arg
	for i := 0; i < len(args); i++ {
		a := args[i]
		v := a.Val
		if optsDone || !strings.HasPrefix(v, "-") || v == "-" {
			targets = append(targets, a)
			continue
		}
		next := func() walk.Arg {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return walk.Known("")
		}
		switch {
		case v == "--":
			optsDone = true
		case v == "-l" || v == "-L" || v == "--list" || v == "--table" || strings.HasPrefix(v, "--list="):
			return // lists signal names
		case v == "-s" || v == "-n" || v == "--signal":
			s := next()
			sig, sigGiven = readSignal(s, s.Val), true
		case strings.HasPrefix(v, "--signal="):
			sig, sigGiven = readSignal(a, strings.TrimPrefix(v, "--signal=")), true
		case v == "-q" || v == "--queue":
			next()
		case v == "--timeout":
			next() // milliseconds
			next() // the follow-up signal, sent to the same processes
		case v == "-p" || v == "--pid":
			printOnly = true
		case v == "-a" || v == "--all" || v == "--verbose" || v == "-r" || v == "--require-handler":
		case sigGiven:
			// After the signal, a leading dash is a process group (or -1).
			targets = append(targets, a)
		default:
			sig, sigGiven = readSignal(a, v[1:]), true
		}
	}
	if printOnly || sig.zero {
		return
	}
	for _, t := range targets {
		switch kind := classifyKillTarget(t); kind {
		case targetInit, targetInitName:
			if sig.unknown {
				g.Hold("The signal %s sends to PID 1 (init) comes from %s cannot be checked before it runs (any signal but 0 may bring the system down).", c.Text(), walk.And(g.ArgSource(sig.arg).Text()))
				continue
			}
			if kind == targetInitName {
				g.denyInitName(c)
			} else {
				g.denyInit(c)
			}
			return
		case targetEvery:
			if sig.unknown {
				g.Hold("The signal %s sends to every process (-1) comes from %s cannot be checked before it runs.", c.Text(), walk.And(g.ArgSource(sig.arg).Text()))
				continue
			}
			g.denyEvery(c)
			return
		case targetUnknown:
			g.Hold("The processes `kill` signals come from %s cannot be checked before it runs (if it is 1 or -1, init or every process is killed).", walk.And(g.ArgSource(t).Text()))
		}
	}
}

// denyEvery refuses a command that signals every process of the user.
func (g *checker) denyEvery(c *walk.Call) {
	g.Deny("Refused: %s would kill every process of the user, including the desktop session.", c.Text())
}

// denyInit refuses a command that signals PID 1.
func (g *checker) denyInit(c *walk.Call) {
	g.Deny("Refused: %s would signal PID 1 (init, the first process of the system), which brings the whole system down.", c.Text())
}

// denyInitName refuses a command that signals init by its name, which as
// the user reaches the user's own service manager (systemd --user).
func (g *checker) denyInitName(c *walk.Call) {
	g.Deny("Refused: %s would signal init (PID 1) or the user's service manager by name, which brings the whole system or session down.", c.Text())
}

// killValueOpts are, for each program, the options that take a value (as
// the next word, or after "=" for the long ones).
var killValueOpts = map[string][]string{
	"pkill": {"-q", "--queue", "-g", "--pgroup", "-G", "--group", "-O", "--older", "-P", "--parent", "-s", "--session",
		"-t", "--terminal", "-u", "--euid", "-U", "--uid", "-F", "--pidfile", "-r", "--runstates", "--cgroup", "--ns",
		"--nslist", "--signal", "-d", "--delimiter", "--env"},
	"killall": {"-s", "--signal", "-u", "--user", "-o", "--older-than", "-y", "--younger-than", "-n", "--ns", "-Z", "--context"},
	"skill":   {"-c", "--command", "-p", "--pid", "-t", "--tty", "-u", "--user"},
}

// killByName judges pkill, killall, skill and slay: the processes they
// select, by user, group, parent, session or a pattern.
func (g *checker) killByName(c *walk.Call) {
	args := c.Args[1:]
	base := c.Base
	inverse, exact, full, regex, fold, everyone := false, false, false, base == "pkill", false, false
	sig := killSignal{}
	var patterns []walk.Arg
	for i := 0; i < len(args); i++ {
		a := args[i]
		v := a.Val
		if !isFlagArg(a) {
			patterns = append(patterns, a)
			continue
		}
		if v == "--" {
			patterns = append(patterns, args[i+1:]...)
			break
		}
		name, attached, hasValue := strings.Cut(v, "=")
		if !strings.HasPrefix(v, "--") {
			name, hasValue = v, false
		}
		if slices.Contains(killValueOpts[base], name) {
			val := walk.Arg{Val: attached, Raw: a.RawText()}
			if !hasValue {
				val = walk.Known("")
				if i+1 < len(args) {
					i++
					val = args[i]
				}
			}
			switch {
			case name == "--signal" || base == "killall" && name == "-s":
				sig = readSignal(val, val.Val)
			case name == "-u" || name == "-U" || name == "--euid" || name == "--uid" || name == "--user" || base == "pkill" && (name == "-G" || name == "--group"):
				everyone = true
			case name == "-P" || name == "--parent":
				everyone = everyone || classifyKillTarget(val) == targetInit
			case base == "pkill" && (name == "-s" || name == "--session"):
				// Session 0 is the caller's: TinyElf's own, with the desktop.
				everyone = everyone || !val.Dynamic() && strings.TrimSpace(val.Val) == "0"
			case base == "skill" && (name == "-p" || name == "--pid"):
				if t := classifyKillTarget(val); t == targetInit {
					g.denyInit(c)
					return
				}
			case base == "skill" && (name == "-c" || name == "--command"):
				patterns = append(patterns, val)
			}
			continue
		}
		switch {
		case name == "--inverse" || base != "killall" && v == "-v":
			inverse = true
		case name == "--exact" || v == "-x" || base == "killall" && v == "-e":
			exact = true
		case name == "--full" || base == "pkill" && v == "-f":
			full = true
		case name == "--regexp" || base == "killall" && v == "-r":
			regex = true
		case name == "--ignore-case" || base == "pkill" && v == "-i" || base == "killall" && v == "-I":
			fold = true
		case strings.HasPrefix(v, "--"):
		case isNumber(v[1:]) || strings.ToUpper(v[1:]) == v[1:]:
			sig = readSignal(a, v[1:]) // -9, -KILL, -SIGKILL
		case base == "pkill" && len(v) <= 4 && strings.Contains(v, "v"):
			inverse = true // a cluster such as -fv
		}
	}
	if sig.zero {
		return
	}
	switch base {
	case "slay":
		// slay kills every process of each user it is given.
		if len(patterns) > 0 {
			g.denyEvery(c)
		}
		return
	case "skill":
		for _, p := range patterns {
			switch {
			case p.Dynamic():
				g.Hold("The processes `%s` kills come from %s cannot be checked before it runs.", base, walk.And(g.ArgSource(p).Text()))
			case classifyKillTarget(p) == targetInit:
				g.denyInit(c)
				return
			case classifyKillTarget(p) == targetInitName:
				g.denyInitName(c)
				return
			case isUserName(p.Val, g.User):
				g.denyEvery(c) // skill guesses what a bare word is: a user's name selects all of theirs
				return
			}
		}
		if len(patterns) == 0 && everyone {
			g.denyEvery(c)
		}
		return
	}
	if inverse && base == "pkill" {
		g.Deny("Refused: %s kills every process that does not match its pattern, which is nearly everything.", c.Text())
		return
	}
	if len(patterns) == 0 && everyone {
		g.denyEvery(c)
		return
	}
	for _, p := range patterns {
		if p.Dynamic() {
			g.Hold("The processes `%s` kills come from %s cannot be checked before it runs.", base, walk.And(g.ArgSource(p).Text()))
			continue
		}
		pat := p.Val
		switch {
		case !regex:
			pat = "^" + regexp.QuoteMeta(pat) + "$" // killall names a program exactly
		case exact:
			pat = "^(?:" + pat + ")$"
		}
		if fold {
			pat = "(?i)" + pat
		}
		if matchesEverything(pat) {
			g.denyEvery(c)
			return
		}
		if matchesInit(pat, full) {
			g.denyInitName(c)
			return
		}
	}
}

// isNumber reports whether s is a decimal number.
func isNumber(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

// isUserName reports whether s names a user account.
func isUserName(s, me string) bool {
	if s == me || s == "root" {
		return true
	}
	_, err := user.Lookup(s)
	return err == nil
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

// matchesInit reports whether a process pattern selects PID 1 by its name
// or, with full, by its command line.
func matchesInit(pat string, full bool) bool {
	re, err := regexp.Compile(pat)
	if err != nil {
		return false
	}
	names := pid1Names
	if full {
		names = append(slices.Clone(names), "/sbin/init", "/lib/systemd/systemd", "/usr/lib/systemd/systemd --user", "/sbin/launchd")
	}
	return slices.ContainsFunc(names, re.MatchString)
}

// isKiller reports whether base signals processes.
func isKiller(base string) bool {
	switch base {
	case "kill", "pkill", "killall", "killall5", "skill", "slay", "pgrep":
		return true
	}
	return false
}

// checkKill refuses signalling PID 1, every process or every process of a
// user, and holds kill whose targets cannot be known.
func (g *checker) checkKill(c *walk.Call) {
	switch c.Base {
	case "killall5":
		g.denyEvery(c)
	case "kill":
		g.kill(c)
	case "pkill", "killall", "skill", "slay":
		g.killByName(c)
	}
}
