package fs

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"tinyelf/backend/tools"
)

//go:embed listdir.md
var listDirDescription string

// listDirMaxEntries caps a listing; the rest is counted, not shown.
const listDirMaxEntries = 1000

var listDirParams = json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Folder to list, relative to the workspace root; \".\" is the root."}
  },
  "required": ["path"],
  "additionalProperties": false
}`)

type listDirTool struct{ ws *Workspace }

// NewListDir returns the ListDir tool: the entries of one folder.
func NewListDir(ws *Workspace) tools.Tool { return &listDirTool{ws: ws} }

func (t *listDirTool) Info() tools.Info {
	return tools.Info{Name: "ListDir", Description: listDirDescription, Parameters: listDirParams, ReadOnly: true, Safe: true, Source: tools.SourceLocal}
}

func (t *listDirTool) Execute(ctx context.Context, params map[string]any) (tools.Result, error) {
	name, err := t.ws.Resolve(tools.String(params, "path", "."))
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	shown := t.ws.Display(name)
	st, err := t.ws.Stat(name)
	if err != nil {
		return statError(shown, err), nil
	}
	if !st.IsDir() {
		return tools.Errorf("Not a directory: %s. Use Read to read a file.", shown), nil
	}
	entries, err := t.ws.ReadDir(name)
	if err != nil {
		return statError(shown, err), nil
	}
	// Folders first, then files, each alphabetically.
	sort.SliceStable(entries, func(i, j int) bool {
		di, dj := entries[i].IsDir(), entries[j].IsDir()
		if di != dj {
			return di
		}
		return entries[i].Name() < entries[j].Name()
	})
	var sb strings.Builder
	noun := "entries"
	if len(entries) == 1 {
		noun = "entry"
	}
	fmt.Fprintf(&sb, "%s/ (%d %s)\n", strings.TrimSuffix(shown, "/"), len(entries), noun)
	if len(entries) == 0 {
		sb.WriteString("(empty folder)\n")
	}
	for i, e := range entries {
		if i == listDirMaxEntries {
			fmt.Fprintf(&sb, "... and %d more entries not shown. Use Glob to narrow the listing.\n", len(entries)-i)
			break
		}
		sb.WriteString(describeEntry(t.ws, name, e))
	}
	return tools.Result{Content: sb.String(), Meta: map[string]any{"path": shown, "entries": len(entries)}}, nil
}

func describeEntry(ws *Workspace, dir string, e fs.DirEntry) string {
	switch {
	case e.Type()&fs.ModeSymlink != 0:
		target, err := ws.Readlink(ws.Join(dir, e.Name()))
		if err != nil {
			target = "?"
		}
		return fmt.Sprintf("  %s -> %s (symbolic link)\n", e.Name(), target)
	case e.IsDir():
		return fmt.Sprintf("  %s/\n", e.Name())
	}
	info, err := e.Info()
	if err != nil {
		return fmt.Sprintf("  %s\n", e.Name())
	}
	return fmt.Sprintf("  %s (%s)\n", e.Name(), tools.HumanBytes(info.Size()))
}
