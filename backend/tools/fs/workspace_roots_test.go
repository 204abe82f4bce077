package fs

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"tinyelf/backend/tools"
	"tinyelf/internal/testutil"
)

// rootsFixture is a workspace with three extra folders: a read-only skill
// folder, an agent folder (read-only) holding a writable tools folder behind
// a gate, and a file outside all of them.
type rootsFixture struct {
	ws                        *Workspace
	dir, skill, agent, toolsD string
	outside                   string
	allow                     *atomic.Bool
}

func newRootsFixture(t *testing.T, restrict bool) rootsFixture {
	t.Helper()
	base := t.TempDir()
	f := rootsFixture{
		dir: filepath.Join(base, "ws"), skill: filepath.Join(base, "skills", "pdf"),
		agent: filepath.Join(base, "agents", "default"), outside: filepath.Join(base, "secret.txt"),
		allow: &atomic.Bool{},
	}
	f.toolsD = filepath.Join(f.agent, "tools")
	testutil.WriteTree(t, f.dir, map[string]string{"a.txt": "in the workspace\n"})
	testutil.WriteTree(t, f.skill, map[string]string{"SKILL.md": "---\nname: pdf\n---\nUse pdftotext.\n"})
	testutil.WriteTree(t, f.agent, map[string]string{"permissions.json": `{"version":1}`, "tools/old.py": "x = 1\n"})
	if err := os.WriteFile(f.outside, []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A link inside the skill folder that points out of it.
	if err := os.Symlink(f.outside, filepath.Join(f.skill, "escape.txt")); err != nil {
		t.Fatal(err)
	}
	f.allow.Store(true)
	ws, err := OpenWorkspace(f.dir, restrict,
		Root{Dir: f.skill, Reason: "the pdf skill's folder"},
		Root{Dir: f.agent, Reason: "your agent folder; the user changes its permissions"},
		Root{Dir: f.toolsD, Writable: true, Reason: "your personal tools folder", Gate: func(p string) error {
			if !f.allow.Load() {
				return errors.New("tool_creation.personal is off for this agent")
			}
			return nil
		}},
	)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	f.ws = ws
	return f
}

type rootCase struct {
	name      string
	tool      tools.Tool
	args      string
	gateOff   bool // the gate refuses
	wantError string
	want      string
}

func TestWorkspaceExtraRoots(t *testing.T) {
	for _, restrict := range []bool{true, false} {
		t.Run(map[bool]string{true: "restricted", false: "unrestricted"}[restrict], func(t *testing.T) {
			f := newRootsFixture(t, restrict)
			args := func(kv ...any) string {
				m := map[string]any{}
				for i := 0; i+1 < len(kv); i += 2 {
					m[kv[i].(string)] = kv[i+1]
				}
				b, _ := json.Marshal(m)
				return string(b)
			}
			newPy := filepath.Join(f.toolsD, "hello.py")
			tests := []rootCase{
				{name: "read a skill file", tool: NewRead(f.ws), args: args("path", filepath.Join(f.skill, "SKILL.md")), want: "Use pdftotext."},
				{name: "list a skill folder", tool: NewListDir(f.ws), args: args("path", f.skill), want: "SKILL.md"},
				{name: "glob a skill folder", tool: NewGlob(f.ws), args: args("pattern", "*.md", "path", f.skill), want: "SKILL.md"},
				{name: "grep a skill folder", tool: NewGrep(f.ws, GrepOptions{}), args: args("pattern", "pdftotext", "path", f.skill), want: "SKILL.md"},
				{name: "write into a read-only folder", tool: NewWrite(f.ws), args: args("path", filepath.Join(f.skill, "SKILL.md"), "content", "x"), wantError: "read-only for the agent (the pdf skill's folder)"},
				{name: "write the agent's permissions", tool: NewWrite(f.ws), args: args("path", filepath.Join(f.agent, "permissions.json"), "content", `{"external_tools":["x_send"]}`), wantError: "read-only for the agent"},
				{name: "write a personal tool", tool: NewWrite(f.ws), args: args("path", newPy, "content", "print(1)\n"), want: "Created " + newPy},
				{name: "edit a personal tool", tool: NewEdit(f.ws), args: args("path", filepath.Join(f.toolsD, "old.py"), "old_string", "x = 1", "new_string", "x = 2"), want: "old.py"},
				{name: "write refused by the gate", tool: NewWrite(f.ws), gateOff: true, args: args("path", filepath.Join(f.toolsD, "two.py"), "content", "x"), wantError: "tool_creation.personal is off"},
			}
			if restrict {
				tests = append(tests,
					rootCase{name: "a link out of a root is not followed", tool: NewRead(f.ws), args: args("path", filepath.Join(f.skill, "escape.txt")), wantError: "symbolic link"},
					rootCase{name: "other absolute paths stay outside", tool: NewRead(f.ws), args: args("path", f.outside), wantError: "outside the workspace"},
				)
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					f.allow.Store(!tc.gateOff)
					res := execTool(t, tc.tool, tc.args)
					if tc.wantError != "" {
						if !res.IsError || !strings.Contains(res.Content, tc.wantError) {
							t.Fatalf("want error %q, got %s", tc.wantError, res.Content)
						}
						return
					}
					if res.IsError || !strings.Contains(res.Content, tc.want) {
						t.Fatalf("want %q, got %s", tc.want, res.Content)
					}
				})
			}
			if b, err := os.ReadFile(newPy); err != nil || string(b) != "print(1)\n" {
				t.Errorf("personal tool holds %q (%v)", b, err)
			}
			if b, _ := os.ReadFile(filepath.Join(f.agent, "permissions.json")); string(b) != `{"version":1}` {
				t.Errorf("permissions changed: %s", b)
			}
			if _, err := os.Stat(filepath.Join(f.toolsD, "two.py")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("refused write left a file: %v", err)
			}
			if got := f.ws.Roots(); len(got) != 3 || got[0].Dir != f.toolsD {
				t.Errorf("roots %+v: want the most specific first", got)
			}
		})
	}
}

// A root inside the workspace keeps its rules for paths given relative to
// the workspace.
func TestWorkspaceRootInsideWorkspace(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteTree(t, dir, map[string]string{"vendor/lib.txt": "v\n", "main.txt": "m\n"})
	ws, err := OpenWorkspace(dir, true, Root{Dir: filepath.Join(dir, "vendor"), Reason: "vendored code"})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	res := execTool(t, NewWrite(ws), `{"path":"vendor/lib.txt","content":"changed"}`)
	if !res.IsError || !strings.Contains(res.Content, "vendored code") {
		t.Fatalf("write into a read-only root inside the workspace: %s", res.Content)
	}
	if res := execTool(t, NewWrite(ws), `{"path":"main.txt","content":"ok"}`); res.IsError {
		t.Fatalf("write elsewhere in the workspace: %s", res.Content)
	}
}

func TestOpenWorkspaceMissingRoot(t *testing.T) {
	if _, err := OpenWorkspace(t.TempDir(), true, Root{Dir: filepath.Join(t.TempDir(), "nope")}); err == nil {
		t.Fatal("a missing root opened")
	}
}
