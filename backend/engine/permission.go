package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"tinyelf/backend/shell/guard"
	"tinyelf/backend/tools/fs"

	"tinyelf/backend/config"
	"tinyelf/backend/tools"
)

// Decision is the user's answer to an approval request.
type Decision string

// The answers to an approval request.
const (
	AllowOnce   Decision = "allow_once"
	AllowAlways Decision = "allow_always"
	Deny        Decision = "deny"
	// Cancel dismisses an MCP server's elicitation without answering it
	// (Deny declines it).
	Cancel Decision = "cancel"
)

// ParseDecision reads a decision name.
func ParseDecision(s string) (Decision, error) {
	switch d := Decision(strings.ToLower(strings.TrimSpace(s))); d {
	case AllowOnce, AllowAlways, Deny, Cancel:
		return d, nil
	case "once", "allow", "yes":
		return AllowOnce, nil
	case "always":
		return AllowAlways, nil
	case "no":
		return Deny, nil
	}
	return "", fmt.Errorf("unknown decision %q (want allow_once, allow_always, deny or cancel)", s)
}

// ApprovalRequest asks the user whether a tool call may run.
type ApprovalRequest struct {
	SessionID string   `json:"sessionId"`
	CallID    string   `json:"callId"`
	Tool      string   `json:"tool"`
	Arguments string   `json:"arguments"`
	Warnings  []string `json:"warnings,omitempty"`
	// Suggestion is what "allow always" saves, in Claude Code's notation:
	// "Bash(git status:*)", several rules separated by ", " for a
	// compound command, or a tool name. Empty when no rule could allow
	// the call (a held command, one that writes to a file…).
	Suggestion string `json:"suggestion,omitempty"`
	// Hold, when set, says why the tool itself asks for this call whatever
	// the mode: the shell guard cannot tell what it would destroy. No rule
	// allows such a call, so "allow always" allows it once.
	Hold string `json:"hold,omitempty"`
	// OnceOnly, when set, says why this call can only be allowed once: no
	// rule can allow it (a command that writes to a file, sets a variable,
	// uses an argument rules do not cover, or one the tool holds). An
	// "allow always" answer to it is taken as "allow once" and saves
	// nothing, so a surface should not offer it.
	OnceOnly string `json:"onceOnly,omitempty"`
	// Kind is "" for a tool call's permission, ApprovalSkillTrust for the
	// trust of a project skill (Question is then what the card asks, Skill
	// the skill's name; allowing trusts it in the workspace).
	Kind     string `json:"kind,omitempty"`
	Question string `json:"question,omitempty"`
	Skill    string `json:"skill,omitempty"`
	// Server is the MCP server behind an ApprovalElicitation or
	// ApprovalSampling card; Schema is an elicitation's form, URL the page
	// a URL-mode elicitation opens, MaxTokens a sampling request's limit.
	Server    string          `json:"server,omitempty"`
	Schema    json.RawMessage `json:"schema,omitempty"`
	URL       string          `json:"url,omitempty"`
	MaxTokens int             `json:"maxTokens,omitempty"`
}

// ApprovalAnswer is the user's decision with an optional reason the model
// reads.
type ApprovalAnswer struct {
	Decision Decision `json:"decision"`
	Reason   string   `json:"reason,omitempty"`
	// Content is an elicitation form's values (AllowOnce accepts them).
	Content map[string]any `json:"content,omitempty"`
}

// Approver asks the user. Ask blocks until the user answers or ctx ends.
type Approver interface {
	Ask(ctx context.Context, req ApprovalRequest) (ApprovalAnswer, error)
}

// ApproverFunc adapts a function to the Approver interface.
type ApproverFunc func(ctx context.Context, req ApprovalRequest) (ApprovalAnswer, error)

// Ask calls f.
func (f ApproverFunc) Ask(ctx context.Context, req ApprovalRequest) (ApprovalAnswer, error) {
	return f(ctx, req)
}

// RuleStore is where persisted permission rules live (config.Store).
type RuleStore interface {
	Rules() []config.Rule
	AddRule(config.Rule) (config.Rule, error)
}

// verdict is the gate's decision on one call, before any asking.
type verdict struct {
	allow  bool
	deny   bool
	hold   string // the tool asks for a person's approval, whatever the mode
	by     string // "mode", "rule", "safe", "guard"
	rule   string // the rule that decided, shown to the user
	reason string // for a denial
}

// acceptEditsTools run without asking in acceptEdits mode.
var acceptEditsTools = []string{"Write", "Edit"}

// decide applies deny rules, the tool's own assessment, the mode, the
// seed's SAFE_TOOLS classification and allow rules. Deny rules and the
// tool's refusals win over everything; a call the tool holds is asked
// about in every mode and no allow rule covers it; plan mode has already
// hidden the tools it forbids.
func decide(mode Mode, info tools.Info, params map[string]any, rules []config.Rule, as tools.Assessment, wsDir string) verdict {
	if r, ok := matchDeny(rules, info.Name, params, wsDir); ok {
		return verdict{deny: true, by: "rule", rule: describeRule(r), reason: fmt.Sprintf("a deny rule (%s) forbids it", describeRule(r))}
	}
	if as.Deny != "" {
		return verdict{deny: true, by: "guard", reason: as.Deny}
	}
	switch {
	case mode == ModePlan && !info.ReadOnly:
		return verdict{deny: true, by: "mode", reason: "plan mode allows only read-only tools"}
	case as.Hold != "":
		return verdict{hold: as.Hold, by: "guard"}
	case mode == ModeAuto:
		return verdict{allow: true, by: "mode"}
	case info.Safe:
		return verdict{allow: true, by: "safe"}
	case mode == ModeAcceptEdits && slices.Contains(acceptEditsTools, info.Name):
		return verdict{allow: true, by: "mode"}
	}
	if used, ok := matchAllow(rules, info.Name, params, wsDir); ok {
		return verdict{allow: true, by: "rule", rule: used}
	}
	return verdict{}
}

// matchDeny finds a deny rule that covers the call. A Bash deny rule covers
// a script when any command in it (as written, or as the shell guard sees
// it run after wrappers and nested code) starts with the rule's words,
// whether or not the rule ends in ":*".
func matchDeny(rules []config.Rule, tool string, params map[string]any, wsDir string) (config.Rule, bool) {
	var words [][]string
	for _, r := range rules {
		if r.Action != config.RuleDeny || r.Tool != tool {
			continue
		}
		if r.Pattern == "" {
			return r, true
		}
		if tool != "Bash" {
			continue
		}
		br, err := guard.ParseBashRule(r.Pattern)
		if err != nil {
			continue
		}
		// Allow rules say exactly what they allow; a deny rule errs the
		// other way: Bash(curl) refuses curl with any arguments.
		br.Prefix = true
		if words == nil {
			words = bashWords(tools.String(params, "command", ""), wsDir)
		}
		for _, w := range words {
			if br.Names(w) {
				return r, true
			}
		}
	}
	return config.Rule{}, false
}

// bashWords lists the commands of a script for deny rules: the literal
// words of each simple command, and the commands the guard resolves.
func bashWords(script, wsDir string) [][]string {
	out := [][]string{}
	if cmds, err := guard.SimpleCommands(script); err == nil {
		for _, c := range cmds {
			var w []string
			for _, word := range c.Words {
				if !word.Literal {
					break
				}
				w = append(w, word.Value)
			}
			if len(w) > 0 {
				out = append(out, w)
			}
		}
	}
	guardDir := ""
	if wsDir != "" {
		if ws, err := fs.OpenWorkspace(wsDir, false); err == nil {
			guardDir = ws.Dir()
			ws.Close()
		}
	}
	return append(out, guard.ResolvedCommands(script, guardDir)...)
}

// matchAllow reports whether allow rules cover the call, and names the
// rules used. A tool rule without a pattern covers every call. For Bash,
// every simple command of the script must be covered by some rule, each
// exactly as it says (see guard.BashRule.Covers): same words, no
// redirection to a file, no environment assignment, no blocked argument.
func matchAllow(rules []config.Rule, tool string, params map[string]any, wsDir string) (string, bool) {
	var bash []guard.BashRule
	var names []string
	for _, r := range rules {
		if r.Action != config.RuleAllow || r.Tool != tool {
			continue
		}
		if r.Pattern == "" {
			return describeRule(r), true
		}
		if tool != "Bash" {
			continue
		}
		if br, err := guard.ParseBashRule(r.Pattern); err == nil {
			bash = append(bash, br)
			names = append(names, describeRule(r))
		}
	}
	if len(bash) == 0 {
		return "", false
	}
	cmds, err := guard.SimpleCommands(tools.String(params, "command", ""))
	if err != nil || len(cmds) == 0 {
		return "", false
	}
	var used []string
	for _, c := range cmds {
		if len(c.Words) == 0 {
			if guard.CommandRisk(c, wsDir) != "" {
				return "", false
			}
			continue
		}
		i := slices.IndexFunc(bash, func(br guard.BashRule) bool { return br.Covers(c, wsDir) })
		if i < 0 {
			return "", false
		}
		if !slices.Contains(used, names[i]) {
			used = append(used, names[i])
		}
	}
	return strings.Join(used, ", "), true
}

// describeRule writes a rule in Claude Code's notation: "Bash(git
// status:*)", or the tool name for a whole tool.
func describeRule(r config.Rule) string {
	if r.Pattern == "" {
		return r.Tool
	}
	return fmt.Sprintf("%s(%s)", r.Tool, r.Pattern)
}

// suggestRules proposes the rules "allow always" would save: for Bash one
// exact rule per simple command (see guard.SuggestBashRules), none when a
// command could not be covered by any rule; for other tools the whole tool.
func suggestRules(tool string, params map[string]any, wsDir string) []config.Rule {
	if tool != "Bash" {
		return []config.Rule{{Tool: tool, Action: config.RuleAllow}}
	}
	brs, ok := guard.SuggestBashRules(tools.String(params, "command", ""), wsDir)
	if !ok {
		return nil
	}
	out := make([]config.Rule, 0, len(brs))
	for _, br := range brs {
		out = append(out, config.Rule{Tool: tool, Pattern: br.String(), Action: config.RuleAllow})
	}
	return out
}

// onceOnlyReason says why no "always" rule can allow a call (rules is
// what suggestRules found for it; hold is why the tool holds it), or ""
// when one can.
func onceOnlyReason(tool string, params map[string]any, wsDir string, rules []config.Rule, hold string) string {
	switch {
	case hold != "":
		// The hold itself is among the warnings the card shows.
		return "TinyElf asks about this command every time, even in auto mode, because the shell guard cannot check what it would do"
	case len(rules) > 0:
		return ""
	case tool != "Bash":
		return "no rule can describe this call"
	}
	cmds, err := guard.SimpleCommands(tools.String(params, "command", ""))
	if err != nil || len(cmds) == 0 {
		return "the command cannot be split into simple commands a rule could name"
	}
	for _, c := range cmds {
		if why := guard.CommandRisk(c, wsDir); why != "" {
			return "no rule may allow a command when " + why
		}
		if len(c.Words) > 0 && !c.Words[0].Literal {
			return "the command's name (" + c.Words[0].Value + ") is only known when it runs"
		}
	}
	return "no rule can allow exactly this command"
}

// NormalizeRule checks a rule the user writes and puts it in the stored
// shape: a tool written in Claude Code's notation ("Bash(git status:*)") is
// split into tool and pattern, and a Bash pattern must be one simple
// command written literally.
func NormalizeRule(r config.Rule) (config.Rule, error) {
	r.Tool, r.Pattern = strings.TrimSpace(r.Tool), strings.TrimSpace(r.Pattern)
	if tool, inner, ok := strings.Cut(r.Tool, "("); ok && strings.HasSuffix(inner, ")") && r.Pattern == "" {
		r.Tool, r.Pattern = strings.TrimSpace(tool), strings.TrimSpace(strings.TrimSuffix(inner, ")"))
	}
	if r.Tool == "Bash" && r.Pattern != "" {
		br, err := guard.ParseBashRule(r.Pattern)
		if err != nil {
			return config.Rule{}, err
		}
		r.Pattern = br.String()
	}
	return r, nil
}

// describeRules joins rules for the approval card.
func describeRules(rs []config.Rule) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = describeRule(r)
	}
	return strings.Join(parts, ", ")
}

// argsJSON renders validated params for an approval card.
func argsJSON(params map[string]any) string {
	b, err := json.Marshal(params)
	if err != nil {
		return "{}"
	}
	return string(b)
}
