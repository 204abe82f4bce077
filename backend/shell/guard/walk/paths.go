package tools

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// systemDirs are folders whose loss breaks the system.
var systemDirs = []string{
	"/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/libx32", "/media", "/mnt", "/opt",
	"/proc", "/root", "/run", "/sbin", "/snap", "/srv", "/sys", "/tmp", "/usr", "/var", "/efi",
	"/usr/bin", "/usr/sbin", "/usr/lib", "/usr/lib64", "/usr/libexec", "/usr/local", "/usr/share", "/usr/include",
	"/usr/local/bin", "/usr/local/lib", "/var/lib", "/var/log", "/var/cache", "/var/tmp", "/var/spool", "/boot/efi",
	"/etc/ssh", "/etc/systemd", "/etc/ssl", "/sys/firmware", "/sys/firmware/efi", "/sys/firmware/efi/efivars",
	"/Applications", "/Library", "/System", "/Users", "/Volumes", "/private", "/cores", "/nix", "/nix/store",
	"/private/etc", "/private/var", "/System/Library",
}

// pathClass orders how bad it is to destroy a path, from harmless to
// catastrophic.
type pathClass int

const (
	classInside    pathClass = iota // in the workspace
	classTemp                       // in a temporary folder
	classOutside                    // elsewhere outside the workspace (the home folder's contents, other disks)
	classSystem                     // inside a system folder
	classWorkspace                  // the workspace folder itself
	classCritical                   // the root, a system folder, the home folder, a folder holding home or the workspace
	classUnknown                    // cannot be known before running
)

// judged is what the guard makes of a path argument.
type judged struct {
	class pathClass
	what  string // "the root folder /", "~/notes, in your home folder"
	src   source // for classUnknown: where the value comes from
	every bool   // the targets are every file under a folder (find without a test)
}

// absPath resolves a path argument against the folder the command runs in.
func (g *shellGuard) absPath(st *shState, v string) (string, bool) {
	if v == "" || strings.ContainsRune(v, 0) || hasMarker(v) {
		return "", false
	}
	var p string
	switch {
	case strings.HasPrefix(v, "/"):
		p = path.Clean(v)
	case st.cwd == "":
		return "", false
	default:
		p = path.Clean(st.cwd + "/" + v)
	}
	if st.container {
		return g.containerPath(st, p), true
	}
	return g.followLinks(st, p), true
}

// containerRoot marks the paths of a container's own file system.
const containerRoot = "/\x00container"

// containerPath maps a path seen inside a container to the host: through a
// bind mount, or to the container's own files.
func (g *shellGuard) containerPath(st *shState, p string) string {
	if strings.HasPrefix(p, containerRoot) {
		return p
	}
	best := ""
	for dst := range st.mounts {
		if (p == dst || isAncestor(dst, p)) && len(dst) > len(best) {
			best = dst
		}
	}
	if best == "" {
		return containerRoot + p
	}
	return path.Clean(st.mounts[best] + "/" + strings.TrimPrefix(p, best))
}

// followLinks replaces the symlinks the script itself creates.
func (g *shellGuard) followLinks(st *shState, p string) string {
	for range 8 {
		changed := false
		for link, target := range st.links {
			if p == link || strings.HasPrefix(p, link+"/") {
				p = path.Clean(target + strings.TrimPrefix(p, link))
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	return p
}

// realPath follows the symlinks that exist on disk; for a path that does
// not exist, those of its longest existing parent.
func realPath(p string) string {
	rest := ""
	for dir := p; ; dir = filepath.Dir(dir) {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return path.Clean(filepath.ToSlash(r) + rest)
		}
		if dir == filepath.Dir(dir) {
			return p
		}
		rest = "/" + filepath.Base(dir) + rest
	}
}

// realPath is realPath with the answers of this check remembered: each
// new path costs one lstat, its folders being already resolved.
func (g *shellGuard) realPath(p string) string {
	if r, ok := g.reals[p]; ok {
		return r
	}
	if p == "/" || p == "." || p == "" || !strings.HasPrefix(p, "/") {
		return realPath(p)
	}
	cand := path.Join(g.realPath(path.Dir(p)), path.Base(p))
	r := cand
	if fi, err := os.Lstat(cand); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		if res, err := filepath.EvalSymlinks(cand); err == nil {
			r = filepath.ToSlash(res)
		}
	}
	g.reals[p] = r
	return r
}

// isAncestor reports whether dir strictly contains p.
func isAncestor(dir, p string) bool {
	if dir == "/" {
		return p != "/" && strings.HasPrefix(p, "/")
	}
	return strings.HasPrefix(p, dir+"/")
}

// inside reports whether p lies in the workspace (following symlinks that
// exist).
func (g *shellGuard) inside(st *shState, p string) bool {
	if g.wsDir == "" {
		return true
	}
	if p == g.wsDir || isAncestor(g.wsDir, p) {
		r := g.realPath(p)
		wr := g.realPath(g.wsDir)
		return r == wr || isAncestor(wr, r)
	}
	return false
}

// harmlessPath reports whether p is outside the workspace but not worth a
// warning: the null, random and terminal devices and the standard streams.
func harmlessPath(p string) bool {
	switch p {
	case "/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/full":
		return true
	}
	return strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/proc/self/fd/")
}

// classify judges an absolute path, taking the worse of its name and what
// its symlinks point to.
func (g *shellGuard) classify(p string) (pathClass, string) {
	if strings.HasPrefix(p, containerRoot) {
		return classInside, strings.TrimPrefix(p, containerRoot) + " (inside the container)"
	}
	c, what := g.classifyName(p)
	if r := g.realPath(p); r != p {
		if rc, rwhat := g.classifyName(r); rc > c {
			return rc, rwhat + " (through " + p + ")"
		}
	}
	return c, what
}

func (g *shellGuard) classifyName(p string) (pathClass, string) {
	switch {
	case p == "/":
		return classCritical, "the root folder /"
	case slices.ContainsFunc(systemDirs, func(d string) bool { return strings.EqualFold(d, p) }):
		return classCritical, "the system folder " + p
	case g.home != "" && p == g.home:
		return classCritical, "your home folder " + p
	case g.home != "" && isAncestor(p, g.home):
		return classCritical, p + ", which contains your home folder"
	case g.wsDir != "" && isAncestor(p, g.wsDir):
		return classCritical, p + ", which contains the workspace"
	case g.wsDir != "" && p == g.wsDir:
		return classWorkspace, "the whole workspace folder " + p
	case g.wsDir != "" && isAncestor(g.wsDir, p):
		return classInside, p
	case g.home != "" && isAncestor(g.home, p):
		if g.wsDir == "" {
			return classInside, p
		}
		return classOutside, p + " (in your home folder, outside the workspace)"
	case isTemp(g, p):
		return classTemp, p
	}
	for _, d := range systemDirs {
		if isAncestor(d, p) && !strings.EqualFold(d, "/home") && !strings.EqualFold(d, "/Users") {
			return classSystem, p + " (in the system folder " + d + ")"
		}
	}
	if g.wsDir == "" {
		return classInside, p
	}
	return classOutside, p + " (outside the workspace)"
}

// isTemp reports whether p lies in a temporary folder.
func isTemp(g *shellGuard, p string) bool {
	for _, t := range g.tempDirs {
		if t != "" && t != "/" && isAncestor(t, p) {
			return true
		}
	}
	return false
}

// everything reports whether a glob component matches (nearly) every name:
// *, .*, ?*, [!.]*…
func everything(component string) bool {
	if strings.HasPrefix(component, "!(") {
		return true // extglob: everything but a few names
	}
	for _, op := range []string{"@(", "*(", "+(", "?("} {
		component = strings.ReplaceAll(component, op, "*")
	}
	component = strings.ReplaceAll(component, ")", "")
	return strings.ContainsAny(component, "*?[") && strings.Trim(component, "*?.[]!^|") == ""
}

// globMeta returns the index of the first glob character in s, or -1.
func globMeta(s string) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '*', '?', '[':
			return i
		case '@', '!', '+':
			if i+1 < len(s) && s[i+1] == '(' {
				return i
			}
		}
	}
	return -1
}

// judge decides what a path argument of a destructive command names.
func (g *shellGuard) judge(st *shState, a shArg) judged {
	if a.dynamic() {
		s := g.argSource(a)
		if s.under != "" && boundedValue(a.val) {
			return g.judgeUnder(s)
		}
		return judged{class: classUnknown, src: s}
	}
	if a.unmatched {
		return g.judgePattern(st, a.val)
	}
	p, ok := g.absPath(st, a.val)
	if !ok {
		return judged{class: classUnknown, src: source{desc: "the path `" + a.val + "`, relative to a folder the guard cannot follow (" + st.cwdWhy + ")"}}
	}
	c, what := g.classify(p)
	if a.glob != "" {
		if dir, comp := path.Split(a.glob); everything(comp) {
			if dir == "" {
				dir = "./"
			}
			if dp, ok := g.absPath(st, strings.TrimSuffix(dir, "/")+"/."); ok {
				if dc, dwhat := g.classify(dp); dc == classCritical || dc == classWorkspace {
					return judged{class: dc, what: "everything in " + dwhat + " (matched by " + a.glob + ")"}
				}
			}
		}
		what += " (matched by " + a.glob + ")"
	}
	return judged{class: c, what: what}
}

// judgePattern judges a glob that matched nothing now: by the folder it
// looks in.
func (g *shellGuard) judgePattern(st *shState, pat string) judged {
	i := globMeta(pat)
	if i < 0 {
		i = len(pat)
	}
	dir := "."
	if j := strings.LastIndexByte(pat[:i], '/'); j >= 0 {
		dir = pat[:j+1]
	}
	rest := pat
	if dir != "." {
		rest = pat[len(dir):]
	}
	comp, _, _ := strings.Cut(rest, "/")
	dp, ok := g.absPath(st, dir)
	if !ok {
		return judged{class: classUnknown, src: source{desc: "the glob `" + pat + "` in a folder the guard cannot follow (" + st.cwdWhy + ")"}}
	}
	dc, dwhat := g.classify(dp)
	if (dc == classCritical || dc == classWorkspace) && everything(comp) {
		return judged{class: dc, what: "everything in " + dwhat + " (matched by " + pat + ")"}
	}
	c, what := g.classify(path.Join(dp, "x"))
	if dc == classCritical {
		c, what = classSystem, "files in "+dwhat
	}
	return judged{class: c, what: what + " (matched by " + pat + ")"}
}

// boundedValue reports whether a value is one marker, optionally followed
// by a path that does not climb out ("{}", "{}/sub").
func boundedValue(v string) bool {
	r := []rune(v)
	if len(r) == 0 || !isMarker(r[0]) {
		return false
	}
	rest := string(r[1:])
	return !hasMarker(rest) && (rest == "" || strings.HasPrefix(rest, "/") && !slices.Contains(strings.Split(rest, "/"), ".."))
}

// judgeUnder judges the paths find selects under a folder.
func (g *shellGuard) judgeUnder(s source) judged {
	c, what := g.classify(s.under)
	if s.all {
		return judged{class: c, what: "everything under " + what, every: true}
	}
	switch c {
	case classCritical:
		return judged{class: classUnknown, src: source{desc: s.text() + ", which may be any file under " + what}}
	case classWorkspace:
		return judged{class: classInside, what: "files in the workspace"}
	}
	return judged{class: c, what: "files under " + what}
}

// checkPaths warns about path arguments outside the workspace: absolute
// paths (whose first folder exists, so /api/v1 in a pattern is not taken for
// a path) and relative paths that climb out with "..".
func (g *shellGuard) checkPaths(st *shState, args []shArg) {
	if g.wsDir == "" || st.remote {
		return
	}
	for _, a := range args {
		if a.dynamic() {
			continue
		}
		v := a.val
		if k, val, ok := strings.Cut(v, "="); ok && (strings.HasPrefix(k, "-") || isAssignment(v)) {
			v = val
		}
		if v == "" || strings.ContainsAny(v, "\n") {
			continue
		}
		switch {
		case strings.HasPrefix(v, "/"):
			first := "/" + strings.SplitN(strings.TrimPrefix(path.Clean(v), "/"), "/", 2)[0]
			if _, err := os.Lstat(first); err != nil {
				continue
			}
		case v == ".." || strings.HasPrefix(v, "../") || strings.Contains(v, "/../") || strings.HasSuffix(v, "/.."):
		default:
			continue
		}
		p, ok := g.absPath(st, v)
		if !ok {
			continue
		}
		if !g.inside(st, p) && !harmlessPath(p) {
			g.warn("Uses a path outside the workspace: %s", p)
		}
	}
}

// diskDevice matches block devices and raw memory, whose overwriting
// destroys data.
var diskDevice = regexp.MustCompile(`^/dev/(sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|zram\d|loop\d|dm-\d|md\d|md/|sg\d|nbd\d|rbd\d|ram\d|pmem\d|bcache\d|mtd|ubi\d|zd\d|rdisk\d|disk\d|mapper/|disk/|block/|zvol/|cciss/|nvme/|root$|mem$|kmem$|port$|fd\d)`)

// isDiskDevice reports whether writing p destroys a disk's data: a known
// disk name, or anything that is a block device on this machine.
func isDiskDevice(p string) bool {
	p = path.Clean(p)
	if diskDevice.MatchString(p) {
		return true
	}
	if !strings.HasPrefix(p, "/dev/") && !strings.HasPrefix(p, "/sys/") {
		if r := realPath(p); r != p && (strings.HasPrefix(r, "/dev/")) {
			return isDiskDevice(r)
		}
		return false
	}
	if r := realPath(p); r != p && diskDevice.MatchString(r) {
		return true
	}
	fi, err := os.Stat(p)
	return err == nil && fi.Mode()&os.ModeDevice != 0 && fi.Mode()&os.ModeCharDevice == 0
}

// isSysrq reports whether p is the kernel's magic SysRq trigger, whose
// letters reboot, power off or crash the machine.
func isSysrq(p string) bool {
	return path.Clean(p) == "/proc/sysrq-trigger" || strings.HasSuffix(path.Clean(p), "/proc/sysrq-trigger")
}

// isPowerFile reports whether writing p suspends, hibernates or powers off
// the machine (echo mem > /sys/power/state).
func isPowerFile(p string) bool {
	switch path.Clean(p) {
	case "/sys/power/state", "/sys/power/autosleep", "/proc/acpi/sleep":
		return true
	}
	return false
}

// checkWrite judges a file a command writes: disk devices, the SysRq
// trigger and the kernel's power-state files are refused, paths outside the workspace warned about.
func (g *shellGuard) checkWrite(st *shState, a shArg, how string) {
	if a.dynamic() {
		if j := g.judge(st, a); j.class == classCritical {
			g.deny("Refused: %s %s would overwrite %s.", how, a.rawText(), j.what)
		}
		return
	}
	p, ok := g.absPath(st, a.val)
	if !ok {
		p = a.val
	}
	switch {
	case isSysrq(p):
		g.deny("Refused: %s %s would trigger the kernel's SysRq actions (reboot, power off, crash).", how, p)
	case isPowerFile(p):
		g.deny("Refused: %s %s would %s.", how, p, powerSuspend)
	case isDiskDevice(p):
		g.deny("Refused: %s %s would overwrite the disk device and destroy its data.", how, p)
	default:
		g.checkPaths(st, []shArg{a})
		if ok && !harmlessPath(p) && !st.remote {
			if c, what := g.classify(p); c == classSystem || c == classCritical {
				g.hold("%s %s changes %s, a system file, so it needs your approval.", how, a.val, what)
			}
		}
	}
}

// powerSuspend is what suspending the computer does, as refusals name it
// (beside the other power-state changes of shellguard_power.go).
const powerSuspend = "suspend or hibernate the computer, stopping everything running"
