package capabilities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"tinyelf/backend/tokens"
	"tinyelf/backend/tools"
)

// Kind says what sort of capability a descriptor is.
type Kind string

// The kinds of capability (seed 003 §二).
const (
	// KindTool is an action the model calls (local, MCP, user tool).
	KindTool Kind = "tool"
	// KindSkill is a task experience pack loaded on demand (read_skill).
	KindSkill Kind = "skill"
	// KindResource is external context an MCP server offers.
	KindResource Kind = "resource"
	// KindPrompt is a workflow template (an MCP prompt, a slash command).
	KindPrompt Kind = "prompt"
	// KindChannel is an ability of the surface itself: interactive
	// approvals, desktop notifications, native dialogs.
	KindChannel Kind = "channel"
)

// ParseKind reads a kind name; "" and "any" mean every kind (returned as "").
func ParseKind(s string) (Kind, error) {
	switch k := Kind(strings.ToLower(strings.TrimSpace(s))); k {
	case "", "any", "all":
		return "", nil
	case KindTool, KindSkill, KindResource, KindPrompt, KindChannel:
		return k, nil
	case "tools", "skills", "resources", "prompts", "channels":
		return Kind(strings.TrimSuffix(string(k), "s")), nil
	}
	return "", fmt.Errorf("unknown kind %q (want tool, skill, resource, prompt, channel or any)", s)
}

// Risk grades what a capability can do if misused.
type Risk string

// The risk grades.
const (
	RiskLow    Risk = "low"
	RiskMedium Risk = "medium"
	RiskHigh   Risk = "high"
)

// Sources of descriptors, as shown to the user. MCP, skill and user-tool
// sources carry a suffix: "mcp:github", "skill:project", "usertool:personal".
const (
	SourceBuiltin = "builtin"
	SourceSurface = "surface"
)

// Tier says how eagerly the discovery policy shows a tool.
type Tier int

// The tiers, from the most eagerly shown down.
const (
	// TierDeferrable tools (MCP tools, user tools, rarely used local tools)
	// go to the index when the tool definitions would take too much of the
	// context window.
	TierDeferrable Tier = iota
	// TierCommon tools (the local tools that change files and run
	// commands) stay visible unless the context is nearly full.
	TierCommon
	// TierCore tools are visible whenever the mode, the agent and the rules
	// allow them: the local read-only tools and ToolSearch.
	TierCore
)

// Descriptor is what the catalog knows of one capability without loading
// it: enough to index it, rank it, decide its visibility and show it to the
// user. Descriptors are values; the catalog never mutates one it handed out.
type Descriptor struct {
	// ID is the full identity permission, audit and replay use (seed 003
	// §十三): local__Grep, mcp__<server>__<tool>, resource__<server>__<uri>,
	// prompt__<server>__<name>, skill__<name>, usertool__<name>,
	// channel__<name>.
	ID   string `json:"id"`
	Kind Kind   `json:"kind"`
	// Name is what the model uses: the tool's function name (Read,
	// mcp__everything__echo), the skill's name, the prompt's command, the
	// resource's URI.
	Name  string `json:"name"`
	Title string `json:"title"`
	// Summary is one line, the index line's text.
	Summary string `json:"summary"`
	// Description is the full text the model reads once it is visible.
	Description string `json:"description,omitempty"`
	// Source says where it comes from: builtin, mcp:<server>,
	// skill:<source>, usertool:<common|personal>, surface.
	Source string `json:"source"`
	// Server is the MCP server for MCP tools, resources and prompts.
	Server   string `json:"server,omitempty"`
	Risk     Risk   `json:"risk"`
	ReadOnly bool   `json:"readOnly"`
	// Safe capabilities run without asking in default mode (SAFE_TOOLS).
	Safe bool `json:"safe,omitempty"`
	// Params are the parameter names, and ParamText their descriptions,
	// for search.
	Params    []string `json:"params,omitempty"`
	ParamText string   `json:"-"`
	// IndexTokens and FullTokens estimate what the index line and the full
	// projection (schema and description) cost in the model's context.
	IndexTokens int `json:"indexTokens"`
	FullTokens  int `json:"fullTokens"`
	// Problem, when set, says why the capability cannot be offered (a
	// schema that is not a valid object schema, an untrusted skill); it is
	// listed, never made visible.
	Problem string `json:"problem,omitempty"`
	// Tier says how eagerly the policy shows a tool.
	Tier Tier `json:"tier"`
	// Keywords are extra words a source wants the capability found by (a
	// skill's paths and task words).
	Keywords []string `json:"keywords,omitempty"`
}

// IndexLine is the descriptor's line in the model's compact index.
func (d Descriptor) IndexLine() string {
	if d.Summary == "" {
		return d.Name
	}
	return d.Name + " — " + d.Summary
}

// Detail is a capability's full content, loaded on demand.
type Detail struct {
	// Schema is a tool's parameter schema.
	Schema json.RawMessage `json:"schema,omitempty"`
	// Body is a skill's instructions, a prompt's template or a resource's
	// text.
	Body string `json:"body,omitempty"`
	// Files lists a skill's files beside its SKILL.md.
	Files []string `json:"files,omitempty"`
}

// Entry is a descriptor with its runtime binding: the tool to execute for
// a tool, the loader of its detail for the other kinds.
type Entry struct {
	Descriptor
	// Tool executes a KindTool entry; nil for the other kinds.
	Tool tools.Tool
	// LoadDetail loads the full detail; nil means the descriptor is all
	// there is (a tool's detail is its schema, taken from Tool).
	LoadDetail func(ctx context.Context) (Detail, error)

	part string // the partition holding it, set by the catalog
	// def and hash are a tool's projection and its SchemaHash, fixed when
	// the entry is made (a tool's Info is not free to compute).
	def  tools.FunctionDef
	hash string
	// prepared is the tool checked and compiled once, for every session's
	// registry.
	prepared *tools.Prepared
	// lowerName and lowerBare are Name and the tool's own part of it in
	// lower case, set by the catalog (the policy looks for them in text).
	lowerName, lowerBare string
}

// WithTool returns the entry bound to t, which must describe itself
// exactly as the entry's tool did (another session's value of the same
// tool): the descriptor, projection and compiled schema are kept, and the
// entry's registry executes t.
func (e Entry) WithTool(t tools.Tool) Entry {
	e.Tool = t
	if e.prepared != nil {
		e.prepared = e.prepared.WithTool(t)
	}
	return e
}

// Prepared returns the tool ready for a registry, preparing it when the
// entry was not made by ToolEntry; nil for a broken tool or another kind.
func (e Entry) Prepared() *tools.Prepared {
	if e.prepared != nil || e.Tool == nil || e.Problem != "" {
		return e.prepared
	}
	p, err := tools.Prepare(e.Tool)
	if err != nil {
		return nil
	}
	return p
}

// Partition returns the key of the catalog partition the entry came from.
func (e Entry) Partition() string { return e.part }

// Load returns the capability's full detail (seed 003 §六's load()).
func (e Entry) Load(ctx context.Context) (Detail, error) {
	if e.LoadDetail != nil {
		return e.LoadDetail(ctx)
	}
	if e.Tool != nil {
		return Detail{Schema: e.Tool.Info().Parameters, Body: e.Tool.Info().Description}, nil
	}
	return Detail{}, errors.New("capability " + e.ID + " has no detail to load")
}

// ToolID returns the identity of a tool by its source: local__Read,
// mcp__server__tool (the model-facing name already carries the server),
// usertool__name.
func ToolID(info tools.Info) string {
	switch info.Source {
	case tools.SourceMCP:
		if ServerOf(info) == "" {
			// TinyElf's own tools over every server (the resource pair).
			return "local__" + info.Name
		}
		return info.Name
	case tools.SourceUserTool:
		return "usertool__" + info.Name
	case tools.SourceSkill:
		return "local__" + info.Name
	}
	return "local__" + info.Name
}

// ToolEntry describes a tool. The tool's schema is checked here: one that
// is not a valid object schema makes the entry carry a Problem instead of
// failing the source that offered it.
func ToolEntry(t tools.Tool) Entry {
	info := t.Info()
	d := Descriptor{
		ID:          ToolID(info),
		Kind:        KindTool,
		Name:        info.Name,
		Title:       info.Title,
		Description: info.Description,
		Summary:     Summarize(info.Description),
		Source:      toolSource(info),
		ReadOnly:    info.ReadOnly,
		Safe:        info.Safe,
		Risk:        toolRisk(info),
		Tier:        defaultTier(info),
	}
	d.Server = ServerOf(info)
	if d.Title == "" {
		d.Title = info.Name
	}
	params := info.Parameters
	if len(params) == 0 {
		params = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	prepared, err := tools.Prepare(t)
	if err != nil {
		d.Problem = fmt.Sprintf("it cannot be offered: %v", err)
	}
	d.Params, d.ParamText = paramWords(params)
	d.IndexTokens = tokens.Estimate(d.IndexLine()) + 2
	d.FullTokens = tokens.EstimateTool(info.Name, info.Description, params)
	def := tools.FunctionDef{Name: info.Name, Description: info.Description, Parameters: params}
	return Entry{Descriptor: d, Tool: t, def: def, hash: SchemaHash(def.Name, def.Description, def.Parameters), prepared: prepared}
}

// defaultTier is a tool's tier unless its source says otherwise: local
// read-only tools are core, other local tools common, the rest deferrable.
func defaultTier(info tools.Info) Tier {
	if rarelyUsed[info.Name] {
		return TierDeferrable
	}
	if info.Source == "" || info.Source == tools.SourceLocal || info.Source == tools.SourceSkill {
		if info.ReadOnly {
			return TierCore
		}
		return TierCommon
	}
	return TierDeferrable
}

// rarelyUsed are the local tools (seed 000's names) a task seldom needs:
// they are deferrable like MCP tools, whatever their sensitivity.
var rarelyUsed = map[string]bool{
	"Notify": true, "SessionsYield": true, "spawn_agent": true, "subagent_list": true, "subagent_status": true,
	"SessionsSpawn": true, "SessionsList": true, "SessionsSend": true, "SessionsHistory": true,
	"skillhub_search": true, "skillhub_install": true, "share_tool": true, "refresh_tools": true,
}

func toolSource(info tools.Info) string {
	switch info.Source {
	case tools.SourceMCP:
		if srv := ServerOf(info); srv != "" {
			return "mcp:" + srv
		}
	case tools.SourceUserTool:
		if info.Origin != "" {
			return "usertool:" + info.Origin
		}
		return "usertool"
	}
	return SourceBuiltin
}

// ServerOf returns the MCP server a tool comes from: its Origin, or the
// middle of an mcp__server__tool name; "" for other tools.
func ServerOf(info tools.Info) string {
	if info.Source != tools.SourceMCP {
		return ""
	}
	if info.Origin != "" {
		return info.Origin
	}
	if rest, ok := strings.CutPrefix(info.Name, "mcp__"); ok {
		if srv, _, ok := strings.Cut(rest, "__"); ok {
			return srv
		}
	}
	return ""
}

// toolRisk grades a tool: read-only tools are low, tools that change things
// medium, and tools that can destroy (MCP's destructiveHint, or a local tool
// that says so, like Bash) high.
func toolRisk(info tools.Info) Risk {
	switch {
	case info.ReadOnly:
		return RiskLow
	case info.Destructive:
		return RiskHigh
	}
	return RiskMedium
}

// paramWords returns a schema's top-level parameter names and the text of
// their descriptions, for search. A schema that does not parse yields none.
func paramWords(schema json.RawMessage) ([]string, string) {
	var s struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil, ""
	}
	names := make([]string, 0, len(s.Properties))
	var text strings.Builder
	for n, p := range s.Properties {
		names = append(names, n)
		text.WriteString(p.Description)
		text.WriteByte(' ')
	}
	slices.Sort(names)
	return names, text.String()
}

// summaryMax bounds an index line's summary, in runes.
const summaryMax = 110

// Summarize makes a one-line summary of a description: its first sentence
// without the "[MCP server x]" prefix, cut to about a hundred characters at a
// word boundary.
func Summarize(desc string) string {
	s := strings.TrimSpace(desc)
	if strings.HasPrefix(s, "[MCP server ") {
		if i := strings.Index(s, "] "); i > 0 {
			s = strings.TrimSpace(s[i+2:])
		}
	}
	if i := strings.IndexAny(s, "\n\r"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	if i := sentenceEnd(s); i > 0 {
		s = s[:i]
	}
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= summaryMax {
		return s
	}
	r := []rune(s)[:summaryMax]
	cut := string(r)
	if i := strings.LastIndexFunc(cut, unicode.IsSpace); i > summaryMax/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:") + "…"
}

// sentenceEnd returns the index just past the first sentence's full stop
// ("." followed by a space, or "。"), or -1.
func sentenceEnd(s string) int {
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '.' && i+1 < len(s) && s[i+1] == ' ' && i > 0 && !isAbbrevEnd(s[:i]):
			return i + 1
		case strings.HasPrefix(s[i:], "。"):
			return i + len("。")
		}
	}
	return -1
}

// isAbbrevEnd reports whether text ending at a full stop ends with a common
// abbreviation (e.g, i.e, etc) rather than a sentence.
func isAbbrevEnd(s string) bool {
	for _, a := range []string{"e.g", "i.e", "etc", "vs", "approx"} {
		if strings.HasSuffix(strings.ToLower(s), a) {
			return true
		}
	}
	return false
}
