// Package oauthtest is a small OAuth 2.1 authorization server and a bearer
// guard for an MCP endpoint, on loopback, for tests: metadata (RFC 8414),
// the authorization code grant with PKCE S256 (required), refresh tokens,
// client_credentials, dynamic registration (RFC 7591) and pre-registered
// clients, the resource parameter (RFC 8707) checked against the protected
// resource, revocation, and per-method scopes that make the guard answer
// 403 insufficient_scope (step-up).
//
// The authorization endpoint approves at once (AutoApprove) or shows a
// consent page with an "Allow" button (for a browser driven by Playwright).
package oauthtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// Client is a registered OAuth client.
type Client struct {
	ID, Secret string
	// AuthMethod is "none", "client_secret_basic" or "client_secret_post".
	AuthMethod string
}

// Options configures a Server.
type Options struct {
	// Clients are pre-registered.
	Clients []Client
	// Registration enables dynamic client registration.
	Registration bool
	// AutoApprove redirects from the authorization endpoint at once;
	// otherwise a consent page asks.
	AutoApprove bool
	// TokenLifetime is the access tokens' lifetime (default 1 h).
	TokenLifetime time.Duration
	// Account is the user the ID token names (default "ada@example.com").
	Account string
	// ScopesSupported are listed in the metadata (and the resource's).
	ScopesSupported []string
}

// Server is the authorization server. Its methods are safe for concurrent
// use; Close stops it.
type Server struct {
	URL  string // the issuer, http://127.0.0.1:port
	opts Options
	srv  *http.Server

	mu       sync.Mutex
	clients  map[string]Client
	codes    map[string]grant
	access   map[string]grant // access token -> grant
	refresh  map[string]grant // refresh token -> grant
	requests []Request
	issued   []string // every access and refresh token handed out
	resource string   // the protected resource's identifier
}

type grant struct {
	client, redirect, challenge, resource string
	scopes                                []string
	expires                               time.Time
}

// Request records one request to the server, for assertions.
type Request struct {
	Endpoint string // "authorize", "token", "register"
	Form     url.Values
	Basic    bool // client authenticated with HTTP Basic
}

// Start starts a server on loopback; t.Cleanup-style callers Close it.
func Start(opts Options) (*Server, error) {
	if opts.TokenLifetime <= 0 {
		opts.TokenLifetime = time.Hour
	}
	if opts.Account == "" {
		opts.Account = "ada@example.com"
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + ln.Addr().String(), opts: opts, clients: map[string]Client{},
		codes: map[string]grant{}, access: map[string]grant{}, refresh: map[string]grant{}}
	for _, c := range opts.Clients {
		s.clients[c.ID] = c
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", s.metadata)
	mux.HandleFunc("GET /authorize", s.authorize)
	mux.HandleFunc("POST /authorize", s.consent)
	mux.HandleFunc("POST /token", s.token)
	mux.HandleFunc("POST /register", s.register)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Close stops the server.
func (s *Server) Close() { _ = s.srv.Close() }

// Requests returns what the server was asked, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// IssuedTokens returns every access and refresh token the server handed
// out, for tests that check none of them shows anywhere.
func (s *Server) IssuedTokens() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.issued)
}

// Revoke invalidates every token issued so far, access and refresh: the
// user withdrew TinyElf's access.
func (s *Server) Revoke() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.access, s.refresh = map[string]grant{}, map[string]grant{}
}

// ExpireAccessTokens makes every access token invalid (as if expired),
// leaving refresh tokens good.
func (s *Server) ExpireAccessTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.access = map[string]grant{}
}

// Issued counts the access tokens issued so far by grant type.
func (s *Server) Issued(grantType string) int {
	n := 0
	for _, r := range s.Requests() {
		if r.Endpoint == "token" && r.Form.Get("grant_type") == grantType {
			n++
		}
	}
	return n
}

func (s *Server) record(r Request) {
	s.mu.Lock()
	s.requests = append(s.requests, r)
	s.mu.Unlock()
}

func (s *Server) metadata(w http.ResponseWriter, _ *http.Request) {
	md := map[string]any{
		"issuer":                                s.URL,
		"authorization_endpoint":                s.URL + "/authorize",
		"token_endpoint":                        s.URL + "/token",
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token", "client_credentials"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"none", "client_secret_basic", "client_secret_post"},
	}
	if s.opts.Registration {
		md["registration_endpoint"] = s.URL + "/register"
	}
	if len(s.opts.ScopesSupported) > 0 {
		md["scopes_supported"] = s.opts.ScopesSupported
	}
	writeJSON(w, http.StatusOK, md)
}

func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.record(Request{Endpoint: "authorize", Form: q})
	if msg := s.checkAuthorize(q); msg != "" {
		http.Error(w, msg, http.StatusBadRequest)
		return
	}
	if s.opts.AutoApprove {
		s.approve(w, r, q)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	var hidden strings.Builder
	for k, vs := range q {
		for _, v := range vs {
			fmt.Fprintf(&hidden, `<input type="hidden" name="%s" value="%s">`, html.EscapeString(k), html.EscapeString(v))
		}
	}
	fmt.Fprintf(w, `<!doctype html><meta charset=utf-8><title>Test sign-in</title><h1>Sign in to the test server</h1>
<p>%s asks for access (scope: %s).</p><form method="post" action="/authorize">%s<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button></form>`, html.EscapeString(q.Get("client_id")), html.EscapeString(q.Get("scope")), hidden.String())
}

func (s *Server) consent(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	q := r.PostForm
	if msg := s.checkAuthorize(q); msg != "" {
		http.Error(w, msg, http.StatusBadRequest)
		return
	}
	if q.Get("decision") != "allow" {
		u, _ := url.Parse(q.Get("redirect_uri"))
		v := u.Query()
		v.Set("error", "access_denied")
		v.Set("state", q.Get("state"))
		u.RawQuery = v.Encode()
		http.Redirect(w, r, u.String(), http.StatusFound)
		return
	}
	s.approve(w, r, q)
}

func (s *Server) checkAuthorize(q url.Values) string {
	s.mu.Lock()
	_, known := s.clients[q.Get("client_id")]
	s.mu.Unlock()
	switch {
	case !known:
		return "unknown client_id"
	case q.Get("response_type") != "code":
		return "response_type must be code"
	case q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
		return "PKCE with S256 is required"
	case !loopbackRedirect(q.Get("redirect_uri")):
		return "redirect_uri must be a loopback http URL"
	case s.resource != "" && q.Get("resource") != s.resource:
		return fmt.Sprintf("resource %q is not this server's protected resource %q", q.Get("resource"), s.resource)
	}
	return ""
}

func loopbackRedirect(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && u.Scheme == "http" && (u.Hostname() == "127.0.0.1" || u.Hostname() == "localhost" || u.Hostname() == "::1")
}

func (s *Server) approve(w http.ResponseWriter, r *http.Request, q url.Values) {
	code := random()
	s.mu.Lock()
	s.codes[code] = grant{client: q.Get("client_id"), redirect: q.Get("redirect_uri"), challenge: q.Get("code_challenge"),
		resource: q.Get("resource"), scopes: strings.Fields(q.Get("scope"))}
	s.mu.Unlock()
	u, _ := url.Parse(q.Get("redirect_uri"))
	v := u.Query()
	v.Set("code", code)
	v.Set("state", q.Get("state"))
	u.RawQuery = v.Encode()
	http.Redirect(w, r, u.String(), http.StatusFound)
}

// authClient authenticates the client of a token request.
func (s *Server) authClient(r *http.Request) (Client, bool, string) {
	id, secret, basic := r.BasicAuth()
	if basic {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	s.mu.Lock()
	c, ok := s.clients[id]
	s.mu.Unlock()
	if !ok {
		return Client{}, basic, "unknown client"
	}
	switch c.AuthMethod {
	case "client_secret_basic":
		if !basic || secret != c.Secret {
			return Client{}, basic, "client_secret_basic authentication required"
		}
	case "client_secret_post":
		if basic || secret != c.Secret {
			return Client{}, basic, "client_secret_post authentication required"
		}
	}
	return c, basic, ""
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	c, basic, problem := s.authClient(r)
	s.record(Request{Endpoint: "token", Form: r.PostForm, Basic: basic})
	if problem != "" {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client", "error_description": problem})
		return
	}
	f := r.PostForm
	if s.resource != "" && f.Get("resource") != s.resource {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_target", "error_description": "resource must be " + s.resource})
		return
	}
	var g grant
	switch f.Get("grant_type") {
	case "authorization_code":
		s.mu.Lock()
		cg, ok := s.codes[f.Get("code")]
		delete(s.codes, f.Get("code"))
		s.mu.Unlock()
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		switch {
		case !ok || cg.client != c.ID:
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "unknown code"})
			return
		case cg.redirect != f.Get("redirect_uri"):
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "redirect_uri differs"})
			return
		case base64.RawURLEncoding.EncodeToString(sum[:]) != cg.challenge:
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "PKCE verifier does not match"})
			return
		}
		g = cg
	case "refresh_token":
		s.mu.Lock()
		rg, ok := s.refresh[f.Get("refresh_token")]
		delete(s.refresh, f.Get("refresh_token")) // rotation
		s.mu.Unlock()
		if !ok || rg.client != c.ID {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "the refresh token was revoked"})
			return
		}
		g = rg
	case "client_credentials":
		if c.Secret == "" {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unauthorized_client"})
			return
		}
		g = grant{client: c.ID, resource: f.Get("resource"), scopes: strings.Fields(f.Get("scope"))}
	default:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	g.expires = time.Now().Add(s.opts.TokenLifetime)
	at, rt := "at-"+random(), "rt-"+random()
	s.mu.Lock()
	s.issued = append(s.issued, at, rt)
	s.access[at] = g
	if f.Get("grant_type") != "client_credentials" {
		s.refresh[rt] = g
	}
	s.mu.Unlock()
	out := map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": int(s.opts.TokenLifetime / time.Second),
		"scope": strings.Join(g.scopes, " ")}
	if f.Get("grant_type") != "client_credentials" {
		out["refresh_token"] = rt
		claims, _ := json.Marshal(map[string]any{"sub": "user-1", "email": s.opts.Account})
		out["id_token"] = "e30." + base64.RawURLEncoding.EncodeToString(claims) + ".sig"
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	var req struct {
		RedirectURIs []string `json:"redirect_uris"`
		AuthMethod   string   `json:"token_endpoint_auth_method"`
	}
	if !s.opts.Registration || json.NewDecoder(r.Body).Decode(&req) != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata"})
		return
	}
	s.record(Request{Endpoint: "register"})
	c := Client{ID: "dyn-" + random(), AuthMethod: "none"}
	s.mu.Lock()
	s.clients[c.ID] = c
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{"client_id": c.ID, "token_endpoint_auth_method": "none", "redirect_uris": req.RedirectURIs})
}

// Protect guards an MCP endpoint served at resource (its full URL) with
// this server: requests without a valid token get 401 with the resource
// metadata's URL; a tools/call of a tool listed in toolScopes without that
// scope gets 403 insufficient_scope. The handler also serves the
// protected resource metadata at the path-based well-known URI.
func (s *Server) Protect(resource string, scopes []string, toolScopes map[string]string, next http.Handler) http.Handler {
	s.mu.Lock()
	s.resource = resource
	s.mu.Unlock()
	ru, _ := url.Parse(resource)
	prmPath := "/.well-known/oauth-protected-resource" + strings.TrimSuffix(ru.Path, "/")
	prmURL := ru.Scheme + "://" + ru.Host + prmPath
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+prmPath, func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"resource": resource, "authorization_servers": []string{s.URL}, "scopes_supported": scopes})
	})
	mux.Handle(ru.Path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		s.mu.Lock()
		g, ok := s.access[tok]
		s.mu.Unlock()
		if !ok || time.Now().After(g.expires) {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata=%q, scope=%q`, prmURL, strings.Join(scopes, " ")))
			if tok != "" {
				w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="invalid_token", resource_metadata=%q, scope=%q`, prmURL, strings.Join(scopes, " ")))
			}
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if need := neededScope(r, toolScopes); need != "" && !slices.Contains(g.scopes, need) {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope=%q, resource_metadata=%q`, need, prmURL))
			http.Error(w, "insufficient scope", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	}))
	return mux
}

// neededScope reads a tools/call's tool name (keeping the body for next).
func neededScope(r *http.Request, toolScopes map[string]string) string {
	if r.Method != http.MethodPost || len(toolScopes) == 0 {
		return ""
	}
	var buf strings.Builder
	body := r.Body
	defer body.Close()
	b := make([]byte, 32<<10)
	for {
		n, err := body.Read(b)
		buf.Write(b[:n])
		if err != nil {
			break
		}
	}
	r.Body = readCloser{strings.NewReader(buf.String())}
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal([]byte(buf.String()), &msg) != nil || msg.Method != "tools/call" {
		return ""
	}
	return toolScopes[msg.Params.Name]
}

type readCloser struct{ *strings.Reader }

func (readCloser) Close() error { return nil }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func random() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Browser is what a user's browser does on an auto-approving Server: it
// follows the redirects from authURL to the client's loopback callback and
// reports a page that did not answer 200 as an error. It fits where a
// sign-in takes a function that opens the browser.
func Browser(ctx context.Context, authURL string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("the sign-in page answered %d: %s", resp.StatusCode, b)
	}
	return nil
}
