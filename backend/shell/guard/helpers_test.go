package guard

import "testing"

// guardWorkspace makes a fresh workspace folder for guard tests.
func guardWorkspace(t *testing.T) string {
	t.Helper()
	return t.TempDir()
}
