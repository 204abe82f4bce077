package tools

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
func (g *shellGuard) wrapper(c *shCall) (*shCall, bool) {
	args := c.args
	next := func(rest []shArg, env *shState, shell bool) (*shCall, bool) {
		if len(rest) == 0 {
			return nil, true
		}
		n := &shCall{env: env, args: rest, src: c.src}
		if shell {
			n.st = c.st
		}
		return n, true
	}
	switch c.base {
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
		for len(rest) > 0 && strings.HasPrefix(rest[0].val, "-") && !rest[0].dynamic() {
			v := rest[0].val
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
			return next(rest, c.env, false)
		}
		g.code(c.env.child(), joinArgs(rest), "`watch`")
		return nil, true
	case "flock", "script":
		for i := 1; i < len(args); i++ {
			v := args[i].val
			if (v == "-c" || v == "--command") && i+1 < len(args) {
				g.code(c.env.child(), args[i+1].val, "`"+c.base+" -c`")
				return nil, true
			}
			if after, ok := strings.CutPrefix(v, "--command="); ok {
				g.code(c.env.child(), after, "`"+c.base+" -c`")
				return nil, true
			}
		}
		if c.base == "script" {
			return nil, true
		}
		spec := wrapperSpec{shortArg: "wEc", longArg: []string{"--timeout", "--conflict-exit-code"}, positional: 1}
		rest, runs := skipWrapperOptions(args[1:], spec)
		if !runs {
			return nil, true
		}
		return next(rest, c.env, false)
	case "ssh":
		g.ssh(c)
		return nil, true
	case "tmux":
		g.tmux(c)
		return nil, true
	case "at", "batch":
		for i := 1; i < len(args); i++ {
			if args[i].val == "-f" && i+1 < len(args) {
				g.scriptFile(c.env.child(), args[i+1], "`"+c.base+"`", "sh")
				return nil, true
			}
		}
		if slices.ContainsFunc(args[1:], func(a shArg) bool { return a.val == "-l" || a.val == "-r" || a.val == "-d" || a.val == "-c" }) {
			return nil, true
		}
		text, ok := g.inputText(c.env.stdin)
		if !ok {
			g.hold("The code `%s` schedules comes from %s cannot be checked before it runs.", c.base, and(c.env.stdin.what()))
			return nil, true
		}
		g.code(c.env.child(), text, "`"+c.base+"`")
		return nil, true
	case "npx", "bunx", "pnpx":
		rest := args[1:]
		for len(rest) > 0 && strings.HasPrefix(rest[0].val, "-") {
			v := rest[0].val
			if (v == "-c" || v == "--call") && len(rest) > 1 {
				g.code(c.env.child(), rest[1].val, "`npx -c`")
				return nil, true
			}
			if v == "-p" || v == "--package" {
				rest = rest[1:]
			}
			rest = rest[1:]
		}
		return next(rest, c.env, false)
	case "docker", "podman", "nerdctl":
		return g.container(c)
	case "perf", "rlwrap", "ssh-agent", "dbus-launch", "runcon", "chpst", "aws-vault", "op", "doppler", "dotenv", "with-contenv", "s6-setuidgid", "tini", "dumb-init", "catatonit":
		// Programs that run the command after their own options (perf
		// record, aws-vault exec profile --, op run --); gdb --args is in
		// the interpreter table, with gdb's own commands.
		rest := args[1:]
		if i := slices.IndexFunc(rest, func(a shArg) bool { return a.val == "--" || a.val == "--args" }); i >= 0 {
			return next(rest[i+1:], c.env, false)
		}
		if c.base == "perf" && len(rest) > 0 && (rest[0].val == "record" || rest[0].val == "stat" || rest[0].val == "trace") {
			r, runs := skipWrapperOptions(rest[1:], wrapperSpec{shortArg: "eoFpctCGmr", longArg: []string{"--event", "--output", "--pid", "--tid", "--cpu"}})
			if !runs {
				return nil, true
			}
			return next(r, c.env, false)
		}
		if c.base == "perf" || c.base == "op" || c.base == "aws-vault" || c.base == "doppler" {
			return nil, false
		}
		r, runs := skipWrapperOptions(rest, wrapperSpec{})
		if !runs {
			return nil, true
		}
		return next(r, c.env, false)
	case "uv", "poetry", "pipenv", "bundle", "mise", "asdf", "conda", "direnv", "rye", "pdm", "hatch", "pixi", "devbox":
		// Project runners: uv run cmd, bundle exec cmd, direnv exec DIR cmd.
		rest := args[1:]
		for len(rest) > 0 && strings.HasPrefix(rest[0].val, "-") {
			rest = rest[1:]
		}
		if len(rest) < 2 || !slices.Contains([]string{"run", "exec", "x"}, rest[0].val) {
			return nil, false
		}
		rest = rest[1:]
		if c.base == "direnv" && len(rest) > 1 {
			rest = rest[1:]
		}
		if i := slices.IndexFunc(rest, func(a shArg) bool { return a.val == "--" }); i >= 0 {
			rest = rest[i+1:]
		} else {
			r, runs := skipWrapperOptions(rest, wrapperSpec{shortArg: "nepw", longArg: []string{"--with", "--python", "--name", "--prefix", "--env", "--project", "--directory"}})
			if !runs {
				return nil, true
			}
			rest = r
		}
		return next(rest, c.env, false)
	case "hyperfine", "nodemon", "watchexec", "entr", "nix-shell", "nix", "sem", "time-cmd", "retry", "ts-node":
		return g.codeRunners(c)
	case "bwrap":
		rest := args[1:]
		for len(rest) > 0 && strings.HasPrefix(rest[0].val, "--") {
			v := rest[0].val
			rest = rest[1:]
			switch {
			case v == "--":
				return next(rest, c.env, false)
			case slices.Contains(bwrapTwoValues, v):
				rest = rest[min(2, len(rest)):]
			case slices.Contains(wrappers["bwrap"].longArg, v):
				rest = rest[min(1, len(rest)):]
			}
		}
		return next(rest, c.env, false)
	}
	spec, ok := wrappers[c.base]
	if !ok {
		return nil, false
	}
	if c.base == "exec" && len(args) == 1 {
		return nil, true
	}
	rest, runs := skipWrapperOptions(args[1:], spec)
	if !runs {
		return nil, true
	}
	if c.base == "timeout" || c.base == "nice" || c.base == "nohup" || c.base == "time" {
		g.checkPaths(c.env, args[1:len(args)-len(rest)])
	}
	return next(rest, c.env, spec.shell)
}

// skipWrapperOptions drops a wrapper's options, assignments and operands; it
// reports false when an option means nothing is run.
func skipWrapperOptions(args []shArg, spec wrapperSpec) ([]shArg, bool) {
	i := 0
	for i < len(args) {
		v := args[i].val
		if args[i].dynamic() {
			break
		}
		if v == "--" {
			i++
			break
		}
		if spec.assigns && !strings.HasPrefix(v, "-") && isAssignment(v) {
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

func isAssignment(v string) bool { return assignmentPattern.MatchString(v) }

// envWrapper follows env: assignments, -i, -u, --chdir and -S.
func (g *shellGuard) envWrapper(c *shCall) (*shCall, bool) {
	env := c.env.clone()
	args := c.args[1:]
	for len(args) > 0 {
		a := args[0]
		v := a.val
		if a.dynamic() {
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
				env.vars[args[1].val] = expand.Variable{}
				args = args[1:]
			}
		case strings.HasPrefix(v, "--unset="):
			env.vars[strings.TrimPrefix(v, "--unset=")] = expand.Variable{}
		case strings.HasPrefix(v, "-u") && len(v) > 2 && !strings.HasPrefix(v, "--"):
			env.vars[v[2:]] = expand.Variable{}
		case v == "-C" || v == "--chdir":
			if len(args) > 1 {
				env = g.inDir(env, args[1])
				args = args[1:]
			}
		case strings.HasPrefix(v, "--chdir="):
			env = g.inDir(env, known(strings.TrimPrefix(v, "--chdir=")))
		case strings.HasPrefix(v, "-C") && len(v) > 2 && !strings.HasPrefix(v, "--"):
			env = g.inDir(env, known(v[2:]))
		case v == "-S" || v == "--split-string" || strings.HasPrefix(v, "--split-string=") || (strings.HasPrefix(v, "-S") && !strings.HasPrefix(v, "--")) || (strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.Contains(v, "S")):
			s := ""
			switch {
			case v == "-S" || v == "--split-string" || strings.HasSuffix(v, "S"):
				if len(args) < 2 {
					return nil, true
				}
				s = args[1].val
				if args[1].dynamic() {
					g.hold("The command `env -S` runs comes from %s cannot be checked before it runs.", and(g.argSource(args[1]).text()))
				}
				args = args[1:]
			case strings.HasPrefix(v, "--split-string="):
				s = strings.TrimPrefix(v, "--split-string=")
			default:
				s = v[strings.IndexByte(v, 'S')+1:]
			}
			// env -S splits its string much as the shell splits words.
			g.code(env, s+" "+quoteArgs(args[1:]), "`env -S`")
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
	return &shCall{env: env, args: args, src: c.src}, true
}

// sudoWrapper follows sudo: its options, the user it runs as and -s/-i.
func (g *shellGuard) sudoWrapper(c *shCall) (*shCall, bool) {
	env := c.env.clone()
	target := "root"
	args := c.args[1:]
	shell := false
	for len(args) > 0 {
		a := args[0]
		v := a.val
		if a.dynamic() {
			break
		}
		if v == "--" {
			args = args[1:]
			break
		}
		if !strings.HasPrefix(v, "-") || len(v) < 2 {
			if isAssignment(v) {
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
				return args[0].val
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
				env = g.inDir(env, args[1])
				args = args[1:]
			}
		case strings.HasPrefix(v, "--chdir="):
			env = g.inDir(env, known(strings.TrimPrefix(v, "--chdir=")))
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
			g.code(env.child(), joinArgs(args), "`sudo -s`")
		}
		return nil, true
	}
	if len(args) == 0 {
		return nil, true
	}
	return &shCall{env: env, args: args, src: c.src}, true
}

// suWrapper follows su, runuser and sg: -c code, or runuser -u user cmd.
func (g *shellGuard) suWrapper(c *shCall) (*shCall, bool) {
	args := c.args[1:]
	target := "root"
	var ops []shArg
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case (v == "-c" || v == "--command" || v == "--session-command") && i+1 < len(args):
			g.code(withHome(c.env, homeOf(target)).child(), args[i+1].val, "`"+c.base+" -c`")
			return nil, true
		case strings.HasPrefix(v, "--command=") || strings.HasPrefix(v, "--session-command="):
			_, code, _ := strings.Cut(v, "=")
			g.code(withHome(c.env, homeOf(target)).child(), code, "`"+c.base+" -c`")
			return nil, true
		case c.base == "runuser" && (v == "-u" || v == "--user") && i+1 < len(args):
			target = args[i+1].val
			rest := args[i+2:]
			if len(rest) > 0 && rest[0].val == "--" {
				rest = rest[1:]
			}
			if len(rest) == 0 {
				return nil, true
			}
			return &shCall{env: withHome(c.env, homeOf(target)), args: rest, src: c.src}, true
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
	if c.base == "sg" && len(ops) > 1 {
		// sg group command…: the command is run by /bin/sh -c.
		g.code(c.env.child(), joinArgs(ops[1:]), "`sg`")
		return nil, true
	}
	if len(ops) > 0 && ops[0].val != "-" {
		target = ops[0].val
	}
	if len(ops) > 1 && c.base != "sg" {
		// Arguments after the user go to the user's shell (su user -c …
		// was handled above; su user script.sh runs the script).
		g.shell(&shCall{env: withHome(c.env, homeOf(target)), args: append([]shArg{known("sh")}, ops[1:]...), base: "sh", src: c.src})
	}
	return nil, true
}
