package tools

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// systemDirs are folders whose loss breaks the system.
var systemDirs = []string{
	"/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/libx32", "/media", "/mnt", "/opt",
	"/proc", "/root", "/run", "/sbin", "/snap", "/srv", "/sys", "/tmp", "/usr", "/var",
	"/usr/bin", "/usr/sbin", "/usr/lib", "/usr/lib64", "/usr/local", "/usr/share", "/var/lib",
	"/Applications", "/Library", "/System", "/Users", "/Volumes", "/private", "/cores", "/nix",
}

// criticalTarget reports whether a path argument names something whose
// recursive deletion or change would be a disaster, and describes it.
func (g *shellGuard) criticalTarget(a shWord) (string, bool) {
	if !a.static || a.val == "" {
		return "", false
	}
	if v := strings.TrimRight(a.val, "/*"); v == "~" {
		return "your home folder", true // ~ left unexpanded: no home folder known
	}
	p, ok := g.absPath(a.val)
	if !ok {
		return "", false
	}
	// "/usr/*" and "~/.*" empty the folder: judge the folder.
	for p != "/" && strings.Trim(path.Base(p), "*?.[]!") == "" && strings.ContainsAny(path.Base(p), "*?[") {
		p = path.Dir(p)
	}
	if strings.ContainsAny(p, "*?[") && strings.Count(p, "/") <= 3 {
		matches, _ := filepath.Glob(p)
		for _, m := range matches {
			if what, ok := g.critical(filepath.Clean(m)); ok {
				return what + " (matched by " + a.val + ")", true
			}
		}
		return "", false
	}
	return g.critical(p)
}

// critical describes p when it is the root, a system folder, the home folder
// or a folder containing the home folder or the workspace.
func (g *shellGuard) critical(p string) (string, bool) {
	switch {
	case p == "/":
		return "the root folder /", true
	case slices.ContainsFunc(systemDirs, func(d string) bool { return strings.EqualFold(d, p) }):
		return "the system folder " + p, true
	case g.home != "" && p == g.home:
		return "your home folder " + p, true
	case g.home != "" && isAncestor(p, g.home):
		return p + ", which contains your home folder", true
	case g.wsDir != "" && isAncestor(p, g.wsDir):
		return p + ", which contains the workspace", true
	}
	return "", false
}

// isAncestor reports whether dir strictly contains p.
func isAncestor(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != "." && filepath.IsLocal(rel)
}

// absPath resolves a path argument against the folder the command runs in.
func (g *shellGuard) absPath(v string) (string, bool) {
	if v == "" || strings.ContainsRune(v, 0) {
		return "", false
	}
	if v == "~" || strings.HasPrefix(v, "~/") {
		return "", false // no home folder known
	}
	if strings.HasPrefix(v, "/") {
		return path.Clean(v), true
	}
	if g.cwd == "" {
		return "", false
	}
	return path.Clean(g.cwd + "/" + v), true
}

// inside reports whether p lies in the workspace (following symlinks that
// exist).
func (g *shellGuard) inside(p string) bool {
	if g.wsDir == "" {
		return true
	}
	if p == g.wsDir || isAncestor(g.wsDir, p) {
		return true
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		if wsReal, err := filepath.EvalSymlinks(g.wsDir); err == nil {
			return real == wsReal || isAncestor(wsReal, real)
		}
	}
	return false
}

// harmless reports whether p is outside the workspace but not worth a
// warning: the null, random and terminal devices and the standard streams.
// The temporary folder is not exempt: other programs' files live there too.
func (g *shellGuard) harmless(p string) bool {
	switch p {
	case "/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty":
		return true
	}
	return strings.HasPrefix(p, "/dev/fd/")
}

// checkPaths warns about path arguments outside the workspace: absolute
// paths (whose first folder exists, so /api/v1 in a pattern is not taken for
// a path), ~ paths and relative paths that climb out with "..".
func (g *shellGuard) checkPaths(args []shWord) {
	if g.wsDir == "" {
		return
	}
	for _, a := range args {
		if !a.static {
			continue
		}
		v := a.val
		if k, val, ok := strings.Cut(v, "="); ok && (strings.HasPrefix(k, "-") || isAssignment(v)) {
			v = val
		}
		if v == "" || strings.ContainsAny(v, "\n") {
			continue
		}
		var p string
		switch {
		case strings.HasPrefix(v, "/"):
			first := "/" + strings.SplitN(strings.TrimPrefix(path.Clean(v), "/"), "/", 2)[0]
			if _, err := os.Lstat(first); err != nil {
				continue
			}
			p = path.Clean(v)
		case v == ".." || strings.HasPrefix(v, "../") || strings.Contains(v, "/../") || strings.HasSuffix(v, "/.."):
			abs, ok := g.absPath(v)
			if !ok {
				continue
			}
			p = abs
		default:
			continue
		}
		if !g.inside(p) && !g.harmless(p) {
			g.warn("Uses a path outside the workspace: %s", p)
		}
	}
}
