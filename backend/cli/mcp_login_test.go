package cli

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"tinyelf/backend/mcp/oauth/oauthtest"
)

// browserWriter is a terminal whose user opens the first sign-in address
// printed on it in a browser (the test authorization server approves at
// once).
type browserWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	opened bool
	t      *testing.T
}

var authURL = regexp.MustCompile(`http://127\.0\.0\.1:\d+/authorize\?\S+`)

func (b *browserWriter) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	if u := authURL.FindString(b.buf.String()); u != "" && !b.opened {
		b.opened = true
		go func() {
			resp, err := http.Get(u)
			if err != nil {
				b.t.Errorf("the browser: %v", err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}()
	}
	return len(p), nil
}

func (b *browserWriter) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestMCPLogin: `tinyelf mcp login` prints the address to open and waits
// for the browser; the server then connects in `tinyelf mcp test`; the
// token shows in no output, settings file or secrets file, and `tinyelf
// mcp logout` forgets it.
func TestMCPLogin(t *testing.T) {
	home := cliEnv(t)
	as, err := oauthtest.Start(oauthtest.Options{AutoApprove: true, Registration: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(as.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/mcp"
	s := server.NewMCPServer("linear-ish", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("issues", mcp.WithDescription("Lists issues.")), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("none"), nil
	})
	srv := &http.Server{Handler: as.Protect(url, []string{"issues:read"}, nil, server.NewStreamableHTTPServer(s))}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })

	if code, _, errOut := runCLI(t, "mcp", "add", "tracker", "--url", url); code != 0 {
		t.Fatalf("add: %s", errOut)
	}
	if code, _, errOut := runCLI(t, "mcp", "test", "tracker"); code == 0 || !strings.Contains(errOut, "tinyelf mcp login tracker") {
		t.Errorf("test before signing in: exit %d, %s; want a failure that says how to sign in", code, errOut)
	}

	out := &browserWriter{t: t}
	var errOut bytes.Buffer
	if code := Run(context.Background(), []string{"mcp", "login", "tracker"}, out, &errOut, Options{Version: "test"}); code != 0 {
		t.Fatalf("login: exit %d: %s\n%s", code, out, &errOut)
	}
	if !strings.Contains(out.String(), "Open this address in a browser to sign in to tracker") ||
		!strings.Contains(out.String(), "Signed in to tracker as ada@example.com. The token expires at") {
		t.Errorf("login printed:\n%s", out)
	}
	code, testOut, testErr := runCLI(t, "mcp", "test", "tracker")
	if code != 0 || !strings.Contains(testOut, "issues") {
		t.Fatalf("test after signing in: exit %d\n%s%s", code, testOut, testErr)
	}

	// The tokens the server issued appear nowhere a person or a log could
	// see them.
	secrets, _ := os.ReadFile(filepath.Join(home, "secrets.enc.json"))
	if len(secrets) == 0 {
		t.Fatal("no secrets file: where did the token go?")
	}
	tokens := as.IssuedTokens()
	if len(tokens) == 0 {
		t.Fatal("the server issued no tokens")
	}
	_, listOut, _ := runCLI(t, "mcp", "list", "--check")
	_, jsonOut, _ := runCLI(t, "mcp", "list", "--check", "--output", "json")
	settings, _ := os.ReadFile(filepath.Join(home, "settings.json"))
	for _, tok := range tokens {
		for what, text := range map[string]string{"login output": out.String(), "test output": testOut + testErr, "mcp list": listOut, "mcp list json": jsonOut,
			"settings.json": string(settings), "secrets file": string(secrets)} {
			if strings.Contains(text, tok) {
				t.Errorf("the token %s… shows in the %s", tok[:6], what)
			}
		}
	}
	if code, _, errOut := runCLI(t, "mcp", "logout", "tracker"); code != 0 {
		t.Fatalf("logout: %s", errOut)
	}
	if code, _, _ := runCLI(t, "mcp", "test", "tracker"); code == 0 {
		t.Error("the server still connects after logout")
	}
}
