package mcp

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"tinyelf/backend/config"
	"tinyelf/backend/proc"
	"tinyelf/backend/tools"
)

const everythingPkg = "@modelcontextprotocol/server-everything"

// freePort returns a loopback port that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startEverythingHTTP runs server-everything's streamable HTTP mode
// (`index.js streamableHttp`, port from $PORT) and returns its endpoint.
func startEverythingHTTP(t testing.TB) string {
	t.Helper()
	script := npmScript(t, everythingPkg)
	port := freePort(t)
	cmd := exec.Command("node", script, "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	proc.StartInOwnGroup(cmd)
	stderr, err := cmd.StderrPipe()
	must(t, err)
	must(t, cmd.Start())
	t.Cleanup(func() {
		proc.SignalGroup(cmd.Process, true)
		_ = cmd.Wait()
	})
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on port") {
				close(ready)
				break
			}
		}
		for sc.Scan() {
		}
	}()
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		t.Fatal("server-everything streamableHttp did not start listening")
	}
	return fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
}

// TestEverythingServer runs the reference server (protocol 2025-11-25) over
// stdio and over streamable HTTP through the same table.
func TestEverythingServer(t *testing.T) {
	t.Parallel()
	script := npmScript(t, everythingPkg)
	transports := []struct {
		name string
		cfg  func(t *testing.T) config.MCPServer
	}{
		{"stdio", func(t *testing.T) config.MCPServer {
			return config.MCPServer{Name: "everything", Command: "node", Args: []string{script, "stdio"}}
		}},
		{"streamable http", func(t *testing.T) config.MCPServer {
			return config.MCPServer{Name: "everything", Type: "streamable-http", URL: startEverythingHTTP(t)}
		}},
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			svc, _ := startService(t, testOptions(), tr.cfg(t))
			st, _ := svc.State("everything")
			if st.Status != StatusConnected || st.ProtocolVersion != "2025-11-25" || st.ServerName != "mcp-servers/everything" {
				t.Fatalf("state = %+v", st)
			}
			names := toolNames(svc.Tools())
			for _, want := range []string{"echo", "get-sum", "get-tiny-image", "get-structured-content", "trigger-long-running-operation"} {
				if !slices.Contains(names, "mcp__everything__"+want) {
					t.Errorf("tools %v lack %s", names, want)
				}
			}
			reg := registryOf(t, svc.Tools())
			if info, _ := reg.Info("mcp__everything__get-sum"); !info.ReadOnly || info.Safe || !strings.Contains(string(info.Parameters), `"a"`) {
				t.Errorf("get-sum info = %+v", info)
			}
			everythingCalls(t, svc)
			everythingResourcesAndPrompts(t, svc)
		})
	}
}

func everythingCalls(t *testing.T, svc *Service) {
	tests := []struct {
		tool     string
		args     map[string]any
		want     []string
		progress int
		check    func(t *testing.T, res tools.CallResult)
	}{
		{tool: "echo", args: map[string]any{"message": "hello"}, want: []string{"Echo: hello"}},
		{tool: "get-sum", args: map[string]any{"a": 2, "b": 3}, want: []string{"5"}},
		{tool: "get-tiny-image", args: map[string]any{}, want: []string{"[image: image/png,"},
			check: func(t *testing.T, res tools.CallResult) {
				if imgs, _ := res.Meta[MetaImages].([]Media); len(imgs) != 1 || imgs[0].Size == 0 {
					t.Errorf("images = %+v", res.Meta[MetaImages])
				}
			}},
		{tool: "get-structured-content", args: map[string]any{"location": "Chicago"}, want: []string{"Light rain"},
			check: func(t *testing.T, res tools.CallResult) {
				if sc, _ := res.Meta[MetaStructured].(map[string]any); sc["humidity"] != float64(82) {
					t.Errorf("structured content = %+v", res.Meta[MetaStructured])
				}
			}},
		{tool: "trigger-long-running-operation", args: map[string]any{"duration": 0.3, "steps": 3},
			want: []string{"Long running operation completed"}, progress: 3},
		{tool: "get-resource-links", args: map[string]any{"count": 2}, want: []string{"[resource link:", "demo://resource/dynamic/"}},
		{tool: "get-resource-reference", args: map[string]any{"resourceType": "Text", "resourceId": 2},
			want: []string{"[resource demo://resource/dynamic/text/2"}},
	}
	for _, tc := range tests {
		t.Run(tc.tool, func(t *testing.T) {
			res, progress := call(t, svc, "mcp__everything__"+tc.tool, tc.args)
			if res.IsError {
				t.Fatalf("%s failed: %s", tc.tool, res.Content)
			}
			mustContain(t, res.Content, tc.want...)
			if len(progress) < tc.progress || (tc.progress > 0 && progress[len(progress)-1] != "progress 3/3") {
				t.Errorf("progress = %q, want %d updates ending with 3/3", progress, tc.progress)
			}
			if tc.check != nil {
				tc.check(t, res)
			}
		})
	}
}

func everythingResourcesAndPrompts(t *testing.T, svc *Service) {
	t.Run("resources", func(t *testing.T) {
		list, _ := call(t, svc, ListResourcesToolName, map[string]any{"server": "everything"})
		mustContain(t, list.Content, "demo://resource/static/document/architecture.md", "(template)")
		res, _ := call(t, svc, ReadResourceToolName, map[string]any{"server": "everything", "uri": "demo://resource/static/document/architecture.md"})
		if res.IsError {
			t.Fatal(res.Content)
		}
		mustContain(t, res.Content, "[resource demo://resource/static/document/architecture.md (text/markdown)]", "Architecture")
		res, _ = call(t, svc, ReadResourceToolName, map[string]any{"server": "everything", "uri": "demo://resource/dynamic/blob/1"})
		mustContain(t, res.Content, "binary")
	})
	t.Run("prompts", func(t *testing.T) {
		ctx := t.Context()
		got, err := svc.RunPromptLine(ctx, "/mcp__everything__simple-prompt")
		if err != nil || unmarked(t, got) != "This is a simple prompt without arguments." {
			t.Errorf("simple-prompt = %q, %v", got, err)
		}
		got, err = svc.RunPromptLine(ctx, `/mcp__everything__args-prompt city="New York" state=NY`)
		if err != nil || unmarked(t, got) != "What's weather in New York, NY?" {
			t.Errorf("args-prompt = %q, %v", got, err)
		}
	})
}
