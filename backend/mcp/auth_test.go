package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"tinyelf/backend/config"
	"tinyelf/backend/mcp/oauth"
	"tinyelf/backend/mcp/oauth/oauthtest"
)

// oauthServer is an mcp-go streamable HTTP server guarded by a test
// authorization server; "write" needs the scope files:write.
func oauthServer(t *testing.T, asOpts oauthtest.Options) (url string, as *oauthtest.Server) {
	t.Helper()
	as, err := oauthtest.Start(asOpts)
	must(t, err)
	t.Cleanup(as.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	url = "http://" + ln.Addr().String() + "/mcp"
	s := server.NewMCPServer("guarded", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("read"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("read ok"), nil
	})
	s.AddTool(mcp.NewTool("write"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("write ok"), nil
	})
	h := as.Protect(url, []string{"files:read"}, map[string]string{"write": "files:write"}, server.NewStreamableHTTPServer(s))
	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return url, as
}

// memoryStores keeps every server's OAuth state in memory, and lets a
// test look at what was saved.
type memoryStores struct {
	mu sync.Mutex
	m  map[string]*oauth.MemoryStore
}

func (m *memoryStores) stores() TokenStores {
	return func(name string) oauth.Store {
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.m == nil {
			m.m = map[string]*oauth.MemoryStore{}
		}
		if m.m[name] == nil {
			m.m[name] = &oauth.MemoryStore{}
		}
		return m.m[name]
	}
}

// TestSignIn: a server that asks for OAuth fails with "sign in"; the
// card's Sign in (SignIn) opens the browser, the server connects with the
// token, the card shows who signed in; a tool that needs a wider scope
// says so and a new sign-in grants it; Sign out forgets the token.
func TestSignIn(t *testing.T) {
	t.Parallel()
	url, as := oauthServer(t, oauthtest.Options{AutoApprove: true, Clients: []oauthtest.Client{{ID: "tinyelf", AuthMethod: "none"}}})
	var ms memoryStores
	opts := testOptions()
	opts.TokenStores = ms.stores()
	svc, _ := startService(t, opts, config.MCPServer{Name: "files", Type: "http", URL: url, OAuth: &config.MCPOAuth{ClientID: "tinyelf"}})
	st, _ := svc.State("files")
	if st.Status != StatusFailed || st.Auth == nil || !st.Auth.Required {
		t.Fatalf("before signing in: %+v (auth %+v), want failed with a sign-in required", st, st.Auth)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var opened []string
	must(t, svc.SignIn(ctx, "files", func(ctx context.Context, u string) error {
		opened = append(opened, u)
		return oauthtest.Browser(ctx, u)
	}))
	if len(opened) != 1 || !strings.Contains(opened[0], "code_challenge_method=S256") {
		t.Errorf("the browser opened %q", opened)
	}
	st = waitState(t, svc, "files", 20*time.Second, hasStatus(StatusConnected))
	if st.Auth == nil || !st.Auth.SignedIn || st.Auth.Required || st.Auth.Account != "ada@example.com" || st.Auth.ExpiresAt.IsZero() {
		t.Errorf("after signing in: %+v", st.Auth)
	}
	if res, _ := call(t, svc, "mcp__files__read", map[string]any{}); res.IsError || payload(res.Content) != "read ok" {
		t.Errorf("read = %+v", res)
	}
	// The state the UI receives holds no token.
	b, _ := json.Marshal(svc.States())
	saved, _ := ms.stores()("files").Load(ctx)
	if saved.Token == nil || bytes.Contains(b, []byte(saved.Token.AccessToken)) || bytes.Contains(b, []byte(saved.Token.RefreshToken)) {
		t.Errorf("the server state leaks the token (or none was saved): %s", b)
	}

	// A tool needing files:write: the call says to sign in again.
	res, _ := call(t, svc, "mcp__files__write", map[string]any{})
	if !res.IsError || !strings.Contains(res.Content, "needs you to sign in") || !strings.Contains(res.Content, "files:write") {
		t.Errorf("write without the scope = %+v", res)
	}
	st = waitState(t, svc, "files", 10*time.Second, func(s ServerState) bool { return s.Auth != nil && s.Auth.Required })
	signedIn := time.Now()
	must(t, svc.SignIn(ctx, "files", oauthtest.Browser))
	waitState(t, svc, "files", 20*time.Second, func(s ServerState) bool {
		return s.Status == StatusConnected && s.Since.After(signedIn) && s.Auth != nil && !s.Auth.Required
	})
	if res, _ := call(t, svc, "mcp__files__write", map[string]any{}); res.IsError || payload(res.Content) != "write ok" {
		t.Errorf("write after the step-up = %+v", res)
	}
	var scopes []string
	for _, r := range as.Requests() {
		if r.Endpoint == "authorize" {
			scopes = append(scopes, r.Form.Get("scope"))
		}
	}
	if len(scopes) != 2 || scopes[1] != "files:read files:write" {
		t.Errorf("authorization scopes %q", scopes)
	}

	must(t, svc.SignOut(ctx, "files"))
	st = waitState(t, svc, "files", 20*time.Second, hasStatus(StatusFailed))
	if st.Auth == nil || st.Auth.SignedIn || !st.Auth.Required {
		t.Errorf("after signing out: %+v", st.Auth)
	}
	if saved, _ := ms.stores()("files").Load(ctx); saved.Token != nil {
		t.Errorf("the token is still saved after signing out")
	}
}

// TestHandshakeHeaders: the GET stream opens only after
// notifications/initialized, and every request after the handshake
// carries MCP-Protocol-Version; clientInfo carries ClientVersion.
func TestHandshakeHeaders(t *testing.T) {
	t.Parallel()
	type seen struct {
		method, rpc, version string
	}
	var mu sync.Mutex
	var log []seen
	s := server.NewMCPServer("listener", "1.0.0", server.WithToolCapabilities(true))
	s.AddTool(mcp.NewTool("t"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	})
	var clientVersion string
	// A 2025-11-25 server: the handshake, then the GET stream for its
	// list changes.
	h := server.NewStreamableHTTPServer(s, server.WithStreamableHTTPProtocolVersions(mcp.ProtocolVersion20251125))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			Method string `json:"method"`
			Params struct {
				ClientInfo struct{ Version string } `json:"clientInfo"`
			} `json:"params"`
		}
		_ = json.Unmarshal(body, &msg)
		if msg.Method == "notifications/initialized" {
			// A slow answer: a GET stream that does not wait for the
			// notification overtakes it.
			time.Sleep(150 * time.Millisecond)
		}
		mu.Lock()
		log = append(log, seen{r.Method, msg.Method, r.Header.Get("MCP-Protocol-Version")})
		if msg.Method == "initialize" {
			clientVersion = msg.Params.ClientInfo.Version
		}
		mu.Unlock()
		h.ServeHTTP(w, r)
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	svc, _ := startService(t, testOptions(), config.MCPServer{Name: "l", Type: "http", URL: "http://" + ln.Addr().String() + "/mcp"})
	if st, _ := svc.State("l"); st.Status != StatusConnected {
		t.Fatalf("state %+v", st)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := len(log)
		gotGET := false
		for _, l := range log {
			gotGET = gotGET || l.method == http.MethodGet
		}
		mu.Unlock()
		if gotGET && n > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	initialized := -1
	for i, l := range log {
		switch {
		case l.rpc == "initialize": // a new handshake (TinyElf reconnects to open the stream)
			initialized = -1
		case l.rpc == "notifications/initialized":
			initialized = i
		case l.method == http.MethodGet && initialized < 0:
			t.Errorf("the GET stream opened before notifications/initialized: %+v", log)
		}
		if l.rpc != "initialize" && l.rpc != "server/discover" && l.version == "" {
			t.Errorf("request %d (%s %s) without MCP-Protocol-Version: %+v", i, l.method, l.rpc, log)
		}
	}
	if initialized < 0 {
		t.Errorf("no notifications/initialized: %+v", log)
	}
	if clientVersion != ClientVersion() || clientVersion == "" || clientVersion == "dev" {
		t.Errorf("clientInfo.version = %q, want ClientVersion() %q", clientVersion, ClientVersion())
	}
}
