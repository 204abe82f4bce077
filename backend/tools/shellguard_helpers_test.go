package tools

import "testing"

// guardWorkspace opens a fresh restricted workspace for guard tests.
func guardWorkspace(t *testing.T) *Workspace {
	t.Helper()
	ws, err := OpenWorkspace(t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}
