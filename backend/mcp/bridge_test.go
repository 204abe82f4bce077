package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// testBridgeVersion is the version the test bridge reports in serverInfo.
const testBridgeVersion = "9.9.9+1.gbridge"

func startTestBridge(t *testing.T) (*Bridge, *fakeNotifier) {
	t.Helper()
	reg, n, ws := testProviders(t)
	b, err := StartBridge(context.Background(), reg, BridgeOptions{Caller: Caller{Workspace: ws}, Version: testBridgeVersion})
	must(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = b.Close(ctx)
	})
	return b, n
}

// TestBridgeWithTypeScriptClient drives the bridge with the official
// TypeScript SDK client: list the tools, call two of them.
func TestBridgeWithTypeScriptClient(t *testing.T) {
	t.Parallel()
	npmModules(t)
	b, notifier := startTestBridge(t)
	calls := `[{"name":"sessions_search","arguments":{"query":"parser"}},
	           {"name":"workspace_read_file","arguments":{"path":"README.md"}},
	           {"name":"notify_notify","arguments":{"title":"From the CLI"}},
	           {"name":"progress_work","arguments":{"n":2}}]`
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join("testdata", "npm", "bridge_client.mjs"), b.URL(), b.Token(), calls)
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("bridge_client.mjs: %v\n%s%s", err, out, stderr)
	}
	var got struct {
		Server   struct{ Name, Version string }
		Protocol string
		Tools    []struct {
			Name     string
			ReadOnly *bool
		}
		Results []struct {
			Content  []struct{ Type, Text string }
			IsError  bool
			Progress []string
		}
	}
	must(t, json.Unmarshal(out, &got))
	var names []string
	for _, tl := range got.Tools {
		names = append(names, tl.Name)
		if tl.Name == "sessions_search" && (tl.ReadOnly == nil || !*tl.ReadOnly) {
			t.Errorf("sessions_search is not marked read-only: %+v", tl)
		}
	}
	for _, want := range []string{"sessions_list", "sessions_search", "sessions_history", "notify_notify", "workspace_read_file", "workspace_grep"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools %v lack %s", names, want)
		}
	}
	if got.Server.Name != "tinyelf" || got.Server.Version != testBridgeVersion || got.Protocol != "2025-11-25" {
		t.Errorf("server %q version %q on protocol %q, want tinyelf %s", got.Server.Name, got.Server.Version, got.Protocol, testBridgeVersion)
	}
	wants := []string{"the <mark>parser</mark> fails", "hello bridge", "Notification shown.", "worked"}
	if len(got.Results) != len(wants) {
		t.Fatalf("results = %+v", got.Results)
	}
	for i, w := range wants {
		r := got.Results[i]
		if r.IsError || len(r.Content) != 1 || !strings.Contains(r.Content[0].Text, w) {
			t.Errorf("result %d = %+v, want %q", i, r, w)
		}
	}
	if p := got.Results[3].Progress; !slices.Equal(p, []string{"step I", "step II"}) {
		t.Errorf("progress over the bridge = %q", p)
	}
	if sent := notifier.all(); len(sent) != 1 || sent[0] != "From the CLI: " {
		t.Errorf("notifications = %q", sent)
	}
	if !strings.Contains(string(b.ClientConfig("tinyelf")), `"Authorization": "Bearer `+b.Token()+`"`) {
		t.Errorf("client config = %s", b.ClientConfig("tinyelf"))
	}
}

// TestBridgeRejects checks the bridge's door: token, Host and Origin.
func TestBridgeRejects(t *testing.T) {
	t.Parallel()
	b, _ := startTestBridge(t)
	initBody := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	tests := []struct {
		name   string
		header map[string]string
		host   string
		status int
	}{
		{"no token", nil, "", http.StatusUnauthorized},
		{"wrong token", map[string]string{"Authorization": "Bearer nope"}, "", http.StatusUnauthorized},
		{"foreign Host", map[string]string{"Authorization": "Bearer " + b.Token()}, "evil.example:80", http.StatusForbidden},
		{"foreign Host without token", nil, "evil.example", http.StatusForbidden},
		{"foreign Origin", map[string]string{"Authorization": "Bearer " + b.Token(), "Origin": "https://evil.example"}, "", http.StatusForbidden},
		{"null Origin", map[string]string{"Authorization": "Bearer " + b.Token(), "Origin": "null"}, "", http.StatusForbidden},
		{"localhost Host and Origin", map[string]string{"Authorization": "Bearer " + b.Token(), "Origin": "http://localhost:5173"}, "localhost", http.StatusOK},
		{"plain request", map[string]string{"Authorization": "Bearer " + b.Token()}, "", http.StatusOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, b.URL(), strings.NewReader(initBody))
			must(t, err)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			if tc.host != "" {
				req.Host = tc.host
			}
			resp, err := http.DefaultClient.Do(req)
			must(t, err)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Errorf("status = %d, want %d", resp.StatusCode, tc.status)
			}
			// Let in, a client learns which TinyElf it talks to.
			if tc.status == http.StatusOK && !strings.Contains(string(body), `"serverInfo":{"name":"tinyelf","version":"`+testBridgeVersion+`"}`) {
				t.Errorf("initialize answered %s, want serverInfo tinyelf %s", body, testBridgeVersion)
			}
			if tc.status == http.StatusUnauthorized && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("401 without a Bearer challenge: %v", resp.Header)
			}
		})
	}
	if _, err := StartBridge(context.Background(), NewProviderRegistry(), BridgeOptions{Addr: "0.0.0.0:0"}); err == nil {
		t.Error("a bridge on a non-loopback address started")
	}
}

// repeatReader yields n bytes of 'x' without holding them in memory.
type repeatReader struct{ n int64 }

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > r.n {
		p = p[:r.n]
	}
	for i := range p {
		p[i] = 'x'
	}
	r.n -= int64(len(p))
	return len(p), nil
}

// TestBridgeBodyLimit sends 100 MB bodies, with and without a
// Content-Length: both are refused with 413, and the bridge's memory stays
// bounded by its 16 MiB limit (the first is refused before it is read).
// Not parallel: it measures the process's allocations.
func TestBridgeBodyLimit(t *testing.T) {
	b, _ := startTestBridge(t)
	const size = 100 << 20
	tests := []struct {
		name     string
		length   int64 // -1: chunked
		maxAlloc uint64
	}{
		{"declared length", size, 4 << 20},
		// Read up to the limit, never the whole body (which would cost
		// twice its size): ~35 MB, ~70 MB under the race detector.
		{"chunked", -1, size},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			req, err := http.NewRequest(http.MethodPost, b.URL(), &repeatReader{n: size})
			must(t, err)
			req.ContentLength = tc.length
			req.Header.Set("Authorization", "Bearer "+b.Token())
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := http.DefaultClient.Do(req)
			runtime.ReadMemStats(&after)
			if err != nil {
				// The bridge may close the connection while the client is
				// still sending; what matters is that it did not read it all.
				t.Logf("client: %v", err)
			} else {
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), "16 MiB") {
					t.Errorf("status %d: %s", resp.StatusCode, body)
				}
			}
			grew := after.TotalAlloc - before.TotalAlloc
			t.Logf("allocated %.1f MB while refusing a %d MB body", float64(grew)/(1<<20), size>>20)
			if grew > tc.maxAlloc {
				t.Errorf("a %d MB body made the process allocate %d MB (limit %d MB)", size>>20, grew>>20, tc.maxAlloc>>20)
			}
		})
	}
}

// TestBridgeQuotesBadValuesShortly calls tools with long bad values: the
// errors name them by a short prefix, never whole.
func TestBridgeQuotesBadValuesShortly(t *testing.T) {
	t.Parallel()
	b, _ := startTestBridge(t)
	long := strings.Repeat("A", 5000)
	sid := ""
	post := func(body string) string {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, b.URL(), strings.NewReader(body))
		must(t, err)
		req.Header.Set("Authorization", "Bearer "+b.Token())
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		resp, err := http.DefaultClient.Do(req)
		must(t, err)
		defer resp.Body.Close()
		if sid == "" {
			sid = resp.Header.Get("Mcp-Session-Id")
		}
		out, _ := io.ReadAll(resp.Body)
		return string(out)
	}
	post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	tests := []struct {
		name, call, want string
	}{
		{"missing file", `{"name":"workspace_read_file","arguments":{"path":"` + long + `"}}`, "(5000 bytes)"},
		{"bad regex", `{"name":"workspace_grep","arguments":{"pattern":"(` + long + `"}}`, "(5001 bytes)"},
		{"unknown tool", `{"name":"nope` + long + `","arguments":{}}`, "unknown tool"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, i+2, tc.call))
			if strings.Contains(out, strings.Repeat("A", 100)) || !strings.Contains(out, tc.want) {
				t.Errorf("answer (%d bytes) quotes the value whole or lacks %q: %.300s", len(out), tc.want, out)
			}
		})
	}
}

func TestQuotePrefix(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, `"short"`},
		{"abcdefghij", 4, `"abcd"… (10 bytes)`},
		{"日本語です", 4, `"日"… (15 bytes)`},
		{"a\nb\x1b[31m" + strings.Repeat("x", 20), 8, `"a\nb\x1b[31m"… (28 bytes)`},
	}
	for _, tc := range tests {
		if got := QuotePrefix(tc.in, tc.n); got != tc.want {
			t.Errorf("QuotePrefix(%q, %d) = %s, want %s", tc.in, tc.n, got, tc.want)
		}
	}
}
