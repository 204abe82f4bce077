package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

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
)

// ParseDecision reads a decision name.
func ParseDecision(s string) (Decision, error) {
	switch d := Decision(strings.ToLower(strings.TrimSpace(s))); d {
	case AllowOnce, AllowAlways, Deny:
		return d, nil
	case "once", "allow", "yes":
		return AllowOnce, nil
	case "always":
		return AllowAlways, nil
	case "no":
		return Deny, nil
	}
	return "", fmt.Errorf("unknown decision %q (want allow_once, allow_always or deny)", s)
}

// ApprovalRequest asks the user whether a tool call may run.
type ApprovalRequest struct {
	SessionID string   `json:"sessionId"`
	CallID    string   `json:"callId"`
	Tool      string   `json:"tool"`
	Arguments string   `json:"arguments"`
	Warnings  []string `json:"warnings,omitempty"`
	// Suggestion is the rule pattern "allow always" creates.
	Suggestion string `json:"suggestion,omitempty"`
}

// ApprovalAnswer is the user's decision with an optional reason the model
// reads.
type ApprovalAnswer struct {
	Decision Decision `json:"decision"`
	Reason   string   `json:"reason,omitempty"`
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
	by     string // "mode", "rule", "safe"
	rule   string // the rule that decided, shown to the user
	reason string // for a denial
}

// acceptEditsTools run without asking in acceptEdits mode.
var acceptEditsTools = []string{"Write", "Edit"}

// decide applies mode, the seed's SAFE_TOOLS classification and the rules.
// Deny rules win over everything; plan mode has already hidden the tools it
// forbids, so allow rules cannot reach them.
func decide(mode Mode, info tools.Info, params map[string]any, rules []config.Rule) verdict {
	if r, ok := matchRule(rules, config.RuleDeny, info.Name, params); ok {
		return verdict{deny: true, by: "rule", rule: describeRule(r), reason: fmt.Sprintf("a deny rule (%s) forbids it", describeRule(r))}
	}
	switch {
	case mode == ModePlan && !info.ReadOnly:
		return verdict{deny: true, by: "mode", reason: "plan mode allows only read-only tools"}
	case mode == ModeAuto:
		return verdict{allow: true, by: "mode"}
	case info.Safe:
		return verdict{allow: true, by: "safe"}
	case mode == ModeAcceptEdits && slices.Contains(acceptEditsTools, info.Name):
		return verdict{allow: true, by: "mode"}
	}
	if r, ok := matchRule(rules, config.RuleAllow, info.Name, params); ok {
		return verdict{allow: true, by: "rule", rule: describeRule(r)}
	}
	return verdict{}
}

// matchRule finds a rule of the given action that covers the call. A Bash
// rule with a pattern covers a script only when every command in it starts
// with the pattern (for deny: when any command does).
func matchRule(rules []config.Rule, action, tool string, params map[string]any) (config.Rule, bool) {
	for _, r := range rules {
		if r.Action != action || r.Tool != tool {
			continue
		}
		if r.Pattern == "" {
			return r, true
		}
		if tool != "Bash" {
			continue
		}
		cmds, err := tools.ShellCommands(tools.String(params, "command", ""))
		if err != nil || len(cmds) == 0 {
			continue
		}
		matches := 0
		for _, c := range cmds {
			if tools.CommandMatchesPrefix(c, r.Pattern) {
				matches++
			}
		}
		if (action == config.RuleAllow && matches == len(cmds)) || (action == config.RuleDeny && matches > 0) {
			return r, true
		}
	}
	return config.Rule{}, false
}

func describeRule(r config.Rule) string {
	if r.Pattern == "" {
		return r.Tool
	}
	return fmt.Sprintf("%s(%s)", r.Tool, r.Pattern)
}

// suggestRule proposes the pattern "allow always" would save: for Bash the
// command's first word, plus its subcommand for tools that have them ("git
// status", "npm test"); for other tools the whole tool.
func suggestRule(tool string, params map[string]any) string {
	if tool != "Bash" {
		return ""
	}
	cmds, err := tools.ShellCommands(tools.String(params, "command", ""))
	if err != nil || len(cmds) == 0 {
		return ""
	}
	words := strings.Fields(cmds[0])
	if len(words) == 0 || strings.ContainsRune(words[0], 0) {
		return ""
	}
	if len(words) > 1 && subcommandTools[words[0]] && isSubcommand(words[1]) {
		return words[0] + " " + words[1]
	}
	return words[0]
}

// subcommandTools are commands whose second word picks what they do, so an
// "always" rule should name it: allowing "git status" is not allowing
// "git push".
var subcommandTools = map[string]bool{
	"git": true, "go": true, "npm": true, "pnpm": true, "yarn": true, "bun": true, "deno": true, "npx": true,
	"cargo": true, "docker": true, "podman": true, "kubectl": true, "helm": true, "gh": true, "pip": true,
	"uv": true, "poetry": true, "mvn": true, "gradle": true, "dotnet": true, "terraform": true,
	"systemctl": true, "apt": true, "apt-get": true, "brew": true, "make": true, "task": true, "just": true,
}

func isSubcommand(w string) bool {
	if w == "" || strings.ContainsAny(w, "-/.=\x00~$") {
		return false
	}
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == ':') {
			return false
		}
	}
	return true
}

// argsJSON renders validated params for an approval card.
func argsJSON(params map[string]any) string {
	b, err := json.Marshal(params)
	if err != nil {
		return "{}"
	}
	return string(b)
}

// DirectGate is the permission step for calls a person makes directly
// (`tinyelf tool`): invoking the tool is the approval, but deny rules still
// refuse, as they would for the agent.
func DirectGate(rules RuleStore) tools.Middleware {
	return func(next tools.Handler) tools.Handler {
		return func(ctx context.Context, call *tools.Call) (tools.Result, error) {
			if r, ok := matchRule(rules.Rules(), config.RuleDeny, call.Name, call.Params); ok {
				return tools.Errorf("Permission denied for %s: a deny rule (%s) forbids it. Remove the rule in Settings → Permissions to allow it.", call.Name, describeRule(r)), nil
			}
			return next(tools.WithApproval(ctx), call)
		}
	}
}
