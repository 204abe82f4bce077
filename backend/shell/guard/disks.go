package tools

import (
	"regexp"
	"slices"
	"strings"
)

// This file holds the deny list for disks, devices and packages: writers
// aimed at disk devices, file system makers and partitioners, package
// removal. Processes and power are in shellguard_signals.go.

var driveLetter = regexp.MustCompile(`^[A-Za-z]:[\\/]?$`)

// checkDd refuses dd onto a disk device.
func (g *checker) checkDd(c *shCall) {
	for _, a := range c.args[1:] {
		for _, key := range []string{"of=", "hof=", "errlog="} {
			of, ok := strings.CutPrefix(a.val, key)
			if !ok {
				continue
			}
			w := shArg{val: of, raw: a.rawText(), lost: a.lost}
			if w.dynamic() {
				g.hold("The device or file `%s` writes to comes from %s cannot be checked before it runs.", c.base, and(g.argSource(w).text()))
				continue
			}
			g.checkWrite(c.env, w, c.cmdText()+" writing to")
			if p, ok := g.absPath(c.env, of); ok {
				if cl, what := g.classify(p); cl == classSystem || cl == classCritical {
					g.hold("%s overwrites %s, so it needs your approval.", c.cmdText(), what)
				}
				g.written[p] = fileNote{by: display(c.args)}
			}
		}
	}
}

// checkWriters refuses the usual writers aimed at a disk device.
func (g *checker) checkWriters(c *shCall) {
	args := c.args[1:]
	var targets []shArg
	add := func(v shArg) { targets = append(targets, v) }
	switch c.base {
	case "tee", "truncate", "badblocks":
		if c.base == "badblocks" && !hasFlag(args, "wn", "") {
			break
		}
		targets = operands(args)
	case "cp", "install", "ddrescue":
		ops := operands(args)
		dest := false
		for i, a := range args {
			if (a.val == "-t" || a.val == "--target-directory") && i+1 < len(args) {
				add(args[i+1])
				dest = true
			}
		}
		if !dest && len(ops) > 1 {
			add(ops[len(ops)-1])
			defer g.noteCopy(c.env, ops[0], ops[len(ops)-1]) // after the write is judged
		}
		g.markWritten(c, targets, c.base)
	case "sort":
		for i, a := range args {
			if a.val == "-o" && i+1 < len(args) {
				add(args[i+1])
			} else if v, ok := strings.CutPrefix(a.val, "--output="); ok {
				add(shArg{val: v, raw: a.rawText()})
			}
		}
	case "tar", "bsdtar":
		g.checkTar(c)
		return
	case "wget", "curl", "pv", "flashrom":
		for i, a := range args {
			v := a.val
			switch {
			case (c.base == "wget" && (v == "-O" || v == "--output-document")) || (c.base == "curl" && (v == "-o" || v == "--output")) || (c.base == "flashrom" && (v == "-w" || v == "--write")):
				if i+1 < len(args) {
					add(args[i+1])
				}
			case strings.HasPrefix(v, "--output-document=") || strings.HasPrefix(v, "--output="):
				_, val, _ := strings.Cut(v, "=")
				add(shArg{val: val, raw: a.rawText()})
			case c.base == "wget" && strings.HasPrefix(v, "-O") && len(v) > 2:
				add(shArg{val: v[2:], raw: a.rawText()})
			case c.base == "curl" && strings.HasPrefix(v, "-o") && len(v) > 2:
				add(shArg{val: v[2:], raw: a.rawText()})
			case c.base == "pv" && !isFlagArg(a):
			}
		}
		g.markWritten(c, targets, c.base)
	case "socat":
		for _, a := range args {
			u := strings.ToUpper(a.val)
			for _, p := range []string{"EXEC:", "SYSTEM:"} {
				if strings.HasPrefix(u, p) {
					cmd, _, _ := strings.Cut(a.val[len(p):], ",")
					g.code(c.env.child(), cmd, "`socat "+strings.TrimSuffix(p, ":")+"`")
				}
			}
			for _, p := range []string{"OPEN:", "CREATE:", "GOPEN:", "FILE:"} {
				if strings.HasPrefix(u, p) {
					f, _, _ := strings.Cut(a.val[len(p):], ",")
					add(shArg{val: f, raw: a.rawText()})
				}
			}
			if strings.HasPrefix(a.val, "/dev/") {
				add(a)
			}
		}
	}
	for _, t := range targets {
		g.checkWrite(c.env, t, c.cmdText()+" writing to")
	}
}

// checkTar refuses tar writing an archive onto a disk device and follows
// the commands its options run.
func (g *checker) checkTar(c *shCall) {
	args := c.args[1:]
	creating := false
	if len(args) > 0 && !strings.HasPrefix(args[0].val, "-") && strings.ContainsAny(args[0].val, "crufAd") {
		creating = true
	}
	extracting := len(args) > 0 && !strings.HasPrefix(args[0].val, "-") && strings.Contains(args[0].val, "x")
	for i, a := range args {
		v := a.val
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
				g.code(c.env.child(), cmd, "`tar "+strings.TrimSuffix(opt, "=")+"`")
			}
		}
		if (v == "-I" || v == "-F" || v == "--to-command" || v == "--use-compress-program") && i+1 < len(args) {
			g.code(c.env.child(), args[i+1].val, "`tar "+v+"`")
		}
	}
	if hasFlag(args, "", "--remove-files") {
		var sources []shArg
		skip := false
		for i, a := range args {
			switch {
			case skip:
				skip = false
			case i == 0 && !strings.HasPrefix(a.val, "-"):
				skip = strings.HasSuffix(a.val, "f")
			case a.val == "-f" || a.val == "--file" || a.val == "-C" || a.val == "--directory" || a.val == "-T" || a.val == "-X" || (strings.HasPrefix(a.val, "-") && !strings.HasPrefix(a.val, "--") && strings.HasSuffix(a.val, "f")):
				skip = true
			case !isFlagArg(a):
				sources = append(sources, a)
			}
		}
		g.destroy(c, killRecursive, "tar --remove-files", sources)
	}
	if extracting {
		g.dirty = display(c.args)
		g.unpacked = display(c.args)
		dir := known(".")
		for i, a := range args {
			if (a.val == "-C" || a.val == "--directory") && i+1 < len(args) {
				dir = args[i+1]
			} else if d, ok := strings.CutPrefix(a.val, "--directory="); ok {
				dir = known(d)
			}
		}
		if j := g.judge(c.env, dir); j.class == classCritical || j.class == classSystem {
			g.hold("%s extracts files over %s, so it needs your approval.", c.cmdText(), j.what)
		} else if j.class == classUnknown {
			g.hold("The folder `tar` extracts into comes from %s cannot be checked before it runs.", and(j.src.text()))
		}
	}
	if !creating {
		return
	}
	for i, a := range args {
		v := a.val
		var f shArg
		switch {
		case strings.HasPrefix(v, "--file="):
			f = shArg{val: strings.TrimPrefix(v, "--file="), raw: a.rawText()}
		case v == "--file" || (strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.HasSuffix(v, "f")) || (i == 0 && !strings.HasPrefix(v, "-") && strings.HasSuffix(v, "f")):
			if i+1 < len(args) {
				f = args[i+1]
			}
		case strings.HasPrefix(v, "-f") && len(v) > 2:
			f = shArg{val: v[2:], raw: a.rawText()}
		default:
			continue
		}
		g.checkWrite(c.env, f, c.cmdText()+" writing an archive to")
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
func (g *checker) checkEraser(c *shCall) {
	args := c.args[1:]
	sub := ""
	if ops := operands(args); len(ops) > 0 {
		sub = ops[0].val
	}
	switch c.base {
	case "cryptsetup":
		if sub != "luksFormat" && sub != "erase" && sub != "luksErase" && sub != "reencrypt" {
			return
		}
	case "hdparm":
		if !slices.ContainsFunc(args, func(a shArg) bool {
			return strings.HasPrefix(a.val, "--security-erase") || strings.HasPrefix(a.val, "--trim-sector") || strings.HasPrefix(a.val, "--write-sector") || a.val == "--yes-i-know-what-i-am-doing"
		}) {
			return
		}
	case "nvme":
		if sub != "format" && sub != "sanitize" && sub != "write-zeroes" && sub != "ns-delete" && sub != "delete-ns" {
			return
		}
	case "mdadm":
		if !hasFlag(args, "C", "--create") && !hasFlag(args, "", "--zero-superblock") {
			return
		}
	case "zpool", "zfs":
		if sub != "destroy" && sub != "labelclear" && sub != "create" {
			return
		}
		g.deny("Refused: %s destroys a storage pool or dataset and its data.", c.cmdText())
		return
	case "lvremove", "vgremove", "pvremove", "blkzone":
		g.deny("Refused: %s removes disk volumes and their data.", c.cmdText())
		return
	case "dmsetup":
		if sub != "remove_all" && sub != "wipe_table" && sub != "remove" {
			return
		}
	case "e2fsck", "tune2fs", "dumpe2fs", "lvcreate", "pvcreate", "vgcreate":
		return
	}
	devices := 0
	for _, a := range operands(args) {
		switch {
		case a.dynamic():
			g.hold("The device `%s` erases comes from %s cannot be checked before it runs.", c.base, and(g.argSource(a).text()))
		case strings.HasPrefix(a.val, "/dev/") || isDiskDevice(a.val):
			devices++
		}
	}
	if devices > 0 || c.base == "wipefs" || c.base == "blkdiscard" || c.base == "cryptsetup" || c.base == "nvme" || c.base == "mdadm" || c.base == "dmsetup" || c.base == "hdparm" || strings.HasPrefix(c.base, "sg_") {
		g.deny("Refused: %s erases a disk or creates a file system on it, which destroys its data.", c.cmdText())
		return
	}
	g.warn("Creates a file system (%s).", clip(display(c.args), 80))
}

// checkPartitioner refuses partitioning a disk; listing partitions is fine.
func (g *checker) checkPartitioner(c *shCall) {
	device := ""
	listing := map[string][]string{
		"fdisk":  {"-l", "--list", "-x", "--list-details", "--help", "-h", "--version", "-V"},
		"sfdisk": {"-l", "--list", "-d", "--dump", "-J", "--json", "-s", "--show-size", "-V", "--verify", "-F", "--list-free", "-r", "--reorder-dry-run", "--help", "-h", "--version", "-v"},
		"parted": {"-l", "--list", "print", "p", "--help", "-h", "--version", "-v"},
		"gdisk":  {"-l", "--help", "-h"},
		"sgdisk": {"-p", "--print", "-i", "--info", "-v", "--verify", "-L", "--list-types", "-P", "--pretend", "--help", "-h", "-V", "--version"},
	}[c.base]
	if c.base == "parted" {
		// parted's commands after the device; only print lists.
		ops := operands(c.args[1:])
		if len(ops) > 1 && slices.ContainsFunc(ops[1:], func(a shArg) bool {
			return !slices.Contains([]string{"print", "p", "unit", "s", "B", "MB", "GB", "MiB", "GiB", "%", "cyl", "chs", "compact", "TB", "kB"}, a.val)
		}) {
			listing = nil
		}
	}
	for _, a := range c.args[1:] {
		if slices.Contains(listing, a.val) {
			return
		}
		if a.dynamic() {
			g.hold("The disk `%s` partitions comes from %s cannot be checked before it runs.", c.base, and(g.argSource(a).text()))
		}
		if strings.HasPrefix(a.val, "/dev/") && device == "" {
			device = a.val
		}
	}
	if device != "" {
		g.deny("Refused: %s would change the partition table of %s.", c.cmdText(), device)
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
func (g *checker) checkPackageRemoval(c *shCall) {
	args := c.args[1:]
	removing := false
	var pkgs []shArg
	for _, a := range args {
		v := a.val
		switch {
		case slices.Contains([]string{"remove", "purge", "autoremove", "erase", "uninstall", "del", "-R", "-Rns", "-Rs", "-Rdd", "-Rcns", "-r", "-e", "--erase", "--remove", "--purge", "-P", "-Rn"}, v) || (c.base == "pacman" && strings.HasPrefix(v, "-R")):
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
		case p.dynamic():
			g.hold("The packages `%s` removes come from %s cannot be checked before it runs.", c.base, and(g.argSource(p).text()))
		case strings.ContainsAny(p.val, "*?") || essentialPackages.MatchString(strings.SplitN(p.val, ":", 2)[0]):
			g.deny("Refused: %s would remove %s, which the system cannot run without.", c.cmdText(), p.val)
			return
		}
	}
	g.warn("Removes system packages (%s).", clip(display(c.args), 80))
}
