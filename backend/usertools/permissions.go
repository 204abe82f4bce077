package usertools

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"tinyelf/internal/atomicfile"
)

// PermissionsFile is an agent's permissions file, in its folder
// (<data dir>/agents/<agent>/permissions.json).
const PermissionsFile = "permissions.json"

// PermissionsVersion is the version of the permissions file this build
// writes.
const PermissionsVersion = 1

// Permissions is an agent's permissions file, in seed 002's format:
//
//	{
//	  "version": 1,
//	  "tool_creation": {"personal": true, "shared": false},
//	  "external_tools": ["gmail_send", "myapi_post"]
//	}
//
// tool_creation gates writing into the tool folders: personal (default on)
// the agent's own tools folder, shared (default off) the common tools
// folder and share_tool. external_tools lists the {tool}_{action} names of
// gated actions the agent may run; a gated action runs only when its exact
// name is there (no wildcards), in every permission mode. The agent cannot
// change this file: its folder is read-only to the FileSystem tools; the
// user edits it in Settings → Tools or by hand.
type Permissions struct {
	Version       int          `json:"version"`
	ToolCreation  ToolCreation `json:"tool_creation"`
	ExternalTools []string     `json:"external_tools,omitempty"`
}

// ToolCreation is the tool_creation section; nil fields take the defaults.
type ToolCreation struct {
	Personal *bool `json:"personal,omitempty"`
	Shared   *bool `json:"shared,omitempty"`
}

// PersonalAllowed reports whether the agent may write its personal tools
// (default yes).
func (p Permissions) PersonalAllowed() bool {
	return p.ToolCreation.Personal == nil || *p.ToolCreation.Personal
}

// SharedAllowed reports whether the agent may write common tools and share
// its own (default no).
func (p Permissions) SharedAllowed() bool {
	return p.ToolCreation.Shared != nil && *p.ToolCreation.Shared
}

// Allows reports whether the gated action schema ({tool}_{action}) has an
// explicit entry.
func (p Permissions) Allows(schema string) bool { return slices.Contains(p.ExternalTools, schema) }

// LoadPermissions reads an agent's permissions file; a missing file gives
// the defaults. A file that does not parse is an error: callers refuse what
// it would gate rather than guess.
func LoadPermissions(agentDir string) (Permissions, error) {
	path := filepath.Join(agentDir, PermissionsFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Permissions{Version: PermissionsVersion}, nil
	}
	if err != nil {
		return Permissions{}, fmt.Errorf("read %s: %w", path, err)
	}
	var p Permissions
	if err := json.Unmarshal(b, &p); err != nil {
		return Permissions{}, fmt.Errorf("%s is not valid (%v); fix it or save the permissions again in Settings → Tools", path, err)
	}
	if p.Version > PermissionsVersion {
		return Permissions{}, fmt.Errorf("%s has version %d, newer than this TinyElf understands (%d)", path, p.Version, PermissionsVersion)
	}
	return p, nil
}

// SavePermissions writes an agent's permissions file (sorted, without
// duplicates or blank entries).
func SavePermissions(agentDir string, p Permissions) error {
	p.Version = PermissionsVersion
	var list []string
	for _, e := range p.ExternalTools {
		if e = strings.TrimSpace(e); e != "" && !slices.Contains(list, e) {
			list = append(list, e)
		}
	}
	sort.Strings(list)
	p.ExternalTools = list
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(agentDir, PermissionsFile), append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("save the permissions of %s: %w", filepath.Base(agentDir), err)
	}
	return nil
}
