//go:build unix

package fs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"tinyelf/backend/tools"
	"tinyelf/internal/testutil"
)

// mkfifo makes a named pipe nobody writes to or reads from: opening it the
// ordinary way blocks forever.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

// within runs fn and fails the test if it has not returned after d: a hang
// is reported, not waited out.
func within[T any](t *testing.T, d time.Duration, what string, fn func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- fn() }()
	select {
	case v := <-done:
		return v
	case <-time.After(d):
		t.Fatalf("%s did not return within %s (it blocks on the FIFO)", what, d)
		panic("unreachable")
	}
}

// TestFSToolsRefuseFIFOs: every FileSystem tool given a FIFO (or a folder
// holding one) answers at once with a clear error, or skips it in a walk.
func TestFSToolsRefuseFIFOs(t *testing.T) {
	t.Parallel()
	for _, restrict := range []bool{true, false} {
		dir := t.TempDir()
		testutil.WriteTree(t, dir, map[string]string{"ok.txt": "hello\n", "sub/a.txt": "hello again\n", "special/b.txt": "hello there\n"})
		mkfifo(t, filepath.Join(dir, "pipe"))
		mkfifo(t, filepath.Join(dir, "sub", "pipe2"))
		// An ignore file that is a FIFO: the Go walkers read ignore files
		// without blocking. (ripgrep opens one the ordinary way and would
		// hang until the call's deadline; it is not tested on it.)
		mkfifo(t, filepath.Join(dir, "special", ".gitignore"))
		ws, err := OpenWorkspace(dir, restrict)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ws.Close() })
		ws.TrackReads(NewReadTracker())
		grep := grepEngines(t, ws, GrepOptions{})
		type fifoCase struct {
			name    string
			tool    tools.Tool
			args    string
			wantErr string // "" for a success
		}
		cases := []fifoCase{
			{"Read", NewRead(ws), `{"path":"pipe"}`, "named pipe (FIFO)"},
			{"Write", NewWrite(ws), `{"path":"pipe","content":"x"}`, "named pipe (FIFO)"},
			{"Edit", NewEdit(ws), `{"path":"pipe","old_string":"a","new_string":"b"}`, "named pipe (FIFO)"},
			{"Grep go file", grep["go"], `{"pattern":"x","path":"pipe"}`, "named pipe (FIFO)"},
			{"Grep go walk", grep["go"], `{"pattern":"hello"}`, ""},
			{"Glob", NewGlob(ws), `{"pattern":"**/*"}`, ""},
			{"Glob with a FIFO ignore file", NewGlob(ws), `{"pattern":"*","path":"special"}`, ""},
			{"ListDir", NewListDir(ws), `{"path":"sub"}`, ""},
			{"ListDir of a FIFO", NewListDir(ws), `{"path":"pipe"}`, "pipe"},
		}
		if rg, ok := grep["rg"]; ok {
			cases = append(cases,
				fifoCase{"Grep rg file", rg, `{"pattern":"x","path":"pipe"}`, "named pipe (FIFO)"},
				fifoCase{"Grep rg walk", rg, `{"pattern":"hello","path":"sub"}`, ""})
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				res := within(t, 5*time.Second, tc.name, func() tools.CallResult { return execTool(t, tc.tool, tc.args) })
				if tc.wantErr == "" {
					if res.IsError {
						t.Fatalf("failed: %s", res.Content)
					}
					return
				}
				if !res.IsError || !strings.Contains(res.Content, tc.wantErr) {
					t.Errorf("want an error mentioning %q, got:\n%s", tc.wantErr, res.Content)
				}
			})
		}
		if st, err := os.Lstat(filepath.Join(dir, "pipe")); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
			t.Errorf("the FIFO was replaced: %v %v", st, err)
		}
	}
}

// swapForFIFO replaces the regular file at path with a FIFO, as another
// process could between a tool's check and its open.
func swapForFIFO(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	mkfifo(t, path)
}

// TestSwapBetweenCheckAndOpen: a file that was regular when checked and is a
// FIFO when opened is refused by the opened file's own mode, not waited on.
func TestSwapBetweenCheckAndOpen(t *testing.T) {
	t.Parallel()
	for _, restrict := range []bool{true, false} {
		ws, dir := newTestWorkspace(t, map[string]string{"f.txt": "x\n", "d/g.txt": "y\n"})
		if !restrict {
			var err error
			if ws, err = OpenWorkspace(dir, false); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ws.Close() })
		}
		name, _ := ws.Resolve("f.txt")
		if st, err := ws.Stat(name); err != nil || !st.Mode().IsRegular() {
			t.Fatalf("check: %v %v", st, err)
		}
		swapForFIFO(t, filepath.Join(dir, "f.txt"))
		err := within(t, 5*time.Second, "OpenRegular", func() error {
			f, _, err := ws.OpenRegular(name)
			if err == nil {
				f.Close()
			}
			return err
		})
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("restrict=%v: OpenRegular of a swapped-in FIFO: %v", restrict, err)
		}
		// The same for the diff read of Write and for a walker's open.
		_, _, err = readForDiff(ws, name)
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("readForDiff: %v", err)
		}
		root, err := os.OpenRoot(filepath.Join(dir, "d"))
		if err != nil {
			t.Fatal(err)
		}
		swapForFIFO(t, filepath.Join(dir, "d", "g.txt"))
		if _, err := openRegularIn(root, "g.txt"); !errors.Is(err, ErrNotRegular) {
			t.Errorf("openRegularIn: %v", err)
		}
		root.Close()
	}
}

// TestReadNeverHangsWhileSwapped hammers Read with a file another goroutine
// keeps swapping between a regular file and a FIFO: every call returns
// promptly, with the content or an error.
func TestReadNeverHangsWhileSwapped(t *testing.T) {
	t.Parallel()
	ws, dir := newTestWorkspace(t, map[string]string{"f.txt": "x\n"})
	path := filepath.Join(dir, "f.txt")
	fifo := filepath.Join(dir, "spare-fifo")
	regular := filepath.Join(dir, "spare-file")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	swapped := make(chan struct{})
	go func() {
		defer close(swapped)
		for i := 0; ctx.Err() == nil; i++ {
			_ = os.Remove(path)
			if i%2 == 0 {
				_ = syscall.Mkfifo(fifo, 0o644)
				_ = os.Rename(fifo, path)
			} else {
				_ = os.WriteFile(regular, []byte("x\n"), 0o644)
				_ = os.Rename(regular, path)
			}
		}
	}()
	read := NewRead(ws)
	for range 300 {
		within(t, 5*time.Second, "Read", func() tools.CallResult { return execTool(t, read, `{"path":"f.txt"}`) })
	}
	cancel()
	<-swapped
}
