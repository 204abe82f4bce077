package atomicfile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// entries lists a folder's names, to check no temporary file is left.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}

func TestWriteFileCreatesAndReplaces(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "deeper", "settings.json")
	if err := WriteFile(path, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "two" {
		t.Fatalf("content = %q, %v; want two", got, err)
	}
	if names := entries(t, filepath.Dir(path)); len(names) != 1 {
		t.Errorf("folder holds %v, want only settings.json", names)
	}
	if runtime.GOOS == "windows" {
		return
	}
	st, err := os.Stat(filepath.Join(dir, "sub"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o700 {
		t.Errorf("created folder mode = %v, want 0700", st.Mode().Perm())
	}
}

// failing wraps the host's file system and fails one step.
type failing struct {
	OS
	chmod, rename error
}

func (f failing) Chmod(name string, mode os.FileMode) error {
	if f.chmod != nil {
		return f.chmod
	}
	return f.OS.Chmod(name, mode)
}

func (f failing) Rename(oldname, newname string) error {
	if f.rename != nil {
		return f.rename
	}
	return f.OS.Rename(oldname, newname)
}

func TestFailedWriteLeavesOldFile(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	cases := []struct {
		name string
		fsys FS
		fill func(io.Writer) error
	}{
		{"fill fails halfway", OS{}, func(w io.Writer) error {
			if _, err := w.Write([]byte("half of the new")); err != nil {
				return err
			}
			return boom
		}},
		{"chmod fails", failing{chmod: boom}, func(w io.Writer) error { _, err := w.Write([]byte("new")); return err }},
		{"rename fails", failing{rename: boom}, func(w io.Writer) error { _, err := w.Write([]byte("new")); return err }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "keep.json")
			if err := os.WriteFile(path, []byte("old content"), 0o600); err != nil {
				t.Fatal(err)
			}
			err := WriteIn(tc.fsys, path, 0o600, tc.fill)
			if !errors.Is(err, boom) {
				t.Fatalf("err = %v, want boom", err)
			}
			got, _ := os.ReadFile(path)
			if string(got) != "old content" {
				t.Errorf("old file = %q after a failed write", got)
			}
			if names := entries(t, dir); len(names) != 1 {
				t.Errorf("folder holds %v, want only keep.json (no temporary)", names)
			}
		})
	}
}

func TestMissingFolderIsAnError(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "absent", "f")
	err := WriteIn(OS{}, path, 0o600, func(io.Writer) error { return nil })
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err = %v, want ErrNotExist (WriteIn creates no folder)", err)
	}
}

// TestWriteInRoot writes through an *os.Root, as the file tools write
// through their workspace sandbox: inside it works, a name that leaves the
// root is refused and the file outside is untouched.
func TestWriteInRoot(t *testing.T) {
	t.Parallel()
	outer := t.TempDir()
	inner := filepath.Join(outer, "ws")
	if err := os.Mkdir(inner, 0o755); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(outer, "outside.txt")
	if err := os.WriteFile(outside, []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(inner)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	write := func(name, s string) error { return WriteFileIn(root, name, []byte(s), 0o644) }
	if err := write("a.txt", "inside"); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(inner, "a.txt")); string(got) != "inside" {
		t.Errorf("a.txt = %q", got)
	}
	if err := write("../outside.txt", "escaped"); err == nil {
		t.Fatal("a write that leaves the root succeeded")
	}
	if got, _ := os.ReadFile(outside); string(got) != "outside" {
		t.Errorf("outside.txt = %q after a refused write", got)
	}
	if names := entries(t, inner); len(names) != 1 {
		t.Errorf("root holds %v, want only a.txt", names)
	}
}

// TestReadersSeeWholeFiles races writers of different whole contents
// against a reader: every read is one of the contents, never a mix or a
// truncated file.
func TestReadersSeeWholeFiles(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "f")
	contents := [][]byte{bytes.Repeat([]byte("a"), 64<<10), bytes.Repeat([]byte("b"), 32<<10)}
	if err := WriteFile(path, contents[0], 0o600); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				if err := WriteFile(path, contents[i], 0o600); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	go func() { wg.Wait(); close(done) }()
	reads := 0
	for {
		select {
		case <-done:
			if reads == 0 {
				t.Fatal("no read overlapped the writes")
			}
			return
		default:
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, contents[0]) && !bytes.Equal(got, contents[1]) {
			t.Fatalf("read %d bytes that are neither whole content", len(got))
		}
		reads++
	}
}

// TestCrashMidWriteLeavesOldFile kills a process in the middle of a write
// (it exits from inside fill, as a crash or kill -9 would stop it): the old
// file is intact; only the temporary it had begun is left, under a hidden
// name beside it.
func TestCrashMidWriteLeavesOldFile(t *testing.T) {
	t.Parallel()
	if path := os.Getenv("ATOMICFILE_CRASH_PATH"); path != "" {
		_ = Write(path, 0o600, func(w io.Writer) error {
			_, _ = io.WriteString(w, "the new content, hal")
			os.Exit(3)
			return nil
		})
		os.Exit(0)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	if err := os.WriteFile(path, []byte("old content"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashMidWriteLeavesOldFile$")
	cmd.Env = append(os.Environ(), "ATOMICFILE_CRASH_PATH="+path)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Fatalf("child: %v\n%s", err, out)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "old content" {
		t.Errorf("file = %q after a crash mid-write, want the old content", got)
	}
	for _, name := range entries(t, dir) {
		if name != "state.json" && !(strings.HasPrefix(name, ".state.json.tinyelf-") && strings.HasSuffix(name, ".tmp")) {
			t.Errorf("unexpected file %q", name)
		}
	}
}
