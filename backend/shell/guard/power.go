package guard

import (
	"regexp"
	"slices"
	"strings"
	"tinyelf/backend/shell/guard/walk"
)

// This file holds the deny list for power and the session: every command
// that shuts down, restarts or suspends the computer, or ends the user's
// session, whether through its own program, systemctl, init, the kernel's
// power files or D-Bus.

// systemctlValueOpts are systemctl's options that take the next word as
// their value.
var systemctlValueOpts = []string{
	"-t", "--type", "-s", "--signal", "-p", "--property", "-P", "-H", "--host", "-M", "--machine", "-n", "--lines",
	"-o", "--output", "--state", "--kill-whom", "--kill-value", "--root", "--image", "--image-policy", "--job-mode",
	"--what", "--when", "--message", "--boot-loader-entry", "--boot-loader-menu", "--reboot-argument", "--timestamp",
	"--preset-mode", "--drop-in", "--check-inhibitors",
}

// powerVerbs are systemctl's commands that take the machine (or, with
// --user, the session's service manager) out of its running state.
var powerVerbs = []string{"poweroff", "reboot", "halt", "kexec", "soft-reboot", "emergency", "rescue", "suspend", "hibernate", "hybrid-sleep", "suspend-then-hibernate", "sleep", "exit"}

// powerTargets are the units that, started or isolated, do the same.
var powerTargets = []string{"poweroff", "reboot", "halt", "kexec", "soft-reboot", "rescue", "emergency", "shutdown", "suspend", "hibernate", "hybrid-sleep", "suspend-then-hibernate", "sleep", "exit", "runlevel0", "runlevel1", "runlevel6"}

// sessionUnits are units whose processes are the user's whole session or
// PID 1 itself.
var sessionUnits = regexp.MustCompile(`^(init\.scope|-\.slice|user\.slice|user-\d+\.slice|user@\d+\.service|session-\w+\.scope|display-manager\.service)$`)

// systemctlPower judges a systemctl command line, whose verb is the first
// word that is not an option: ok reports a power-state change (what names
// it), session a command that kills the user's session or PID 1.
func systemctlPower(args []walk.Arg) (what string, ok bool) {
	what, ok, _ = systemctlVerb(args)
	return what, ok
}

// systemctlVerb reads a systemctl command line; see systemctlPower.
func systemctlVerb(args []walk.Arg) (what string, power, session bool) {
	var ops []string
	for i := 0; i < len(args); i++ {
		v := args[i].Val
		switch {
		case v == "-h" || v == "--help" || v == "--version" || v == "--dry-run":
			return "", false, false
		case slices.Contains(systemctlValueOpts, v):
			i++
		case strings.HasPrefix(v, "-"):
		default:
			ops = append(ops, v)
		}
	}
	if len(ops) == 0 {
		return "", false, false
	}
	unit := func(u string) string { return strings.TrimSuffix(u, ".target") }
	switch verb := ops[0]; {
	case slices.Contains(powerVerbs, verb):
		return verb, true, false
	case verb == "isolate":
		// Isolating any target but the graphical one stops the desktop.
		if len(ops) > 1 && !slices.Contains([]string{"graphical", "default", "runlevel5"}, unit(ops[1])) {
			return unit(ops[1]), true, false
		}
	case verb == "start" || verb == "restart" || verb == "reload-or-restart" || verb == "try-restart":
		for _, u := range ops[1:] {
			if slices.Contains(powerTargets, unit(u)) {
				return unit(u), true, false
			}
		}
	case verb == "kill" || verb == "stop" || verb == "freeze":
		return "", false, slices.ContainsFunc(ops[1:], sessionUnits.MatchString)
	}
	return "", false, false
}

// dbusPowerMethods are the D-Bus methods (logind, systemd, ConsoleKit,
// UPower, GNOME, KDE, Xfce session managers) that shut down, restart,
// suspend or log out, lower-cased.
var dbusPowerMethods = []string{
	"poweroff", "reboot", "halt", "kexec", "softreboot", "suspend", "hibernate", "hybridsleep", "suspendthenhibernate", "sleep",
	"poweroffwithflags", "rebootwithflags", "haltwithflags", "kexecwithflags", "suspendwithflags", "hibernatewithflags",
	"hybridsleepwithflags", "suspendthenhibernatewithflags", "sleepwithflags", "scheduleshutdown", "shutdown", "logout",
	"requestshutdown", "requestreboot", "logoutandshutdown", "logoutandreboot", "logoutandhalt",
}

// dbusSessionMethods end every process of a user or session.
var dbusSessionMethods = []string{"killuser", "terminateuser", "killsession", "terminatesession", "terminateseat"}

// dbusStartMethods start or isolate a unit (power targets among them).
var dbusStartMethods = []string{"startunit", "startunitreplace", "startunitwithflags", "restartunit"}

// dbusMethod returns the method a D-Bus command line calls, lower-cased
// without its interface, and the arguments after it.
func dbusMethod(base string, args []walk.Arg) (string, []string) {
	var ops []string
	method := ""
	for i := 0; i < len(args); i++ {
		v := args[i].Val
		switch {
		case (v == "--method" || v == "-m") && i+1 < len(args):
			method = args[i+1].Val
			i++
		case strings.HasPrefix(v, "--method="):
			method = strings.TrimPrefix(v, "--method=")
		case (v == "--dest" || v == "-d" || v == "--object-path" || v == "-o" || v == "--timeout" || v == "-t" || v == "--address" || v == "--bus" || v == "--type" || v == "-H" || v == "--host" || v == "-M" || v == "--machine") && base != "dbus-send":
			i++
		case strings.HasPrefix(v, "-"):
		default:
			ops = append(ops, v)
		}
	}
	switch base {
	case "dbus-send":
		// dbus-send [options] OBJECT_PATH INTERFACE.MEMBER [type:value…]
		if len(ops) > 1 {
			method, ops = ops[1], ops[2:]
		}
	case "busctl":
		// busctl [options] call SERVICE OBJECT INTERFACE METHOD [SIGNATURE [ARG…]]
		if len(ops) > 4 && ops[0] == "call" {
			method, ops = ops[4], ops[5:]
		} else {
			return "", nil
		}
	case "qdbus", "qdbus-qt5", "qdbus6", "qdbus-qt6":
		// qdbus SERVICE PATH METHOD [ARG…]
		if len(ops) > 2 {
			method, ops = ops[2], ops[3:]
		} else {
			return "", nil
		}
	case "gdbus":
		if len(ops) > 0 && ops[0] != "call" {
			return "", nil
		}
	}
	if i := strings.LastIndexByte(method, '.'); i >= 0 {
		if strings.Contains(strings.ToLower(method[:i]), "consolekit") && (method[i+1:] == "Stop" || method[i+1:] == "Restart") {
			return "poweroff", ops
		}
		method = method[i+1:]
	}
	return strings.ToLower(method), ops
}

// Power-state changes, as refusals name them (suspending is
// walk.PowerSuspend: a write to /sys/power/state is refused with it too).
const (
	powerOff    = "shut down or restart the computer"
	powerLogout = "end the desktop session and every program in it"
)

// suspendWords are the power changes that suspend rather than shut down.
var suspendWords = []string{"suspend", "hibernate", "hybrid-sleep", "suspend-then-hibernate", "sleep", "hybridsleep", "suspendthenhibernate", "suspendwithflags", "hibernatewithflags", "hybridsleepwithflags", "suspendthenhibernatewithflags", "sleepwithflags", "sleepnow", "pm-suspend", "pm-hibernate", "pm-suspend-hybrid", "zzz", "s2ram", "s2disk", "s2both", "systemd-sleep"}

// power says what a command does to the machine's power state ("" when it
// leaves it alone): shut it down or restart it, suspend it, or end the
// session.
func power(c *walk.Call) string {
	args := c.Args[1:]
	helps := func(extra ...string) bool {
		return slices.ContainsFunc(args, func(a walk.Arg) bool { return a.Val == "--help" || slices.Contains(extra, a.Val) })
	}
	kind := func(word string) string {
		switch w := strings.ToLower(word); {
		case slices.Contains(suspendWords, w):
			return walk.PowerSuspend
		case strings.Contains(w, "logout") || w == "exit" || w == "multi-user" || w == "2" || w == "3" || w == "4" || strings.HasPrefix(w, "runlevel") && w != "runlevel0" && w != "runlevel6" && w != "runlevel1":
			return powerLogout
		}
		return powerOff
	}
	switch c.Base {
	case "shutdown":
		// -c cancels, -k only writes the warning, /a aborts (Windows).
		if !helps("-c", "--show", "-k", "/a", "/?", "--dry-run") {
			return powerOff
		}
	case "reboot", "halt", "poweroff", "uadmin", "systemd-shutdown", "x-session-manager-quit", "pm-suspend", "pm-hibernate", "pm-suspend-hybrid", "zzz", "s2ram", "s2disk", "s2both", "systemd-sleep":
		// -w (--wtmp-only) only writes the wtmp record.
		if !helps("-w", "--wtmp-only", "--dry-run") {
			return kind(c.Base)
		}
	case "kexec":
		if walk.HasFlag(args, "e", "--exec") || walk.HasFlag(args, "f", "--force") {
			return powerOff
		}
	case "init", "telinit":
		// Every runlevel but 5 (graphical) stops the desktop; q and u
		// only reload init's configuration.
		if len(args) > 0 && slices.Contains([]string{"0", "1", "2", "3", "4", "6", "s", "S", "single", "emergency", "rescue", "halt", "poweroff", "reboot"}, args[0].Val) {
			return kind(args[0].Val)
		}
	case "systemctl":
		if verb, ok := systemctlPower(args); ok {
			return kind(verb)
		}
	case "gnome-session-quit", "xfce4-session-logout", "lxqt-leave", "cinnamon-session-quit", "mate-session-save":
		for _, a := range args {
			for _, w := range []string{"power-off", "poweroff", "reboot", "halt", "shutdown", "suspend", "hibernate", "logout"} {
				if strings.Contains(a.Val, w) {
					return kind(w)
				}
			}
		}
	case "pmset":
		if slices.ContainsFunc(args, func(a walk.Arg) bool { return a.Val == "sleepnow" }) {
			return walk.PowerSuspend
		}
	case "rundll32":
		if slices.ContainsFunc(args, func(a walk.Arg) bool { return strings.Contains(strings.ToLower(a.Val), "setsuspendstate") }) {
			return walk.PowerSuspend
		}
	case "dbus-send", "busctl", "gdbus", "qdbus", "qdbus-qt5", "qdbus6", "qdbus-qt6":
		method, rest := dbusMethod(c.Base, args)
		if slices.Contains(dbusPowerMethods, method) {
			return kind(method)
		}
		if slices.Contains(dbusStartMethods, method) {
			for _, v := range rest {
				v = strings.TrimSuffix(strings.Trim(strings.TrimPrefix(v, "string:"), `"'`), ".target")
				if slices.Contains(powerTargets, v) {
					return kind(v)
				}
			}
		}
	}
	return ""
}

// endsSession reports whether a command kills every process of the user's
// session (loginctl terminate-user, systemctl kill user@1000.service, the
// same over D-Bus).
func endsSession(c *walk.Call) bool {
	args := c.Args[1:]
	switch c.Base {
	case "loginctl":
		return slices.ContainsFunc(args, func(a walk.Arg) bool {
			return slices.Contains([]string{"terminate-user", "kill-user", "terminate-session", "kill-session", "terminate-seat"}, a.Val)
		})
	case "systemctl":
		_, _, s := systemctlVerb(args)
		return s
	case "dbus-send", "busctl", "gdbus", "qdbus", "qdbus-qt5", "qdbus6", "qdbus-qt6":
		method, _ := dbusMethod(c.Base, args)
		return slices.Contains(dbusSessionMethods, method)
	}
	return false
}
