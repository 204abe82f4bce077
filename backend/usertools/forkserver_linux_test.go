//go:build linux

package usertools

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"tinyelf/internal/testutil"
)

// A call forked from the fork server dies with it: closing the service (or
// TinyElf dying) leaves no tool process behind.
func TestForkedCallDiesWithTheForkServer(t *testing.T) {
	data := t.TempDir()
	pidFile := filepath.Join(t.TempDir(), "pid")
	testutil.WriteFile(t, filepath.Join(personalDir(data, "default"), "sleepy.py"), pyTool("sleepy", "run", `
open(`+strconv.Quote(pidFile)+`, "w").write(str(os.getpid()))
time.sleep(300)`, `{"run": {"expected_seconds": 600}}`), 0)
	s, err := New(Options{DataDir: data, Python: needPython(t), Getenv: testEnv{}.get})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan string, 1)
	go func() { done <- call(t, s, "default", "sleepy_run", map[string]any{}).Content }()
	var pid int
	deadline := time.Now().Add(30 * time.Second)
	for pid == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the tool did not start")
		}
		if b, err := os.ReadFile(pidFile); err == nil && len(b) > 0 {
			pid, _ = strconv.Atoi(string(b))
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.mu.Lock()
	fork := s.fork
	s.mu.Unlock()
	fork.close() // as when the fork server dies with TinyElf
	select {
	case got := <-done:
		if !strings.Contains(got, "sleepy_run was stopped: TinyElf's Python host went away") {
			t.Errorf("result %q", got)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the call did not end when the fork server went away")
	}
	testutil.WaitGone(t, 20*time.Second, "the tool process after its fork server went away", pid)
	_ = s.Close()
}
