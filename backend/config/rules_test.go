package config

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRulesMigrateFromVersion1 checks that Bash rules saved as bare
// prefixes are read as Claude Code's prefix notation, while rules of the
// current version keep their exact meaning.
func TestRulesMigrateFromVersion1(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		version int
		want    []string
	}{
		{1, []string{"git status:*", "npm test:*", "ls:*", ""}},
		{2, []string{"git status", "npm test:*", "ls:*", ""}},
	} {
		path := filepath.Join(t.TempDir(), SettingsFile)
		data := []byte(`{"version": ` + string(rune('0'+tc.version)) + `, "permissions": {"rules": [
			{"id": "a", "tool": "Bash", "pattern": "git status", "action": "allow"},
			{"id": "b", "tool": "Bash", "pattern": "npm test:*", "action": "allow"},
			{"id": "c", "tool": "Bash", "pattern": " ls ", "action": "deny"},
			{"id": "d", "tool": "Write", "action": "allow"}]}}`)
		if tc.version == 2 {
			data = []byte(`{"version": 2, "permissions": {"rules": [
			{"id": "a", "tool": "Bash", "pattern": "git status", "action": "allow"},
			{"id": "b", "tool": "Bash", "pattern": "npm test:*", "action": "allow"},
			{"id": "c", "tool": "Bash", "pattern": "ls:*", "action": "deny"},
			{"id": "d", "tool": "Write", "action": "allow"}]}}`)
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := OpenStore(path)
		if err != nil {
			t.Fatal(err)
		}
		rules := s.Rules()
		for i, r := range rules {
			if r.Pattern != tc.want[i] {
				t.Errorf("version %d rule %s: pattern %q, want %q", tc.version, r.ID, r.Pattern, tc.want[i])
			}
		}
		// Saving writes the current version, and reading it back keeps the
		// migrated patterns as they are.
		if _, err := s.AddRule(Rule{Tool: "Bash", Pattern: "make", Action: RuleAllow}); err != nil {
			t.Fatal(err)
		}
		again, err := OpenStore(path)
		if err != nil {
			t.Fatal(err)
		}
		got := again.Rules()
		if again.Get().Version != SettingsVersion || len(got) != 5 || got[0].Pattern != tc.want[0] || got[4].Pattern != "make" {
			t.Errorf("version %d after saving: %+v", tc.version, got)
		}
	}
}
