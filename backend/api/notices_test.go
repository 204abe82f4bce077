package api

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tinyelf/backend/config"
	"tinyelf/backend/notify"
)

// TestSettingsNotice opens the service over a corrupt settings file: State
// carries the notice (the file, its copy, the error) until it is
// dismissed, in place of a plain warning, and Warnings names the copy.
func TestSettingsNotice(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, config.SettingsFile)
	if err := os.WriteFile(path, []byte(`{"version":1,"providers":[`), 0o600); err != nil {
		t.Fatal(err)
	}
	svc, err := New(context.Background(), Options{DataDir: dir, Notifier: &notify.Fake{}, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	ctx := context.Background()
	st, _ := svc.State(ctx, struct{}{})
	n := st.SettingsNotice
	if n == nil || n.Path != path || !strings.HasPrefix(n.Aside, path+".corrupt-") || n.Error == "" {
		t.Fatalf("State().SettingsNotice = %+v", n)
	}
	if len(st.Warnings) != 0 {
		t.Errorf("the notice is repeated as a warning: %q", st.Warnings)
	}
	if b, err := os.ReadFile(n.Aside); err != nil || string(b) != `{"version":1,"providers":[` {
		t.Errorf("the copy %s holds %q (%v)", n.Aside, b, err)
	}
	if w := svc.Warnings(); len(w) != 1 || !strings.Contains(w[0], n.Aside) {
		t.Errorf("Warnings() = %q", w)
	}
	// Through the method table, as the UI calls it.
	if _, err := svc.Call(ctx, "DismissSettingsNotice", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	if st, _ := svc.State(ctx, struct{}{}); st.SettingsNotice != nil || len(st.Warnings) != 0 {
		t.Errorf("after dismissing: notice %+v, warnings %q", st.SettingsNotice, st.Warnings)
	}
}
