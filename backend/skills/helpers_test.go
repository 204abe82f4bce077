package skills

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// skillMD returns a minimal SKILL.md.
func skillMD(name, desc, body string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\n\n" + body + "\n"
}

// copyTree copies the folder src into dst.
func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, _ := d.Info()
		return os.WriteFile(target, b, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// testEnv is a data folder, a home folder and a workspace, all empty, with
// TINYELF_HOME pointing at the data folder.
type testEnv struct {
	data, home, ws string
}

func newEnv(t *testing.T) testEnv {
	t.Helper()
	root := t.TempDir()
	e := testEnv{data: filepath.Join(root, "data"), home: filepath.Join(root, "home"), ws: filepath.Join(root, "ws")}
	for _, d := range []string{e.data, e.home, e.ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("TINYELF_HOME", e.data)
	return e
}

func (e testEnv) opts() Options {
	return Options{DataDir: e.data, Home: e.home, Workspace: e.ws}
}
