package walk

import (
	"regexp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
)

// wrapperSpec describes how a wrapper command takes its options before the
// command it runs.
type wrapperSpec struct {
	shortArg   string   // short options taking a value: "u" for -u root / -uroot
	longArg    []string // long options taking the next word as their value
	assigns    bool     // NAME=value words may come before the command
	positional int      // operands before the command (timeout's duration)
	noCommand  string   // short options after which nothing is run (command -v)
	shell      bool     // the command stays in the shell (command, builtin, exec)
}

// wrappers are the commands that run the rest of their arguments as a
// command.
var wrappers = map[string]wrapperSpec{
	"nohup":            {},
	"doas":             {shortArg: "uC", noCommand: "sL"},
	"pkexec":           {longArg: []string{"--user"}},
	"time":             {shortArg: "fo", longArg: []string{"--format", "--output"}},
	"nice":             {shortArg: "n", longArg: []string{"--adjustment"}},
	"timeout":          {shortArg: "sk", longArg: []string{"--signal", "--kill-after"}, positional: 1},
	"exec":             {shortArg: "a", shell: true},
	"command":          {noCommand: "vV", shell: true},
	"builtin":          {shell: true},
	"stdbuf":           {shortArg: "ioe", longArg: []string{"--input", "--output", "--error"}},
	"ionice":           {shortArg: "cnu", longArg: []string{"--class", "--classdata", "--uid"}, noCommand: "pP"},
	"setsid":           {},
	"busybox":          {},
	"toybox":           {},
	"chroot":           {longArg: []string{"--userspec", "--groups"}, positional: 1},
	"taskset":          {shortArg: "", positional: 1, noCommand: "p"},
	"chrt":             {positional: 1, noCommand: "p"},
	"unbuffer":         {},
	"fakeroot":         {},
	"nocache":          {},
	"eatmydata":        {},
	"catchsegv":        {},
	"xvfb-run":         {shortArg: "nslfe", longArg: []string{"--server-num", "--server-args", "--xauth-protocol", "--auth-file", "--error-file"}},
	"dbus-run-session": {longArg: []string{"--config-file", "--dbus-daemon"}},
	"strace":           {shortArg: "oepsuEIabPX", longArg: []string{"--output", "--expr", "--user"}},
	"ltrace":           {shortArg: "oepsuEaAnlLx", longArg: []string{"--output"}},
	"valgrind":         {},
	"firejail":         {},
	"unshare":          {shortArg: "SGwR", longArg: []string{"--setuid", "--setgid", "--wd", "--root"}},
	"nsenter":          {shortArg: "tSGwr", longArg: []string{"--target", "--setuid", "--setgid", "--wd", "--root"}},
	"gosu":             {positional: 1},
	"su-exec":          {positional: 1},
	"setpriv":          {longArg: []string{"--reuid", "--regid", "--groups", "--inh-caps", "--bounding-set", "--securebits", "--selinux-label", "--apparmor-profile"}},
	"prlimit":          {shortArg: "p", longArg: []string{"--pid"}},
	"numactl":          {shortArg: "CNmpi", longArg: []string{"--cpunodebind", "--membind", "--preferred", "--interleave", "--physcpubind"}},
	"cpulimit":         {shortArg: "lpe", longArg: []string{"--limit", "--pid", "--exe"}},
	"faketime":         {shortArg: "m", positional: 1},
	"proxychains":      {shortArg: "f"},
	"proxychains4":     {shortArg: "f"},
	"torsocks":         {shortArg: "uapiP"},
	"tsocks":           {},
	"caffeinate":       {shortArg: "tw"},
	"sshpass":          {shortArg: "pfde"},
	"screen":           {shortArg: "SpXcehlst", noCommand: "lrRxQ"},
	"systemd-run":      {shortArg: "pEuMH", longArg: []string{"--unit", "--property", "--description", "--slice", "--setenv", "--uid", "--gid", "--nice", "--working-directory", "--machine", "--host", "--on-active", "--on-boot", "--on-startup", "--on-unit-active", "--on-unit-inactive", "--on-calendar", "--timer-property", "--path-property", "--socket-property", "--service-type"}},
	"entr":             {},
	"cgexec":           {shortArg: "g"},
	"bwrap":            {longArg: []string{"--args", "--userns", "--userns2", "--pidns", "--uid", "--gid", "--hostname", "--chdir", "--unsetenv", "--lock-file", "--sync-fd", "--remount-ro", "--exec-label", "--file-label", "--proc", "--dev", "--tmpfs", "--mqueue", "--dir", "--seccomp", "--add-seccomp-fd", "--block-fd", "--userns-block-fd", "--info-fd", "--json-status-fd", "--cap-add", "--cap-drop", "--perms", "--size", "--chmod", "--remount-ro"}},
}

// bwrapTwoValues are bwrap's options that take two values.
var bwrapTwoValues = []string{"--bind", "--bind-try", "--dev-bind", "--dev-bind-try", "--ro-bind", "--ro-bind-try", "--symlink", "--file", "--bind-data", "--ro-bind-data", "--setenv", "--chmod"}

// wrapper peels a command wrapper. It returns the command the wrapper runs,
// nil when it runs none, and false when base is not a wrapper.
func (g *Walker) wrapper(c *Call) (*Call, bool) {
	args := c.Args
	next := func(rest []Arg, env *State, shell bool) (*Call, bool) {
		if len(rest) == 0 {
			return nil, true
		}
		n := &Call{Env: env, Args: rest, Src: c.Src}
		if shell {
			n.Shell = c.Shell
		}
		return n, true
	}
	switch c.Base {
	case "env":
		return g.envWrapper(c)
	case "sudo":
		return g.sudoWrapper(c)
	case "su", "runuser", "sg":
		return g.suWrapper(c)
	case "xargs":
		g.xargs(c)
		return nil, true
	case "parallel":
		g.parallel(c)
		return nil, true
	case "watch":
		rest, exec := args[1:], false
		for len(rest) > 0 && strings.HasPrefix(rest[0].Val, "-") && !rest[0].Dynamic() {
			v := rest[0].Val
			exec = exec || v == "-x" || v == "--exec"
			if slices.Contains([]string{"-n", "--interval", "-q", "--equexit"}, v) {
				rest = rest[1:]
			}
			rest = rest[1:]
			if v == "--" {
				break
			}
		}
		if exec {
			return next(rest, c.Env, false)
		}
		g.Code(c.Env.Child(), JoinArgs(rest), "`watch`")
		return nil, true
	case "flock", "script":
		for i := 1; i < len(args); i++ {
			v := args[i].Val
			if (v == "-c" || v == "--command") && i+1 < len(args) {
				g.Code(c.Env.Child(), args[i+1].Val, "`"+c.Base+" -c`")
				return nil, true
			}
			if after, ok := strings.CutPrefix(v, "--command="); ok {
				g.Code(c.Env.Child(), after, "`"+c.Base+" -c`")
				return nil, true
			}
		}
		if c.Base == "script" {
			return nil, true
		}
		spec := wrapperSpec{shortArg: "wEc", longArg: []string{"--timeout", "--conflict-exit-code"}, positional: 1}
		rest, runs := skipWrapperOptions(args[1:], spec)
		if !runs {
			return nil, true
		}
		return next(rest, c.Env, false)
	case "ssh":
		g.ssh(c)
		return nil, true
	case "tmux":
		g.tmux(c)
		return nil, true
	case "at", "batch":
		for i := 1; i < len(args); i++ {
			if args[i].Val == "-f" && i+1 < len(args) {
				g.ScriptFile(c.Env.Child(), args[i+1], "`"+c.Base+"`", "sh")
				return nil, true
			}
		}
		if slices.ContainsFunc(args[1:], func(a Arg) bool { return a.Val == "-l" || a.Val == "-r" || a.Val == "-d" || a.Val == "-c" }) {
			return nil, true
		}
		text, ok := g.InputText(c.Env.Stdin)
		if !ok {
			g.Hold("The code `%s` schedules comes from %s cannot be checked before it runs.", c.Base, And(c.Env.Stdin.What()))
			return nil, true
		}
		g.Code(c.Env.Child(), text, "`"+c.Base+"`")
		return nil, true
	case "npx", "bunx", "pnpx":
		rest := args[1:]
		for len(rest) > 0 && strings.HasPrefix(rest[0].Val, "-") {
			v := rest[0].Val
			if (v == "-c" || v == "--call") && len(rest) > 1 {
				g.Code(c.Env.Child(), rest[1].Val, "`npx -c`")
				return nil, true
			}
			if v == "-p" || v == "--package" {
				rest = rest[1:]
			}
			rest = rest[1:]
		}
		return next(rest, c.Env, false)
	case "docker", "podman", "nerdctl":
		return g.container(c)
	case "perf", "rlwrap", "ssh-agent", "dbus-launch", "runcon", "chpst", "aws-vault", "op", "doppler", "dotenv", "with-contenv", "s6-setuidgid", "tini", "dumb-init", "catatonit":
		// Programs that run the command after their own options (perf
		// record, aws-vault exec profile --, op run --); gdb --args is in
		// the interpreter table, with gdb's own commands.
		rest := args[1:]
		if i := slices.IndexFunc(rest, func(a Arg) bool { return a.Val == "--" || a.Val == "--args" }); i >= 0 {
			return next(rest[i+1:], c.Env, false)
		}
		if c.Base == "perf" && len(rest) > 0 && (rest[0].Val == "record" || rest[0].Val == "stat" || rest[0].Val == "trace") {
			r, runs := skipWrapperOptions(rest[1:], wrapperSpec{shortArg: "eoFpctCGmr", longArg: []string{"--event", "--output", "--pid", "--tid", "--cpu"}})
			if !runs {
				return nil, true
			}
			return next(r, c.Env, false)
		}
		if c.Base == "perf" || c.Base == "op" || c.Base == "aws-vault" || c.Base == "doppler" {
			return nil, false
		}
		r, runs := skipWrapperOptions(rest, wrapperSpec{})
		if !runs {
			return nil, true
		}
		return next(r, c.Env, false)
	case "uv", "poetry", "pipenv", "bundle", "mise", "asdf", "conda", "direnv", "rye", "pdm", "hatch", "pixi", "devbox":
		// Project runners: uv run cmd, bundle exec cmd, direnv exec DIR cmd.
		rest := args[1:]
		for len(rest) > 0 && strings.HasPrefix(rest[0].Val, "-") {
			rest = rest[1:]
		}
		if len(rest) < 2 || !slices.Contains([]string{"run", "exec", "x"}, rest[0].Val) {
			return nil, false
		}
		rest = rest[1:]
		if c.Base == "direnv" && len(rest) > 1 {
			rest = rest[1:]
		}
		if i := slices.IndexFunc(rest, func(a Arg) bool { return a.Val == "--" }); i >= 0 {
			rest = rest[i+1:]
		} else {
			r, runs := skipWrapperOptions(rest, wrapperSpec{shortArg: "nepw", longArg: []string{"--with", "--python", "--name", "--prefix", "--env", "--project", "--directory"}})
			if !runs {
				return nil, true
			}
			rest = r
		}
		return next(rest, c.Env, false)
	case "hyperfine", "nodemon", "watchexec", "entr", "nix-shell", "nix", "sem", "time-cmd", "retry", "ts-node":
		return g.codeRunners(c)
	case "bwrap":
		rest := args[1:]
		for len(rest) > 0 && strings.HasPrefix(rest[0].Val, "--") {
			v := rest[0].Val
			rest = rest[1:]
			switch {
			case v == "--":
				return next(rest, c.Env, false)
			case slices.Contains(bwrapTwoValues, v):
				rest = rest[min(2, len(rest)):]
			case slices.Contains(wrappers["bwrap"].longArg, v):
				rest = rest[min(1, len(rest)):]
			}
		}
		return next(rest, c.Env, false)
	}
	spec, ok := wrappers[c.Base]
	if !ok {
		return nil, false
	}
	if c.Base == "exec" && len(args) == 1 {
		return nil, true
	}
	rest, runs := skipWrapperOptions(args[1:], spec)
	if !runs {
		return nil, true
	}
	if c.Base == "timeout" || c.Base == "nice" || c.Base == "nohup" || c.Base == "time" {
		g.CheckPaths(c.Env, args[1:len(args)-len(rest)])
	}
	return next(rest, c.Env, spec.shell)
}

// skipWrapperOptions drops a wrapper's options, assignments and operands; it
// reports false when an option means nothing is run.
func skipWrapperOptions(args []Arg, spec wrapperSpec) ([]Arg, bool) {
	i := 0
	for i < len(args) {
		v := args[i].Val
		if args[i].Dynamic() {
			break
		}
		if v == "--" {
			i++
			break
		}
		if spec.assigns && !strings.HasPrefix(v, "-") && IsAssignment(v) {
			i++
			continue
		}
		if len(v) < 2 || v[0] != '-' {
			break
		}
		if strings.HasPrefix(v, "--") {
			if !strings.Contains(v, "=") && slices.Contains(spec.longArg, v) {
				i++
			}
			i++
			continue
		}
		for j := 1; j < len(v); j++ {
			if strings.IndexByte(spec.noCommand, v[j]) >= 0 {
				return nil, false
			}
			if strings.IndexByte(spec.shortArg, v[j]) >= 0 {
				if j == len(v)-1 {
					i++ // the value is the next word
				}
				break
			}
		}
		i++
	}
	i += spec.positional
	if i >= len(args) {
		return nil, false
	}
	return args[i:], true
}

var assignmentPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// IsAssignment reports whether a word is a NAME=value assignment.
func IsAssignment(v string) bool { return assignmentPattern.MatchString(v) }

// envWrapper follows env: assignments, -i, -u, --chdir and -S.
func (g *Walker) envWrapper(c *Call) (*Call, bool) {
	env := c.Env.Clone()
	args := c.Args[1:]
	for len(args) > 0 {
		a := args[0]
		v := a.Val
		if a.Dynamic() {
			break
		}
		switch {
		case v == "--":
			args = args[1:]
			goto done
		case v == "-i" || v == "--ignore-environment" || v == "-":
			env.vars = map[string]expand.Variable{}
			env.inherit = false
		case v == "-u" || v == "--unset":
			if len(args) > 1 {
				env.vars[args[1].Val] = expand.Variable{}
				args = args[1:]
			}
		case strings.HasPrefix(v, "--unset="):
			env.vars[strings.TrimPrefix(v, "--unset=")] = expand.Variable{}
		case strings.HasPrefix(v, "-u") && len(v) > 2 && !strings.HasPrefix(v, "--"):
			env.vars[v[2:]] = expand.Variable{}
		case v == "-C" || v == "--chdir":
			if len(args) > 1 {
				env = g.InDir(env, args[1])
				args = args[1:]
			}
		case strings.HasPrefix(v, "--chdir="):
			env = g.InDir(env, Known(strings.TrimPrefix(v, "--chdir=")))
		case strings.HasPrefix(v, "-C") && len(v) > 2 && !strings.HasPrefix(v, "--"):
			env = g.InDir(env, Known(v[2:]))
		case v == "-S" || v == "--split-string" || strings.HasPrefix(v, "--split-string=") || (strings.HasPrefix(v, "-S") && !strings.HasPrefix(v, "--")) || (strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.Contains(v, "S")):
			s := ""
			switch {
			case v == "-S" || v == "--split-string" || strings.HasSuffix(v, "S"):
				if len(args) < 2 {
					return nil, true
				}
				s = args[1].Val
				if args[1].Dynamic() {
					g.Hold("The command `env -S` runs comes from %s cannot be checked before it runs.", And(g.ArgSource(args[1]).Text()))
				}
				args = args[1:]
			case strings.HasPrefix(v, "--split-string="):
				s = strings.TrimPrefix(v, "--split-string=")
			default:
				s = v[strings.IndexByte(v, 'S')+1:]
			}
			// env -S splits its string much as the shell splits words.
			g.Code(env, s+" "+QuoteArgs(args[1:]), "`env -S`")
			return nil, true
		case strings.HasPrefix(v, "-") && len(v) > 1:
			if v == "-a" || v == "--argv0" || v == "-P" {
				args = args[1:]
			}
		case strings.Contains(v, "=") && !strings.HasPrefix(v, "="):
			// env takes any NAME=value, even names the shell would not.
			name, val, _ := strings.Cut(v, "=")
			env.vars[name] = expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: val}
			g.envRisk(name, val)
			g.specialVar(env, name, env.vars[name])
		default:
			goto done
		}
		args = args[1:]
	}
done:
	if len(args) == 0 {
		return nil, true
	}
	return &Call{Env: env, Args: args, Src: c.Src}, true
}

// sudoWrapper follows sudo: its options, the user it runs as and -s/-i.
func (g *Walker) sudoWrapper(c *Call) (*Call, bool) {
	env := c.Env.Clone()
	target := "root"
	args := c.Args[1:]
	shell := false
	for len(args) > 0 {
		a := args[0]
		v := a.Val
		if a.Dynamic() {
			break
		}
		if v == "--" {
			args = args[1:]
			break
		}
		if !strings.HasPrefix(v, "-") || len(v) < 2 {
			if IsAssignment(v) {
				name, val, _ := strings.Cut(v, "=")
				env.vars[name] = expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: val}
				g.envRisk(name, val)
				args = args[1:]
				continue
			}
			break
		}
		takes := func() string {
			if len(args) > 1 {
				args = args[1:]
				return args[0].Val
			}
			return ""
		}
		switch {
		case v == "-u" || v == "--user":
			target = takes()
		case strings.HasPrefix(v, "--user="):
			target = strings.TrimPrefix(v, "--user=")
		case v == "-D" || v == "--chdir":
			if len(args) > 1 {
				env = g.InDir(env, args[1])
				args = args[1:]
			}
		case strings.HasPrefix(v, "--chdir="):
			env = g.InDir(env, Known(strings.TrimPrefix(v, "--chdir=")))
		case slices.Contains([]string{"-g", "--group", "-p", "--prompt", "-C", "--close-from", "-h", "--host", "-r", "--role", "-t", "--type", "-T", "--command-timeout", "-U", "--other-user", "-R", "--chroot"}, v):
			takes()
		case strings.HasPrefix(v, "--"):
			if v == "--shell" || v == "--login" {
				shell = true
			}
			if v == "--edit" || v == "--list" || v == "--validate" || v == "--remove-timestamp" || v == "--reset-timestamp" || v == "--version" || v == "--help" {
				return nil, true
			}
		default:
			for j := 1; j < len(v); j++ {
				switch v[j] {
				case 's', 'i':
					shell = true
				case 'e', 'l', 'v', 'k', 'K', 'V':
					if v[j] == 'k' && len(args) > 1 {
						continue
					}
					return nil, true
				case 'u', 'g', 'p', 'C', 'h', 'r', 't', 'T', 'U', 'R', 'D':
					if j == len(v)-1 {
						val := takes()
						if v[j] == 'u' {
							target = val
						}
					} else if v[j] == 'u' {
						target = v[j+1:]
					}
					j = len(v)
				}
			}
		}
		args = args[1:]
	}
	env = withHome(env, homeOf(target))
	if shell {
		if len(args) > 0 {
			g.Code(env.Child(), JoinArgs(args), "`sudo -s`")
		}
		return nil, true
	}
	if len(args) == 0 {
		return nil, true
	}
	return &Call{Env: env, Args: args, Src: c.Src}, true
}

// suWrapper follows su, runuser and sg: -c code, or runuser -u user cmd.
func (g *Walker) suWrapper(c *Call) (*Call, bool) {
	args := c.Args[1:]
	target := "root"
	var ops []Arg
	for i := 0; i < len(args); i++ {
		v := args[i].Val
		switch {
		case (v == "-c" || v == "--command" || v == "--session-command") && i+1 < len(args):
			g.Code(withHome(c.Env, homeOf(target)).Child(), args[i+1].Val, "`"+c.Base+" -c`")
			return nil, true
		case strings.HasPrefix(v, "--command=") || strings.HasPrefix(v, "--session-command="):
			_, code, _ := strings.Cut(v, "=")
			g.Code(withHome(c.Env, homeOf(target)).Child(), code, "`"+c.Base+" -c`")
			return nil, true
		case c.Base == "runuser" && (v == "-u" || v == "--user") && i+1 < len(args):
			target = args[i+1].Val
			rest := args[i+2:]
			if len(rest) > 0 && rest[0].Val == "--" {
				rest = rest[1:]
			}
			if len(rest) == 0 {
				return nil, true
			}
			return &Call{Env: withHome(c.Env, homeOf(target)), Args: rest, Src: c.Src}, true
		case v == "-s" || v == "--shell" || v == "-g" || v == "--group" || v == "-G" || v == "--supp-group" || v == "-w" || v == "--whitelist-environment":
			i++
		case v == "--":
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(v, "-") && v != "-":
		default:
			ops = append(ops, args[i])
		}
	}
	if c.Base == "sg" && len(ops) > 1 {
		// sg group command…: the command is run by /bin/sh -c.
		g.Code(c.Env.Child(), JoinArgs(ops[1:]), "`sg`")
		return nil, true
	}
	if len(ops) > 0 && ops[0].Val != "-" {
		target = ops[0].Val
	}
	if len(ops) > 1 && c.Base != "sg" {
		// Arguments after the user go to the user's shell (su user -c …
		// was handled above; su user script.sh runs the script).
		g.shell(&Call{Env: withHome(c.Env, homeOf(target)), Args: append([]Arg{Known("sh")}, ops[1:]...), Base: "sh", Src: c.Src})
	}
	return nil, true
}
