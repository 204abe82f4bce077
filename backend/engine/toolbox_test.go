package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"tinyelf/backend/config"
	"tinyelf/backend/sessions"
)

// A direct call goes through the same pipeline as a model's: the deny
// rules and a PreToolUse hook refuse it before it runs, the permission
// gate records who allowed it, and intent, decisions, hook runs and result
// are logged (in the toolbox's own log) in that order.
func TestToolboxCallsGoThroughThePipeline(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the hooks are sh")
	}
	t.Parallel()
	dir, ws := t.TempDir(), t.TempDir()
	settings, err := config.OpenStore(filepath.Join(dir, config.SettingsFile))
	if err != nil {
		t.Fatal(err)
	}
	err = settings.Update(func(s *config.Settings) error {
		s.Hooks = json.RawMessage(`{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "grep -q touch && { echo 'no touching' >&2; exit 2; }; exit 0"}]}]}`)
		s.Permissions.Rules = []config.Rule{{Tool: "Bash", Pattern: "curl", Action: config.RuleDeny}}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	box, err := OpenToolbox(ctx, ToolboxOptions{DataDir: dir, Workspace: ws, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	defer box.Close()

	tests := []struct {
		name, command string
		isError       bool
		content       string
		decision, by  string // the approval.answered of the call
		hookRuns      int
	}{
		{"allowed: asking is the approval", "echo hi", false, "hi", string(AllowOnce), "cli", 1},
		{"a PreToolUse hook denies", "touch made.txt", true, "A PreToolUse hook blocked this call to Bash: no touching", string(Deny), "hook", 1},
		{"a deny rule refuses", "curl example.com", true, "a deny rule (Bash(curl)) forbids it", string(Deny), "rule", 1},
	}
	for _, tc := range tests {
		before := len(box.log.logged(sessions.EventHookRun))
		answersBefore := len(box.log.logged(sessions.EventApprovalAnswered))
		args, _ := json.Marshal(map[string]string{"command": tc.command})
		res := box.Run(ctx, "Bash", args)
		if res.IsError != tc.isError || !strings.Contains(res.Content, tc.content) {
			t.Errorf("%s: result %+v", tc.name, res)
		}
		if n := len(box.log.logged(sessions.EventHookRun)) - before; n != tc.hookRuns {
			t.Errorf("%s: %d hook runs logged, want %d", tc.name, n, tc.hookRuns)
		}
		answers := box.log.logged(sessions.EventApprovalAnswered)
		if len(answers) != answersBefore+1 {
			t.Errorf("%s: %d approval answers logged, want one more than %d", tc.name, len(answers), answersBefore)
			continue
		}
		var a sessions.ApprovalAnswered
		_ = answers[len(answers)-1].Decode(&a)
		if a.Decision != tc.decision || a.By != tc.by {
			t.Errorf("%s: answered %s by %s, want %s by %s", tc.name, a.Decision, a.By, tc.decision, tc.by)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "made.txt")); err == nil {
		t.Error("the denied command ran")
	}
	// The audit trail: each call's intent before its result, in order.
	var order []string
	for _, ev := range box.log.events {
		switch ev.Type {
		case sessions.EventToolIntent, sessions.EventToolResult:
			order = append(order, string(ev.Type))
		}
	}
	want := strings.Repeat(string(sessions.EventToolIntent)+" "+string(sessions.EventToolResult)+" ", len(tests))
	if got := strings.Join(order, " ") + " "; got != want {
		t.Errorf("logged %q, want %q", got, want)
	}
}
