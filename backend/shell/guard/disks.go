package guard

import (
	"regexp"
	"slices"
	"strings"
	"tinyelf/backend/shell/guard/walk"
)

// This file holds the deny list for disks, devices and packages: writers
// aimed at disk devices, file system makers and partitioners, package
// removal. Processes and power are in signals.go.

var driveLetter = regexp.MustCompile(`^[A-Za-z]:[\\/]?$`)

// checkDd refuses dd onto a disk device.
func (g *checker) checkDd(c *walk.Call) {
	for _, a := range c.Args[1:] {
		for _, key := range []string{"of=", "hof=", "errlog="} {
			of, ok := strings.CutPrefix(a.Val, key)
			if !ok {
				continue
			}
			w := walk.Arg{Val: of, Raw: a.RawText(), Lost: a.Lost}
			if w.Dynamic() {
				g.Hold("The device or file `%s` writes to comes from %s cannot be checked before it runs.", c.Base, walk.And(g.ArgSource(w).Text()))
				continue
			}
			g.CheckWrite(c.Env, w, c.Text()+" writing to")
			if p, ok := g.AbsPath(c.Env, of); ok {
				if cl, what := g.Classify(p); cl == walk.ClassSystem || cl == walk.ClassCritical {
					g.Hold("%s overwrites %s, so it needs your approval.", c.Text(), what)
				}
				g.Written[p] = walk.FileNote{By: walk.Display(c.Args)}
			}
		}
	}
}

// checkWriters refuses the usual writers aimed at a disk device.
func (g *checker) checkWriters(c *walk.Call) {
	args := c.Args[1:]
	var targets []walk.Arg
	add := func(v walk.Arg) { targets = append(targets, v) }
	switch c.Base {
	case "tee", "truncate", "badblocks":
		if c.Base == "badblocks" && !walk.HasFlag(args, "wn", "") {
			break
		}
		targets = walk.Operands(args)
	case "cp", "install", "ddrescue":
		ops := walk.Operands(args)
		dest := false
		for i, a := range args {
			if (a.Val == "-t" || a.Val == "--target-directory") && i+1 < len(args) {
				add(args[i+1])
				dest = true
			}
		}
		if !dest && len(ops) > 1 {
			add(ops[len(ops)-1])
			defer g.noteCopy(c.Env, ops[0], ops[len(ops)-1]) // after the write is judged
		}
		g.markWritten(c, targets, c.Base)
	case "sort":
		for i, a := range args {
			if a.Val == "-o" && i+1 < len(args) {
				add(args[i+1])
			} else if v, ok := strings.CutPrefix(a.Val, "--output="); ok {
				add(walk.Arg{Val: v, Raw: a.RawText()})
			}
		}
	case "tar", "bsdtar":
		g.checkTar(c)
		return
	case "wget", "curl", "pv", "flashrom":
		for i, a := range args {
			v := a.Val
			switch {
			case (c.Base == "wget" && (v == "-O" || v == "--output-document")) || (c.Base == "curl" && (v == "-o" || v == "--output")) || (c.Base == "flashrom" && (v == "-w" || v == "--write")):
				if i+1 < len(args) {
					add(args[i+1])
				}
			case strings.HasPrefix(v, "--output-document=") || strings.HasPrefix(v, "--output="):
				_, val, _ := strings.Cut(v, "=")
				add(walk.Arg{Val: val, Raw: a.RawText()})
			case c.Base == "wget" && strings.HasPrefix(v, "-O") && len(v) > 2:
				add(walk.Arg{Val: v[2:], Raw: a.RawText()})
			case c.Base == "curl" && strings.HasPrefix(v, "-o") && len(v) > 2:
				add(walk.Arg{Val: v[2:], Raw: a.RawText()})
			case c.Base == "pv" && !isFlagArg(a):
			}
		}
		g.markWritten(c, targets, c.Base)
	case "socat":
		for _, a := range args {
			u := strings.ToUpper(a.Val)
			for _, p := range []string{"EXEC:", "SYSTEM:"} {
				if strings.HasPrefix(u, p) {
					cmd, _, _ := strings.Cut(a.Val[len(p):], ",")
					g.Code(c.Env.Child(), cmd, "`socat "+strings.TrimSuffix(p, ":")+"`")
				}
			}
			for _, p := range []string{"OPEN:", "CREATE:", "GOPEN:", "FILE:"} {
				if strings.HasPrefix(u, p) {
					f, _, _ := strings.Cut(a.Val[len(p):], ",")
					add(walk.Arg{Val: f, Raw: a.RawText()})
				}
			}
			if strings.HasPrefix(a.Val, "/dev/") {
				add(a)
			}
		}
	}
	for _, t := range targets {
		g.CheckWrite(c.Env, t, c.Text()+" writing to")
	}
}

// checkTar refuses tar writing an archive onto a disk device and follows
// the commands its options run.
func (g *checker) checkTar(c *walk.Call) {
	args := c.Args[1:]
	creating := false
	if len(args) > 0 && !strings.HasPrefix(args[0].Val, "-") && strings.ContainsAny(args[0].Val, "crufAd") {
		creating = true
	}
	extracting := len(args) > 0 && !strings.HasPrefix(args[0].Val, "-") && strings.Contains(args[0].Val, "x")
	for i, a := range args {
		v := a.Val
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
				g.Code(c.Env.Child(), cmd, "`tar "+strings.TrimSuffix(opt, "=")+"`")
			}
		}
		if (v == "-I" || v == "-F" || v == "--to-command" || v == "--use-compress-program") && i+1 < len(args) {
			g.Code(c.Env.Child(), args[i+1].Val, "`tar "+v+"`")
		}
	}
	if walk.HasFlag(args, "", "--remove-files") {
		var sources []walk.Arg
		skip := false
		for i, a := range args {
			switch {
			case skip:
				skip = false
			case i == 0 && !strings.HasPrefix(a.Val, "-"):
				skip = strings.HasSuffix(a.Val, "f")
			case a.Val == "-f" || a.Val == "--file" || a.Val == "-C" || a.Val == "--directory" || a.Val == "-T" || a.Val == "-X" || (strings.HasPrefix(a.Val, "-") && !strings.HasPrefix(a.Val, "--") && strings.HasSuffix(a.Val, "f")):
				skip = true
			case !isFlagArg(a):
				sources = append(sources, a)
			}
		}
		g.destroy(c, killRecursive, "tar --remove-files", sources)
	}
	if extracting {
		g.Dirty = walk.Display(c.Args)
		g.Unpacked = walk.Display(c.Args)
		dir := walk.Known(".")
		for i, a := range args {
			if (a.Val == "-C" || a.Val == "--directory") && i+1 < len(args) {
				dir = args[i+1]
			} else if d, ok := strings.CutPrefix(a.Val, "--directory="); ok {
				dir = walk.Known(d)
			}
		}
		if j := g.Judge(c.Env, dir); j.Class == walk.ClassCritical || j.Class == walk.ClassSystem {
			g.Hold("%s extracts files over %s, so it needs your approval.", c.Text(), j.What)
		} else if j.Class == walk.ClassUnknown {
			g.Hold("The folder `tar` extracts into comes from %s cannot be checked before it runs.", walk.And(j.Src.Text()))
		}
	}
	if !creating {
		return
	}
	for i, a := range args {
		v := a.Val
		var f walk.Arg
		switch {
		case strings.HasPrefix(v, "--file="):
			f = walk.Arg{Val: strings.TrimPrefix(v, "--file="), Raw: a.RawText()}
		case v == "--file" || (strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.HasSuffix(v, "f")) || (i == 0 && !strings.HasPrefix(v, "-") && strings.HasSuffix(v, "f")):
			if i+1 < len(args) {
				f = args[i+1]
			}
		case strings.HasPrefix(v, "-f") && len(v) > 2:
			f = walk.Arg{Val: v[2:], Raw: a.RawText()}
		default:
			continue
		}
		g.CheckWrite(c.Env, f, c.Text()+" writing an archive to")
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
func (g *checker) checkEraser(c *walk.Call) {
	args := c.Args[1:]
	sub := ""
	if ops := walk.Operands(args); len(ops) > 0 {
		sub = ops[0].Val
	}
	switch c.Base {
	case "cryptsetup":
		if sub != "luksFormat" && sub != "erase" && sub != "luksErase" && sub != "reencrypt" {
			return
		}
	case "hdparm":
		if !slices.ContainsFunc(args, func(a walk.Arg) bool {
			return strings.HasPrefix(a.Val, "--security-erase") || strings.HasPrefix(a.Val, "--trim-sector") || strings.HasPrefix(a.Val, "--write-sector") || a.Val == "--yes-i-know-what-i-am-doing"
		}) {
			return
		}
	case "nvme":
		if sub != "format" && sub != "sanitize" && sub != "write-zeroes" && sub != "ns-delete" && sub != "delete-ns" {
			return
		}
	case "mdadm":
		if !walk.HasFlag(args, "C", "--create") && !walk.HasFlag(args, "", "--zero-superblock") {
			return
		}
	case "zpool", "zfs":
		if sub != "destroy" && sub != "labelclear" && sub != "create" {
			return
		}
		g.Deny("Refused: %s destroys a storage pool or dataset and its data.", c.Text())
		return
	case "lvremove", "vgremove", "pvremove", "blkzone":
		g.Deny("Refused: %s removes disk volumes and their data.", c.Text())
		return
	case "dmsetup":
		if sub != "remove_all" && sub != "wipe_table" && sub != "remove" {
			return
		}
	case "e2fsck", "tune2fs", "dumpe2fs", "lvcreate", "pvcreate", "vgcreate":
		return
	}
	devices := 0
	for _, a := range walk.Operands(args) {
		switch {
		case a.Dynamic():
			g.Hold("The device `%s` erases comes from %s cannot be checked before it runs.", c.Base, walk.And(g.ArgSource(a).Text()))
		case strings.HasPrefix(a.Val, "/dev/") || walk.IsDiskDevice(a.Val):
			devices++
		}
	}
	if devices > 0 || c.Base == "wipefs" || c.Base == "blkdiscard" || c.Base == "cryptsetup" || c.Base == "nvme" || c.Base == "mdadm" || c.Base == "dmsetup" || c.Base == "hdparm" || strings.HasPrefix(c.Base, "sg_") {
		g.Deny("Refused: %s erases a disk or creates a file system on it, which destroys its data.", c.Text())
		return
	}
	g.Warn("Creates a file system (%s).", walk.Clip(walk.Display(c.Args), 80))
}

// checkPartitioner refuses partitioning a disk; listing partitions is fine.
func (g *checker) checkPartitioner(c *walk.Call) {
	device := ""
	listing := map[string][]string{
		"fdisk":  {"-l", "--list", "-x", "--list-details", "--help", "-h", "--version", "-V"},
		"sfdisk": {"-l", "--list", "-d", "--dump", "-J", "--json", "-s", "--show-size", "-V", "--verify", "-F", "--list-free", "-r", "--reorder-dry-run", "--help", "-h", "--version", "-v"},
		"parted": {"-l", "--list", "print", "p", "--help", "-h", "--version", "-v"},
		"gdisk":  {"-l", "--help", "-h"},
		"sgdisk": {"-p", "--print", "-i", "--info", "-v", "--verify", "-L", "--list-types", "-P", "--pretend", "--help", "-h", "-V", "--version"},
	}[c.Base]
	if c.Base == "parted" {
		// parted's commands after the device; only print lists.
		ops := walk.Operands(c.Args[1:])
		if len(ops) > 1 && slices.ContainsFunc(ops[1:], func(a walk.Arg) bool {
			return !slices.Contains([]string{"print", "p", "unit", "s", "B", "MB", "GB", "MiB", "GiB", "%", "cyl", "chs", "compact", "TB", "kB"}, a.Val)
		}) {
			listing = nil
		}
	}
	for _, a := range c.Args[1:] {
		if slices.Contains(listing, a.Val) {
			return
		}
		if a.Dynamic() {
			g.Hold("The disk `%s` partitions comes from %s cannot be checked before it runs.", c.Base, walk.And(g.ArgSource(a).Text()))
		}
		if strings.HasPrefix(a.Val, "/dev/") && device == "" {
			device = a.Val
		}
	}
	if device != "" {
		g.Deny("Refused: %s would change the partition table of %s.", c.Text(), device)
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
func (g *checker) checkPackageRemoval(c *walk.Call) {
	args := c.Args[1:]
	removing := false
	var pkgs []walk.Arg
	for _, a := range args {
		v := a.Val
		switch {
		case slices.Contains([]string{"remove", "purge", "autoremove", "erase", "uninstall", "del", "-R", "-Rns", "-Rs", "-Rdd", "-Rcns", "-r", "-e", "--erase", "--remove", "--purge", "-P", "-Rn"}, v) || (c.Base == "pacman" && strings.HasPrefix(v, "-R")):
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
		case p.Dynamic():
			g.Hold("The packages `%s` removes come from %s cannot be checked before it runs.", c.Base, walk.And(g.ArgSource(p).Text()))
		case strings.ContainsAny(p.Val, "*?") || essentialPackages.MatchString(strings.SplitN(p.Val, ":", 2)[0]):
			g.Deny("Refused: %s would remove %s, which the system cannot run without.", c.Text(), p.Val)
			return
		}
	}
	g.Warn("Removes system packages (%s).", walk.Clip(walk.Display(c.Args), 80))
}
