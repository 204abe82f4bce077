package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"tinyelf/backend/capabilities"
	"tinyelf/backend/capabilities/captest"
	"tinyelf/backend/config"
	"tinyelf/backend/mcp"
	"tinyelf/internal/testutil"
)

// The test binary doubles as a real stdio MCP server: started with
// TINYELF_TEST_MCP_SERVER=<fixture> it serves that captest fixture server
// on stdin and stdout, after writing its process ID to the file that
// TINYELF_TEST_MCP_PID names.
func TestMain(m *testing.M) {
	if name := os.Getenv("TINYELF_TEST_MCP_SERVER"); name != "" {
		os.Exit(serveFixture(name))
	}
	os.Exit(m.Run())
}

func serveFixture(name string) int {
	s, err := captest.NewServer(name)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if p := os.Getenv("TINYELF_TEST_MCP_PID"); p != "" {
		if err := os.WriteFile(p, []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
	}
	if err := server.ServeStdio(s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// realServer is a fixture MCP server running as a process of its own,
// connected through TinyElf's MCP client (package mcp) and kept in the
// catalog as the user's servers are (a partition per server, replaced or
// removed on each change, with the change's reason).
type realServer struct {
	svc     *mcp.Service
	pidFile string
}

// startRealServer starts the fixture server name and waits until its
// tools are in cat. It restarts only after an hour, so that a killed
// server stays gone for the test.
func startRealServer(t *testing.T, cat *capabilities.Catalog, name string) *realServer {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rs := &realServer{pidFile: filepath.Join(t.TempDir(), "pid")}
	part := "mcp:" + name
	sync := func(c mcp.Change) {
		if c.Server != name {
			return
		}
		var es []capabilities.Entry
		for _, tool := range rs.svc.Tools() {
			if capabilities.ServerOf(tool.Info()) == name {
				es = append(es, capabilities.ToolEntry(tool))
			}
		}
		reason := fmt.Sprintf("MCP server %s: %s", name, c.Reason)
		if len(es) == 0 {
			cat.Remove(part, reason)
		} else {
			cat.Replace(part, es, capabilities.PartitionOptions{Priority: capabilities.PriorityMCP, Reason: reason})
		}
	}
	rs.svc = mcp.NewService([]config.MCPServer{{
		Name: name, Command: self,
		Env: map[string]string{"TINYELF_TEST_MCP_SERVER": name, "TINYELF_TEST_MCP_PID": rs.pidFile},
	}}, mcp.Options{RestartBackoff: time.Hour, MaxRestartBackoff: time.Hour, OnChange: sync})
	t.Cleanup(func() { rs.svc.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rs.svc.Start(context.Background()) // until Close
	if err := rs.svc.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, "the server's tools are in the catalog", func() bool {
		_, ok := cat.Snapshot().View("").ToolByName(fmt.Sprintf("mcp__%s__", name) + firstTool(t, name))
		return ok
	})
	return rs
}

func firstTool(t *testing.T, name string) string {
	ts, err := captest.MCPTools(name)
	if err != nil || len(ts) == 0 {
		t.Fatalf("fixture %s: %v", name, err)
	}
	return ts[0].Name
}

// kill ends the server's process with SIGKILL, as a crash would, and waits
// until TinyElf's client has noticed (its state is no longer connected).
func (rs *realServer) kill(t *testing.T, name string) {
	b, err := os.ReadFile(rs.pidFile)
	if err != nil {
		t.Fatalf("the server wrote no process ID: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill the server: %v", err)
	}
	testutil.WaitFor(t, "the client sees the server gone", func() bool {
		st, ok := rs.svc.State(name)
		return ok && st.Status != mcp.StatusConnected
	})
}
