package mcp

import (
	"context"
	"path/filepath"

	"tinyelf/backend/proc"
	"tinyelf/backend/tools"
	"tinyelf/backend/tools/fs"
)

type workspaceProvider struct {
	dir      string
	children *proc.Children
}

// NewWorkspaceProvider returns the "workspace" provider: TinyElf's
// read-only file tools (read_file, list_dir, glob, grep) confined to a
// folder, the Caller's Workspace or else dir. It is eligible for external
// CLI agents that have a folder, since TinyElf's own agents have the local
// tools. children starts grep's ripgrep (may be nil).
func NewWorkspaceProvider(dir string, children *proc.Children) Provider {
	return workspaceProvider{dir: dir, children: children}
}

func (p workspaceProvider) Name() string { return "workspace" }

func (p workspaceProvider) Description() string {
	return "Read-only access to the workspace folder through TinyElf's file tools: read files, list folders, find files by pattern, search contents."
}

func (p workspaceProvider) folder(ctx context.Context) string {
	if c, _ := CallerFrom(ctx); c.Workspace != "" {
		return c.Workspace
	}
	return p.dir
}

func (p workspaceProvider) IsEligible(ctx context.Context) bool {
	c, _ := CallerFrom(ctx)
	return c.External && p.folder(ctx) != ""
}

func (p workspaceProvider) Tools(ctx context.Context) ([]tools.Tool, error) {
	dir, err := filepath.Abs(p.folder(ctx))
	if err != nil {
		return nil, err
	}
	// Opened once here to fail early on a missing folder; each call opens
	// its own, so nothing stays open between calls.
	ws, err := fs.OpenWorkspace(dir, true)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	makers := []struct {
		name string
		make func(*fs.Workspace) tools.Tool
	}{
		{"read_file", fs.NewRead},
		{"list_dir", fs.NewListDir},
		{"glob", fs.NewGlob},
		{"grep", func(ws *fs.Workspace) tools.Tool {
			return fs.NewGrep(ws, fs.GrepOptions{Children: p.children})
		}},
	}
	var out []tools.Tool
	for _, m := range makers {
		info := m.make(ws).Info()
		info.Name = m.name
		info.ReadOnly = true
		out = append(out, workspaceTool{dir: dir, info: info, make: m.make})
	}
	return out, nil
}

// workspaceTool runs a local file tool on a workspace opened (restricted)
// for the call.
type workspaceTool struct {
	dir  string
	info tools.Info
	make func(*fs.Workspace) tools.Tool
}

func (t workspaceTool) Info() tools.Info { return t.info }

func (t workspaceTool) Execute(ctx context.Context, params map[string]any) (tools.Result, error) {
	ws, err := fs.OpenWorkspace(t.dir, true)
	if err != nil {
		return tools.Errorf("The workspace %s cannot be opened: %v", t.dir, err), nil
	}
	defer ws.Close()
	return t.make(ws).Execute(ctx, params)
}
