package skills

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"tinyelf/backend/config"
	"tinyelf/backend/shell/guard"
	"tinyelf/backend/tools"
)

// AllowKind says what an allowed-tools entry covers.
type AllowKind string

// The kinds of allowed-tools entries.
const (
	// AllowWholeTool covers every call of Tool ("Read", "Bash",
	// "Bash(*)"). Tool may end in "*" ("mcp__github__*"): every tool whose
	// name starts with the rest.
	AllowWholeTool AllowKind = "tool"
	// AllowCommandPrefix covers Bash scripts whose every command starts with
	// Command on a word boundary: "Bash(git:*)" and "Bash(git *)" give
	// Command "git", which allows "git status" and "git log -p" but not
	// "gitk", nor "git status; rm x".
	AllowCommandPrefix AllowKind = "prefix"
	// AllowCommandExact covers Bash scripts whose every command is exactly
	// Command ("Bash(npm test)": "npm test", not "npm test --watch").
	AllowCommandExact AllowKind = "exact"
	// AllowCommandPattern covers Bash commands matching a wildcard pattern
	// with "*" elsewhere than at the end ("Bash(git * main)", "Bash(npm*)").
	AllowCommandPattern AllowKind = "pattern"
	// AllowScoped is another tool with a specifier ("Read(./src/**)",
	// "WebFetch(domain:example.com)"): TinyElf has no rules of that shape,
	// so it keeps the tool in a filtered registry but pre-approves nothing.
	AllowScoped AllowKind = "scoped"
)

// AllowedTool is one entry of a skill's or command's allowed-tools field, in
// Claude Code's syntax, mapped onto TinyElf's tool names.
type AllowedTool struct {
	// Raw is the entry as written ("Bash(git:*)").
	Raw string `json:"raw"`
	// Tool is the TinyElf tool name or name pattern ("Bash", "ListDir" for
	// Claude Code's LS, "mcp__x__*").
	Tool string `json:"tool"`
	// Specifier is the text inside the parentheses, "" when none.
	Specifier string    `json:"specifier,omitempty"`
	Kind      AllowKind `json:"kind"`
	// Command is, for Bash, the command prefix, the exact command or the
	// wildcard pattern, with spaces normalised.
	Command string `json:"command,omitempty"`
}

// AllowedTools is a parsed allowed-tools field. The zero value allows
// nothing. An AllowedTools never widens what deny rules, plan mode or the
// shell deny list forbid: it is consulted only where the gate would ask.
type AllowedTools []AllowedTool

// claudeToolNames maps Claude Code's tool names onto TinyElf's where they
// differ.
var claudeToolNames = map[string]string{
	"LS":           "ListDir",
	"MultiEdit":    "Edit",
	"Task":         "spawn_agent",
	"Agent":        "spawn_agent",
	"Skill":        "read_skill",
	"SlashCommand": "slash_command",
}

var toolNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]+\*?$`)

// ParseAllowedTools parses allowed-tools in Claude Code's syntax: entries
// separated by spaces or commas (spaces inside parentheses belong to the
// entry), each a tool name, a name ending in "*", or Tool(specifier). The
// entries that do not parse are returned as errors and left out.
func ParseAllowedTools(s string) (AllowedTools, []error) {
	var out AllowedTools
	var errs []error
	for _, tok := range splitAllowed(s) {
		a, err := parseAllowedTool(tok)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !slices.ContainsFunc(out, func(b AllowedTool) bool {
			return b.Tool == a.Tool && b.Kind == a.Kind && b.Command == a.Command && b.Specifier == a.Specifier
		}) {
			out = append(out, a)
		}
	}
	return out, errs
}

// splitAllowed splits on spaces and commas outside parentheses.
func splitAllowed(s string) []string {
	var out []string
	var cur strings.Builder
	depth := 0
	flush := func() {
		if t := strings.TrimSpace(cur.String()); t != "" {
			out = append(out, t)
		}
		cur.Reset()
	}
	for _, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0 && (r == ',' || r == ' ' || r == '\t' || r == '\n'):
			flush()
			continue
		}
		cur.WriteRune(r)
	}
	flush()
	return out
}

func parseAllowedTool(tok string) (AllowedTool, error) {
	a := AllowedTool{Raw: tok, Kind: AllowWholeTool}
	name := tok
	if i := strings.IndexByte(tok, '('); i >= 0 {
		if !strings.HasSuffix(tok, ")") {
			return a, fmt.Errorf("%q: the parenthesis is not closed", tok)
		}
		name, a.Specifier = tok[:i], strings.TrimSpace(tok[i+1:len(tok)-1])
	} else if strings.ContainsRune(tok, ')') {
		return a, fmt.Errorf("%q: a ')' without '('", tok)
	}
	if !toolNameRE.MatchString(name) {
		return a, fmt.Errorf("%q is not a tool name", name)
	}
	if mapped, ok := claudeToolNames[name]; ok {
		name = mapped
	}
	a.Tool = name
	switch {
	case a.Specifier == "" || a.Specifier == "*":
		if strings.Contains(tok, "(") && a.Specifier == "" {
			return a, fmt.Errorf("%q: empty parentheses", tok)
		}
		a.Specifier = ""
	case name != "Bash":
		a.Kind = AllowScoped
	default:
		spec := a.Specifier
		switch {
		case strings.HasSuffix(spec, ":*") && !strings.Contains(strings.TrimSuffix(spec, ":*"), "*"):
			a.Kind, a.Command = AllowCommandPrefix, normSpaces(strings.TrimSuffix(spec, ":*"))
		case strings.HasSuffix(spec, " *") && !strings.Contains(strings.TrimSuffix(spec, " *"), "*"):
			a.Kind, a.Command = AllowCommandPrefix, normSpaces(strings.TrimSuffix(spec, " *"))
		case strings.Contains(spec, "*"):
			a.Kind, a.Command = AllowCommandPattern, spec
		default:
			a.Kind, a.Command = AllowCommandExact, normSpaces(spec)
		}
		if a.Command == "" {
			return a, fmt.Errorf("%q: no command before the wildcard", tok)
		}
		if a.Kind != AllowCommandPattern {
			if _, err := guard.ParseBashRule(a.Command); err != nil {
				return a, fmt.Errorf("%q: %v", tok, err)
			}
		}
	}
	return a, nil
}

func normSpaces(s string) string { return strings.Join(strings.Fields(s), " ") }

// allowedToolsText reads allowed-tools written as a string or a YAML list.
func allowedToolsText(n *yaml.Node) (string, bool) {
	if s, ok := scalarText(n); ok {
		return s, true
	}
	if n.Kind != yaml.SequenceNode {
		return "", false
	}
	parts := make([]string, 0, len(n.Content))
	for _, c := range n.Content {
		s, ok := scalarText(c)
		if !ok {
			return "", false
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", "), true
}

// String renders the entries as written, space-separated.
func (ts AllowedTools) String() string {
	raw := make([]string, len(ts))
	for i, a := range ts {
		raw[i] = a.Raw
	}
	return strings.Join(raw, " ")
}

// MatchesName reports whether the entry names the tool (a "*" at the end of
// Tool matches any rest).
func (a AllowedTool) MatchesName(name string) bool {
	if p, ok := strings.CutSuffix(a.Tool, "*"); ok {
		return strings.HasPrefix(name, p)
	}
	return a.Tool == name
}

// Rule converts the entry to a persisted-rule shape the permission gate
// already applies: AllowWholeTool to config.Rule{Tool} (for a concrete
// name), AllowCommandPrefix to config.Rule{Tool: "Bash", Pattern:
// "command:*"} and AllowCommandExact to config.Rule{Tool: "Bash", Pattern:
// command}, the shell guard's rule notation (guard.BashRule). Wildcard
// patterns and scoped entries have no such shape (a prefix rule would
// allow more than the skill asked for), so ok is false; use Allows for
// them.
func (a AllowedTool) Rule() (config.Rule, bool) {
	switch {
	case a.Kind == AllowWholeTool && !strings.HasSuffix(a.Tool, "*"):
		return config.Rule{Tool: a.Tool, Action: config.RuleAllow}, true
	case a.Kind == AllowCommandPrefix:
		return config.Rule{Tool: "Bash", Pattern: a.Command + ":*", Action: config.RuleAllow}, true
	case a.Kind == AllowCommandExact:
		return config.Rule{Tool: "Bash", Pattern: a.Command, Action: config.RuleAllow}, true
	}
	return config.Rule{}, false
}

// bashRule is the shell guard's rule for a prefix or exact Bash entry.
func (a AllowedTool) bashRule() (guard.BashRule, bool) {
	if a.Kind != AllowCommandPrefix && a.Kind != AllowCommandExact {
		return guard.BashRule{}, false
	}
	br, err := guard.ParseBashRule(a.Command)
	if err != nil {
		return guard.BashRule{}, false
	}
	br.Prefix = a.Kind == AllowCommandPrefix
	return br, true
}

// Rules returns the entries as allow rules for one turn, with name patterns
// ("mcp__x__*") expanded against the tool names available. Entries with no
// rule shape (see Rule) are left out: the gate asks for those calls as
// usual, unless it also consults Allows.
func (ts AllowedTools) Rules(available []string) []config.Rule {
	var out []config.Rule
	add := func(r config.Rule) {
		if !slices.ContainsFunc(out, func(o config.Rule) bool { return o.Tool == r.Tool && o.Pattern == r.Pattern }) {
			out = append(out, r)
		}
	}
	for _, a := range ts {
		if a.Kind == AllowWholeTool && strings.HasSuffix(a.Tool, "*") {
			for _, n := range available {
				if a.MatchesName(n) {
					add(config.Rule{Tool: n, Action: config.RuleAllow})
				}
			}
			continue
		}
		if r, ok := a.Rule(); ok {
			add(r)
		}
	}
	return out
}

// Names returns the available tool names the entries mention, in the order
// of available: the list to keep when a command's allowed-tools filters the
// registry (Registry.Filtered).
func (ts AllowedTools) Names(available []string) []string {
	var out []string
	for _, n := range available {
		if slices.ContainsFunc(ts, func(a AllowedTool) bool { return a.MatchesName(n) }) {
			out = append(out, n)
		}
	}
	return out
}

// Allows reports whether the entries pre-approve a call of tool with params
// (validated arguments) in the workspace wsDir. A Bash script is allowed
// only when every simple command in it (guard.SimpleCommands) is covered by
// some Bash entry, with the shell guard's rule matching
// (guard.BashRule.Covers): the same literal words, no environment
// assignment, no redirection to a file, no argument on the command's
// blocklist (git -c, find -exec, …). A script that does not parse is not
// allowed. The caller applies deny rules, plan mode and the shell deny list
// first: Allows only replaces asking.
func (ts AllowedTools) Allows(tool string, params map[string]any, wsDir string) bool {
	if tool != "Bash" {
		return slices.ContainsFunc(ts, func(a AllowedTool) bool { return a.Kind == AllowWholeTool && a.MatchesName(tool) })
	}
	var rules []guard.BashRule
	var patterns []string
	for _, a := range ts {
		if !a.MatchesName("Bash") {
			continue
		}
		switch a.Kind {
		case AllowWholeTool:
			return true
		case AllowCommandPattern:
			patterns = append(patterns, a.Command)
		default:
			if br, ok := a.bashRule(); ok {
				rules = append(rules, br)
			}
		}
	}
	if len(rules) == 0 && len(patterns) == 0 {
		return false
	}
	cmds, err := guard.SimpleCommands(tools.String(params, "command", ""))
	if err != nil || len(cmds) == 0 {
		return false
	}
	for _, c := range cmds {
		if len(c.Words) == 0 { // an assignment of its own (PATH=x)
			if guard.CommandRisk(c, wsDir) != "" {
				return false
			}
			continue
		}
		if slices.ContainsFunc(rules, func(br guard.BashRule) bool { return br.Covers(c, wsDir) }) {
			continue
		}
		if !slices.ContainsFunc(patterns, func(p string) bool { return patternCovers(p, c, wsDir) }) {
			return false
		}
	}
	return true
}

// patternCovers matches one simple command against a wildcard entry
// ("git * main"): the command must be what a BashRule could cover (literal
// words only, since a wildcard must not stand for a word whose value is
// unknown; no assignment; no redirection; nothing on the blocklist), and
// its words joined by single spaces must match the pattern.
func patternCovers(pattern string, c guard.ShellCommand, wsDir string) bool {
	if len(c.Assigns) > 0 || len(c.Writes) > 0 {
		return false
	}
	words := make([]string, len(c.Words))
	for i, w := range c.Words {
		if !w.Literal {
			return false
		}
		words[i] = w.Value
	}
	return globMatch(pattern, strings.Join(words, " ")) && guard.CommandRisk(c, wsDir) == ""
}

// globMatch matches s against a pattern whose "*" stands for any text.
func globMatch(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	last := len(parts) - 1
	for i := 1; i < last; i++ {
		j := strings.Index(s, parts[i])
		if j < 0 {
			return false
		}
		s = s[j+len(parts[i]):]
	}
	return last == 0 && s == "" || last > 0 && strings.HasSuffix(s, parts[last])
}
