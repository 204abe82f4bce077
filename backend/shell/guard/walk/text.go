package walk

import (
	"os"
	"regexp"
	"strings"
)

// IsDir reports whether p is an existing folder.
func IsDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// textRules are the deny list as text patterns, for scripts that do not
// parse. They run on the text with quotes and backslashes removed.
var textRules = []struct {
	re   *regexp.Regexp
	what string
}{
	{regexp.MustCompile(`(^|[\s;&|({` + "`" + `])rm\s+([^;&|\n]*\s)?(-[a-z]*r[a-z]*|--recursive)\s+([^;&|\n]*\s)?(/|/\*|~|~/|~/\*|\$home|\$\{home\}|/(bin|boot|dev|etc|home|lib|lib64|opt|root|sbin|srv|sys|usr|var|users|system|library))/?(\s|$|[;&|)])`), "a recursive delete of the root, home or a system folder"},
	{regexp.MustCompile(`--no-preserve-root`), "rm --no-preserve-root"},
	{regexp.MustCompile(`(^|[\s;&|(])(mkfs(\.\w+)?|mke2fs|wipefs|diskpart|blkdiscard)(\s|$)`), "a command that erases disks"},
	{regexp.MustCompile(`:\s*\(\)\s*\{\s*:\s*\|\s*:\s*&`), "a fork bomb"},
	{regexp.MustCompile(`\bdd\s[^;&|\n]*\bof=/dev/(sd|hd|vd|xvd|nvme|mmcblk|r?disk|dm-|md|zram|loop|sg)`), "dd onto a disk device"},
	{regexp.MustCompile(`>\s*/dev/(sd|hd|vd|xvd|nvme|mmcblk|r?disk|dm-|md|zram|loop|sg)|/proc/sysrq-trigger`), "a write onto a disk device or the SysRq trigger"},
	{regexp.MustCompile(`(^|[\s;&|(])(shutdown|reboot|halt|poweroff|killall5)(\s|$|[;&|)])|\b(init|telinit)\s+[06]\b|\bsystemctl\s+(poweroff|reboot|halt|kexec)|\bkill\s+-(9|kill|sigkill|s\s+kill)\s+-1\b`), "shutting down, restarting or killing every process"},
	{regexp.MustCompile(`\b(fdisk|sfdisk|parted|shred)\s[^;&|\n]*/dev/(sd|hd|vd|xvd|nvme|mmcblk|r?disk)`), "a command that overwrites a disk device"},
	{regexp.MustCompile(`\b(chmod|chown|chgrp|chattr)\s+([^;&|\n]*\s)?-[a-z]*r[a-z]*\s+([^;&|\n]*\s)?/(\s|$|[;&|)])`), "a recursive permission change of /"},
}

// checkText applies the deny list's text patterns to a script the parser
// could not read.
func (g *Walker) checkText(src string) {
	norm := strings.NewReplacer(`'`, "", `"`, "", `\`, "").Replace(strings.ToLower(src))
	for _, r := range textRules {
		if r.re.MatchString(norm) {
			g.Deny("Refused: the command contains %s (it could not be parsed, so it was checked as text).", r.what)
			return
		}
	}
}

// And ends a source description before "cannot be checked": "`xargs` and",
// or with a comma when the description has one of its own.
func And(desc string) string {
	if strings.Contains(desc, ", ") {
		return desc + ", and"
	}
	return desc + " and"
}
