package api

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"time"

	"tinyelf/backend/usertools"
)

// Live events about user tools.
const (
	// LiveUserTools carries a usertools.Report after a scan (start-up, a
	// refresh), so Settings → Tools and the log can show what was skipped
	// or failed.
	LiveUserTools = "usertools.report"
	// LiveToolTask carries a usertools.Task whenever its state changes.
	LiveToolTask = "usertools.task"
)

func (s *Service) publishUserTools(typ string, v any) {
	b, _ := json.Marshal(v)
	s.bus.Publish(Event{Type: typ, Time: time.Now(), Data: b})
}

// UserToolsArgs names the agent whose user tools to show ("" is default).
type UserToolsArgs struct {
	Agent string `json:"agent"`
}

// ListUserTools returns an agent's user tools for Settings → Tools: each
// tool's kind, source, folder, actions (gated, background, timeout),
// credentials (where found, never the value) and errors, plus the
// agent's permissions and the tools skipped.
func (s *Service) ListUserTools(ctx context.Context, a UserToolsArgs) (usertools.Listing, error) {
	return s.userTools.List(ctx, a.Agent), nil
}

// RefreshUserTools rescans every tool folder for every agent (the Settings
// button) and returns the agent's new listing.
func (s *Service) RefreshUserTools(ctx context.Context, a UserToolsArgs) (usertools.Listing, error) {
	s.userTools.RefreshAll(ctx)
	return s.userTools.List(ctx, a.Agent), nil
}

// ShareUserToolArgs names a personal tool to copy into the common tools.
type ShareUserToolArgs struct {
	Agent     string `json:"agent"`
	Name      string `json:"name"`
	Overwrite bool   `json:"overwrite,omitempty"`
}

// ShareResult says what a share did.
type ShareResult struct {
	Message string `json:"message"`
}

// ShareUserTool copies a personal tool into the common tools folder (the
// user's own share_tool); it needs the agent's tool_creation.shared.
func (s *Service) ShareUserTool(_ context.Context, a ShareUserToolArgs) (ShareResult, error) {
	msg, err := s.userTools.Share(a.Agent, a.Name, a.Overwrite)
	var se *usertools.ShareError
	if errors.As(err, &se) {
		return ShareResult{}, invalidf("%s", se.Msg)
	}
	if err != nil {
		return ShareResult{}, err
	}
	return ShareResult{Message: msg}, nil
}

// SaveToolPermissionsArgs is an agent's new permissions file.
type SaveToolPermissionsArgs struct {
	Agent       string                `json:"agent"`
	Permissions usertools.Permissions `json:"permissions"`
}

// SaveToolPermissions writes an agent's permissions.json (tool_creation,
// allowed gated actions) and returns the new listing.
func (s *Service) SaveToolPermissions(ctx context.Context, a SaveToolPermissionsArgs) (usertools.Listing, error) {
	if err := s.userTools.SavePermissions(a.Agent, a.Permissions); err != nil {
		return usertools.Listing{}, invalidf("%v", err)
	}
	return s.userTools.List(ctx, a.Agent), nil
}

// SetToolSecretArgs stores a credential in the vault; an empty value
// removes it.
type SetToolSecretArgs struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// SetToolSecret stores a user tool credential in the encrypted vault. The
// value is never sent back.
func (s *Service) SetToolSecret(_ context.Context, a SetToolSecretArgs) (struct{}, error) {
	if err := s.userTools.Vault().Set(strings.TrimSpace(a.Name), a.Value); err != nil {
		return struct{}{}, invalidf("%v", err)
	}
	return struct{}{}, nil
}

// ListToolTasks returns an agent's background tool tasks ("" agent: all),
// newest first.
func (s *Service) ListToolTasks(_ context.Context, a UserToolsArgs) ([]usertools.Task, error) {
	return s.userTools.Tasks(a.Agent), nil
}

// RunUserToolArgs is one direct call of a user tool's action.
type RunUserToolArgs struct {
	Agent  string         `json:"agent"`
	Tool   string         `json:"tool"`
	Action string         `json:"action"`
	Args   map[string]any `json:"args,omitempty"`
	// Submit starts it as a background task.
	Submit bool `json:"submit,omitempty"`
}

// RunUserTool runs an action for the user (`tinyelf tool NAME ACTION`,
// `tinyelf tool submit`): the same validation, gate and truncation as the
// agent's calls; calling it is the approval.
func (s *Service) RunUserTool(ctx context.Context, a RunUserToolArgs) (ToolCallResult, error) {
	return toolCallResultOf(s.userTools.Call(ctx, a.Agent, a.Tool, a.Action, a.Args, a.Submit)), nil
}

// RunUserToolCLI runs a user tool's cli_main (or its manifest's cli
// command) with the caller's streams and returns its exit status; the
// seed's animaworks-tool. It is not in the method table: it streams.
func (s *Service) RunUserToolCLI(ctx context.Context, agent, tool string, argv []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	return s.userTools.RunCLI(ctx, agent, tool, argv, stdin, stdout, stderr)
}

// OpenToolsFolderArgs picks a tool folder to open: "personal" (the
// agent's) or "common".
type OpenToolsFolderArgs struct {
	Agent string `json:"agent"`
	Which string `json:"which"`
}

// FolderOpened says which folder was meant and whether the desktop opened
// it (a browser on another machine, or no file manager, cannot).
type FolderOpened struct {
	Path   string `json:"path"`
	Opened bool   `json:"opened"`
	Error  string `json:"error,omitempty"`
}

// OpenToolsFolder opens a tool folder in the system's file manager,
// creating it if needed, and returns its path either way.
func (s *Service) OpenToolsFolder(_ context.Context, a OpenToolsFolderArgs) (FolderOpened, error) {
	var dir string
	switch a.Which {
	case "common":
		dir = s.userTools.CommonDir()
	case "personal", "":
		d, err := s.userTools.PersonalDir(a.Agent)
		if err != nil {
			return FolderOpened{}, invalidf("%v", err)
		}
		dir = d
	default:
		return FolderOpened{}, invalidf("unknown folder %q (want personal or common)", a.Which)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return FolderOpened{Path: dir, Error: err.Error()}, nil
	}
	open := s.opts.OpenFolder
	if open == nil {
		open = func(dir string) error { return openFolder(s.children, dir) }
	}
	if err := open(dir); err != nil {
		return FolderOpened{Path: dir, Error: err.Error()}, nil
	}
	return FolderOpened{Path: dir, Opened: true}, nil
}
