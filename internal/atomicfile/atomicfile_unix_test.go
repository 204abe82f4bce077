//go:build unix

package atomicfile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestWriteFileModeIsExplicit(t *testing.T) {
	// Not parallel: the umask is the process's.
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	dir := t.TempDir()
	for _, perm := range []os.FileMode{0o600, 0o644, 0o755} {
		path := filepath.Join(dir, "f"+perm.String())
		if err := WriteFile(path, []byte("x"), perm); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != perm {
			t.Errorf("mode = %v under umask 077, want %v", st.Mode().Perm(), perm)
		}
	}
}
