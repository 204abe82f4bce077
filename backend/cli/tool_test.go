package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"tinyelf/backend/config"
)

func TestToolCommand(t *testing.T) {
	home := cliEnv(t)
	ws := t.TempDir()
	settings, _ := config.OpenStore(filepath.Join(home, config.SettingsFile))
	if _, err := settings.AddRule(config.Rule{Tool: "Bash", Pattern: "curl", Action: config.RuleDeny}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("first\nsecond\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   []string
		stderr   []string
		fileWant string // content of made.txt afterwards, when set
	}{
		{"list", []string{"tool", "list", "--workspace", ws}, 0,
			[]string{"NAME", "Read", "safe", "read-only", "Write", "asks", "Bash", "Glob", "Grep", "ListDir", "Edit"}, nil, ""},
		{"list in plan mode hides write tools", []string{"tool", "list", "--workspace", ws, "--mode", "plan"}, 0,
			[]string{"Read", "Grep"}, nil, ""},
		{"read", []string{"tool", "Read", "--workspace", ws, "--args", `{"path":"notes.txt"}`}, 0,
			[]string{"     1\tfirst\n     2\tsecond\n"}, nil, ""},
		{"write", []string{"tool", "Write", "--workspace", ws, "--args", `{"path":"made.txt","content":"made\n"}`}, 0,
			[]string{"Created made.txt"}, nil, "made\n"},
		{"json output", []string{"tool", "Read", "--workspace", ws, "--output", "json", "--args", `{"path":"notes.txt","limit":1}`}, 0,
			[]string{`"callId": "cli"`, `"name": "Read"`}, nil, ""},
		{"error result exits 1", []string{"tool", "Read", "--workspace", ws, "--args", `{"path":"missing.txt"}`}, 1,
			[]string{"File not found: missing.txt", "[Analyze the error above"}, nil, ""},
		{"escape refused exits 1", []string{"tool", "Read", "--workspace", ws, "--args", `{"path":"../../etc/passwd"}`}, 1,
			[]string{"outside the workspace"}, nil, ""},
		{"bash runs in the workspace", []string{"tool", "Bash", "--workspace", ws, "--args", `{"command":"cat notes.txt"}`}, 0,
			[]string{"first"}, nil, ""},
		{"deny list exits 1", []string{"tool", "Bash", "--workspace", ws, "--args", `{"command":"rm -rf /"}`}, 1,
			nil, nil, ""},
		{"deny rule exits 1", []string{"tool", "Bash", "--workspace", ws, "--args", `{"command":"echo x && curl example.com"}`}, 1,
			[]string{"a deny rule (Bash(curl)) forbids it"}, nil, ""},
		{"plan mode refuses Write", []string{"tool", "Write", "--workspace", ws, "--mode", "plan", "--args", `{"path":"p.txt","content":"x"}`}, 2,
			nil, []string{`"Write" is not available in plan mode`}, ""},
		{"unknown tool", []string{"tool", "Nope", "--workspace", ws}, 2, nil, []string{`unknown tool "Nope"`, "Read"}, ""},
		{"bad JSON", []string{"tool", "Read", "--workspace", ws, "--args", `{"path":`}, 2, nil, []string{"--args is not valid JSON"}, ""},
		{"args not an object", []string{"tool", "Read", "--workspace", ws, "--args", `["x"]`}, 2, nil, []string{"--args must be a JSON object"}, ""},
		{"bad mode", []string{"tool", "Read", "--mode", "yolo"}, 2, nil, []string{`unknown permission mode "yolo"`}, ""},
		{"bad flag", []string{"tool", "Read", "--frobnicate"}, 2, nil, []string{"flag provided but not defined"}, ""},
		{"missing workspace", []string{"tool", "list", "--workspace", filepath.Join(ws, "nope")}, 2, nil, []string{"open workspace"}, ""},
		{"no tool name", []string{"tool"}, 2, []string{"Usage:"}, nil, ""},
		{"unknown command", []string{"frobnicate"}, 2, nil, []string{`unknown command "frobnicate"`}, ""},
		{"help", []string{"help"}, 0, []string{"tinyelf tool NAME"}, nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkRun(t, tc.args, tc.code, tc.stdout, tc.stderr)
			if tc.fileWant != "" {
				if b, _ := os.ReadFile(filepath.Join(ws, "made.txt")); string(b) != tc.fileWant {
					t.Errorf("made.txt = %q", b)
				}
			}
		})
	}
}

func TestToolListJSONHasSchemas(t *testing.T) {
	cliEnv(t)
	code, stdout, _ := runCLI(t, "tool", "list", "--workspace", t.TempDir(), "--output", "json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var rows []struct {
		Name       string          `json:"name"`
		Safe       bool            `json:"safe"`
		Parameters json.RawMessage `json:"parameters"`
	}
	if err := json.Unmarshal([]byte(stdout), &rows); err != nil {
		t.Fatal(err)
	}
	safe := map[string]bool{}
	for _, r := range rows {
		safe[r.Name] = r.Safe
		if !json.Valid(r.Parameters) {
			t.Errorf("%s has no valid schema", r.Name)
		}
	}
	// The seed's SAFE_TOOLS among the local tools.
	for name, want := range map[string]bool{"Read": true, "ListDir": true, "Glob": true, "Grep": true, "Write": false, "Edit": false, "Bash": false} {
		if got, ok := safe[name]; !ok || got != want {
			t.Errorf("%s safe = %v (present %v), want %v", name, got, ok, want)
		}
	}
}
