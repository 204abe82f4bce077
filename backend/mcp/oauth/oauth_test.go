package oauth_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"tinyelf/backend/mcp/oauth"
	"tinyelf/backend/mcp/oauth/oauthtest"
)

// resourceServer is an MCP endpoint guarded by as: "ok" to any request
// with a good token.
type resourceServer struct {
	URL string
}

func startResource(t *testing.T, as *oauthtest.Server, scopes []string, toolScopes map[string]string) resourceServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/mcp"
	h := as.Protect(url, scopes, toolScopes, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		fmt.Fprint(w, "ok")
	}))
	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return resourceServer{URL: url}
}

func startAS(t *testing.T, opts oauthtest.Options) *oauthtest.Server {
	t.Helper()
	as, err := oauthtest.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(as.Close)
	return as
}

// call posts a JSON-RPC body through the OAuth transport.
func call(t *testing.T, hc *http.Client, url, method, tool string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":{"name":%q}}`, method, tool)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || string(b) != "ok" {
		return fmt.Errorf("HTTP %d: %s", resp.StatusCode, b)
	}
	return nil
}

func count(as *oauthtest.Server, endpoint string) int {
	n := 0
	for _, r := range as.Requests() {
		if r.Endpoint == endpoint {
			n++
		}
	}
	return n
}

func TestPreRegisteredClientSignsInAndRefreshes(t *testing.T) {
	t.Parallel()
	as := startAS(t, oauthtest.Options{AutoApprove: true, Clients: []oauthtest.Client{{ID: "tinyelf-test", Secret: "s3cret", AuthMethod: "client_secret_basic"}}})
	rs := startResource(t, as, []string{"files:read"}, nil)
	store := &oauth.MemoryStore{}
	c := oauth.New(oauth.Config{Server: "files", ServerURL: rs.URL, ClientID: "tinyelf-test", ClientSecret: "s3cret", Store: store, Browser: oauthtest.Browser})
	hc := &http.Client{Transport: &oauth.Transport{Client: c}}

	if err := call(t, hc, rs.URL, "tools/list", ""); err != nil {
		t.Fatalf("first request: %v", err)
	}
	auth := as.Requests()[0]
	if auth.Endpoint != "authorize" || auth.Form.Get("code_challenge_method") != "S256" || auth.Form.Get("resource") != rs.URL || auth.Form.Get("scope") != "files:read" {
		t.Errorf("authorization request %v: want S256, resource %s and the challenge's scope", auth.Form, rs.URL)
	}
	for _, r := range as.Requests() {
		if r.Endpoint == "token" && (!r.Basic || r.Form.Get("resource") != rs.URL) {
			t.Errorf("token request %v (basic %v): want HTTP Basic and the resource", r.Form, r.Basic)
		}
	}
	st := c.Status(context.Background())
	if !st.SignedIn || st.Account != "ada@example.com" || st.ExpiresAt.IsZero() || !st.Refreshable {
		t.Errorf("status after sign-in: %+v", st)
	}

	// The access token dies: the next request refreshes without the user.
	as.ExpireAccessTokens()
	if err := call(t, hc, rs.URL, "tools/list", ""); err != nil {
		t.Fatalf("request after the access token expired: %v", err)
	}
	if n := count(as, "authorize"); n != 1 {
		t.Errorf("%d authorization requests, want 1 (a refresh needs no oauthtest.Browser)", n)
	}
	if n := as.Issued("refresh_token"); n != 1 {
		t.Errorf("%d refreshes, want 1", n)
	}
	saved, _ := store.Load(context.Background())
	if saved.Token == nil || saved.Token.RefreshToken == "" {
		t.Errorf("the refreshed token was not saved: %+v", saved)
	}
}

func TestRevokedTokenNeedsSignIn(t *testing.T) {
	t.Parallel()
	as := startAS(t, oauthtest.Options{AutoApprove: true, Registration: true})
	rs := startResource(t, as, nil, nil)
	c := oauth.New(oauth.Config{Server: "files", ServerURL: rs.URL})
	hc := &http.Client{Transport: &oauth.Transport{Client: c}}

	// Nobody may open a browser: the request says a sign-in is needed.
	err := call(t, hc, rs.URL, "tools/list", "")
	var se *oauth.SignInError
	if !errors.As(err, &se) || !errors.Is(err, oauth.ErrSignInRequired) {
		t.Fatalf("request without a token: %v, want a SignInError", err)
	}
	// The user signs in (the card's button): dynamic registration, then
	// the browser.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.SignIn(ctx, oauthtest.Browser); err != nil {
		t.Fatalf("SignIn: %v", err)
	}
	if count(as, "register") != 1 {
		t.Errorf("registrations: %d, want 1", count(as, "register"))
	}
	if err := call(t, hc, rs.URL, "tools/list", ""); err != nil {
		t.Fatalf("request after signing in: %v", err)
	}

	// The user withdraws TinyElf's access on the server's side.
	as.Revoke()
	err = call(t, hc, rs.URL, "tools/list", "")
	if !errors.As(err, &se) || !strings.Contains(se.Reason, "revoked") {
		t.Fatalf("request with a revoked token: %v, want a SignInError saying it was revoked", err)
	}
	if st := c.Status(ctx); st.SignedIn || !strings.Contains(st.Problem, "revoked") {
		t.Errorf("status after revocation: %+v", st)
	}
	// Signing in again reuses the registration.
	if err := c.SignIn(ctx, oauthtest.Browser); err != nil {
		t.Fatal(err)
	}
	if err := call(t, hc, rs.URL, "tools/list", ""); err != nil {
		t.Fatal(err)
	}
	if count(as, "register") != 1 {
		t.Errorf("registrations after a second sign-in: %d, want 1", count(as, "register"))
	}
	// Sign out forgets everything.
	if err := c.SignOut(ctx); err != nil {
		t.Fatal(err)
	}
	if st := c.Status(ctx); st.SignedIn {
		t.Errorf("still signed in after SignOut: %+v", st)
	}
}

func TestStepUp(t *testing.T) {
	t.Parallel()
	as := startAS(t, oauthtest.Options{AutoApprove: true, Registration: true})
	rs := startResource(t, as, []string{"files:read"}, map[string]string{"write_file": "files:write"})
	c := oauth.New(oauth.Config{Server: "files", ServerURL: rs.URL, Browser: oauthtest.Browser})
	hc := &http.Client{Transport: &oauth.Transport{Client: c}}
	if err := call(t, hc, rs.URL, "tools/call", "read_file"); err != nil {
		t.Fatal(err)
	}
	if err := call(t, hc, rs.URL, "tools/call", "write_file"); err != nil {
		t.Fatalf("a call needing a wider scope: %v", err)
	}
	var scopes []string
	for _, r := range as.Requests() {
		if r.Endpoint == "authorize" {
			scopes = append(scopes, r.Form.Get("scope"))
		}
	}
	if !slices.Equal(scopes, []string{"files:read", "files:read files:write"}) {
		t.Errorf("authorization scopes %q: want the challenge's, then the held ones plus the new", scopes)
	}
}

func TestStepUpRetryLimit(t *testing.T) {
	t.Parallel()
	as := startAS(t, oauthtest.Options{AutoApprove: true, Registration: true})
	// A server whose tools/call wants a scope it never accepts.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/mcp"
	prm := as.Protect(url, nil, nil, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="admin"`)
		http.Error(w, "never", http.StatusForbidden)
	}))
	srv := &http.Server{Handler: prm}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	c := oauth.New(oauth.Config{Server: "stubborn", ServerURL: url, Browser: oauthtest.Browser})
	hc := &http.Client{Transport: &oauth.Transport{Client: c}}
	done := make(chan error, 1)
	go func() { done <- call(t, hc, url, "tools/call", "x") }()
	select {
	case err := <-done:
		var se *oauth.SignInError
		if !errors.As(err, &se) || !strings.Contains(se.Reason, "still refuses") {
			t.Fatalf("a scope that never suffices: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the client kept signing in")
	}
	// The first sign-in and at most two step-ups (the conformance suite
	// allows three attempts in all).
	if n := count(as, "authorize"); n < 2 || n > 3 {
		t.Errorf("%d authorization requests, want 2 or 3: a step-up is tried, and given up", n)
	}
}

func TestClientCredentials(t *testing.T) {
	t.Parallel()
	as := startAS(t, oauthtest.Options{Clients: []oauthtest.Client{{ID: "robot", Secret: "beep", AuthMethod: "client_secret_post"}}})
	rs := startResource(t, as, []string{"jobs"}, nil)
	c := oauth.New(oauth.Config{Server: "ci", ServerURL: rs.URL, ClientID: "robot", ClientSecret: "beep", AuthMethod: "client_secret_post", Grant: oauth.GrantClientCredentials})
	hc := &http.Client{Transport: &oauth.Transport{Client: c}}
	if err := call(t, hc, rs.URL, "tools/list", ""); err != nil {
		t.Fatal(err)
	}
	as.ExpireAccessTokens()
	if err := call(t, hc, rs.URL, "tools/list", ""); err != nil {
		t.Fatalf("after the token expired: %v", err)
	}
	if n := count(as, "authorize"); n != 0 {
		t.Errorf("a machine client opened %d authorization requests", n)
	}
	if n := as.Issued("client_credentials"); n != 2 {
		t.Errorf("%d client_credentials tokens, want 2", n)
	}
	for _, r := range as.Requests() {
		if r.Endpoint == "token" && (r.Basic || r.Form.Get("client_secret") != "beep") {
			t.Errorf("token request %v: want client_secret_post", r.Form)
		}
	}
}

func TestParseChallenge(t *testing.T) {
	t.Parallel()
	cases := []struct {
		header string
		want   oauth.Challenge
		ok     bool
	}{
		{`Bearer resource_metadata="https://a.example/.well-known/oauth-protected-resource/mcp"`,
			oauth.Challenge{ResourceMetadata: "https://a.example/.well-known/oauth-protected-resource/mcp"}, true},
		{`Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://a/x"`,
			oauth.Challenge{ResourceMetadata: "https://a/x", Scopes: []string{"files:read", "files:write"}, Error: "insufficient_scope"}, true},
		{`Basic realm="x", Bearer realm="y", error=invalid_token`, oauth.Challenge{Error: "invalid_token"}, true},
		{`Basic realm="only"`, oauth.Challenge{}, false},
		{`Bearer scope="a \"quoted\" b"`, oauth.Challenge{Scopes: []string{"a", `"quoted"`, "b"}}, true},
	}
	for _, c := range cases {
		h := http.Header{}
		h.Add("WWW-Authenticate", c.header)
		got, ok := oauth.ParseChallenge(h)
		if ok != c.ok || got.ResourceMetadata != c.want.ResourceMetadata || got.Error != c.want.Error || !slices.Equal(got.Scopes, c.want.Scopes) {
			t.Errorf("ParseChallenge(%s) = %+v, %v; want %+v, %v", c.header, got, ok, c.want, c.ok)
		}
	}
}
