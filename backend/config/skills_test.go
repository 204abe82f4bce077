package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestHubIndexesDefaultAndNone: settings that never named SkillHub indexes
// search the default ones; a list the user emptied stays empty through the
// settings file, and is not mistaken for "never set".
func TestHubIndexesDefaultAndNone(t *testing.T) {
	path := filepath.Join(t.TempDir(), SettingsFile)
	st, err := OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Get().Skills.Indexes(); !slices.Equal(got, DefaultHubIndexes()) || len(got) == 0 {
		t.Fatalf("fresh settings: %v", got)
	}
	none, err := NormalizeHubIndexes([]string{" ", ""})
	if err != nil || none == nil || len(none) != 0 {
		t.Fatalf("NormalizeHubIndexes of blanks = %#v, %v", none, err)
	}
	if err := st.Update(func(s *Settings) error { s.Skills.HubIndexes = none; return nil }); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), `"hubIndexes": []`) {
		t.Errorf("the file does not keep the empty list:\n%s", b)
	}
	again, err := OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := again.Get().Skills.Indexes(); got == nil || len(got) != 0 {
		t.Errorf("reopened: %#v, want none", got)
	}
	if err := again.Update(func(s *Settings) error { s.Skills.HubIndexes = nil; return nil }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); strings.Contains(string(b), "hubIndexes") {
		t.Errorf("back to the default, the file still names indexes:\n%s", b)
	}
}
