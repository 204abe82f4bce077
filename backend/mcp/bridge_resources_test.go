package mcp

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestBridgeResources: a CLI agent reads the session history and the
// workspace's files as resources, sets the log level, and cannot read
// outside the workspace.
func TestBridgeResources(t *testing.T) {
	t.Parallel()
	reg, _, ws := testProviders(t)
	must(t, os.MkdirAll(filepath.Join(ws, "docs"), 0o755))
	must(t, os.WriteFile(filepath.Join(ws, "docs", "guide.md"), []byte("# Guide\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(filepath.Dir(ws), "secret.txt"), []byte("outside"), 0o644))
	b, err := StartBridge(context.Background(), reg, BridgeOptions{Caller: Caller{Workspace: ws}})
	must(t, err)
	t.Cleanup(func() { _ = b.Close(context.Background()) })

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cl, err := client.NewStreamableHttpClient(b.URL(), transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + b.Token()}))
	must(t, err)
	defer cl.Close()
	must(t, cl.Start(ctx))
	var init mcp.InitializeRequest
	init.Params.ClientInfo = mcp.Implementation{Name: "cli-agent", Version: "1"}
	res, err := cl.Initialize(ctx, init)
	must(t, err)
	if res.Capabilities.Resources == nil || res.Capabilities.Logging == nil {
		t.Fatalf("capabilities %+v: want resources and logging", res.Capabilities)
	}
	list, err := cl.ListResources(ctx, mcp.ListResourcesRequest{})
	must(t, err)
	var uris []string
	for _, r := range list.Resources {
		uris = append(uris, r.URI)
	}
	base := fileURI(ws) + "/"
	if !slices.Contains(uris, "tinyelf://sessions") || !slices.Contains(uris, base) {
		t.Errorf("resources %v: want tinyelf://sessions and %s", uris, base)
	}
	text := func(uri string) (string, error) {
		var req mcp.ReadResourceRequest
		req.Params.URI = uri
		r, err := cl.ReadResource(ctx, req)
		if err != nil {
			return "", err
		}
		var sb strings.Builder
		for _, c := range r.Contents {
			if tc, ok := c.(mcp.TextResourceContents); ok {
				sb.WriteString(tc.Text)
			}
		}
		return sb.String(), nil
	}
	for uri, want := range map[string]string{
		"tinyelf://sessions":    "Fix the parser",
		"tinyelf://sessions/s1": "The parser fails on empty input.",
		base:                    "docs/",
		base + "docs/guide.md":  "# Guide",
		base + "README.md":      "hello bridge",
	} {
		got, err := text(uri)
		if err != nil || !strings.Contains(got, want) {
			t.Errorf("read %s = %q, %v; want %q", uri, got, err, want)
		}
	}
	for _, uri := range []string{base + "../secret.txt", base + "%2E%2E/secret.txt", "file:///etc/passwd"} {
		if got, err := text(uri); err == nil {
			t.Errorf("read %s = %q: a file outside the workspace was served", uri, got)
		}
	}
	var lvl mcp.SetLevelRequest
	lvl.Params.Level = mcp.LoggingLevelWarning
	if err := cl.SetLevel(ctx, lvl); err != nil {
		t.Errorf("logging/setLevel: %v", err)
	}
}
