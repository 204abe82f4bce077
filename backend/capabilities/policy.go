package capabilities

import (
	"fmt"
	"slices"
	"strings"

	"tinyelf/backend/tokens"
)

// DeferMode says when the policy defers tools to the index.
type DeferMode string

// The deferral modes (Settings → Capabilities, and per agent).
const (
	// DeferAuto defers when the full tool definitions would take more than
	// the threshold share of the context window.
	DeferAuto DeferMode = "auto"
	// DeferAlways always keeps deferrable tools in the index until found.
	DeferAlways DeferMode = "always"
	// DeferNever sends every eligible tool with its full schema.
	DeferNever DeferMode = "never"
)

// ParseDeferMode reads a deferral mode; "" is DeferAuto.
func ParseDeferMode(s string) (DeferMode, error) {
	switch m := DeferMode(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return DeferAuto, nil
	case DeferAuto, DeferAlways, DeferNever:
		return m, nil
	}
	return "", fmt.Errorf("unknown deferral mode %q (want auto, always or never)", s)
}

// Policy settings defaults.
const (
	DefaultThreshold   = 0.10
	DefaultIndexBudget = 400
	DefaultSkillBudget = 1200
	// nearlyFull is the share of the window left below which even common
	// tools are deferred.
	nearlyFull = 0.12
)

// Settings tune the policy. The zero value means the defaults.
type Settings struct {
	Defer DeferMode `json:"defer,omitempty"`
	// Threshold is the share of the context window (0–1) the full tool
	// definitions may take before auto mode defers (default 0.10).
	Threshold float64 `json:"threshold,omitempty"`
	// IndexBudget bounds the deferred tools' index, in tokens.
	IndexBudget int `json:"indexBudget,omitempty"`
	// SkillBudget bounds the skill index, in tokens.
	SkillBudget int `json:"skillBudget,omitempty"`
}

func (s Settings) withDefaults() Settings {
	if s.Defer == "" {
		s.Defer = DeferAuto
	}
	if s.Threshold <= 0 || s.Threshold > 1 {
		s.Threshold = DefaultThreshold
	}
	if s.IndexBudget <= 0 {
		s.IndexBudget = DefaultIndexBudget
	}
	if s.SkillBudget <= 0 {
		s.SkillBudget = DefaultSkillBudget
	}
	return s
}

// Inputs are the policy's signals for one model call (seed 003 §七). Every
// one of them is recorded with the capability diff it leads to.
type Inputs struct {
	// Task is the user's message this turn answers.
	Task string
	// Project is what the workspace's files reveal.
	Project []ProjectType
	// Mode is the permission mode (plan, default, acceptEdits, auto).
	Mode string
	// ContextWindow is the model's window and ContextUsed what the last
	// request took (as the provider reported), in tokens; 0 when unknown.
	ContextWindow, ContextUsed int
	// Observation is the text of the latest tool results, for mentions of
	// servers and tools.
	Observation string
	// Allowed is the agent's allowedTools (nil: every tool).
	Allowed []string
	// Inherited, when not nil, makes the session a subagent's: it sees
	// only these tools (in Allowed's forms), the ones its parent passed
	// on. ToolSearch stays, and finds only within them.
	Inherited []string
	// Blocked says why a deny rule blocks a whole tool ("" when none does).
	Blocked func(name string) string
	// Settings tune deferral.
	Settings Settings
}

// State is a capability's standing in one visible set.
type State string

// The states.
const (
	// StateVisible: sent with its full schema (a tool), or loaded (a skill).
	StateVisible State = "visible"
	// StateDeferred: in the compact index; ToolSearch or read_skill loads it.
	StateDeferred State = "deferred"
	// StateHidden: not offered this turn (the reason says why).
	StateHidden State = "hidden"
	// StateAvailable: a resource, prompt or channel, reached through
	// ToolSearch, slash commands or the surface rather than as a tool.
	StateAvailable State = "available"
)

// Decision is the policy's verdict on one capability.
type Decision struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Kind   Kind   `json:"kind"`
	State  State  `json:"state"`
	Reason string `json:"reason"`
	// Cause says which rule hid a hidden capability.
	Cause Cause `json:"cause,omitempty"`
}

// Cause is why a capability is hidden.
type Cause string

// The causes of hiding.
const (
	// CauseProblem: its descriptor is broken or its source untrusted.
	CauseProblem Cause = "problem"
	// CauseProfile: the agent's allowedTools leave it out.
	CauseProfile Cause = "profile"
	// CauseInherit: a subagent's parent did not pass it on.
	CauseInherit Cause = "inherit"
	// CauseMode: the permission mode (plan) forbids it.
	CauseMode Cause = "mode"
	// CauseRule: a deny rule forbids it; the permission gate refuses a call
	// to it and records the decision.
	CauseRule Cause = "rule"
)

// Compute applies the discovery policy: from the session's view of the
// catalog, its discovery state and this call's inputs, the visible set.
// It does not change d except to extend the tools' first-visible order.
func Compute(v *View, in Inputs, d *Discovery) *VisibleSet {
	set := in.Settings.withDefaults()
	st := d.snapshot()
	vs := &VisibleSet{decisions: make(map[string]Decision, v.Len()), view: v}
	decide := func(e *Entry, s State, why string) {
		vs.decisions[e.ID] = Decision{ID: e.ID, Name: e.Name, Kind: e.Kind, State: s, Reason: why}
	}
	hide := func(e *Entry, why string, cause Cause) {
		vs.decisions[e.ID] = Decision{ID: e.ID, Name: e.Name, Kind: e.Kind, State: StateHidden, Reason: why, Cause: cause}
	}
	toolSearchOK := false
	entries := v.Entries()
	eligible := make([]*Entry, 0, len(entries))
	for i := range entries {
		e := &entries[i]
		switch e.Kind {
		case KindTool:
			if why, cause := hiddenReason(e, in); why != "" {
				hide(e, why, cause)
				continue
			}
			if e.Name == ToolSearchName {
				toolSearchOK = true
			}
			eligible = append(eligible, e)
		case KindSkill:
			switch {
			case e.Problem != "":
				hide(e, e.Problem, CauseProblem)
			case slices.Contains(st.loaded, e.ID):
				decide(e, StateVisible, "loaded in this session")
				vs.Skills = append(vs.Skills, e)
			default:
				decide(e, StateDeferred, "in the skill index; read_skill loads its instructions")
				vs.Skills = append(vs.Skills, e)
			}
		default:
			why := "reached through ToolSearch"
			switch e.Kind {
			case KindResource:
				why = "read with read_mcp_resource; ToolSearch finds it"
			case KindPrompt:
				why = "run as a slash command; ToolSearch finds it"
			case KindChannel:
				why = "an ability of this window or command line"
			}
			if e.Problem != "" {
				hide(e, e.Problem, CauseProblem)
				continue
			}
			decide(e, StateAvailable, why)
		}
	}

	// Deferral: on when the definitions would crowd the window.
	var full int
	for _, e := range eligible {
		full += e.FullTokens
	}
	window := in.ContextWindow
	if window <= 0 {
		window = 128_000
	}
	limit := int(set.Threshold * float64(window))
	deferring, tight := false, false
	switch {
	case !toolSearchOK:
		vs.DeferReason = "ToolSearch is not available to this agent, so every eligible tool is sent"
	case set.Defer == DeferNever:
		vs.DeferReason = "deferral is off (never)"
	case set.Defer == DeferAlways:
		deferring = true
		vs.DeferReason = "deferral is always on"
	case full > limit:
		deferring = true
		vs.DeferReason = fmt.Sprintf("the tool definitions would take about %d tokens, over the threshold of %d (%.0f%% of the %d-token window)",
			full, limit, set.Threshold*100, window)
	default:
		vs.DeferReason = fmt.Sprintf("the tool definitions take about %d tokens, within the threshold of %d", full, limit)
	}
	if toolSearchOK && in.ContextUsed > 0 && float64(window-in.ContextUsed) < nearlyFull*float64(window) {
		deferring, tight = true, true
		vs.DeferReason = fmt.Sprintf("the context is nearly full (%d of %d tokens used): only core and wanted tools are sent", in.ContextUsed, window)
	}
	vs.Deferring = deferring

	mentions := mentionText(in.Task, in.Observation)
	deferredWhy := "deferred to the index: " + vs.DeferReason
	visible := make([]*Entry, 0, 32)
	for _, e := range eligible {
		if n := st.failures[e.Name]; n >= DemoteAfter && e.Tier != TierCore {
			decide(e, StateDeferred, fmt.Sprintf("demoted: called with invalid arguments %d times in a row; ToolSearch loads it again", n))
			vs.Deferred = append(vs.Deferred, e)
			continue
		}
		why, wanted := wantedReason(e, st, mentions)
		switch {
		case e.Tier == TierCore:
			decide(e, StateVisible, coreReason(e))
		case wanted:
			decide(e, StateVisible, why)
		case !deferring:
			decide(e, StateVisible, "the tool list fits the budget")
		case e.Tier == TierCommon && !tight:
			decide(e, StateVisible, "a common local tool")
		default:
			decide(e, StateDeferred, deferredWhy)
			vs.Deferred = append(vs.Deferred, e)
			continue
		}
		visible = append(visible, e)
	}
	vs.Tools = orderTools(visible, d)
	for _, e := range vs.Tools {
		vs.ToolTokens += e.FullTokens
	}
	var key strings.Builder
	key.WriteString(v.Key())
	fmt.Fprintf(&key, "|%d|", set.IndexBudget)
	for _, e := range vs.Deferred {
		key.WriteString(e.ID)
		key.WriteByte(0)
	}
	vs.index = d.cachedIndex(0, key.String(), func() string { return renderIndex(vs.Deferred, set.IndexBudget) })
	key.Reset()
	key.WriteString(v.Key())
	fmt.Fprintf(&key, "|%d|", set.SkillBudget)
	for _, e := range vs.Skills {
		key.WriteString(e.ID)
		key.WriteString(string(vs.decisions[e.ID].State))
	}
	vs.skillIndex = d.cachedIndex(1, key.String(), func() string { return renderSkills(vs.Skills, vs.decisions, set.SkillBudget) })
	vs.IndexTokens = tokens.Estimate(vs.index) + tokens.Estimate(vs.skillIndex)
	vs.Inputs = record(in, v, st, set, window)
	return vs
}

// hiddenReason says why a tool is not offered at all this call, and which
// rule hides it; "" when none does.
func hiddenReason(e *Entry, in Inputs) (string, Cause) {
	switch {
	case e.Problem != "":
		return e.Problem, CauseProblem
	case in.Inherited != nil && !allowedBy(in.Inherited, e):
		return InheritReason, CauseInherit
	case len(in.Allowed) > 0 && !allowedBy(in.Allowed, e):
		return "this agent's profile does not allow it (allowedTools)", CauseProfile
	case in.Mode == "plan" && !e.ReadOnly:
		return "plan mode hides tools that change things; describe the change in your plan instead", CauseMode
	}
	if in.Blocked != nil {
		if why := in.Blocked(e.Name); why != "" {
			return why, CauseRule
		}
	}
	return "", ""
}

// AllowedBy reports whether an allowedTools list admits the entry, by the
// rule Compute applies to Inputs.Allowed; an empty list admits everything.
// The engine uses it to narrow a turn's list further (a slash command's
// allowed-tools).
func AllowedBy(allowed []string, e Entry) bool { return len(allowed) == 0 || allowedBy(allowed, &e) }

// InheritReason is why a subagent does not see a tool of its own session.
const InheritReason = "a subagent has only what its parent passed on: list_skills, read_skill, slash_command, the parent's MCP tools, and the tools spawn_agent named"

// allowedBy reports whether an allowedTools list admits a tool: by name, by
// identity, or by a trailing-* prefix ("mcp__github__*", "mcp__*"), and an
// entry "mcp__server" admits every tool of that server.
func allowedBy(allowed []string, e *Entry) bool {
	if e.Name == ToolSearchName {
		return true // discovery itself is not a capability an agent gives up by naming others
	}
	for _, a := range allowed {
		switch {
		case a == e.Name || a == e.ID:
			return true
		case strings.HasSuffix(a, "*") && (strings.HasPrefix(e.Name, strings.TrimSuffix(a, "*")) || strings.HasPrefix(e.ID, strings.TrimSuffix(a, "*"))):
			return true
		case e.Server != "" && a == "mcp__"+e.Server:
			return true
		}
	}
	return false
}

func coreReason(e *Entry) string {
	if e.Name == ToolSearchName {
		return "always visible: it finds the other capabilities"
	}
	return "always visible: a local read-only tool"
}

// wantedReason says why a tool should be visible whatever the budget: the
// model found it, used it, or the task or a tool result names it.
func wantedReason(e *Entry, st discoveryState, mentions string) (string, bool) {
	if why, ok := st.promoted[e.Name]; ok {
		return why, true
	}
	if st.used[e.Name] {
		return "used earlier in this session", true
	}
	if mentions == "" {
		return "", false
	}
	lower, bare := e.lowerName, e.lowerBare
	if lower == "" {
		lower, bare = strings.ToLower(e.Name), strings.ToLower(bareName(e.Descriptor))
	}
	if len(bare) >= 6 && strings.Contains(bare, "_") && containsWord(mentions, bare) {
		return fmt.Sprintf("the task or a tool result names %s", bare), true
	}
	if strings.Contains(e.Name, "__") && strings.Contains(mentions, lower) {
		return fmt.Sprintf("the task or a tool result names %s", e.Name), true
	}
	return "", false
}

// mentionText is the lower-cased text tool and server names are looked for
// in.
func mentionText(task, observation string) string {
	const max = 16 << 10
	if len(observation) > max {
		observation = observation[len(observation)-max:]
	}
	return strings.ToLower(task + "\n" + observation)
}

// containsWord reports whether text holds w with no letter, digit or
// underscore right before or after it.
func containsWord(text, w string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], w)
		if j < 0 {
			return false
		}
		j += i
		before := j == 0 || !isWordByte(text[j-1])
		end := j + len(w)
		after := end == len(text) || !isWordByte(text[end])
		if before && after {
			return true
		}
		i = j + 1
	}
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// orderTools puts visible tools in projection order: core and common local
// tools first in catalog order (the stable prefix prompt caches reuse), then
// the others in the order they first became visible in the session.
func orderTools(visible []*Entry, d *Discovery) []*Entry {
	var fixed, rest []*Entry
	for _, e := range visible {
		if e.Source == SourceBuiltin && e.Tier != TierDeferrable {
			fixed = append(fixed, e)
		} else {
			rest = append(rest, e)
		}
	}
	names := make([]string, len(rest))
	for i, e := range rest {
		names[i] = e.Name
	}
	pos := d.orderOf(names)
	slices.SortStableFunc(rest, func(a, b *Entry) int { return pos[a.Name] - pos[b.Name] })
	return append(fixed, rest...)
}
