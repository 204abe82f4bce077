package guard

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"tinyelf/backend/shell/guard/walk"
	"unicode"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// ShellWord is one word of a simple command as a permission rule sees it.
type ShellWord struct {
	// Value is the word after quote removal when Literal; otherwise the
	// word as written.
	Value string
	// Literal reports that the word has no expansion (no $, no glob, no
	// brace list, no ~): what is written is what the command gets.
	Literal bool
}

// ShellCommand is one simple command of a script, for permission rules.
type ShellCommand struct {
	// Words are the command's words.
	Words []ShellWord
	// Assigns are the environment variables set for the command
	// (LD_PRELOAD=x cmd), or set in the shell (PATH=x; cmd) as a command of
	// their own with no words.
	Assigns []string
	// Writes are the files its redirections write to, as written.
	Writes []string
	// Text is the command as written.
	Text string
}

// SimpleCommands returns every simple command of a bash script in source
// order, including commands inside pipelines, lists, subshells, command and
// process substitutions, function bodies and compound commands. Shell
// assignments without a command (FOO=1, export FOO=1, for FOO in …) are
// returned as commands with Assigns and no Words, so that a rule can refuse
// to cover a script that changes PATH before running an allowed command.
func SimpleCommands(script string) ([]ShellCommand, error) {
	f, err := walk.Parse(script)
	if err != nil {
		return nil, fmt.Errorf("parse shell command: %w", err)
	}
	var cmds []ShellCommand
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			call, ok := n.Cmd.(*syntax.CallExpr)
			if !ok {
				if d, ok := n.Cmd.(*syntax.DeclClause); ok {
					cmds = append(cmds, declCommand(d, n))
				}
				return true
			}
			c := ShellCommand{Text: walk.Print(call)}
			for _, a := range call.Assigns {
				if a.Name != nil {
					c.Assigns = append(c.Assigns, a.Name.Value)
				}
			}
			for _, w := range call.Args {
				c.Words = append(c.Words, ruleWord(w))
			}
			for _, r := range n.Redirs {
				if t, ok := redirectTarget(r); ok {
					c.Writes = append(c.Writes, t)
				}
			}
			cmds = append(cmds, c)
		case *syntax.WordIter:
			cmds = append(cmds, ShellCommand{Assigns: []string{n.Name.Value}, Text: "for " + n.Name.Value})
		}
		return true
	})
	return cmds, nil
}

// declCommand turns export/declare/local/readonly into a command whose
// assignments are known.
func declCommand(d *syntax.DeclClause, s *syntax.Stmt) ShellCommand {
	c := ShellCommand{Text: walk.Print(d), Words: []ShellWord{{Value: d.Variant.Value, Literal: true}}}
	for _, a := range d.Args {
		switch {
		case a.Name != nil:
			c.Assigns = append(c.Assigns, a.Name.Value)
			c.Words = append(c.Words, ShellWord{Value: walk.Print(a)})
		case a.Value != nil:
			c.Words = append(c.Words, ruleWord(a.Value))
		}
	}
	for _, r := range s.Redirs {
		if t, ok := redirectTarget(r); ok {
			c.Writes = append(c.Writes, t)
		}
	}
	return c
}

// redirectTarget returns the file a redirection writes to; duplicating a
// descriptor and writing to /dev/null are not writing to a file.
func redirectTarget(r *syntax.Redirect) (string, bool) {
	switch r.Op {
	case syntax.RdrIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc, syntax.DplIn:
		return "", false
	}
	w := ruleWord(r.Word)
	if r.Op == syntax.DplOut && w.Literal && (w.Value == "-" || strings.Trim(w.Value, "0123456789") == "") {
		return "", false
	}
	if w.Literal && (w.Value == "/dev/null" || w.Value == "/dev/stdout" || w.Value == "/dev/stderr") {
		return "", false
	}
	return w.Value, true
}

// ruleWord resolves a word for rule matching: only quote removal.
func ruleWord(w *syntax.Word) ShellWord {
	if w == nil {
		return ShellWord{}
	}
	literal := true
	for i, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if walk.HasGlobMeta(&syntax.Word{Parts: []syntax.WordPart{p}}) || (i == 0 && strings.HasPrefix(p.Value, "~")) ||
				strings.Contains(p.Value, "{") && (strings.Contains(p.Value, ",") || strings.Contains(p.Value, "..")) {
				literal = false
			}
		case *syntax.SglQuoted:
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					literal = false
				}
			}
		default:
			literal = false
		}
	}
	if !literal {
		return ShellWord{Value: walk.WordText(w)}
	}
	// Fields, unlike Literal, removes the backslashes of unquoted text; a
	// word without expansions gives exactly one field.
	vals, err := expand.Fields(&expand.Config{}, w)
	if err != nil || len(vals) != 1 {
		return ShellWord{Value: walk.WordText(w)}
	}
	return ShellWord{Value: vals[0], Literal: true}
}

// ShellCommands returns every simple command of a bash script as a line:
// its words joined by single spaces, quoting removed, in source order. A
// word whose value is only known at run time is kept as written after a
// NUL byte, and a command no rule may cover exactly (it writes to a file,
// sets environment variables or uses a blocked argument, see CommandRisk)
// starts with NUL, so that a prefix written for literal commands matches
// neither. A shell assignment of an environment variable (PATH=…) is such
// a line of its own.
func ShellCommands(script string) ([]string, error) {
	cmds, err := SimpleCommands(script)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, c := range cmds {
		risky := CommandRisk(c, "") != ""
		if len(c.Words) == 0 {
			if risky {
				out = append(out, "\x00"+c.Text)
			}
			continue
		}
		words := make([]string, len(c.Words))
		for i, w := range c.Words {
			words[i] = w.Value
			if !w.Literal {
				words[i] = "\x00" + w.Value
			}
		}
		line := strings.Join(words, " ")
		if risky {
			line = "\x00" + line
		}
		out = append(out, line)
	}
	return out, nil
}

// CommandMatchesPrefix reports whether a line from ShellCommands starts
// with prefix on a word boundary: "git status -s" matches "git status", but
// "git statusx" does not.
func CommandMatchesPrefix(command, prefix string) bool {
	prefix = strings.Join(strings.Fields(prefix), " ")
	if prefix == "" {
		return false
	}
	return command == prefix || strings.HasPrefix(command, prefix+" ")
}

// BashRule is a Bash permission pattern in Claude Code's notation:
// "git status" allows exactly that command, "git status:*" that command
// with any further arguments.
type BashRule struct {
	Words  []string
	Prefix bool
}

// ParseBashRule reads a Bash rule pattern ("git status:*", "npm test",
// "Bash(git diff:*)"); a trailing " *" is taken for ":*".
func ParseBashRule(pattern string) (BashRule, error) {
	p := strings.TrimSpace(pattern)
	if inner, ok := strings.CutPrefix(p, "Bash("); ok && strings.HasSuffix(inner, ")") {
		p = strings.TrimSpace(strings.TrimSuffix(inner, ")"))
	}
	var r BashRule
	switch {
	case strings.HasSuffix(p, ":*"):
		r.Prefix, p = true, strings.TrimSuffix(p, ":*")
	case strings.HasSuffix(p, " *"):
		r.Prefix, p = true, strings.TrimSuffix(p, " *")
	}
	if strings.TrimSpace(p) == "" {
		return BashRule{}, fmt.Errorf("the rule %q names no command", pattern)
	}
	cmds, err := SimpleCommands(p)
	if err != nil || len(cmds) != 1 || len(cmds[0].Assigns) > 0 || len(cmds[0].Writes) > 0 {
		return BashRule{}, fmt.Errorf("the rule %q is not one simple command", pattern)
	}
	for _, w := range cmds[0].Words {
		if !w.Literal {
			return BashRule{}, fmt.Errorf("the rule %q has a word with an expansion (%s); write it literally", pattern, w.Value)
		}
		r.Words = append(r.Words, w.Value)
	}
	return r, nil
}

// String writes the rule back in Claude Code's notation, without "Bash()".
func (r BashRule) String() string {
	s := quoteWords(r.Words)
	if r.Prefix {
		s += ":*"
	}
	return s
}

func quoteWords(words []string) string {
	parts := make([]string, len(words))
	for i, w := range words {
		parts[i] = w
		if w == "" || strings.ContainsAny(w, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
			if q, err := syntax.Quote(w, syntax.LangBash); err == nil {
				parts[i] = q
			}
		}
	}
	return strings.Join(parts, " ")
}

// Covers reports whether the rule allows one simple command: the same
// literal words (and, for a prefix rule, any further arguments), no
// environment assignment, no redirection to a file, and no argument on the
// command's blocklist (see CommandRisk). wsDir is the workspace folder.
func (r BashRule) Covers(c ShellCommand, wsDir string) bool {
	if len(c.Words) == 0 || len(r.Words) == 0 || len(c.Words) < len(r.Words) {
		return false
	}
	if !r.Prefix && len(c.Words) != len(r.Words) {
		return false
	}
	for i, w := range r.Words {
		if !c.Words[i].Literal || c.Words[i].Value != w {
			return false
		}
	}
	return CommandRisk(c, wsDir) == ""
}

// Names reports whether the rule names the command: its words start with
// the rule's, whatever else the command does. Deny rules match this way.
func (r BashRule) Names(words []string) bool {
	if len(words) < len(r.Words) || (!r.Prefix && len(words) != len(r.Words)) {
		return false
	}
	for i, w := range r.Words {
		if words[i] != w && walk.CommandBase(words[i]) != w {
			return false
		}
	}
	return true
}

// blockedArgs are, per command, the arguments that make it run other code,
// write elsewhere or change what it is: a rule never covers a command that
// uses one. An entry ending in "=" also blocks "--opt=value"; "@sub"
// entries apply only after that subcommand.
var blockedArgs = map[string][]string{
	"git":     {"-c", "--config-env", "--exec-path", "--upload-pack", "--receive-pack", "--exec", "--open-files-in-pager", "--extcmd", "--tool-cmd", "--template", "--output", "--git-dir", "--work-tree", "@grep -O", "@rebase -x", "@clone -u", "@ls-remote -u", "@config", "@filter-branch", "@submodule foreach", "@bisect run"},
	"go":      {"-exec", "--exec", "-toolexec", "--toolexec", "-overlay", "--overlay", "-vettool", "--vettool", "-modfile", "--modfile", "-C", "@run", "@generate"},
	"find":    {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"},
	"npm":     {"--script-shell", "--node-options", "--userconfig", "--globalconfig", "-g", "--global", "--location", "@exec", "@x"},
	"pnpm":    {"--script-shell", "--node-options", "-g", "--global", "@exec", "@dlx"},
	"yarn":    {"--script-shell", "--node-options", "global", "@exec", "@dlx"},
	"npx":     {"-c", "--call"},
	"make":    {"-f", "--file", "--makefile", "-E", "--eval", "SHELL", "-C", "--directory"},
	"cargo":   {"--config", "-Z"},
	"rsync":   {"-e", "--rsh", "--rsync-path", "--delete", "--del", "--remove-source-files"},
	"tar":     {"--to-command", "-I", "--use-compress-program", "--checkpoint-action", "--info-script", "-F", "--new-volume-script", "--rsh-command"},
	"ssh":     {"-o", "-F"},
	"scp":     {"-o", "-F", "-S"},
	"sftp":    {"-o", "-F", "-S"},
	"sed":     {"-i", "--in-place"},
	"docker":  {"--privileged", "-v", "--volume", "--mount", "--device", "--cap-add", "--security-opt", "--pid", "--userns"},
	"podman":  {"--privileged", "-v", "--volume", "--mount", "--device", "--cap-add", "--security-opt", "--pid", "--userns"},
	"curl":    {"-K", "--config"},
	"wget":    {"-e", "--execute"},
	"less":    {"-o", "--log-file"},
	"man":     {"-P", "--pager", "-H", "--html"},
	"xargs":   {"-a", "--arg-file"},
	"awk":     {},
	"gawk":    {},
	"env":     {"-S", "--split-string", "-C", "--chdir"},
	"timeout": {},
}

// outsideArgs are options whose value must stay inside the workspace.
var outsideArgs = map[string][]string{
	"npm":  {"--prefix", "-C"},
	"pnpm": {"--prefix", "-C", "--dir"},
	"yarn": {"--cwd"},
	"go":   {"-o"},
	"curl": {"-o", "--output", "--output-dir"},
	"wget": {"-O", "--output-document", "-P", "--directory-prefix"},
	"git":  {"-C"},
	"cp":   {"-t", "--target-directory"},
}

// CommandRisk says why no allow rule may cover a simple command, or ""
// when a rule may: it sets environment variables, writes to a file through
// a redirection, uses an argument on the command's blocklist (git -c,
// go test -exec, find -delete…), points a --prefix-like option outside the
// workspace, or passes arguments the guard cannot check to a command that
// has a blocklist.
func CommandRisk(c ShellCommand, wsDir string) string {
	for _, a := range c.Assigns {
		if len(c.Words) > 0 || envLike(a) {
			return fmt.Sprintf("it sets the environment variable %s", a)
		}
	}
	if len(c.Words) == 0 {
		return ""
	}
	if len(c.Writes) > 0 {
		return fmt.Sprintf("it writes to the file %s", c.Writes[0])
	}
	name := walk.CommandBase(c.Words[0].Value)
	blocked, hasList := blockedArgs[name]
	sub := ""
	for _, w := range c.Words[1:] {
		if w.Literal && !strings.HasPrefix(w.Value, "-") {
			sub = w.Value
			break
		}
	}
	for _, w := range c.Words[1:] {
		if !w.Literal {
			if hasList {
				return fmt.Sprintf("its argument %s is only known when it runs, and %s has arguments a rule must not allow", w.Value, name)
			}
			continue
		}
		v := w.Value
		for _, b := range blocked {
			if s, rest, ok := strings.Cut(strings.TrimPrefix(b, "@"), " "); strings.HasPrefix(b, "@") {
				if s == sub && (!ok || v == rest) {
					return fmt.Sprintf("`%s %s` runs other code", name, strings.TrimPrefix(b, "@"))
				}
				continue
			}
			if v == b || strings.HasPrefix(v, b+"=") || (name == "make" && strings.HasPrefix(v, b+"=")) ||
				(len(b) == 2 && b[0] == '-' && b[1] != '-' && strings.HasPrefix(v, b) && len(v) > 2 && !strings.HasPrefix(v, "--") && name != "git" && name != "go") {
				return fmt.Sprintf("it uses %s, which a rule for %s does not allow", b, name)
			}
		}
		switch name {
		case "make":
			if walk.IsAssignment(v) {
				return fmt.Sprintf("it sets the make variable %s", strings.SplitN(v, "=", 2)[0])
			}
		case "awk", "gawk", "mawk", "nawk":
			if strings.Contains(v, "system") || strings.Contains(v, "|") || strings.Contains(v, "getline") || strings.Contains(v, ">") {
				return "its awk program runs commands or writes files"
			}
		case "sed", "gsed":
			if sc := parseSed(v); len(sc.exec) > 0 || sc.runsText || len(sc.writes) > 0 {
				return "its sed script runs commands or writes files"
			}
		}
	}
	for _, opt := range outsideArgs[name] {
		for i, w := range c.Words {
			val := ""
			switch {
			case w.Value == opt && i+1 < len(c.Words):
				val = c.Words[i+1].Value
				if !c.Words[i+1].Literal {
					return fmt.Sprintf("the folder %s %s uses is only known when it runs", name, opt)
				}
			case strings.HasPrefix(w.Value, opt+"="):
				val = strings.TrimPrefix(w.Value, opt+"=")
			default:
				continue
			}
			if !insideDir(wsDir, val) {
				return fmt.Sprintf("its %s %s is outside the workspace", opt, val)
			}
		}
	}
	return ""
}

// envLike reports whether a shell variable name is one programs read from
// the environment (PATH, LD_PRELOAD, http_proxy…) rather than a script's
// own lower-case variable.
func envLike(name string) bool {
	if strings.HasSuffix(strings.ToLower(name), "_proxy") {
		return true
	}
	return !strings.ContainsFunc(name, unicode.IsLower)
}

// insideDir reports whether a path given to a command lies in dir.
func insideDir(dir, p string) bool {
	if dir == "" {
		return true
	}
	if strings.HasPrefix(p, "~") || strings.Contains(p, "$") {
		return false
	}
	if !strings.HasPrefix(p, "/") {
		p = dir + "/" + p
	}
	p = path.Clean(p)
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// SuggestBashRules proposes the rules "allow always" would save for a
// script: one per simple command, the command and its subcommand with any
// arguments for tools whose second word picks what they do ("git status:*",
// "npm test:*"), the first word for other plain commands ("ls:*"), and the
// exact command for programs that run other code (bash, sudo, xargs,
// python…). A command no rule may cover (CommandRisk) gets none, and ok is
// false when any command is left uncovered.
func SuggestBashRules(script, wsDir string) (rules []BashRule, ok bool) {
	cmds, err := SimpleCommands(script)
	if err != nil || len(cmds) == 0 {
		return nil, false
	}
	ok = true
	for _, c := range cmds {
		if len(c.Words) == 0 {
			if CommandRisk(c, wsDir) != "" {
				ok = false
			}
			continue
		}
		if CommandRisk(c, wsDir) != "" || !c.Words[0].Literal {
			ok = false
			continue
		}
		r := suggestOne(c)
		if !slices.ContainsFunc(rules, func(o BashRule) bool { return o.String() == r.String() }) {
			rules = append(rules, r)
		}
	}
	return rules, ok
}

// runsCode are commands whose arguments are code or another command: an
// "always" rule for them names the exact command.
var runsCode = map[string]bool{
	"bash": true, "sh": true, "zsh": true, "dash": true, "ksh": true, "fish": true, "eval": true, "exec": true, "source": true, ".": true,
	"sudo": true, "doas": true, "su": true, "env": true, "xargs": true, "parallel": true, "nohup": true, "timeout": true, "time": true,
	"nice": true, "watch": true, "command": true, "builtin": true, "ssh": true, "find": true, "awk": true, "gawk": true, "sed": true,
	"perl": true, "ruby": true, "node": true, "php": true, "lua": true, "deno": true, "bun": true, "npx": true, "rm": true, "dd": true,
	"chmod": true, "chown": true, "mv": true, "kill": true, "pkill": true, "killall": true, "trap": true, "alias": true, "setsid": true,
	"stdbuf": true, "flock": true, "script": true, "tmux": true, "screen": true, "at": true, "crontab": true, "rsync": true, "shred": true,
}

func suggestOne(c ShellCommand) BashRule {
	words := make([]string, 0, len(c.Words))
	for _, w := range c.Words {
		if !w.Literal {
			break
		}
		words = append(words, w.Value)
	}
	name := walk.CommandBase(words[0])
	if runsCode[name] || interpreterFor(name) != nil {
		if len(words) == len(c.Words) {
			return BashRule{Words: words}
		}
		return BashRule{Words: words, Prefix: true}
	}
	if len(words) > 1 && subcommandTools[name] && isSubcommand(words[1]) {
		return BashRule{Words: words[:2], Prefix: true}
	}
	return BashRule{Words: words[:1], Prefix: true}
}

// subcommandTools are commands whose second word picks what they do, so an
// "always" rule names it: allowing "git status" is not allowing "git push".
var subcommandTools = map[string]bool{
	"git": true, "go": true, "npm": true, "pnpm": true, "yarn": true, "deno": true,
	"cargo": true, "docker": true, "podman": true, "kubectl": true, "helm": true, "gh": true, "pip": true, "pip3": true,
	"uv": true, "poetry": true, "mvn": true, "gradle": true, "dotnet": true, "terraform": true,
	"systemctl": true, "apt": true, "apt-get": true, "brew": true, "make": true, "task": true, "just": true,
}

func isSubcommand(w string) bool {
	if w == "" || strings.ContainsAny(w, "-/.=~$") {
		return false
	}
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == ':') {
			return false
		}
	}
	return true
}

// ResolvedCommands returns the commands the shell guard sees a script run,
// after expansions, wrappers (sudo, env, xargs…) and nested code (bash -c,
// eval) are followed, as words. Deny rules are matched against these too,
// so `sudo rm` and `bash -c 'rm …'` meet a rule for rm. wsDir is the
// workspace folder ("" for none).
func ResolvedCommands(script, wsDir string) [][]string {
	return newChecker(wsDir, walk.Options{}).Resolve(script)
}
