package fs

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"tinyelf/backend/tools"
	"tinyelf/internal/atomicfile"
)

//go:embed write.md
var writeDescription string

// maxDiffBytes bounds the files Write and Edit diff for the UI.
const maxDiffBytes = 1 << 20

var writeParams = json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File to write, relative to the workspace root. Missing parent folders are created."},
    "content": {"type": "string", "description": "The complete new content of the file."}
  },
  "required": ["path", "content"],
  "additionalProperties": false
}`)

type writeTool struct{ ws *Workspace }

// NewWrite returns the Write tool: create or overwrite a whole file,
// atomically, keeping an existing file's mode.
func NewWrite(ws *Workspace) tools.Tool { return &writeTool{ws: ws} }

func (t *writeTool) Info() tools.Info {
	return tools.Info{Name: "Write", Description: writeDescription, Parameters: writeParams, Source: tools.SourceLocal}
}

// Warnings flags writes outside the workspace (possible only when the
// workspace is not restricted).
func (t *writeTool) Warnings(params map[string]any) []string {
	return outsideWarning(t.ws, tools.String(params, "path", ""))
}

func (t *writeTool) Execute(ctx context.Context, params map[string]any) (tools.Result, error) {
	name, err := t.ws.Resolve(tools.String(params, "path", ""))
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	content := tools.String(params, "content", "")
	shown := t.ws.Display(name)
	old, cur, err := readForDiff(t.ws, name)
	if err != nil {
		return writeError(shown, err), nil
	}
	existed := cur != nil
	if existed {
		if r := t.ws.checkFresh(name, shown, cur); r != nil {
			return *r, nil
		}
	}
	if err := ctx.Err(); err != nil {
		return tools.Result{}, err
	}
	if err := writeFileAtomic(t.ws, name, []byte(content)); err != nil {
		return writeError(shown, err), nil
	}
	t.ws.noteWritten(name)
	verb := "Created"
	if existed {
		verb = "Overwrote"
	}
	meta := map[string]any{"path": shown, "created": !existed, "bytes": len(content)}
	if len(old) <= maxDiffBytes && len(content) <= maxDiffBytes {
		meta["diff"] = UnifiedDiff(shown, old, content)
	}
	return tools.Result{
		Content: fmt.Sprintf("%s %s (%d lines, %s).", verb, shown, countLines(content), tools.HumanBytes(int64(len(content)))),
		Meta:    meta,
	}, nil
}

// readForDiff returns a file's current text for diffing ("" for a binary or
// very large file) and, when it exists, its FileInfo (nil when it does not).
// It opens the file as OpenRegular does, so a FIFO, socket or device is an
// ErrNotRegular error, never a hang.
func readForDiff(ws *Workspace, name string) (string, fs.FileInfo, error) {
	st, err := ws.Stat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	if err := checkRegular(st); err != nil {
		return "", nil, err
	}
	f, st, err := ws.OpenRegular(name)
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	if st.Size() > maxDiffBytes {
		return "", st, nil
	}
	b, err := io.ReadAll(io.LimitReader(f, maxDiffBytes+1))
	if err != nil {
		return "", nil, err
	}
	if isBinary(b[:min(len(b), binarySniffBytes)]) {
		return "", st, nil
	}
	return string(b), st, nil
}

var errIsDir = errors.New("is a directory")

func writeError(shown string, err error) tools.Result { return openError(shown, "write", err) }

// writeFileAtomic replaces name with data so that a crash leaves either the
// old or the new content: it writes a temporary file in the same folder,
// syncs it and renames it over the target. Missing parent folders are
// created; an existing file keeps its mode; a symbolic link keeps pointing at
// the (new) file.
func writeFileAtomic(ws *Workspace, name string, data []byte) error {
	target, err := ws.FollowLinks(name)
	if err != nil {
		return err
	}
	perm := os.FileMode(0o644)
	if st, err := ws.Stat(target); err == nil {
		if err := checkRegular(st); err != nil {
			return err
		}
		perm = st.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	dir := filepath.Dir(target)
	if err := ws.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFileIn(ws, target, data, perm)
}

func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// outsideWarning warns about a path outside the workspace; such a path is
// only usable when the workspace is not restricted.
func outsideWarning(ws *Workspace, p string) []string {
	if p == "" || ws.Inside(p) {
		return nil
	}
	return []string{fmt.Sprintf("%s is outside the workspace %s", p, ws.Dir())}
}
