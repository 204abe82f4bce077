// Package engine runs TinyElf's agent: it builds each session's tool
// registry, gates tool calls by permission mode, and (in later work) drives
// the agent loop. It knows nothing of Wails or HTTP.
package engine

import (
	"fmt"
	"slices"
	"strings"
)

// Mode is a permission mode: how much the agent may do without asking.
type Mode string

// The permission modes, from most to least cautious.
const (
	// ModePlan shows the agent only read-only tools.
	ModePlan Mode = "plan"
	// ModeDefault runs the seed's SAFE_TOOLS and asks for everything else.
	ModeDefault Mode = "default"
	// ModeAcceptEdits also runs Write and Edit without asking.
	ModeAcceptEdits Mode = "acceptEdits"
	// ModeAuto runs everything a deny rule or the shell deny list allows.
	ModeAuto Mode = "auto"
)

// Modes lists the permission modes in order of increasing autonomy.
var Modes = []Mode{ModePlan, ModeDefault, ModeAcceptEdits, ModeAuto}

// ParseMode reads a mode name, accepting any letter case and "accept-edits".
func ParseMode(s string) (Mode, error) {
	norm := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), "-", ""))
	for _, m := range Modes {
		if strings.ToLower(string(m)) == norm {
			return m, nil
		}
	}
	if norm == "" {
		return ModeDefault, nil
	}
	return "", fmt.Errorf("unknown permission mode %q (want plan, default, acceptEdits or auto)", s)
}

// Looser reports whether m lets the agent do more without asking than
// other does (plan < default < acceptEdits < auto).
func (m Mode) Looser(other Mode) bool {
	return slices.Index(Modes, m) > slices.Index(Modes, other)
}
