package config

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func TestOpenStore(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		content     *string
		wantWarning string
		wantTheme   string
	}{
		{"missing file gives defaults", nil, "", ""},
		{"valid file", ptr(`{"version":1,"theme":"dark"}`), "", "dark"},
		{"unknown fields are ignored", ptr(`{"version":1,"theme":"light","futureThing":{"a":1}}`), "", "light"},
		{"corrupt file is set aside", ptr(`{"version":1,"theme":`), "could not be read", ""},
		{"not an object", ptr(`["x"]`), "could not be read", ""},
		{"binary garbage", ptr("\x00\x01\x02"), "could not be read", ""},
		{"newer version warns", ptr(`{"version":99}`), "newer TinyElf", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), SettingsFile)
			if tc.content != nil {
				os.WriteFile(path, []byte(*tc.content), 0o600)
			}
			s, err := OpenStore(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Warning(); (tc.wantWarning == "") != (got == "") || !strings.Contains(got, tc.wantWarning) {
				t.Errorf("warning %q, want %q", got, tc.wantWarning)
			}
			if got := s.Get().Theme; got != tc.wantTheme {
				t.Errorf("theme %q, want %q", got, tc.wantTheme)
			}
			if strings.Contains(s.Warning(), "could not be read") {
				matches, _ := filepath.Glob(path + ".corrupt-*")
				if len(matches) != 1 {
					t.Fatalf("corrupt file not kept aside: %v", matches)
				}
				if b, _ := os.ReadFile(matches[0]); string(b) != *tc.content {
					t.Errorf("the set-aside file changed")
				}
			}
		})
	}
}

func ptr(s string) *string { return &s }

// TestCorruptFilesAreNeverOverwritten sets aside two corrupt files in a row
// (within the same second): both copies stay, and Recovered names each one.
func TestCorruptFilesAreNeverOverwritten(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), SettingsFile)
	var asides []string
	for _, content := range []string{`{"first":`, `{"second":`} {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := OpenStore(path)
		if err != nil {
			t.Fatal(err)
		}
		rec, ok := s.Recovered()
		if !ok || rec.Path != path || rec.Err == "" || !strings.Contains(s.Warning(), rec.Aside) || !strings.Contains(s.Warning(), path) {
			t.Fatalf("Recovered() = %+v, %v; warning %q", rec, ok, s.Warning())
		}
		if b, err := os.ReadFile(rec.Aside); err != nil || string(b) != content {
			t.Fatalf("the copy %s holds %q (%v), want %q", rec.Aside, b, err, content)
		}
		asides = append(asides, rec.Aside)
	}
	if asides[0] == asides[1] {
		t.Fatalf("both corrupt files went to %s", asides[0])
	}
	if b, _ := os.ReadFile(asides[0]); string(b) != `{"first":` {
		t.Errorf("the first copy was overwritten: %q", b)
	}
	s, err := OpenStore(path) // no file now: defaults, nothing recovered
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Recovered(); ok {
		t.Error("a missing file counts as recovered")
	}
}

func TestUpdatePersistsAtomically(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), SettingsFile)
	s, _ := OpenStore(path)
	err := s.Update(func(st *Settings) error {
		st.Providers = append(st.Providers, Provider{Name: "local", Kind: "openai", BaseURL: "http://127.0.0.1:11434/v1", APIKey: "sk-secret"})
		st.DefaultProvider = "local"
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("settings file mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	// A failing update changes nothing, in memory or on disk.
	before, _ := os.ReadFile(path)
	if err := s.Update(func(st *Settings) error { st.Theme = "dark"; return errors.New("nope") }); err == nil {
		t.Fatal("want the update's error")
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) || s.Get().Theme != "" {
		t.Error("a failed update leaked")
	}
	// Reopening sees the saved state; Get returns copies.
	s2, _ := OpenStore(path)
	got := s2.Get()
	if p, ok := got.Provider(""); !ok || p.APIKey != "sk-secret" {
		t.Errorf("provider not persisted: %+v", got.Providers)
	}
	got.Providers[0].Name = "mutated"
	if s2.Get().Providers[0].Name != "local" {
		t.Error("Get returned shared state")
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range entries {
		if e.Name() != SettingsFile && e.Name() != SettingsFile+".lock" {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

func TestConcurrentUpdates(t *testing.T) {
	t.Parallel()
	s, _ := OpenStore(filepath.Join(t.TempDir(), SettingsFile))
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.AddRule(Rule{Tool: "Bash", Pattern: "go test " + NewID(), Action: RuleAllow}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := len(s.Rules()); n != 20 {
		t.Errorf("%d rules, want 20", n)
	}
}

func TestRules(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), SettingsFile)
	s, _ := OpenStore(path)
	r1, err := s.AddRule(Rule{Tool: "Bash", Pattern: " git status ", Action: RuleAllow})
	if err != nil || r1.ID == "" || r1.Pattern != "git status" || r1.CreatedAt.IsZero() {
		t.Fatalf("AddRule: %+v %v", r1, err)
	}
	again, _ := s.AddRule(Rule{Tool: "Bash", Pattern: "git status", Action: RuleAllow})
	if again.ID != r1.ID || len(s.Rules()) != 1 {
		t.Error("an identical rule was duplicated")
	}
	if _, err := s.AddRule(Rule{Tool: "Write", Action: "maybe"}); err == nil {
		t.Error("bad action accepted")
	}
	if _, err := s.AddRule(Rule{Action: RuleDeny}); err == nil {
		t.Error("rule without tool accepted")
	}
	deny, _ := s.AddRule(Rule{Tool: "Write", Action: RuleDeny})
	// Rules survive a restart.
	s2, _ := OpenStore(path)
	if n := len(s2.Rules()); n != 2 {
		t.Fatalf("%d rules after reopening, want 2", n)
	}
	if ok, err := s2.RemoveRule(deny.ID); !ok || err != nil {
		t.Errorf("RemoveRule: %v %v", ok, err)
	}
	if ok, _ := s2.RemoveRule(deny.ID); ok {
		t.Error("removed twice")
	}
	s3, _ := OpenStore(path)
	if rules := s3.Rules(); len(rules) != 1 || rules[0].ID != r1.ID {
		t.Errorf("after removal: %+v", rules)
	}
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	var s Settings
	if !s.NotificationsOn() || !s.Restricted() || s.ExecTimeout().Minutes() != 2 || s.CompactThreshold() != 0.8 {
		t.Error("defaults wrong")
	}
	if a, ok := s.Agent(""); !ok || a.Name != "default" {
		t.Error("default agent missing")
	}
	if _, ok := s.Agent("nope"); ok {
		t.Error("unknown agent found")
	}
	if _, ok := s.Provider(""); ok {
		t.Error("provider found in empty settings")
	}
}

func TestDataDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "home", "nested")
	t.Setenv(HomeEnv, dir)
	got, err := DataDir()
	if err != nil || got != dir {
		t.Fatalf("DataDir = %q, %v", got, err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("data folder not created 0700: %v", err)
	}
}

// TestDataDirDefault: with no TINYELF_HOME (a launch from the desktop's
// menu), the data folder is the user config folder's tinyelf.
func TestDataDirDefault(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		t.Skip("the XDG folders are the Linux and BSD rule")
	}
	home := t.TempDir()
	xdg := filepath.Join(t.TempDir(), "config")
	tests := []struct {
		name, xdg, want string
	}{
		{name: "XDG_CONFIG_HOME", xdg: xdg, want: filepath.Join(xdg, "tinyelf")},
		{name: "no XDG_CONFIG_HOME", xdg: "", want: filepath.Join(home, ".config", "tinyelf")},
		{name: "a relative XDG_CONFIG_HOME is ignored", xdg: "relative/config", want: filepath.Join(home, ".config", "tinyelf")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(HomeEnv, "")
			t.Setenv("HOME", home)
			t.Setenv("XDG_CONFIG_HOME", tt.xdg)
			got, err := DataDir()
			if err != nil || got != tt.want {
				t.Fatalf("DataDir = %q, %v; want %q", got, err, tt.want)
			}
			if fi, err := os.Stat(got); err != nil || !fi.IsDir() {
				t.Errorf("data folder not created: %v", err)
			}
		})
	}
}

// TestTwoProcessesShareTheFile: two stores on one file stand for the window
// and a `tinyelf run` at the same time; neither loses the other's changes.
func TestTwoProcessesShareTheFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), SettingsFile)
	window, _ := OpenStore(path)
	cli, _ := OpenStore(path)
	if _, err := window.AddRule(Rule{Tool: "Bash", Pattern: "git status", Action: RuleAllow}); err != nil {
		t.Fatal(err)
	}
	if _, err := cli.AddRule(Rule{Tool: "Write", Action: RuleDeny}); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]*Store{"window": window, "cli": cli} {
		if n := len(s.Rules()); n != 2 {
			t.Errorf("%s sees %d rules, want 2", name, n)
		}
	}
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := window
			if i%2 == 1 {
				s = cli
			}
			s.AddRule(Rule{Tool: "Bash", Pattern: "make " + NewID(), Action: RuleAllow})
		}()
	}
	wg.Wait()
	reopened, _ := OpenStore(path)
	if n := len(reopened.Rules()); n != 12 {
		t.Errorf("%d rules on disk, want 12", n)
	}
}
