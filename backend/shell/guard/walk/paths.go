package walk

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

// PathClass orders how bad it is to destroy a path, from harmless to
// catastrophic.
type PathClass int

const (
	classInside    PathClass = iota // in the workspace
	classTemp                       // in a temporary folder
	ClassOutside                    // elsewhere outside the workspace (the home folder's contents, other disks)
	ClassSystem                     // inside a system folder
	ClassWorkspace                  // the workspace folder itself
	ClassCritical                   // the root, a system folder, the home folder, a folder holding home or the workspace
	ClassUnknown                    // cannot be known before running
)

// Judged is what the guard makes of a path argument.
type Judged struct {
	// Class is what kind of place the path is.
	Class PathClass
	// What names it for messages: "the root folder /", "~/notes, in your
	// home folder".
	What string
	// Src is, for ClassUnknown, where the value comes from.
	Src Source
	// Every reports that the targets are every file under a folder (find
	// without a test).
	Every bool
}

// AbsPath resolves a path argument against the folder the command runs in.
func (g *Walker) AbsPath(st *State, v string) (string, bool) {
	if v == "" || strings.ContainsRune(v, 0) || HasMarker(v) {
		return "", false
	}
	var p string
	switch {
	case strings.HasPrefix(v, "/"):
		p = path.Clean(v)
	case st.Cwd == "":
		return "", false
	default:
		p = path.Clean(st.Cwd + "/" + v)
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
func (g *Walker) containerPath(st *State, p string) string {
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
func (g *Walker) followLinks(st *State, p string) string {
	for range 8 {
		changed := false
		for link, target := range st.Links {
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

// RealPath is realPath with the answers of this check remembered: each
// new path costs one lstat, its folders being already resolved.
func (g *Walker) RealPath(p string) string {
	if r, ok := g.reals[p]; ok {
		return r
	}
	if p == "/" || p == "." || p == "" || !strings.HasPrefix(p, "/") {
		return realPath(p)
	}
	cand := path.Join(g.RealPath(path.Dir(p)), path.Base(p))
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

// Inside reports whether p lies in the workspace (following symlinks that
// exist).
func (g *Walker) Inside(st *State, p string) bool {
	if g.WorkspaceDir == "" {
		return true
	}
	if p == g.WorkspaceDir || isAncestor(g.WorkspaceDir, p) {
		r := g.RealPath(p)
		wr := g.RealPath(g.WorkspaceDir)
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

// Classify judges an absolute path, taking the worse of its name and what
// its symlinks point to.
func (g *Walker) Classify(p string) (PathClass, string) {
	if strings.HasPrefix(p, containerRoot) {
		return classInside, strings.TrimPrefix(p, containerRoot) + " (inside the container)"
	}
	c, what := g.classifyName(p)
	if r := g.RealPath(p); r != p {
		if rc, rwhat := g.classifyName(r); rc > c {
			return rc, rwhat + " (through " + p + ")"
		}
	}
	return c, what
}

func (g *Walker) classifyName(p string) (PathClass, string) {
	switch {
	case p == "/":
		return ClassCritical, "the root folder /"
	case slices.ContainsFunc(systemDirs, func(d string) bool { return strings.EqualFold(d, p) }):
		return ClassCritical, "the system folder " + p
	case g.Home != "" && p == g.Home:
		return ClassCritical, "your home folder " + p
	case g.Home != "" && isAncestor(p, g.Home):
		return ClassCritical, p + ", which contains your home folder"
	case g.WorkspaceDir != "" && isAncestor(p, g.WorkspaceDir):
		return ClassCritical, p + ", which contains the workspace"
	case g.WorkspaceDir != "" && p == g.WorkspaceDir:
		return ClassWorkspace, "the whole workspace folder " + p
	case g.WorkspaceDir != "" && isAncestor(g.WorkspaceDir, p):
		return classInside, p
	case g.Home != "" && isAncestor(g.Home, p):
		if g.WorkspaceDir == "" {
			return classInside, p
		}
		return ClassOutside, p + " (in your home folder, outside the workspace)"
	case isTemp(g, p):
		return classTemp, p
	}
	for _, d := range systemDirs {
		if isAncestor(d, p) && !strings.EqualFold(d, "/home") && !strings.EqualFold(d, "/Users") {
			return ClassSystem, p + " (in the system folder " + d + ")"
		}
	}
	if g.WorkspaceDir == "" {
		return classInside, p
	}
	return ClassOutside, p + " (outside the workspace)"
}

// isTemp reports whether p lies in a temporary folder.
func isTemp(g *Walker, p string) bool {
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

// Judge decides what a path argument of a destructive command names.
func (g *Walker) Judge(st *State, a Arg) Judged {
	if a.Dynamic() {
		s := g.ArgSource(a)
		if s.Under != "" && boundedValue(a.Val) {
			return g.judgeUnder(s)
		}
		return Judged{Class: ClassUnknown, Src: s}
	}
	if a.unmatched {
		return g.judgePattern(st, a.Val)
	}
	p, ok := g.AbsPath(st, a.Val)
	if !ok {
		return Judged{Class: ClassUnknown, Src: Source{Desc: "the path `" + a.Val + "`, relative to a folder the guard cannot follow (" + st.cwdWhy + ")"}}
	}
	c, what := g.Classify(p)
	if a.glob != "" {
		if dir, comp := path.Split(a.glob); everything(comp) {
			if dir == "" {
				dir = "./"
			}
			if dp, ok := g.AbsPath(st, strings.TrimSuffix(dir, "/")+"/."); ok {
				if dc, dwhat := g.Classify(dp); dc == ClassCritical || dc == ClassWorkspace {
					return Judged{Class: dc, What: "everything in " + dwhat + " (matched by " + a.glob + ")"}
				}
			}
		}
		what += " (matched by " + a.glob + ")"
	}
	return Judged{Class: c, What: what}
}

// judgePattern judges a glob that matched nothing now: by the folder it
// looks in.
func (g *Walker) judgePattern(st *State, pat string) Judged {
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
	dp, ok := g.AbsPath(st, dir)
	if !ok {
		return Judged{Class: ClassUnknown, Src: Source{Desc: "the glob `" + pat + "` in a folder the guard cannot follow (" + st.cwdWhy + ")"}}
	}
	dc, dwhat := g.Classify(dp)
	if (dc == ClassCritical || dc == ClassWorkspace) && everything(comp) {
		return Judged{Class: dc, What: "everything in " + dwhat + " (matched by " + pat + ")"}
	}
	c, what := g.Classify(path.Join(dp, "x"))
	if dc == ClassCritical {
		c, what = ClassSystem, "files in "+dwhat
	}
	return Judged{Class: c, What: what + " (matched by " + pat + ")"}
}

// boundedValue reports whether a value is one marker, optionally followed
// by a path that does not climb out ("{}", "{}/sub").
func boundedValue(v string) bool {
	r := []rune(v)
	if len(r) == 0 || !IsMarker(r[0]) {
		return false
	}
	rest := string(r[1:])
	return !HasMarker(rest) && (rest == "" || strings.HasPrefix(rest, "/") && !slices.Contains(strings.Split(rest, "/"), ".."))
}

// judgeUnder judges the paths find selects under a folder.
func (g *Walker) judgeUnder(s Source) Judged {
	c, what := g.Classify(s.Under)
	if s.All {
		return Judged{Class: c, What: "everything under " + what, Every: true}
	}
	switch c {
	case ClassCritical:
		return Judged{Class: ClassUnknown, Src: Source{Desc: s.Text() + ", which may be any file under " + what}}
	case ClassWorkspace:
		return Judged{Class: classInside, What: "files in the workspace"}
	}
	return Judged{Class: c, What: "files under " + what}
}

// CheckPaths warns about path arguments outside the workspace: absolute
// paths (whose first folder exists, so /api/v1 in a pattern is not taken for
// a path) and relative paths that climb out with "..".
func (g *Walker) CheckPaths(st *State, args []Arg) {
	if g.WorkspaceDir == "" || st.remote {
		return
	}
	for _, a := range args {
		if a.Dynamic() {
			continue
		}
		v := a.Val
		if k, val, ok := strings.Cut(v, "="); ok && (strings.HasPrefix(k, "-") || IsAssignment(v)) {
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
		p, ok := g.AbsPath(st, v)
		if !ok {
			continue
		}
		if !g.Inside(st, p) && !harmlessPath(p) {
			g.Warn("Uses a path outside the workspace: %s", p)
		}
	}
}

// diskDevice matches block devices and raw memory, whose overwriting
// destroys data.
var diskDevice = regexp.MustCompile(`^/dev/(sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|zram\d|loop\d|dm-\d|md\d|md/|sg\d|nbd\d|rbd\d|ram\d|pmem\d|bcache\d|mtd|ubi\d|zd\d|rdisk\d|disk\d|mapper/|disk/|block/|zvol/|cciss/|nvme/|root$|mem$|kmem$|port$|fd\d)`)

// IsDiskDevice reports whether writing p destroys a disk's data: a known
// disk name, or anything that is a block device on this machine.
func IsDiskDevice(p string) bool {
	p = path.Clean(p)
	if diskDevice.MatchString(p) {
		return true
	}
	if !strings.HasPrefix(p, "/dev/") && !strings.HasPrefix(p, "/sys/") {
		if r := realPath(p); r != p && (strings.HasPrefix(r, "/dev/")) {
			return IsDiskDevice(r)
		}
		return false
	}
	if r := realPath(p); r != p && diskDevice.MatchString(r) {
		return true
	}
	fi, err := os.Stat(p)
	return err == nil && fi.Mode()&os.ModeDevice != 0 && fi.Mode()&os.ModeCharDevice == 0
}

// IsSysrq reports whether p is the kernel's magic SysRq trigger, whose
// letters reboot, power off or crash the machine.
func IsSysrq(p string) bool {
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

// CheckWrite judges a file a command writes: disk devices, the SysRq
// trigger and the kernel's power-state files are refused, paths outside the workspace warned about.
func (g *Walker) CheckWrite(st *State, a Arg, how string) {
	if a.Dynamic() {
		if j := g.Judge(st, a); j.Class == ClassCritical {
			g.Deny("Refused: %s %s would overwrite %s.", how, a.RawText(), j.What)
		}
		return
	}
	p, ok := g.AbsPath(st, a.Val)
	if !ok {
		p = a.Val
	}
	switch {
	case IsSysrq(p):
		g.Deny("Refused: %s %s would trigger the kernel's SysRq actions (reboot, power off, crash).", how, p)
	case isPowerFile(p):
		g.Deny("Refused: %s %s would %s.", how, p, PowerSuspend)
	case IsDiskDevice(p):
		g.Deny("Refused: %s %s would overwrite the disk device and destroy its data.", how, p)
	default:
		g.CheckPaths(st, []Arg{a})
		if ok && !harmlessPath(p) && !st.remote {
			if c, what := g.Classify(p); c == ClassSystem || c == ClassCritical {
				g.Hold("%s %s changes %s, a system file, so it needs your approval.", how, a.Val, what)
			}
		}
	}
}

// PowerSuspend is what suspending the computer does, as refusals name it
// (the other power-state changes are the guard's, in its power.go).
const PowerSuspend = "suspend or hibernate the computer, stopping everything running"
