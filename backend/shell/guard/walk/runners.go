package walk

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
)

// This file follows the commands containers, benchmarking and watching
// tools run.

// containerValueOpts are docker run/exec options that take a value.
var containerValueOpts = []string{"-e", "--env", "--name", "-p", "--publish", "-u", "--user", "--entrypoint", "--network", "--net", "-h", "--hostname", "-l", "--label", "--env-file", "--add-host", "--device", "--cap-add", "--cap-drop", "-m", "--memory", "--cpus", "--platform", "--restart", "--pull", "--log-driver", "--log-opt", "--ulimit", "--security-opt", "--tmpfs", "--dns", "--ip", "--pid", "--ipc", "--uts", "--userns", "--cgroupns", "--stop-signal", "--health-cmd", "-a", "--attach", "--cidfile", "--gpus", "--shm-size", "--label-file", "--expose", "--link", "--group-add", "--runtime", "--sysctl", "--volumes-from", "--detach-keys", "--cpu-shares", "-c", "--memory-swap", "--storage-opt"}

// container follows the command docker (podman, nerdctl) runs in a
// container: paths under a bind mount are the host's.
func (g *Walker) container(c *Call) (*Call, bool) {
	args := c.Args[1:]
	for len(args) > 0 && strings.HasPrefix(args[0].Val, "-") {
		if slices.Contains([]string{"-H", "--host", "--context", "-c", "--config", "-l", "--log-level"}, args[0].Val) {
			args = args[1:]
		}
		args = args[1:]
	}
	if len(args) == 0 {
		return nil, true
	}
	sub := args[0].Val
	if sub == "container" && len(args) > 1 {
		args = args[1:]
		sub = args[0].Val
	}
	if sub != "run" && sub != "create" && sub != "exec" {
		return nil, false
	}
	env := c.Env.Child()
	env.container, env.Cwd, env.mounts = true, "/", map[string]string{}
	env.vars = map[string]expand.Variable{"HOME": {Set: true, Exported: true, Kind: expand.String, Str: "/root"}}
	env.inherit = false
	args = args[1:]
	mount := func(spec string) {
		src, rest, ok := strings.Cut(spec, ":")
		if !ok {
			return
		}
		dst, _, _ := strings.Cut(rest, ":")
		if hp, ok := g.AbsPath(c.Env, src); ok && (strings.HasPrefix(src, "/") || strings.HasPrefix(src, ".")) {
			env.mounts[path.Clean(dst)] = hp
		}
	}
	for len(args) > 0 && strings.HasPrefix(args[0].Val, "-") {
		v := args[0].Val
		args = args[1:]
		switch {
		case v == "--":
		case (v == "-v" || v == "--volume") && len(args) > 0:
			mount(args[0].Val)
			args = args[1:]
		case strings.HasPrefix(v, "--volume="):
			mount(strings.TrimPrefix(v, "--volume="))
		case v == "--mount" && len(args) > 0 || strings.HasPrefix(v, "--mount="):
			spec := strings.TrimPrefix(v, "--mount=")
			if v == "--mount" {
				spec, args = args[0].Val, args[1:]
			}
			src, dst := "", ""
			for _, kv := range strings.Split(spec, ",") {
				k, val, _ := strings.Cut(kv, "=")
				switch k {
				case "source", "src":
					src = val
				case "target", "dst", "destination":
					dst = val
				}
			}
			if src != "" && dst != "" {
				mount(src + ":" + dst)
			}
		case v == "--privileged":
			env.mounts["/dev"] = "/dev" // a privileged container reaches the host's disks
		case v == "--device" && len(args) > 0 || strings.HasPrefix(v, "--device="):
			spec := strings.TrimPrefix(v, "--device=")
			if v == "--device" {
				spec, args = args[0].Val, args[1:]
			}
			src, dst, ok := strings.Cut(spec, ":")
			if !ok {
				dst = src
			}
			dst, _, _ = strings.Cut(dst, ":")
			env.mounts[path.Clean(dst)] = src
		case (v == "-w" || v == "--workdir") && len(args) > 0:
			env.Cwd = path.Clean("/" + args[0].Val)
			args = args[1:]
		case slices.Contains(containerValueOpts, v) && len(args) > 0:
			args = args[1:]
		}
	}
	if len(args) < 2 {
		return nil, true // the image (or container) with its own command
	}
	return &Call{Env: env, Args: args[1:], Src: c.Src}, true
}

// codeRunners follows the shell commands benchmarking, watching and nix
// tools run (hyperfine 'cmd', nodemon --exec 'cmd', watchexec -- cmd,
// entr -s 'cmd', nix-shell --run 'cmd', nix develop -c cmd).
func (g *Walker) codeRunners(c *Call) (*Call, bool) {
	args := c.Args[1:]
	origin := "`" + c.Base + "`"
	switch c.Base {
	case "hyperfine":
		for i := 0; i < len(args); i++ {
			v := args[i].Val
			switch {
			case slices.Contains([]string{"-p", "--prepare", "-c", "--cleanup", "-s", "--setup", "--conclude"}, v) && i+1 < len(args):
				g.Code(c.Env.Child(), args[i+1].Val, origin)
				i++
			case slices.Contains([]string{"-w", "--warmup", "-r", "--runs", "-m", "--min-runs", "-M", "--max-runs", "-S", "--shell", "--export-json", "--export-markdown", "--export-csv", "-n", "--command-name", "-P", "--parameter-scan", "-L", "--parameter-list", "-u", "--time-unit", "--style", "-o", "--output", "--input", "-D", "--parameter-step-size"}, v):
				i++
				if v == "-P" || v == "--parameter-scan" {
					i += 2
				}
			case strings.HasPrefix(v, "-"):
			default:
				g.Code(c.Env.Child(), v, origin)
			}
		}
		return nil, true
	case "nodemon", "watchexec", "entr", "sem", "retry":
		for i := 0; i < len(args); i++ {
			v := args[i].Val
			if (v == "--exec" || v == "-x" || v == "-s" || v == "--shell" || v == "-c") && i+1 < len(args) && (c.Base != "watchexec" || v != "-s") {
				g.Code(c.Env.Child(), args[i+1].Val, origin)
				return nil, true
			}
			if v == "--" && i+1 < len(args) {
				return &Call{Env: c.Env, Args: args[i+1:], Src: c.Src}, true
			}
		}
		if c.Base == "watchexec" || c.Base == "sem" || c.Base == "retry" || c.Base == "entr" {
			rest, runs := skipWrapperOptions(args, wrapperSpec{shortArg: "wedfpi", longArg: []string{"--watch", "--exts", "--debounce", "--filter", "--ignore", "--delay", "--times", "-t", "-j", "--jobs", "--id"}})
			if runs {
				return &Call{Env: c.Env, Args: rest, Src: c.Src}, true
			}
		}
		return nil, true
	case "nix-shell", "nix":
		for i := 0; i < len(args); i++ {
			v := args[i].Val
			if (v == "--run" || v == "--command" || v == "-c") && i+1 < len(args) {
				if c.Base == "nix" && v == "-c" {
					return &Call{Env: c.Env, Args: args[i+1:], Src: c.Src}, true
				}
				g.Code(c.Env.Child(), args[i+1].Val, origin+" "+v)
				return nil, true
			}
		}
		return nil, c.Base == "nix-shell"
	}
	return nil, false
}
