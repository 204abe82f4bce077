package guard

import (
	"encoding/base64"
	"regexp"
	"strings"
	"tinyelf/backend/shell/guard/walk"
	"unicode/utf16"
)

// The inline code of the usual interpreters (python -c, perl -e, node -e,
// ruby -e, php -r, awk programs) and the scripts they run are scanned for
// the obvious destructive calls: running a shell command (checked like any
// other), deleting a folder tree, killing every process, forking without
// end, writing to a disk device, and running code built at run time.

// decodePwsh decodes PowerShell's -EncodedCommand (base64 of UTF-16LE).
func decodePwsh(s string) string {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b)%2 != 0 {
		return s
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
	}
	return string(utf16.Decode(u))
}

// codeCall is a family of calls in interpreter code.
type codeCall struct {
	re   *regexp.Regexp // matches up to the opening of the arguments
	kind string         // "shell", "argv", "rmtree", "remove", "eval", "kill"
	// recursive, for "rmtree", is what the arguments say when the delete
	// is recursive; without it the call deletes one file or empty folder.
	recursive *regexp.Regexp
	// skip is how many arguments come before the command (Emacs'
	// start-process NAME BUFFER PROGRAM…, C's execl(PATH, ARGV0…)); gap
	// how many come between the program and its arguments.
	skip, gap int
}

var (
	pyCalls = []codeCall{
		{re: regexp.MustCompile(`\b(os\.system|os\.popen|subprocess\.getoutput|subprocess\.getstatusoutput|commands\.getoutput|asyncio\.create_subprocess_shell|pty\.spawn)\s*\(`), kind: "shell"},
		{re: regexp.MustCompile(`\bsubprocess\.(run|call|check_call|check_output|Popen)\s*\(`), kind: "argv"},
		{re: regexp.MustCompile(`\bos\.(exec[lv]p?e?|spawn[lv]p?e?|posix_spawnp?)\s*\(`), kind: "argv"},
		{re: regexp.MustCompile(`\bsystem\s*\(`), kind: "shell"},
		{re: regexp.MustCompile(`\b(shutil\.rmtree|rmtree|os\.removedirs)\s*\(`), kind: "rmtree"},
		{re: regexp.MustCompile(`\b(os\.remove|os\.unlink|os\.rmdir)\s*\(`), kind: "remove"},
		{re: regexp.MustCompile(`\b(exec|eval|compile)\s*\(`), kind: "eval"},
		{re: regexp.MustCompile(`\bos\.(kill|killpg)\s*\(`), kind: "kill"},
	}
	perlCalls = []codeCall{
		{re: regexp.MustCompile(`\b(system|exec)\b\s*\(?`), kind: "argv"},
		{re: regexp.MustCompile(`\b(rmtree|remove_tree)\b\s*\(?`), kind: "rmtree"},
		{re: regexp.MustCompile(`\b(unlink|rmdir)\b\s*\(?`), kind: "remove"},
		{re: regexp.MustCompile(`\beval\b\s*\(?`), kind: "eval"},
		{re: regexp.MustCompile(`\bkill\b\s*\(?`), kind: "kill"},
	}
	rubyCalls = []codeCall{
		{re: regexp.MustCompile(`\b(system|exec|spawn|IO\.popen|Open3\.\w+|Kernel\.system|Process\.spawn)\b\s*\(?`), kind: "argv"},
		{re: regexp.MustCompile(`\b(FileUtils\.(rm_rf|rm_r|remove_dir|remove_entry|remove_entry_secure|rmtree)|Pathname\.new\([^)]*\)\.rmtree)\s*\(?`), kind: "rmtree"},
		{re: regexp.MustCompile(`\b(FileUtils\.(rm|rm_f|remove)|File\.delete|File\.unlink|Dir\.rmdir|Dir\.delete)\s*\(?`), kind: "remove"},
		{re: regexp.MustCompile(`\b(eval|instance_eval|class_eval)\b\s*\(?`), kind: "eval"},
		{re: regexp.MustCompile(`\bProcess\.kill\s*\(`), kind: "kill"},
	}
	jsCalls = []codeCall{
		{re: regexp.MustCompile(`\b(exec|execSync)\s*\(`), kind: "shell"},
		{re: regexp.MustCompile(`\b(spawn|spawnSync|execFile|execFileSync|fork|Bun\.spawn|Bun\.spawnSync)\s*\(`), kind: "argv"},
		{re: regexp.MustCompile(`\b(rmSync|rmdirSync|rm|rmdir|removeSync|remove|emptyDirSync|emptyDir|rimraf|rimrafSync|deleteSync|del)\s*\(`), kind: "rmtree"},
		{re: regexp.MustCompile(`\b(unlinkSync|unlink)\s*\(`), kind: "remove"},
		{re: regexp.MustCompile(`\b(eval|Function|runInThisContext|runInNewContext)\s*\(`), kind: "eval"},
		{re: regexp.MustCompile(`\bprocess\.kill\s*\(`), kind: "kill"},
	}
	phpCalls = []codeCall{
		{re: regexp.MustCompile(`\b(system|exec|shell_exec|passthru|popen|proc_open|pcntl_exec)\s*\(`), kind: "shell"},
		{re: regexp.MustCompile(`\b(rmdir)\s*\(`), kind: "rmtree"},
		{re: regexp.MustCompile(`\b(unlink)\s*\(`), kind: "remove"},
		{re: regexp.MustCompile(`\b(eval|assert|create_function)\s*\(`), kind: "eval"},
		{re: regexp.MustCompile(`\bposix_kill\s*\(`), kind: "kill"},
	}
	awkCalls = []codeCall{
		{re: regexp.MustCompile(`\bsystem\s*\(`), kind: "shell"},
	}
	luaCalls = []codeCall{
		{re: regexp.MustCompile(`\b(os\.execute|io\.popen)\s*\(?`), kind: "shell"},
		{re: regexp.MustCompile(`\bos\.remove\s*\(`), kind: "remove"},
		{re: regexp.MustCompile(`\b(load|loadstring)\s*\(`), kind: "eval"},
	}
	rCalls = []codeCall{
		{re: regexp.MustCompile(`\b(system|shell)\s*\(`), kind: "shell"},
		{re: regexp.MustCompile(`\bsystem2\s*\(`), kind: "argv"},
		{re: regexp.MustCompile(`\bunlink\s*\(`), kind: "rmtree", recursive: regexp.MustCompile(`recursive\s*=\s*(TRUE|T)\b`)},
		{re: regexp.MustCompile(`\bfile\.remove\s*\(`), kind: "remove"},
		{re: regexp.MustCompile(`\beval\s*\(\s*parse\s*\(\s*text\s*=`), kind: "eval"},
	}
	pwshCalls = []codeCall{
		{re: regexp.MustCompile(`(?i)\bStart-Process\s+`), kind: "argv"},
		{re: regexp.MustCompile(`(?i)\b(Invoke-Expression|iex)\b\s*\(?`), kind: "eval"},
		{re: regexp.MustCompile(`(?i)\b(cmd(\.exe)?\s+/c|bash\s+-c|sh\s+-c)\s+`), kind: "shell"},
	}
)

// codeCalls are the call tables of the languages above; moreCalls
// (codelangs.go) has the others.
var codeCalls = map[string][]codeCall{
	"python": pyCalls, "perl": perlCalls, "ruby": rubyCalls, "js": jsCalls, "php": phpCalls,
	"awk": awkCalls, "lua": luaCalls, "r": rCalls, "pwsh": pwshCalls,
}

// Code patterns refused whatever their arguments.
var (
	forkCall     = regexp.MustCompile(`\b(os\.fork|fork|pcntl_fork|child_process\.fork|Process\.fork|posix\.fork|spawn|Popen|Process\.spawn|Bun\.spawn)\s*(\(|\bwhile\b|\buntil\b|;|$|\{|\})`)
	endlessLoop  = regexp.MustCompile(`(?i)\bwhile\s*\(?\s*(1|true|:)\s*\)?|\bwhile\s+fork\b|\bloop\s*(do|\{)|\bfor\s*\(\s*;\s*;\s*\)|\buntil\s+false\b|\bwhile\b[^\n;]*\bfork\b|\b1\s+while\b|\bfork\s+while\b|\bwhile\s*\(\s*fork|\biter\(\s*int\s*,|itertools\.count\(|setInterval\(|\buntil\s*\(?\s*0\b`)
	killAllCode  = regexp.MustCompile(`\b(os\.kill|os\.killpg|process\.kill|Process\.kill|posix_kill|kill)\s*\(?\s*(-1\s*[,)]|['":]?\w*['"]?\s*,\s*-1\b|9\s*,\s*-1\b|-9\s*,\s*-1\b|['"]KILL['"]\s*,\s*-1\b)`)
	writeMode    = regexp.MustCompile(`['"](w|wb|w\+|wb\+|r\+|rb\+|r\+b|a|ab|a\+)['"]|O_WRONLY|O_RDWR|writeFile|createWriteStream|write_bytes|write_text|File\.write|IO\.write|file_put_contents|fopen\s*\([^)]*,\s*['"][wa]|open\s*\([^,]*,\s*['"]\s*[>+|]|>\s*/dev/|\bsysopen\b|\.write\(`)
	pwshDestroy  = regexp.MustCompile(`(?i)\b(Format-Volume|Clear-Disk|Initialize-Disk|Remove-Partition|Stop-Computer|Restart-Computer)\b`)
	pwshRemove   = regexp.MustCompile(`(?i)\b(Remove-Item|rm|del|erase|rd|rmdir|ri)\b([^;|\n]*)`)
	stringLitRe  = regexp.MustCompile(`'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"`)
	backtickCode = regexp.MustCompile("`([^`]*)`|\\bqx\\s*[({\\[/]([^)}\\]/]*)[)}\\]/]|%x\\s*[({\\[]([^)}\\]]*)[)}\\]]")
)

// killInitCode matches a signal sent to PID 1 in interpreter code: the
// pid first (os.kill(1, 9), process.kill(1), posix_kill(1, 9), kill(1,
// SIGKILL)) or, in Perl and Ruby, after the signal (kill 9, 1;
// Process.kill(:KILL, 1)).
var (
	killInitCode     = regexp.MustCompile(`\b(os\.kill|os\.killpg|process\.kill|posix_kill|Deno\.kill|kill)\s*\(\s*1\s*[,)]`)
	killInitSigFirst = regexp.MustCompile(`\b(Process\.kill|kill)\s*\(?\s*[:'"]?-?\w+['"]?\s*,\s*(?:\d+\s*,\s*)*1\s*(?:[,);]|$)`)
)

// dangerousNames are functions whose name, written as a string, means the
// code picks them at run time (getattr(os, "system")).
var dangerousNames = map[string]bool{
	"system": true, "popen": true, "rmtree": true, "remove": true, "unlink": true, "removedirs": true, "rmdir": true,
	"execv": true, "execvp": true, "execl": true, "execlp": true, "spawn": true, "spawnSync": true, "execSync": true,
	"exec": true, "rmSync": true, "rm_rf": true, "fork": true, "kill": true, "shell_exec": true, "passthru": true,
	"Popen": true, "check_output": true, "check_call": true, "getoutput": true, "__import__": true,
}

// scanCode checks a program in lang. strict code (given inline) is held
// when it runs commands or deletes paths built at run time; a script file
// only gets a warning for those, since real programs compute paths all the
// time.
func (g *checker) scanCode(st *walk.State, lang, code, origin string, strict bool) {
	if lang == "sh" {
		g.Code(st, code, origin)
		return
	}
	if g.Depth > walk.MaxShellDepth {
		return
	}
	g.Depth++
	defer func() { g.Depth-- }()
	unknown := func(format string, args ...any) {
		if strict {
			g.Hold(format, args...)
		} else {
			g.Warn(format, args...)
		}
	}
	switch lang {
	case "shlike", "xonsh":
		// A shell language the guard does not parse: what bash would read
		// in it is checked for what would be refused.
		g.Quiet++
		g.Code(st.Clone(), code, origin)
		g.Quiet--
		if lang == "shlike" {
			return
		}
		lang = "python"
	case "ipython":
		g.scanLines(st, lang, code, origin, strict)
		lang = "python"
	}
	if lineRules[lang] != nil {
		g.scanLines(st, lang, code, origin, strict)
	}
	if lang == "python" {
		code = pyAliases(code)
	}
	g.codeVars = codeAssignments(code)
	if strict && (lang == "python" || lang == "js" || lang == "ruby" || lang == "perl" || lang == "php") {
		for _, lit := range stringLitRe.FindAllString(code, -1) {
			if dangerousNames[lit[1:len(lit)-1]] {
				g.Hold("The code %s runs calls a function chosen when it runs (%s), which cannot be checked before it runs.", origin, lit)
				break
			}
		}
	}
	if forkCall.MatchString(code) && endlessLoop.MatchString(code) {
		g.Deny("Refused: the code %s runs forks new processes in an endless loop (a fork bomb), which exhausts the system's processes.", origin)
	}
	if killAllCode.MatchString(code) {
		g.Deny("Refused: the code %s runs would kill every process of the user (signal to pid -1).", origin)
	}
	if killInitCode.MatchString(code) && lang != "perl" && lang != "ruby" && lang != "raku" || killInitSigFirst.MatchString(code) && (lang == "perl" || lang == "ruby" || lang == "raku") {
		g.Deny("Refused: the code %s runs would signal PID 1 (init, the first process of the system), which brings the whole system down.", origin)
	}
	if lang == "applescript" && appleScriptTell.MatchString(code) {
		if m := appleScriptPower.FindString(code); m != "" {
			what := powerOff
			if strings.EqualFold(m, "sleep") {
				what = walk.PowerSuspend
			}
			g.Deny("Refused: the code %s runs would %s.", origin, what)
		}
	}
	if lang == "js" {
		g.scanJSRuntimes(st, code, origin, unknown)
	}
	g.scanReceivers(st, lang, code, origin)
	for _, lit := range stringLitRe.FindAllString(code, -1) {
		v := lit[1 : len(lit)-1]
		if (walk.IsDiskDevice(v) && strings.HasPrefix(v, "/dev/")) || walk.IsSysrq(v) {
			if writeMode.MatchString(code) {
				g.Deny("Refused: the code %s runs writes to %s, which would destroy a disk's data or trigger the kernel's SysRq actions.", origin, v)
			}
		}
	}
	if lang == "pwsh" {
		g.scanPwsh(st, code, origin)
	}
	if lang == "perl" || lang == "ruby" || lang == "php" || lang == "js" || lang == "julia" || lang == "crystal" || lang == "raku" || lang == "gnuplot" {
		for _, m := range backtickCode.FindAllStringSubmatch(code, -1) {
			cmd := m[1] + m[2] + m[3]
			if lang == "js" {
				if !strings.Contains(code, "exec") {
					continue // a template string, not a command
				}
			}
			if strings.Contains(cmd, "${") || strings.Contains(cmd, "#{") || (lang != "js" && strings.Contains(cmd, "$")) {
				unknown("The command the code %s runs in backticks is built when it runs and cannot be checked before it runs.", origin)
			}
			if lang != "js" {
				g.Code(st.Clone(), cmd, "the code "+origin+" runs in backticks")
			}
		}
	}
	if lang == "awk" {
		for _, stmt := range strings.FieldsFunc(code, func(r rune) bool { return r == ';' || r == '\n' || r == '{' || r == '}' }) {
			m := regexp.MustCompile(`^\s*(print|printf)\b(.*)\|\s*("(?:[^"\\]|\\.)*")\s*$`).FindStringSubmatch(stmt)
			if m == nil {
				if g2 := regexp.MustCompile(`("(?:[^"\\]|\\.)*")\s*\|\s*getline`).FindStringSubmatch(stmt); g2 != nil {
					g.Code(st.Clone(), unquoteCode(g2[1]), "the code "+origin+" reads from")
				}
				continue
			}
			target := unquoteCode(m[3])
			g.Code(st.Clone(), target, "the code "+origin+" pipes to")
			if f := strings.Fields(target); len(f) > 0 && walk.IsShell(walk.CommandBase(f[0])) {
				data, ok := g.evalArgs("awk", strings.TrimSpace(m[2]))
				if ok && len(data) > 0 {
					g.Code(st.Clone(), data[0], "the text "+origin+" pipes to "+f[0])
				} else {
					g.Hold("The code %s pipes to %s is built when it runs and cannot be checked before it runs.", origin, f[0])
				}
			}
		}
	}
	calls := codeCalls[lang]
	if calls == nil {
		calls = moreCalls[lang]
	}
	for _, cc := range calls {
		for _, loc := range cc.re.FindAllStringIndex(code, 8) {
			name := strings.Trim(strings.TrimSpace(code[loc[0]:loc[1]]), "([{;| ")
			argText := callArgs(code, loc[1], lispLangs[lang] || strings.HasSuffix(code[loc[0]:loc[1]], "("))
			if lang == "tcl" && cc.kind == "shell" {
				argText = strings.TrimRight(strings.TrimSpace(argText), `"}`)
				argText = "{" + argText + "}"
			}
			vals, ok := g.callValues(lang, cc, argText)
			what := "`" + name + "` in " + origin
			if cc.recursive != nil && !cc.recursive.MatchString(argText) {
				cc.kind = "remove"
			}
			switch cc.kind {
			case "shell":
				if !ok || len(vals) == 0 {
					if strings.TrimSpace(argText) != "" {
						unknown("The command %s runs is built when it runs and cannot be checked before it runs.", what)
					}
					continue
				}
				g.Code(st.Clone(), vals[0], what)
			case "argv":
				if !ok || len(vals) == 0 {
					if strings.TrimSpace(argText) != "" {
						unknown("The command %s runs is built when it runs and cannot be checked before it runs.", what)
					}
					continue
				}
				if len(vals) == 1 && (lang == "perl" || lang == "ruby" || lang == "crystal" || strings.Contains(argText, "shell=True") || lang == "tcl") {
					g.Code(st.Clone(), vals[0], what)
					continue
				}
				if lang == "python" && strings.HasPrefix(name, "os.") && len(vals) > 1 {
					vals = vals[1:] // os.execvp(file, [argv0, …])
				}
				words := make([]walk.Arg, len(vals))
				for i, v := range vals {
					words[i] = walk.Known(v)
				}
				g.Command(nil, st.Clone(), words, &walk.Src{Text: what})
			case "rmtree", "remove":
				if !ok || len(vals) == 0 {
					if strings.TrimSpace(argText) != "" && (cc.kind == "rmtree" || strict) {
						unknown("The folders %s deletes are computed when it runs and cannot be checked before it runs.", what)
					}
					continue
				}
				if lang == "js" && cc.kind == "rmtree" && (name == "rm" || name == "rmSync" || name == "rmdir" || name == "rmdirSync") && !strings.Contains(argText, "recursive") {
					cc.kind = "remove"
				}
				kind := killRecursive
				if cc.kind == "remove" {
					kind = killFiles
				}
				label := "`" + name + "(" + walk.Clip(argText, 40) + ")` in " + origin
				g.destroy(&walk.Call{Env: st, Args: []walk.Arg{walk.Known(name), walk.Known(vals[0])}, Label: label}, kind, name, []walk.Arg{walk.Known(vals[0])})
			case "eval":
				if !ok || len(vals) == 0 {
					if strings.TrimSpace(argText) != "" && !(lang == "python" && name == "compile") {
						unknown("The code %s runs is built when it runs and cannot be checked before it runs.", what)
					}
					continue
				}
				g.scanCode(st, lang, vals[0], what, strict)
			}
		}
	}
}

// scanPwsh checks the PowerShell commands that erase disks, power off or
// delete folder trees.
func (g *checker) scanPwsh(st *walk.State, code, origin string) {
	if m := pwshDestroy.FindString(code); m != "" {
		g.Deny("Refused: the code %s runs uses %s, which erases disks or shuts the computer down.", origin, m)
	}
	for _, m := range pwshRemove.FindAllStringSubmatch(code, -1) {
		args := m[2]
		if !regexp.MustCompile(`(?i)(^|\s)-(r|recurse)\b`).MatchString(args) {
			continue
		}
		for _, f := range strings.Fields(args) {
			f = strings.Trim(f, `'"`)
			switch {
			case strings.HasPrefix(f, "-"):
			case regexp.MustCompile(`(?i)^[a-z]:[\\/]?\*?$`).MatchString(f), f == "/", f == "\\", f == "~", strings.EqualFold(f, "$HOME"), strings.EqualFold(f, "$env:USERPROFILE"), strings.EqualFold(f, "$env:SystemRoot"), strings.EqualFold(f, `C:\Windows`), strings.EqualFold(f, `C:\Users`):
				g.Deny("Refused: the code %s runs would recursively delete %s.", origin, f)
			default:
				g.destroy(&walk.Call{Env: st, Args: []walk.Arg{walk.Known("Remove-Item"), walk.Known(f)}, Label: "`Remove-Item " + f + "` in " + origin}, killRecursive, "Remove-Item -Recurse", []walk.Arg{walk.Known(strings.ReplaceAll(f, `\`, "/"))})
			}
		}
	}
}
