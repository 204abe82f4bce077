package usertools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"tinyelf/backend/tools"
	"tinyelf/internal/atomicfile"
)

//go:embed refresh_tools.md
var refreshDescription string

//go:embed share_tool.md
var shareDescription string

//go:embed tool_tasks.md
var tasksDescription string

// refreshTool is the seed's refresh_tools.
type refreshTool struct {
	svc   *Service
	agent string
}

func (t *refreshTool) Info() tools.Info {
	desc := refreshDescription
	if dir, err := t.svc.PersonalDir(t.agent); err == nil {
		desc += fmt.Sprintf("\n\nYour personal tools folder: %s\nThe common tools folder: %s", dir, t.svc.CommonDir())
	}
	return tools.Info{Name: RefreshToolsName, Description: desc, Parameters: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
		ReadOnly: true, Safe: true, Source: tools.SourceLocal}
}

func (t *refreshTool) Execute(ctx context.Context, _ map[string]any) (tools.Result, error) {
	before := t.svc.set(ctx, t.agent)
	rep := t.svc.Refresh(ctx, t.agent)
	after := t.svc.set(ctx, t.agent)
	added, removed := diffNames(schemaNames(before), schemaNames(after))
	var sb strings.Builder
	sb.WriteString(rep.Summary())
	if len(added) > 0 {
		fmt.Fprintf(&sb, "\nNew actions, callable from your next step (directly or through use_tool): %s.", strings.Join(added, ", "))
	}
	if len(removed) > 0 {
		fmt.Fprintf(&sb, "\nNo longer available: %s.", strings.Join(removed, ", "))
	}
	if len(added) == 0 && len(removed) == 0 {
		sb.WriteString("\nNo actions were added or removed.")
	}
	return tools.Result{Content: sb.String(), Meta: map[string]any{"report": rep, "added": added, "removed": removed}}, nil
}

func schemaNames(set *toolSet) []string {
	var out []string
	for _, d := range set.defs {
		for _, a := range d.Actions {
			out = append(out, a.Schema)
		}
	}
	return out
}

func diffNames(before, after []string) (added, removed []string) {
	for _, n := range after {
		if !slices.Contains(before, n) {
			added = append(added, n)
		}
	}
	for _, n := range before {
		if !slices.Contains(after, n) {
			removed = append(removed, n)
		}
	}
	return added, removed
}

// shareTool is the seed's share_tool.
type shareTool struct {
	svc   *Service
	agent string
}

var shareParams = json.RawMessage(`{
  "type": "object",
  "properties": {
    "tool_name": {"type": "string", "description": "The personal tool to share (its file name without .py or .tool.json)."},
    "overwrite": {"type": "boolean", "description": "Replace a common tool of the same name."}
  },
  "required": ["tool_name"],
  "additionalProperties": false
}`)

func (t *shareTool) Info() tools.Info {
	return tools.Info{Name: ShareToolName, Description: shareDescription, Parameters: shareParams, Source: tools.SourceLocal}
}

func (t *shareTool) Execute(_ context.Context, params map[string]any) (tools.Result, error) {
	msg, err := t.svc.Share(t.agent, tools.String(params, "tool_name", ""), tools.Bool(params, "overwrite", false))
	if err != nil {
		var se *ShareError
		if errors.As(err, &se) {
			return tools.Errorf("%s", se.Msg), nil
		}
		return tools.Result{}, err
	}
	return tools.Text(msg), nil
}

// ShareError is a share that was refused for a reason the user or model
// can act on (no permission, no such tool, already shared).
type ShareError struct{ Msg string }

func (e *ShareError) Error() string { return e.Msg }

// Share copies an agent's personal tool into the common tools folder (the
// seed's share_tool). It needs tool_creation.shared. A Python tool is its
// .py file; an executable tool is its manifest and the files of its
// command that lie in the personal folder. Refusals are *ShareError.
func (s *Service) Share(agent, name string, overwrite bool) (string, error) {
	agentDir, err := s.AgentDir(agent)
	if err != nil {
		return "", &ShareError{Msg: err.Error()}
	}
	p, err := LoadPermissions(agentDir)
	if err != nil {
		return "", &ShareError{Msg: fmt.Sprintf("share_tool is refused because the agent's permissions cannot be read: %v", err)}
	}
	if !p.SharedAllowed() {
		return "", &ShareError{Msg: fmt.Sprintf("share_tool needs tool_creation.shared, which is off for agent %s. Ask the user to turn it on in Settings → Tools → Permissions; do not copy the file another way.", agent)}
	}
	name = strings.TrimSpace(name)
	if !toolNamePattern.MatchString(name) {
		return "", &ShareError{Msg: fmt.Sprintf("%q is not a tool name: give the file name without .py or .tool.json", name)}
	}
	personal := filepath.Join(agentDir, PersonalDir)
	files, err := toolFiles(personal, name)
	if err != nil {
		return "", err
	}
	if len(files) == 0 {
		return "", &ShareError{Msg: fmt.Sprintf("There is no personal tool %s in %s (looked for %s.py and %s%s).", name, personal, name, name, ManifestSuffix)}
	}
	common := s.CommonDir()
	if !overwrite {
		for _, f := range files {
			if _, err := os.Lstat(filepath.Join(common, f)); err == nil {
				return "", &ShareError{Msg: fmt.Sprintf("The common tools folder already has %s. Pass overwrite: true to replace it, or rename your tool.", filepath.Join(common, f))}
			}
		}
	}
	for _, f := range files {
		if err := copyFile(filepath.Join(personal, f), filepath.Join(common, f)); err != nil {
			return "", fmt.Errorf("share %s: %w", name, err)
		}
	}
	return fmt.Sprintf("Shared %s: copied %s into %s. Other agents see it after their own refresh_tools (or a restart); for this agent the personal copy still wins.",
		name, strings.Join(files, ", "), common), nil
}

// toolFiles returns the files (relative to dir) that make up a tool.
func toolFiles(dir, name string) ([]string, error) {
	if st, err := os.Stat(filepath.Join(dir, name+".py")); err == nil && st.Mode().IsRegular() {
		return []string{name + ".py"}, nil
	}
	mpath := filepath.Join(dir, name+ManifestSuffix)
	b, err := readCapped(mpath, maxManifestBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", mpath, err)
	}
	files := []string{name + ManifestSuffix}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, &ShareError{Msg: fmt.Sprintf("The manifest %s is not valid (%v); fix it before sharing.", mpath, err)}
	}
	argv := append(append([]string{}, m.Command...), m.CLI...)
	if len(m.Command) == 0 {
		argv = append(argv, name)
	}
	for _, a := range argv {
		rel := filepath.Clean(strings.TrimPrefix(a, "./"))
		if filepath.IsAbs(a) || !filepath.IsLocal(rel) || strings.ContainsRune(rel, filepath.Separator) || slices.Contains(files, rel) {
			continue
		}
		if st, err := os.Stat(filepath.Join(dir, rel)); err == nil && st.Mode().IsRegular() {
			files = append(files, rel)
		}
	}
	return files, nil
}

// copyFile copies src to dst atomically, keeping src's mode.
func copyFile(src, dst string) error {
	st, err := os.Stat(src)
	if err != nil {
		return err
	}
	b, err := readCapped(src, 64<<20)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(dst, b, st.Mode().Perm()); err != nil {
		return err
	}
	return os.Chmod(dst, st.Mode().Perm())
}

// tasksTool lists the agent's background tasks.
type tasksTool struct {
	svc   *Service
	agent string
}

var tasksParams = json.RawMessage(`{
  "type": "object",
  "properties": {
    "task_id": {"type": "string", "description": "A task's ID, to see its result; omit to list recent tasks."}
  },
  "additionalProperties": false
}`)

func (t *tasksTool) Info() tools.Info {
	return tools.Info{Name: ToolTasksName, Description: tasksDescription, Parameters: tasksParams, ReadOnly: true, Safe: true, Source: tools.SourceLocal}
}

func (t *tasksTool) Execute(_ context.Context, params map[string]any) (tools.Result, error) {
	if id := strings.TrimSpace(tools.String(params, "task_id", "")); id != "" {
		task, ok := t.svc.Task(id)
		if !ok || task.Agent != t.agent {
			return tools.Errorf("There is no background task %q for this agent; call tool_tasks without task_id to list them.", id), nil
		}
		args, _ := json.Marshal(task.Args)
		var sb strings.Builder
		fmt.Fprintf(&sb, "Task %s: %s, %s.\nArguments: %s\nStarted: %s", task.ID, task.Schema, task.State, args, task.Created.Format(time.RFC3339))
		if !task.Finished.IsZero() {
			fmt.Fprintf(&sb, "\nEnded: %s (after %s)", task.Finished.Format(time.RFC3339), task.Finished.Sub(task.Created).Round(time.Millisecond))
		}
		if task.State != TaskRunning {
			fmt.Fprintf(&sb, "\nResult:\n%s", task.Result)
		}
		return tools.Result{Content: sb.String(), Meta: map[string]any{"task": task}}, nil
	}
	list := t.svc.Tasks(t.agent)
	if len(list) == 0 {
		return tools.Text("No background tasks yet. Submit one with submit: true on a background-eligible action."), nil
	}
	var sb strings.Builder
	for i, task := range list {
		if i == 20 {
			fmt.Fprintf(&sb, "… and %d older tasks.\n", len(list)-20)
			break
		}
		fmt.Fprintf(&sb, "%s  %s  %s  started %s\n", task.ID, task.Schema, task.State, task.Created.Format(time.RFC3339))
	}
	return tools.Text(strings.TrimRight(sb.String(), "\n")), nil
}
