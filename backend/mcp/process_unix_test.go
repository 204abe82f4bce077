//go:build unix

package mcp

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"tinyelf/backend/config"
)

// gone reports whether pid has exited (a zombie no one reaps counts).
func gone(pid int) bool {
	if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	fields := strings.Fields(string(stat))
	return len(fields) > 2 && fields[2] == "Z"
}

// TestCloseKillsProcessGroup: a stdio server that left a child of its own
// running takes it down with it when the service closes (the per-session
// direct MCP case).
func TestCloseKillsProcessGroup(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	srv := config.MCPServer{Name: "wrapper", Command: "sh",
		Args: []string{"-c", `sleep 300 & echo $! > "$PIDFILE"; exec "$FAKE" -name wrapper`},
		Env:  map[string]string{"PIDFILE": pidFile, "FAKE": fakeServerBin(t)}}
	svc := NewService([]config.MCPServer{srv}, testOptions())
	svc.Start(t.Context())
	must(t, svc.WaitReady(t.Context()))
	if st, _ := svc.State("wrapper"); st.Status != StatusConnected {
		t.Fatalf("state = %+v", st)
	}
	raw, err := os.ReadFile(pidFile)
	must(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	must(t, err)
	if gone(pid) {
		t.Fatal("the grandchild is not running before Close")
	}
	must(t, svc.Close())
	deadline := time.Now().Add(3 * time.Second)
	for !gone(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatal("the server's own child survived Close")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
