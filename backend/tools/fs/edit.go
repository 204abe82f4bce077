package fs

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"tinyelf/backend/tools"
)

//go:embed edit.md
var editDescription string

// editMaxBytes bounds the files Edit loads into memory.
const editMaxBytes = readWholeLimit

var editParams = json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File to edit, relative to the workspace root."},
    "old_string": {"type": "string", "description": "The exact text to replace."},
    "new_string": {"type": "string", "description": "The new text."},
    "replace_all": {"type": "boolean", "description": "Replace every occurrence."}
  },
  "required": ["path", "old_string", "new_string"],
  "additionalProperties": false
}`)

type editTool struct{ ws *Workspace }

// NewEdit returns the Edit tool: exact string replacement in a file.
func NewEdit(ws *Workspace) tools.Tool { return &editTool{ws: ws} }

func (t *editTool) Info() tools.Info {
	return tools.Info{Name: "Edit", Description: editDescription, Parameters: editParams, Source: tools.SourceLocal}
}

// Warnings flags edits outside the workspace (possible only when the
// workspace is not restricted).
func (t *editTool) Warnings(params map[string]any) []string {
	return outsideWarning(t.ws, tools.String(params, "path", ""))
}

func (t *editTool) Execute(ctx context.Context, params map[string]any) (tools.Result, error) {
	name, err := t.ws.Resolve(tools.String(params, "path", ""))
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	shown := t.ws.Display(name)
	oldStr := tools.String(params, "old_string", "")
	newStr := tools.String(params, "new_string", "")
	replaceAll := tools.Bool(params, "replace_all", false)
	if oldStr == "" {
		return tools.Errorf("old_string is empty. To create a file or replace all of it, use Write."), nil
	}
	if oldStr == newStr {
		return tools.Errorf("old_string and new_string are identical; the edit would change nothing."), nil
	}

	content, cur, errRes := t.load(name, shown)
	if errRes != nil {
		return *errRes, nil
	}
	if r := t.ws.checkFresh(name, shown, cur); r != nil {
		return *r, nil
	}
	// Models copy text from Read output, which shows CRLF files without \r.
	if strings.Contains(content, "\r\n") && !strings.Contains(oldStr, "\r\n") && !strings.Contains(content, oldStr) {
		oldStr = strings.ReplaceAll(oldStr, "\n", "\r\n")
		if !strings.Contains(newStr, "\r\n") {
			newStr = strings.ReplaceAll(newStr, "\n", "\r\n")
		}
	}
	n := strings.Count(content, oldStr)
	switch {
	case n == 0:
		return tools.Errorf("old_string was not found in %s.%s It must match the file exactly, including whitespace and indentation; Read the file and copy the text without the line-number prefix.",
			shown, nearMiss(content, oldStr)), nil
	case n > 1 && !replaceAll:
		return tools.Errorf("old_string occurs %d times in %s (at lines %s). Include more surrounding lines to make it unique, or set replace_all to true to change every occurrence.",
			n, shown, occurrenceLines(content, oldStr, 10)), nil
	}
	firstLine := strings.Count(content[:strings.Index(content, oldStr)], "\n") + 1
	var updated string
	if replaceAll {
		updated = strings.ReplaceAll(content, oldStr, newStr)
	} else {
		updated = strings.Replace(content, oldStr, newStr, 1)
	}
	if err := ctx.Err(); err != nil {
		return tools.Result{}, err
	}
	if err := writeFileAtomic(t.ws, name, []byte(updated)); err != nil {
		return writeError(shown, err), nil
	}
	t.ws.noteWritten(name)
	meta := map[string]any{"path": shown, "replacements": n, "firstLine": firstLine}
	if len(content) <= maxDiffBytes && len(updated) <= maxDiffBytes {
		meta["diff"] = UnifiedDiff(shown, content, updated)
	}
	plural := "occurrence"
	if n != 1 {
		plural += "s"
	}
	return tools.Result{
		Content: fmt.Sprintf("Edited %s: replaced %d %s (first at line %d).\n%s", shown, n, plural, firstLine, editSnippet(updated, firstLine, countLines(newStr))),
		Meta:    meta,
	}, nil
}

// load reads the file to edit, with its FileInfo, or returns the error
// result explaining why it cannot be edited.
func (t *editTool) load(name, shown string) (string, fs.FileInfo, *tools.Result) {
	fail := func(r tools.Result) (string, fs.FileInfo, *tools.Result) { return "", nil, &r }
	st, err := t.ws.Stat(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fail(tools.Errorf("File not found: %s. To create a new file, use Write.", shown))
		}
		return fail(statError(shown, err))
	}
	if err := checkRegular(st); err != nil {
		return fail(openError(shown, "edit", err))
	}
	if st.Size() > editMaxBytes {
		return fail(tools.Errorf("%s is %s, too large for Edit (limit %s). Use Bash with a stream editor instead.", shown, tools.HumanBytes(st.Size()), tools.HumanBytes(editMaxBytes)))
	}
	f, st, err := t.ws.OpenRegular(name)
	if err != nil {
		return fail(openError(shown, "edit", err))
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, editMaxBytes+1))
	if err != nil {
		return fail(tools.Errorf("Cannot read %s: %v", shown, err))
	}
	if int64(len(b)) > editMaxBytes {
		return fail(tools.Errorf("%s is over %s, too large for Edit. Use Bash with a stream editor instead.", shown, tools.HumanBytes(editMaxBytes)))
	}
	if isBinary(b[:min(len(b), binarySniffBytes)]) {
		return fail(tools.Errorf("%s is a binary file; Edit only changes text files.", shown))
	}
	return string(b), st, nil
}

// nearMiss points at a line that matches old_string apart from surrounding
// whitespace, the most common reason an edit does not apply.
func nearMiss(content, oldStr string) string {
	first := strings.TrimSpace(strings.SplitN(strings.TrimSpace(oldStr), "\n", 2)[0])
	if first == "" {
		return ""
	}
	for i, line := range strings.Split(content, "\n") {
		if strings.TrimSpace(line) == first {
			return fmt.Sprintf(" A line with the same text but different whitespace is at line %d.", i+1)
		}
	}
	return ""
}

func occurrenceLines(content, sub string, max int) string {
	var lines []string
	off := 0
	for len(lines) < max {
		i := strings.Index(content[off:], sub)
		if i < 0 {
			break
		}
		lines = append(lines, fmt.Sprint(strings.Count(content[:off+i], "\n")+1))
		off += i + len(sub)
	}
	return strings.Join(lines, ", ")
}

// editSnippet shows the edited region with line numbers and a little context.
func editSnippet(content string, firstLine, nLines int) string {
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	from := max(1, firstLine-3)
	to := min(len(lines), firstLine+min(max(nLines, 1), 20)-1+3)
	var sb strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&sb, "%6d\t%s\n", i, tools.CutUTF8(strings.TrimRight(lines[i-1], "\r"), readMaxLineBytes))
	}
	return sb.String()
}
