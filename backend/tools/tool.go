// Package tools is TinyElf's tool contract: Tool (the seed's ITool) and
// its Info and Result, the Registry that runs a call through the seed's
// execute flow (lookup, coercion, validation, middleware, a deadline,
// truncation, the error hint), and what a call's context carries (its ID,
// progress, the Asker, the untrusted-content block). The tools themselves
// live beside it: tools/fs (files and the workspace), shell (Bash and its
// guard), web (fetch and search), tools/agent (subagents, sessions,
// notifications); the engine's registry builder assembles them.
//
// The package imports no other TinyElf package. Where a tool needs something
// that lives higher up, its package declares a small interface and the
// engine passes in what satisfies it when it builds the registry.
package tools

import (
	"context"
	"encoding/json"
	"fmt"
)

// Source says where a tool comes from. The permission gate and the capability
// catalog treat tools of every source alike; the source is shown to the user
// and used to group tools.
type Source string

// The sources a tool can come from.
const (
	SourceLocal    Source = "local"
	SourceMCP      Source = "mcp"
	SourceUserTool Source = "usertool"
	SourceSkill    Source = "skill"
)

// Info describes a tool to the model and to the runtime.
//
// The zero value of every flag is the cautious one: a tool is treated as
// writing and as needing the user's confirmation unless it says otherwise.
type Info struct {
	// Name is unique within a registry and valid as a function-calling name.
	Name string
	// Description is what the model reads to decide when to call the tool.
	Description string
	// Parameters is the JSON Schema (an object schema) of the call arguments.
	Parameters json.RawMessage
	// ReadOnly tools change nothing outside the agent; plan mode keeps only them.
	ReadOnly bool
	// Safe tools run without asking in default mode (the seed's SAFE_TOOLS).
	Safe bool
	// Source says where the tool comes from; empty means SourceLocal.
	Source Source
	// Origin narrows Source for the capability catalog and the UI: the MCP
	// server's name, "common" or "personal" for a user tool, the skill's
	// source. Empty for local tools.
	Origin string
	// Title is a human title (MCP's title); empty means Name.
	Title string
	// Destructive and OpenWorld carry MCP's destructiveHint and
	// openWorldHint (absent hints count as true, as the MCP spec says, for
	// tools that are not read-only); the catalog derives a tool's risk from
	// them. Local tools set Destructive when they can destroy data (Bash).
	Destructive, OpenWorld bool
	// MaxOutputBytes overrides the registry's output limit for this tool when
	// the tool bounds its own output more generously (Read, Bash); 0 keeps the
	// registry default.
	MaxOutputBytes int
}

// Result is what a tool returns. Content is what the model reads.
//
// A problem the model can act on (a missing file, a non-unique old_string) is
// a Result with IsError set; a Go error from Execute means something broke
// underneath, and the registry turns it into an error result as well.
type Result struct {
	Content string
	IsError bool
	// Meta carries structured details for the UI and the log (a diff, an exit
	// code); the model never sees it. Values must marshal to JSON.
	Meta map[string]any
}

// Tool is the seed's ITool: a name, a description, a JSON Schema for its
// parameters, and Execute. Cross-cutting behaviour (validation, permission,
// truncation, audit) is the registry's, not the tool's.
type Tool interface {
	Info() Info
	// Execute runs the tool with arguments that have already been coerced and
	// validated against Info().Parameters. It must honour ctx cancellation.
	Execute(ctx context.Context, params map[string]any) (Result, error)
}

// Inspector is implemented by tools that can tell, before running, what a call
// would do that the user should know about (a shell command using sudo, a path
// outside the workspace). The approval UI shows these warnings.
type Inspector interface {
	Warnings(params map[string]any) []string
}

// Assessment is a tool's own judgement of a call before it runs, for the
// permission gate.
type Assessment struct {
	// Deny, when set, says why the call must not run at all.
	Deny string
	// Hold, when set, says why a person must approve the call whatever the
	// permission mode (auto included) and the rules: the tool cannot tell
	// what the call would destroy.
	Hold string
	// Warnings are shown on the approval card.
	Warnings []string
}

// Assessor is implemented by tools that judge their calls beyond warnings:
// the shell guard refuses some commands and holds others for approval.
type Assessor interface {
	Assess(params map[string]any) Assessment
}

// Errorf returns an error result whose text the model can act on.
func Errorf(format string, args ...any) Result {
	return Result{Content: fmt.Sprintf(format, args...), IsError: true}
}

// Text returns a successful result.
func Text(s string) Result { return Result{Content: s} }

// Escalator is implemented by Safe tools some of whose calls need the
// user's approval all the same (WebFetch of a local address when the
// Settings allow local addresses). The permission gate asks for such a call
// in every mode but auto and shows the reason; a call it lets through
// carries WithApproval in its context.
type Escalator interface {
	// NeedsApproval returns why this call needs approval, or "".
	NeedsApproval(ctx context.Context, params map[string]any) string
}
