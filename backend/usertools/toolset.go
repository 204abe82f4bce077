package usertools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"tinyelf/backend/tools"
)

// toolSet is one agent's merged user tools and the tools.Tool values that
// offer them. It never changes; a refresh replaces it.
type toolSet struct {
	agent  string
	defs   []*Definition
	byName map[string]*Definition
	report Report
	tools  []tools.Tool
	// inner holds the action tools without middleware: use_tool runs its
	// call through it, for the same coercion and validation as a direct
	// call (the outer registry has already applied the permission gate).
	inner *tools.Registry
	// writable says, per origin, whether the agent could write that folder
	// when the set was built; written holds the write counts then.
	writable map[Origin]bool
	written  map[Origin]int
}

func newToolSet(s *Service, agent string, defs []*Definition, rep Report) *toolSet {
	set := &toolSet{agent: agent, defs: defs, byName: map[string]*Definition{}, report: rep, inner: tools.NewRegistry(),
		writable: map[Origin]bool{OriginPersonal: true, OriginCommon: true},
		written:  map[Origin]int{OriginPersonal: s.writes.count(agent, OriginPersonal), OriginCommon: s.writes.count(agent, OriginCommon)}}
	// A folder the agent can write holds code it can rewrite: its read-only
	// tools do not run without asking. A permissions file that cannot be
	// read counts as writable (the cautious reading).
	if p, err := s.Permissions(agent); err == nil {
		set.writable[OriginPersonal], set.writable[OriginCommon] = p.PersonalAllowed(), p.SharedAllowed()
	}
	var actions []tools.Tool
	for _, d := range defs {
		set.byName[d.Name] = d
		for _, a := range d.Actions {
			t := newActionTool(s, set, d, a)
			if err := set.inner.Register(t); err != nil {
				set.report.Errors = append(set.report.Errors, Problem{Tool: d.Name, Origin: d.Origin, Path: d.Path, Message: err.Error()})
				continue
			}
			actions = append(actions, t)
		}
	}
	use := &useTool{svc: s, set: set}
	use.info = use.describe()
	set.tools = append([]tools.Tool{
		use,
		&refreshTool{svc: s, agent: agent},
		&shareTool{svc: s, agent: agent},
		&tasksTool{svc: s, agent: agent},
	}, actions...)
	return set
}

// ActionTool is implemented by the tool of every user tool action the
// service offers (not by use_tool and the other control tools): the
// capability catalog reads the tool's kind, folder, origin and profile
// through it. Its Info has Source tools.SourceUserTool and Origin "common"
// or "personal".
type ActionTool interface {
	tools.Tool
	Definition() *Definition
	Action() Action
}

var _ ActionTool = (*actionTool)(nil)

// actionTool is one action of a user tool, called by its schema name.
type actionTool struct {
	svc    *Service
	set    *toolSet
	def    *Definition
	action Action
	info   tools.Info
}

func newActionTool(s *Service, set *toolSet, d *Definition, a Action) *actionTool {
	p := a.Profile
	var sb strings.Builder
	sb.WriteString(a.Description)
	if sb.Len() == 0 {
		sb.WriteString(d.Description)
	}
	fmt.Fprintf(&sb, "\n\n(User tool %s, %s, action %s.", d.Name, d.Origin, a.Name)
	if p.Gated {
		fmt.Fprintf(&sb, " Gated: it runs only when the user has allowed %s in this agent's permissions.", a.Schema)
	}
	if p.BackgroundEligible {
		sb.WriteString(" Pass submit: true to run it as a background task.")
	}
	sb.WriteString(")")
	params := a.Parameters
	if p.BackgroundEligible {
		params = withSubmit(params)
	}
	return &actionTool{svc: s, set: set, def: d, action: a, info: tools.Info{
		Name: a.Schema, Description: sb.String(), Parameters: params,
		ReadOnly: p.ReadOnly, Safe: p.ReadOnly && !set.writable[d.Origin],
		Source: tools.SourceUserTool, Origin: string(d.Origin), Title: a.Title,
		Destructive: !p.ReadOnly, OpenWorld: true,
	}}
}

func (t *actionTool) Info() tools.Info { return t.info }

// Definition returns the user tool this action belongs to (the capability
// catalog reads its kind, folder and profile).
func (t *actionTool) Definition() *Definition { return t.def }

// Action returns the action the tool calls.
func (t *actionTool) Action() Action { return t.action }

func (t *actionTool) Execute(ctx context.Context, params map[string]any) (tools.Result, error) {
	// A tool that runs without asking must still be the code the user
	// could review: once the agent wrote into its folder, it waits for a
	// refresh, which decides anew.
	if t.info.Safe && t.svc.writes.count(t.set.agent, t.def.Origin) != t.set.written[t.def.Origin] {
		return tools.Errorf("%s runs without asking only as it was loaded, and files in its folder were written since. Call refresh_tools, then call it again.", t.action.Schema), nil
	}
	args := make(map[string]any, len(params))
	for k, v := range params {
		args[k] = v
	}
	submit := false
	if t.action.Profile.BackgroundEligible {
		submit = tools.Bool(args, "submit", false)
		if _, declared := propertyOf(t.action.Parameters, "submit"); !declared {
			delete(args, "submit")
		}
	}
	return t.svc.invoke(ctx, t.set.agent, t.def, t.action, args, submit), nil
}

// Warnings tell the approval card what running the call means.
func (t *actionTool) Warnings(map[string]any) []string {
	return t.svc.warnings(t.def, t.action)
}

// propertyOf reports whether an object schema declares a property.
func propertyOf(schema json.RawMessage, name string) (json.RawMessage, bool) {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil, false
	}
	p, ok := s.Properties[name]
	return p, ok
}

//go:embed use_tool.md
var useToolDescription string

var useToolParams = json.RawMessage(`{
  "type": "object",
  "properties": {
    "tool_name": {"type": "string", "description": "The user tool's name (its file name without .py or .tool.json)."},
    "action": {"type": "string", "description": "The action: the schema name without the \"{tool_name}_\" prefix (the full schema name works too)."},
    "args": {"type": "object", "description": "The action's arguments, as its schema describes them."},
    "submit": {"type": "boolean", "description": "Run it as a background task (only for actions whose profile allows it)."}
  },
  "required": ["tool_name", "action"],
  "additionalProperties": false
}`)

// useTool is the unified entry of seed 002: use_tool(tool_name, action,
// args).
type useTool struct {
	svc  *Service
	set  *toolSet
	info tools.Info
}

func (t *useTool) Info() tools.Info { return t.info }

// describe lists the agent's user tools in use_tool's description.
func (t *useTool) describe() tools.Info {
	var sb strings.Builder
	sb.WriteString(useToolDescription)
	sb.WriteString("\n\nUser tools of this agent:")
	n := 0
	for _, d := range t.set.defs {
		if !d.Loaded() {
			continue
		}
		n++
		if n > 60 {
			sb.WriteString("\n- … (more: see Settings → Tools)")
			break
		}
		names := make([]string, len(d.Actions))
		for i, a := range d.Actions {
			names[i] = a.Name
		}
		fmt.Fprintf(&sb, "\n- %s (%s): %s", d.Name, d.Origin, strings.Join(names, ", "))
	}
	if n == 0 {
		sb.WriteString(" none yet.")
	}
	return tools.Info{Name: UseToolName, Description: sb.String(), Parameters: useToolParams, Source: tools.SourceLocal}
}

func (t *useTool) Execute(ctx context.Context, params map[string]any) (tools.Result, error) {
	name := strings.TrimSpace(tools.String(params, "tool_name", ""))
	actionName := strings.TrimSpace(tools.String(params, "action", ""))
	d, ok := t.set.byName[name]
	if !ok {
		return tools.Errorf("There is no user tool %q. %s If you just wrote it, call refresh_tools first.", name, t.available()), nil
	}
	if !d.Loaded() {
		return tools.Errorf("The user tool %s failed to load: %s", name, strings.Join(d.Errors, "; ")), nil
	}
	a, ok := d.Action(actionName)
	if !ok {
		names := make([]string, len(d.Actions))
		for i, x := range d.Actions {
			names[i] = x.Name
		}
		return tools.Errorf("The user tool %s has no action %q; its actions are: %s.", name, actionName, strings.Join(names, ", ")), nil
	}
	args, _ := params["args"].(map[string]any)
	call := map[string]any{}
	for k, v := range args {
		call[k] = v
	}
	if tools.Bool(params, "submit", false) {
		if !a.Profile.BackgroundEligible {
			return tools.Errorf("%s cannot run in the background: its profile does not set background_eligible. Call it without submit.", a.Schema), nil
		}
		call["submit"] = true
	}
	raw, err := json.Marshal(call)
	if err != nil {
		return tools.Errorf("The arguments cannot be encoded: %v", err), nil
	}
	res := t.set.inner.Execute(ctx, tools.CallIDFromContext(ctx), a.Schema, raw)
	meta := res.Meta
	if meta == nil {
		meta = map[string]any{}
	}
	meta["schema"] = a.Schema
	return tools.Result{Content: res.Content, IsError: res.IsError, Meta: meta}, nil
}

// Warnings name the tool and action the call runs.
func (t *useTool) Warnings(params map[string]any) []string {
	d, ok := t.set.byName[tools.String(params, "tool_name", "")]
	if !ok {
		return nil
	}
	a, ok := d.Action(tools.String(params, "action", ""))
	if !ok {
		return nil
	}
	return t.svc.warnings(d, a)
}

func (t *useTool) available() string {
	var names []string
	for _, d := range t.set.defs {
		if d.Loaded() {
			names = append(names, d.Name)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "This agent has no user tools yet."
	}
	return "Available: " + strings.Join(names, ", ") + "."
}
