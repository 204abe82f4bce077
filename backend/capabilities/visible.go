package capabilities

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"tinyelf/backend/tokens"
	"tinyelf/backend/tools"
)

// VisibleSet is what the model sees on one call: the tools with full
// schemas, the deferred tools' index, the skill index, and the decision on
// every capability in the session's view. It is immutable once computed.
type VisibleSet struct {
	// Tools are sent with full schemas, in projection order.
	Tools []*Entry
	// Deferred tools appear in the index only.
	Deferred []*Entry
	// Skills are in the skill index (loaded ones marked).
	Skills []*Entry
	// Deferring says whether deferral is on, and DeferReason why (or why
	// not).
	Deferring   bool
	DeferReason string
	// ToolTokens estimates the full tool definitions sent; IndexTokens the
	// index text.
	ToolTokens, IndexTokens int
	// Inputs are the policy inputs that produced the set.
	Inputs InputsRecord

	decisions  map[string]Decision
	view       *View
	index      string
	skillIndex string
}

// InputsRecord is the record of the policy inputs logged with a capability
// diff (the task is cut; functions are reduced to what they decided).
type InputsRecord struct {
	Task             string         `json:"task,omitempty"`
	ProjectTypes     []string       `json:"projectTypes,omitempty"`
	TouchedPaths     []string       `json:"touchedPaths,omitempty"`
	Mode             string         `json:"mode"`
	ContextWindow    int            `json:"contextWindow,omitempty"`
	ContextUsed      int            `json:"contextUsed,omitempty"`
	BudgetLeft       int            `json:"budgetLeft,omitempty"`
	ConnectedServers []string       `json:"connectedServers,omitempty"`
	LoadedSkills     []string       `json:"loadedSkills,omitempty"`
	RecentFailures   map[string]int `json:"recentFailures,omitempty"`
	AllowedTools     []string       `json:"allowedTools,omitempty"`
	InheritedTools   []string       `json:"inheritedTools,omitempty"`
	Subagent         bool           `json:"subagent,omitempty"`
	Defer            DeferMode      `json:"defer"`
	Threshold        float64        `json:"threshold"`
	CatalogVersion   uint64         `json:"catalogVersion"`
}

func record(in Inputs, v *View, st discoveryState, set Settings, window int) InputsRecord {
	task := strings.TrimSpace(in.Task)
	if utf8.RuneCountInString(task) > 300 {
		task = string([]rune(task)[:300]) + "…"
	}
	r := InputsRecord{
		Task: task, ProjectTypes: Tags(in.Project), TouchedPaths: st.touched, Mode: in.Mode,
		ContextWindow: window, ContextUsed: in.ContextUsed, ConnectedServers: v.Servers(),
		LoadedSkills: st.loaded, AllowedTools: in.Allowed, Defer: set.Defer, Threshold: set.Threshold,
		InheritedTools: in.Inherited, Subagent: in.Inherited != nil,
	}
	if v.Snapshot != nil {
		r.CatalogVersion = v.Snapshot.Version
	}
	if in.ContextUsed > 0 {
		r.BudgetLeft = max(window-in.ContextUsed, 0)
	}
	for name, n := range st.failures {
		if r.RecentFailures == nil {
			r.RecentFailures = map[string]int{}
		}
		r.RecentFailures[name] = n
	}
	return r
}

// Decision returns the verdict on a capability by identity.
func (vs *VisibleSet) Decision(id string) (Decision, bool) {
	d, ok := vs.decisions[id]
	return d, ok
}

// Decisions returns every verdict, in the view's order.
func (vs *VisibleSet) Decisions() []Decision {
	out := make([]Decision, 0, len(vs.decisions))
	for _, e := range vs.view.Entries() {
		if d, ok := vs.decisions[e.ID]; ok {
			out = append(out, d)
		}
	}
	return out
}

// View returns the catalog view the set was computed from.
func (vs *VisibleSet) View() *View { return vs.view }

// IsVisible reports whether a tool is sent with its full schema.
func (vs *VisibleSet) IsVisible(name string) bool {
	e, ok := vs.view.ToolByName(name)
	if !ok {
		return false
	}
	return vs.decisions[e.ID].State == StateVisible
}

// Lookup explains a tool name: its entry and decision, and whether the
// view has it at all.
func (vs *VisibleSet) Lookup(name string) (Entry, Decision, bool) {
	e, ok := vs.view.ToolByName(name)
	if !ok {
		return Entry{}, Decision{}, false
	}
	return e, vs.decisions[e.ID], true
}

// ToolNames returns the visible tools' names in projection order.
func (vs *VisibleSet) ToolNames() []string { return names(vs.Tools) }

// DeferredNames returns the deferred tools' names.
func (vs *VisibleSet) DeferredNames() []string { return names(vs.Deferred) }

func names(es []*Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Name
	}
	return out
}

// Definitions projects the visible tools for a model request: name,
// description and parameter schema, in projection order.
func (vs *VisibleSet) Definitions() []tools.FunctionDef {
	out := make([]tools.FunctionDef, 0, len(vs.Tools))
	for _, e := range vs.Tools {
		out = append(out, e.projection())
	}
	return out
}

// schemaHash is the entry's SchemaHash, computed when ToolEntry did not.
func (e *Entry) schemaHash() string {
	if e.hash != "" {
		return e.hash
	}
	d := e.projection()
	return SchemaHash(d.Name, d.Description, d.Parameters)
}

// projection is a tool entry's definition as sent, made from its tool when
// the entry was not made by ToolEntry.
func (e Entry) projection() tools.FunctionDef {
	if e.def.Name != "" {
		return e.def
	}
	info := e.Tool.Info()
	params := info.Parameters
	if len(params) == 0 {
		params = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return tools.FunctionDef{Name: info.Name, Description: info.Description, Parameters: params}
}

// IndexText is the part of the system prompt that lists what the model can
// load: the deferred tools and the skills. Empty when there is neither.
func (vs *VisibleSet) IndexText() string {
	if vs.index == "" && vs.skillIndex == "" {
		return ""
	}
	var sb strings.Builder
	sb.WriteString("# More capabilities\n")
	if vs.index != "" {
		sb.WriteString("Deferred tools: call ToolSearch with what you need (or a name) to load them for your next step.\n")
		sb.WriteString(vs.index)
	}
	if vs.skillIndex != "" {
		if vs.index != "" {
			sb.WriteByte('\n')
		}
		sb.WriteString("Skills are task methods: when one fits, call read_skill with its name first and follow it.\n")
		sb.WriteString(vs.skillIndex)
	}
	return sb.String()
}

// renderIndex lists deferred tools within a token budget: one line each
// ("name — summary") when they fit; otherwise grouped by server with bare
// names; and when even that is too long, one line per server with its
// tool count and most common words.
func renderIndex(deferred []*Entry, budget int) string {
	if len(deferred) == 0 {
		return ""
	}
	var full strings.Builder
	for _, e := range deferred {
		full.WriteString("- ")
		full.WriteString(e.IndexLine())
		full.WriteByte('\n')
	}
	if tokens.Estimate(full.String()) <= budget {
		return full.String()
	}
	type group struct {
		key   string
		names []string
		ents  []*Entry
	}
	var groups []*group
	byKey := map[string]*group{}
	for _, e := range deferred {
		key := "local"
		if e.Server != "" {
			key = e.Server
		} else if e.Source != SourceBuiltin {
			key = e.Source
		}
		g := byKey[key]
		if g == nil {
			g = &group{key: key}
			byKey[key] = g
			groups = append(groups, g)
		}
		g.names = append(g.names, bareName(e.Descriptor))
		g.ents = append(g.ents, e)
	}
	header := func(g *group) string {
		switch {
		case g.key == "local":
			return fmt.Sprintf("- local tools (%d)", len(g.names))
		case len(g.ents) > 0 && g.ents[0].Server != "":
			return fmt.Sprintf("- MCP server %s (%d tools, named mcp__%s__<name>)", g.key, len(g.names), g.key)
		}
		return fmt.Sprintf("- %s (%d)", g.key, len(g.names))
	}
	// Names per group where they fit; a group too large for what is left
	// of the budget gets one line of its most common words instead.
	namesLine := func(g *group) string { return header(g) + ": " + strings.Join(g.names, ", ") + "\n" }
	summaryLine := func(g *group) string {
		return header(g) + ": about " + strings.Join(topWords(g.ents, 8), ", ") + "; ToolSearch finds them\n"
	}
	lines := make([]string, len(groups))
	left := budget
	for i, g := range groups {
		lines[i] = summaryLine(g)
		left -= tokens.Estimate(lines[i])
	}
	bySize := make([]int, len(groups))
	for i := range bySize {
		bySize[i] = i
	}
	slices.SortStableFunc(bySize, func(a, b int) int { return len(groups[a].names) - len(groups[b].names) })
	for _, i := range bySize {
		full := namesLine(groups[i])
		if extra := tokens.Estimate(full) - tokens.Estimate(lines[i]); extra <= left {
			lines[i] = full
			left -= extra
		}
	}
	return strings.Join(lines, "")
}

// topWords returns the most frequent name words of a group of tools, for a
// one-line summary of what a server offers.
func topWords(es []*Entry, n int) []string {
	count := map[string]int{}
	var order []string
	for _, e := range es {
		for _, w := range splitWords(bareName(e.Descriptor)) {
			w = strings.ToLower(w)
			if stopWords[w] || len(w) < 3 || genericVerbs[w] {
				continue
			}
			if count[w] == 0 {
				order = append(order, w)
			}
			count[w]++
		}
	}
	slices.SortStableFunc(order, func(a, b string) int { return count[b] - count[a] })
	if len(order) > n {
		order = order[:n]
	}
	return order
}

var genericVerbs = map[string]bool{"get": true, "list": true, "create": true, "update": true, "delete": true, "set": true, "add": true, "remove": true}

// skillDescMax caps one skill's description in the index, in runes.
const skillDescMax = 250

// renderSkills lists the skills for the index: "name — description" capped
// per skill, then names only when the whole would exceed the budget.
func renderSkills(skills []*Entry, decisions map[string]Decision, budget int) string {
	if len(skills) == 0 {
		return ""
	}
	line := func(e *Entry, withDesc bool) string {
		s := "- " + e.Name
		if decisions[e.ID].State == StateVisible {
			s += " (loaded)"
		}
		if withDesc {
			desc := strings.Join(strings.Fields(e.Summary), " ")
			if utf8.RuneCountInString(desc) > skillDescMax {
				desc = string([]rune(desc)[:skillDescMax]) + "…"
			}
			if desc != "" {
				s += " — " + desc
			}
		}
		return s + "\n"
	}
	var sb strings.Builder
	for _, e := range skills {
		sb.WriteString(line(e, true))
	}
	if tokens.Estimate(sb.String()) <= budget {
		return sb.String()
	}
	sb.Reset()
	for _, e := range skills {
		sb.WriteString(line(e, false))
	}
	sb.WriteString("(list_skills describes them all)\n")
	return sb.String()
}

// SchemaHash identifies a tool definition exactly as projected: the name,
// the description and the compacted schema. Capability diffs log it for
// each tool that becomes visible, and each model request logs it for each
// tool it sent, so replay can check one against the other.
func SchemaHash(name, description string, schema json.RawMessage) string {
	h := sha256.New()
	h.Write([]byte(name))
	h.Write([]byte{0})
	h.Write([]byte(description))
	h.Write([]byte{0})
	var buf bytes.Buffer
	if err := json.Compact(&buf, schema); err != nil {
		h.Write(schema)
	} else {
		h.Write(buf.Bytes())
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Digest identifies a whole projection: the tools sent (name and hash, in
// order) and the index names.
func Digest(toolHashes [][2]string, index []string) string {
	h := sha256.New()
	for _, t := range toolHashes {
		h.Write([]byte(t[0]))
		h.Write([]byte{0})
		h.Write([]byte(t[1]))
		h.Write([]byte{1})
	}
	h.Write([]byte{2})
	for _, n := range index {
		h.Write([]byte(n))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Hashes returns the visible tools' schema hashes, in projection order.
func (vs *VisibleSet) Hashes() [][2]string {
	out := make([][2]string, 0, len(vs.Tools))
	for _, e := range vs.Tools {
		out = append(out, [2]string{e.Name, e.schemaHash()})
	}
	return out
}
