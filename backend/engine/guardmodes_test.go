package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tinyelf/backend/config"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
	"tinyelf/backend/shell"
	"tinyelf/backend/tools"
	"tinyelf/backend/tools/fs"
)

// guardDenied are commands the shell guard refuses; guardHeld commands it
// holds for a person; guardFree commands it lets run.
var (
	guardDenied = []string{
		"kill -9 1",
		"command kill -9 -1",
		"/sbin/shutdown -r +0",
		"env /sbin/reboot",
		"pkill -9 -u $USER",
		"systemctl suspend",
		"julia -e 'rm(\"/\", recursive=true)'",
		"sqlite3 x.db '.shell rm -rf /'",
	}
	guardHeld = []string{
		"julia -e 'println(1)'",
		"echo 'puts hi' | tclsh",
		"R -e 'print(1)'",
		"vim -c ':!ls'",
		"kill -9 $(pgrep foo)",
	}
	guardFree = []string{"kill %1", "systemctl status", "shutdown --help", "julia script.jl", "sqlite3 x.db 'select 1'"}
)

// TestShellGuardMeetsEveryMode checks where the permission mode meets the
// shell guard's verdict, with the real Bash tool's assessment: a refused
// command is refused in every mode, even with a rule that allows every
// Bash command; a held command is asked about in every mode that may run
// Bash, auto included, and no allow rule covers it.
func TestShellGuardMeetsEveryMode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ws, err := fs.OpenWorkspace(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	bash := shell.NewBash(ws, shell.BashOptions{})
	assessor := bash.(tools.Assessor)
	info := bash.Info()
	allowAll := []config.Rule{{Tool: "Bash", Action: config.RuleAllow}}
	params := func(cmd string) map[string]any { return map[string]any{"command": cmd} }
	for _, mode := range Modes {
		for _, rules := range [][]config.Rule{nil, allowAll} {
			for _, cmd := range guardDenied {
				v := decide(mode, info, params(cmd), rules, assessor.Assess(params(cmd)), dir)
				if !v.deny || v.by != "guard" || !strings.HasPrefix(v.reason, "Refused") {
					t.Errorf("%s, %d rules: %s: %+v; want refused by the guard", mode, len(rules), cmd, v)
				}
			}
			for _, cmd := range guardHeld {
				v := decide(mode, info, params(cmd), rules, assessor.Assess(params(cmd)), dir)
				switch {
				case mode == ModePlan:
					if !v.deny || v.by != "mode" {
						t.Errorf("plan: %s: %+v; want refused by the mode", cmd, v)
					}
				case v.allow || v.deny || v.hold == "" || v.by != "guard":
					t.Errorf("%s, %d rules: %s: %+v; want asked, held by the guard", mode, len(rules), cmd, v)
				}
			}
			for _, cmd := range guardFree {
				v := decide(mode, info, params(cmd), rules, assessor.Assess(params(cmd)), dir)
				if v.hold != "" || v.deny && v.by == "guard" {
					t.Errorf("%s: %s: %+v; want not held nor refused by the guard", mode, cmd, v)
				}
				if mode == ModeAuto && !v.allow {
					t.Errorf("auto: %s: %+v; want allowed", cmd, v)
				}
			}
		}
	}
}

// TestShellGuardAsksInAutoMode runs the agent in auto mode with an approver
// that allows everything: the refused command never runs nor is asked
// about, and the model reads why; the held one is asked about, naming the
// interpreter, before it runs.
func TestShellGuardAsksInAutoMode(t *testing.T) {
	refusedCmd := "touch ran-refused; busctl --user call org.tinyelf.test.Nothing /nothing org.tinyelf.test.Nothing PowerOff"
	heldCmd := "touch ran-held; julia -e 'println(1)' || true"
	h := newHarness(t, "openai", []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{
			call("refused", "Bash", `{"command":`+quoteJSON(refusedCmd)+`}`),
			call("held", "Bash", `{"command":`+quoteJSON(heldCmd)+`}`),
		}},
		{Text: "ok"},
	}, withApprover(func(ApprovalRequest) ApprovalAnswer { return ApprovalAnswer{Decision: AllowAlways} }))
	id := h.session(ModeAuto)
	h.run(id, "go")
	if len(h.asked) != 1 || h.asked[0].CallID != "held" || !strings.Contains(h.asked[0].Hold, "Julia, which the guard cannot follow") {
		t.Fatalf("asked %+v; want only the held call, with the reason", h.asked)
	}
	if _, err := os.Stat(filepath.Join(h.workspace, "ran-refused")); err == nil {
		t.Error("the refused command ran")
	}
	if _, err := os.Stat(filepath.Join(h.workspace, "ran-held")); err != nil {
		t.Errorf("the held command did not run once allowed: %v", err)
	}
	results := logged[sessions.ToolResult](h, id, sessions.EventToolResult)
	if len(results) != 2 {
		t.Fatalf("results %+v", results)
	}
	mustContain(t, "the refused call's result", results[0].Content, "Refused", "would shut down or restart the computer", "deny list")
	if rules := h.settings.Rules(); len(rules) != 0 {
		t.Errorf("allowing a held call saved rules: %+v", rules)
	}
}

func quoteJSON(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}
