package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHooksSectionIsKeptAsWritten: a hooks section with fields and values
// TinyElf does not use neither breaks the settings file nor is lost when
// other settings are saved.
func TestHooksSectionIsKeptAsWritten(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), SettingsFile)
	written := `{"version": 2, "theme": "dark", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
	  {"type": "command", "command": "./check.sh", "timeout": "30", "statusMessage": "checking", "async": false}]}],
	  "SomethingNew": [{"hooks": [{"type": "http", "url": "http://localhost:1"}]}]}}`
	if err := os.WriteFile(path, []byte(written), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := OpenStore(path)
	if err != nil || s.Warning() != "" {
		t.Fatalf("open: %v %q", err, s.Warning())
	}
	if err := s.Update(func(st *Settings) error { st.Theme = "light"; return nil }); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	var doc struct {
		Theme string          `json:"theme"`
		Hooks json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"statusMessage": "checking"`, `"timeout": "30"`, `"SomethingNew"`, `"url": "http://localhost:1"`} {
		if !strings.Contains(string(doc.Hooks), want) {
			t.Errorf("saved hooks lost %s:\n%s", want, doc.Hooks)
		}
	}
	if doc.Theme != "light" {
		t.Errorf("theme %q", doc.Theme)
	}
}
