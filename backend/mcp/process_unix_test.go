//go:build unix

package mcp

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"tinyelf/backend/config"
	"tinyelf/backend/proc"
	"tinyelf/internal/testutil"
)

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
	if testutil.ProcessGone(pid) {
		t.Fatal("the grandchild is not running before Close")
	}
	must(t, svc.Close())
	testutil.WaitGone(t, 3*time.Second, "the server's own child after Close", pid)
}

// TestExitIsReportedWithTheLastStderr: by the time a server's exit is
// known (done), its last words on stderr are in the log, so the state that
// reports the exit shows them (a crash's panic message, say).
func TestExitIsReportedWithTheLastStderr(t *testing.T) {
	t.Parallel()
	for i := range 20 {
		log := newLineLog(StderrLines)
		p, err := startProcess(config.MCPServer{Command: "sh", Args: []string{"-c", `echo "panic: simulated crash $0" >&2; exit 2`, strconv.Itoa(i)}}, log, nil, proc.NewChildren("", nil))
		must(t, err)
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			t.Fatal("the server's exit was never noticed")
		}
		if got, want := strings.Join(log.Lines(), "\n"), "panic: simulated crash "+strconv.Itoa(i); got != want {
			t.Fatalf("run %d: stderr when the exit was reported = %q, want %q", i, got, want)
		}
		if e := p.exitError(); e != "exited with status 2" {
			t.Errorf("exit = %q", e)
		}
	}
}
