package oauth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
)

// Config is one MCP server's OAuth settings.
type Config struct {
	// Server names the server in messages; ServerURL is its MCP endpoint.
	Server, ServerURL string
	// ClientID and ClientSecret are a pre-registered client (the server's
	// settings); empty means a metadata document URL or dynamic
	// registration.
	ClientID, ClientSecret string
	// AuthMethod is how a pre-registered client authenticates at the token
	// endpoint ("client_secret_basic", "client_secret_post", "none");
	// empty picks from the server's metadata.
	AuthMethod string
	// Scopes, when set, are asked for instead of what the server suggests.
	Scopes []string
	// Grant is GrantAuthorizationCode (default) or GrantClientCredentials.
	Grant string
	// ClientName is the client_name TinyElf registers with (default
	// "TinyElf").
	ClientName string
	// ClientMetadataURL is an https URL of TinyElf's client ID metadata
	// document, used as the client_id where the authorization server
	// accepts one; empty skips that way.
	ClientMetadataURL string
	// HTTPClient carries the metadata, registration and token requests
	// (default: 30 s timeout).
	HTTPClient *http.Client
	// Store keeps the tokens and the registration (default: memory).
	Store Store
	// Browser, when set, lets a request that meets a 401 sign in on its
	// own (the conformance client, a headless test): it gets the URL to
	// visit. Nil means such a request fails with a *SignInError and the
	// user signs in through SignIn.
	Browser func(ctx context.Context, authURL string) error
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Client holds one server's OAuth state: what discovery found, the
// registration and the tokens. It is safe for concurrent use; one sign-in,
// refresh or token request runs at a time.
type Client struct {
	cfg Config

	mu        sync.Mutex // guards the fields below
	loaded    bool
	saved     Saved
	disc      *Discovery
	challenge Challenge // the latest one
	gen       int       // counts token changes
	lastErr   string    // why the last attempt to get a token failed

	flow sync.Mutex // serializes sign-ins, refreshes, token requests
}

// New returns the Client of one server. Nothing is fetched before a token
// is needed.
func New(cfg Config) *Client {
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	if cfg.Store == nil {
		cfg.Store = &MemoryStore{}
	}
	if cfg.ClientName == "" {
		cfg.ClientName = "TinyElf"
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Grant == "" {
		cfg.Grant = GrantAuthorizationCode
	}
	return &Client{cfg: cfg}
}

// Status is what the server's card shows of its sign-in. It never holds a
// token.
type Status struct {
	// SignedIn: a token is held (it may need a refresh).
	SignedIn bool `json:"signedIn"`
	// Account is who signed in, when the server said.
	Account string `json:"account,omitempty"`
	// ExpiresAt is when the access token expires (zero: not said).
	ExpiresAt time.Time `json:"expiresAt,omitzero"`
	// Refreshable: a refresh token renews the access token without the
	// user.
	Refreshable bool     `json:"refreshable,omitempty"`
	Scopes      []string `json:"scopes,omitempty"`
	// Grant is the grant in use.
	Grant string `json:"grant"`
	// Issuer is the authorization server, once known.
	Issuer string `json:"issuer,omitempty"`
	// Problem says why the last attempt to get a token failed.
	Problem string `json:"problem,omitempty"`
}

// load reads the store once; c.mu must be held.
func (c *Client) loadLocked(ctx context.Context) error {
	if c.loaded {
		return nil
	}
	s, err := c.cfg.Store.Load(ctx)
	if err != nil {
		return fmt.Errorf("read the saved sign-in of %s: %w", c.cfg.Server, err)
	}
	if s.Resource != "" && s.Resource != c.cfg.ServerURL {
		s = Saved{} // signed in to another address: forget it
	}
	c.saved, c.loaded = s, true
	return nil
}

// Status reports the sign-in.
func (c *Client) Status(ctx context.Context) Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := Status{Grant: c.cfg.Grant, Problem: c.lastErr}
	if err := c.loadLocked(ctx); err != nil {
		st.Problem = err.Error()
		return st
	}
	if c.disc != nil {
		st.Issuer = c.disc.Metadata.Issuer
	} else if c.saved.Client != nil {
		st.Issuer = c.saved.Client.Issuer
	}
	if t := c.saved.Token; t != nil && t.AccessToken != "" {
		st.SignedIn, st.Account, st.ExpiresAt = true, t.Account, t.ExpiresAt
		st.Refreshable, st.Scopes = t.RefreshToken != "", slices.Clone(t.Scopes)
	}
	return st
}

// token returns the token to send, renewing an expired one when that
// needs nobody (refresh, client_credentials); nil when there is none.
func (c *Client) token(ctx context.Context) (*Token, int, error) {
	c.mu.Lock()
	if err := c.loadLocked(ctx); err != nil {
		c.mu.Unlock()
		return nil, 0, err
	}
	t, gen := c.saved.Token, c.gen
	c.mu.Unlock()
	if t != nil && !t.expired(c.cfg.Now()) {
		return t, gen, nil
	}
	if t == nil && c.cfg.Grant != GrantClientCredentials {
		return nil, gen, nil
	}
	// Expired, or a machine client that has none yet: renew quietly.
	nt, err := c.renew(ctx, gen, Challenge{}, false)
	if err != nil {
		var se *SignInError
		if errors.As(err, &se) && c.cfg.Grant != GrantClientCredentials {
			return nil, gen, nil // send without; the server's challenge decides
		}
		return nil, gen, err
	}
	c.mu.Lock()
	gen = c.gen
	c.mu.Unlock()
	return nt, gen, nil
}

// renew gets a new token after the one of generation gen failed (or was
// missing): by refresh, by client_credentials, or (interactive, with a
// Browser) by a sign-in. A token another request got meanwhile is
// returned as is.
func (c *Client) renew(ctx context.Context, gen int, ch Challenge, interactive bool) (*Token, error) {
	c.flow.Lock()
	defer c.flow.Unlock()
	c.mu.Lock()
	if c.gen != gen && c.saved.Token != nil && !c.saved.Token.expired(c.cfg.Now()) && ch.Error != "insufficient_scope" {
		t := c.saved.Token
		c.mu.Unlock()
		return t, nil
	}
	if ch.ResourceMetadata != "" || len(ch.Scopes) > 0 || ch.Error != "" {
		if ch.ResourceMetadata != c.challenge.ResourceMetadata {
			c.disc = nil // the server points elsewhere now
		}
		c.challenge = ch
	}
	old := c.saved.Token
	c.mu.Unlock()

	t, err := c.obtain(ctx, old, ch, interactive)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.lastErr = err.Error()
		return nil, err
	}
	c.lastErr = ""
	return t, nil
}

// obtain runs the grant that fits.
func (c *Client) obtain(ctx context.Context, old *Token, ch Challenge, interactive bool) (*Token, error) {
	d, err := c.discovery(ctx)
	if err != nil {
		return nil, err
	}
	stepUp := ch.Error == "insufficient_scope"
	if old != nil && old.RefreshToken != "" && !stepUp {
		t, err := c.refresh(ctx, d, old)
		if err == nil {
			return t, nil
		}
		var oe *tokenError
		if !errors.As(err, &oe) {
			return nil, err // the server was unreachable: keep the refresh token
		}
		// invalid_grant: revoked or expired; sign in again below.
		c.forgetToken(ctx)
		if c.cfg.Grant != GrantClientCredentials {
			if !interactive || c.cfg.Browser == nil {
				return nil, &SignInError{Server: c.cfg.Server, Reason: "the saved sign-in was revoked or expired (" + oe.Error() + ")"}
			}
		}
	}
	scopes := c.scopesFor(d, ch, old, stepUp)
	if c.cfg.Grant == GrantClientCredentials {
		return c.clientCredentials(ctx, d, scopes)
	}
	if !interactive || c.cfg.Browser == nil {
		reason := "the server asks for a sign-in"
		switch {
		case stepUp:
			reason = "the server needs more permission (" + strings.Join(ch.Scopes, " ") + ")"
		case old != nil && ch.Error == "invalid_token":
			reason = "the server no longer accepts the saved sign-in"
		}
		return nil, &SignInError{Server: c.cfg.Server, Reason: reason, Scopes: scopes}
	}
	return c.authorize(ctx, d, scopes, c.cfg.Browser)
}

// scopesFor picks the scopes to ask for: the configured ones; else the
// challenge's (with a step-up, added to those held); else the resource's
// scopes_supported; else none (the parameter is left out).
func (c *Client) scopesFor(d *Discovery, ch Challenge, old *Token, stepUp bool) []string {
	var s []string
	switch {
	case len(c.cfg.Scopes) > 0:
		s = slices.Clone(c.cfg.Scopes)
		if stepUp {
			s = unionScopes(s, ch.Scopes)
		}
	case len(ch.Scopes) > 0:
		s = slices.Clone(ch.Scopes)
		if stepUp && old != nil {
			s = unionScopes(old.Scopes, ch.Scopes)
		}
	case d.PRM != nil && len(d.PRM.ScopesSupported) > 0:
		s = slices.Clone(d.PRM.ScopesSupported)
	default:
		c.mu.Lock()
		if last := c.challenge.Scopes; len(last) > 0 {
			s = slices.Clone(last)
		}
		c.mu.Unlock()
	}
	return s
}

// discovery returns what discovery found, discovering once.
func (c *Client) discovery(ctx context.Context) (*Discovery, error) {
	c.mu.Lock()
	d, ch := c.disc, c.challenge
	c.mu.Unlock()
	if d != nil {
		return d, nil
	}
	nd, err := discover(ctx, c.cfg.HTTPClient, c.cfg.ServerURL, ch)
	if err != nil {
		return nil, fmt.Errorf("OAuth discovery for %s: %w", c.cfg.Server, err)
	}
	c.mu.Lock()
	c.disc = &nd
	c.mu.Unlock()
	return &nd, nil
}

// noteChallenge keeps the latest challenge, for the next sign-in.
func (c *Client) noteChallenge(ch Challenge) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ch.ResourceMetadata != "" && ch.ResourceMetadata != c.challenge.ResourceMetadata {
		c.disc = nil
	}
	c.challenge = ch
}

// SignIn runs the browser sign-in now, whatever the saved state: browser
// gets the authorization URL to show the user, and SignIn returns once the
// redirect came back and the token is saved (or ctx ends). It is what the
// server card's "Sign in" and `tinyelf mcp login` run.
func (c *Client) SignIn(ctx context.Context, browser func(ctx context.Context, authURL string) error) error {
	c.flow.Lock()
	defer c.flow.Unlock()
	c.mu.Lock()
	if err := c.loadLocked(ctx); err != nil {
		c.mu.Unlock()
		return err
	}
	ch, old := c.challenge, c.saved.Token
	c.mu.Unlock()
	if ch.Scopes == nil && ch.ResourceMetadata == "" {
		// No challenge seen yet (the server was never tried): ask it.
		if pch, ok := probe(ctx, c.cfg.HTTPClient, c.cfg.ServerURL); ok {
			ch = pch
			c.mu.Lock()
			c.challenge = ch
			c.disc = nil
			c.mu.Unlock()
		}
	}
	d, err := c.discovery(ctx)
	if err != nil {
		return err
	}
	if c.cfg.Grant == GrantClientCredentials {
		_, err = c.clientCredentials(ctx, d, c.scopesFor(d, ch, old, false))
	} else {
		_, err = c.authorize(ctx, d, c.scopesFor(d, ch, old, ch.Error == "insufficient_scope"), browser)
	}
	c.mu.Lock()
	if err != nil {
		c.lastErr = err.Error()
	} else {
		c.lastErr = ""
	}
	c.mu.Unlock()
	return err
}

// SignOut forgets the tokens (and the registration, so a new sign-in
// starts clean).
func (c *Client) SignOut(ctx context.Context) error {
	c.flow.Lock()
	defer c.flow.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.saved, c.loaded, c.disc, c.lastErr = Saved{}, true, nil, ""
	c.gen++
	if err := c.cfg.Store.Delete(ctx); err != nil {
		return fmt.Errorf("forget the sign-in of %s: %w", c.cfg.Server, err)
	}
	return nil
}

// probe sends an unauthenticated initialize to read the server's
// challenge.
func probe(ctx context.Context, hc *http.Client, serverURL string) (Challenge, bool) {
	body := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"tinyelf","version":"probe"}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, serverURL, strings.NewReader(body))
	if err != nil {
		return Challenge{}, false
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		return Challenge{}, false
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxMetadata))
	if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		return Challenge{}, false
	}
	return ParseChallenge(resp.Header)
}

func (c *Client) forgetToken(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.saved.Token = nil
	c.gen++
	_ = c.saveLocked(ctx)
}

// setToken keeps a new token (and the registration it came with).
func (c *Client) setToken(ctx context.Context, t *Token, reg *Registration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.saved.Resource = c.cfg.ServerURL
	c.saved.Token = t
	if reg != nil {
		c.saved.Client = reg
	}
	c.gen++
	return c.saveLocked(ctx)
}

func (c *Client) saveLocked(ctx context.Context) error {
	if err := c.cfg.Store.Save(ctx, c.saved); err != nil {
		return fmt.Errorf("save the sign-in of %s: %w", c.cfg.Server, err)
	}
	return nil
}

// tokenError is an OAuth error answer of the token endpoint (RFC 6749
// §5.2): the grant was refused, as opposed to the server being down.
type tokenError struct {
	Code        string `json:"error"`
	Description string `json:"error_description"`
	Status      int    `json:"-"`
}

func (e *tokenError) Error() string {
	if e.Description != "" {
		return e.Code + ": " + e.Description
	}
	return e.Code
}

// tokenResponse is the token endpoint's success answer.
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope"`
	IDToken      string `json:"id_token"`
}

// clientAuth says how the client authenticates at the token endpoint.
type clientAuth struct {
	id, secret, method string
}

// tokenRequest posts form to the token endpoint and reads the token.
func (c *Client) tokenRequest(ctx context.Context, d *Discovery, auth clientAuth, form url.Values, asked []string) (*Token, error) {
	if d.Resource != "" {
		form.Set("resource", d.Resource)
	}
	switch auth.method {
	case "client_secret_basic":
	case "client_secret_post":
		form.Set("client_id", auth.id)
		form.Set("client_secret", auth.secret)
	default:
		form.Set("client_id", auth.id)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.Metadata.TokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if auth.method == "client_secret_basic" {
		req.SetBasicAuth(url.QueryEscape(auth.id), url.QueryEscape(auth.secret))
	}
	resp, err := c.cfg.HTTPClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("token request to %s: %w", d.Metadata.TokenEndpoint, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadata))
	if err != nil {
		return nil, fmt.Errorf("token response from %s: %w", d.Metadata.TokenEndpoint, err)
	}
	var te tokenError
	if json.Unmarshal(body, &te) == nil && te.Code != "" {
		te.Status = resp.StatusCode
		return nil, &te
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("token request to %s: HTTP %d", d.Metadata.TokenEndpoint, resp.StatusCode)
	}
	var tr tokenResponse
	if err := json.Unmarshal(body, &tr); err != nil || tr.AccessToken == "" {
		return nil, fmt.Errorf("the token endpoint %s answered without an access token", d.Metadata.TokenEndpoint)
	}
	if tr.TokenType != "" && !strings.EqualFold(tr.TokenType, "bearer") {
		return nil, fmt.Errorf("the token endpoint issued a %q token; TinyElf sends only bearer tokens", tr.TokenType)
	}
	t := &Token{AccessToken: tr.AccessToken, TokenType: "Bearer", RefreshToken: tr.RefreshToken, Scopes: asked}
	if tr.Scope != "" {
		t.Scopes = strings.Fields(tr.Scope)
	}
	if tr.ExpiresIn > 0 {
		t.ExpiresAt = c.cfg.Now().Add(time.Duration(tr.ExpiresIn) * time.Second)
	}
	t.Account = idTokenAccount(tr.IDToken)
	if t.Account == "" && d.Metadata.UserinfoEndpoint != "" {
		t.Account = c.userinfo(ctx, d.Metadata.UserinfoEndpoint, t.AccessToken)
	}
	return t, nil
}

// idTokenAccount reads who signed in from an OpenID Connect ID token's
// claims. The token is not verified: the name is only shown, never
// trusted.
func idTokenAccount(idToken string) string {
	parts := strings.Split(idToken, ".")
	if len(parts) != 3 {
		return ""
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return ""
	}
	return accountOf(b)
}

func accountOf(claims []byte) string {
	var m map[string]any
	if json.Unmarshal(claims, &m) != nil {
		return ""
	}
	for _, k := range []string{"email", "preferred_username", "name", "login", "sub"} {
		if s, ok := m[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// userinfo asks an OpenID Connect userinfo endpoint who signed in; a
// failure only means no name is shown.
func (c *Client) userinfo(ctx context.Context, endpoint, access string) string {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return ""
	}
	req.Header.Set("Authorization", "Bearer "+access)
	req.Header.Set("Accept", "application/json")
	resp, err := c.cfg.HTTPClient.Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return ""
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxMetadata))
	return accountOf(b)
}

// refresh renews old with its refresh token.
func (c *Client) refresh(ctx context.Context, d *Discovery, old *Token) (*Token, error) {
	auth, err := c.identity(ctx, d, "")
	if err != nil {
		return nil, err
	}
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {old.RefreshToken}}
	t, err := c.tokenRequest(ctx, d, auth, form, old.Scopes)
	if err != nil {
		return nil, err
	}
	if t.RefreshToken == "" {
		t.RefreshToken = old.RefreshToken
	}
	if t.Account == "" {
		t.Account = old.Account
	}
	return t, c.setToken(ctx, t, nil)
}

// clientCredentials gets a token with the client's own credentials.
func (c *Client) clientCredentials(ctx context.Context, d *Discovery, scopes []string) (*Token, error) {
	if c.cfg.ClientID == "" {
		return nil, fmt.Errorf("%s uses the client_credentials grant but has no client ID in its settings", c.cfg.Server)
	}
	auth, err := c.identity(ctx, d, "")
	if err != nil {
		return nil, err
	}
	form := url.Values{"grant_type": {"client_credentials"}}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	t, err := c.tokenRequest(ctx, d, auth, form, scopes)
	if err != nil {
		return nil, fmt.Errorf("client_credentials token for %s: %w", c.cfg.Server, err)
	}
	return t, c.setToken(ctx, t, nil)
}

// identity returns the client to present: the configured one, the saved
// registration (for this issuer and redirect URI), a client ID metadata
// document URL, or a new dynamic registration. redirect is the sign-in's
// redirect URI ("" for refresh and client_credentials).
func (c *Client) identity(ctx context.Context, d *Discovery, redirect string) (clientAuth, error) {
	md := d.Metadata
	if c.cfg.ClientID != "" {
		method := c.cfg.AuthMethod
		switch {
		case method != "":
		case c.cfg.ClientSecret != "":
			method = pickSecretMethod(md.TokenEndpointAuthMethodsSupported)
		default:
			method = clientAuthNone
		}
		return clientAuth{id: c.cfg.ClientID, secret: c.cfg.ClientSecret, method: method}, nil
	}
	c.mu.Lock()
	reg := c.saved.Client
	c.mu.Unlock()
	if reg != nil && reg.Issuer == md.Issuer && (redirect == "" || reg.RedirectURI == redirect || reg.RedirectURI == "") {
		return regAuth(reg, md), nil
	}
	if redirect == "" && reg != nil {
		return regAuth(reg, md), nil
	}
	if md.ClientIDMetadataDocumentSupported && c.cfg.ClientMetadataURL != "" {
		r := &Registration{Issuer: md.Issuer, ClientID: c.cfg.ClientMetadataURL, AuthMethod: clientAuthNone, RedirectURI: redirect}
		c.mu.Lock()
		c.saved.Client = r
		c.mu.Unlock()
		return regAuth(r, md), nil
	}
	if md.RegistrationEndpoint == "" {
		return clientAuth{}, fmt.Errorf("the authorization server of %s offers no dynamic client registration: set a client ID (and secret) registered for TinyElf in the server's settings", c.cfg.Server)
	}
	r, err := c.register(ctx, md, redirect)
	if err != nil {
		return clientAuth{}, err
	}
	c.mu.Lock()
	c.saved.Client = r
	c.mu.Unlock()
	return regAuth(r, md), nil
}

const (
	clientAuthNone = "none"
)

func regAuth(r *Registration, md ServerMetadata) clientAuth {
	method := r.AuthMethod
	if method == "" {
		method = clientAuthNone
		if r.ClientSecret != "" {
			method = pickSecretMethod(md.TokenEndpointAuthMethodsSupported)
		}
	}
	return clientAuth{id: r.ClientID, secret: r.ClientSecret, method: method}
}

// pickSecretMethod chooses how to send a client secret: HTTP Basic unless
// the server lists only client_secret_post.
func pickSecretMethod(supported []string) string {
	if slices.Contains(supported, "client_secret_post") && !slices.Contains(supported, "client_secret_basic") {
		return "client_secret_post"
	}
	return "client_secret_basic"
}

// register runs dynamic client registration (RFC 7591) as a public
// client.
func (c *Client) register(ctx context.Context, md ServerMetadata, redirect string) (*Registration, error) {
	grants := []string{"authorization_code", "refresh_token"}
	method := clientAuthNone
	if len(md.TokenEndpointAuthMethodsSupported) > 0 && !slices.Contains(md.TokenEndpointAuthMethodsSupported, clientAuthNone) {
		method = pickSecretMethod(md.TokenEndpointAuthMethodsSupported)
	}
	body := map[string]any{
		"client_name": c.cfg.ClientName, "redirect_uris": []string{redirect},
		"grant_types": grants, "response_types": []string{"code"},
		"token_endpoint_auth_method": method, "application_type": "native",
	}
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, md.RegistrationEndpoint, strings.NewReader(string(b)))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := c.cfg.HTTPClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("client registration at %s: %w", md.RegistrationEndpoint, err)
	}
	defer resp.Body.Close()
	rb, _ := io.ReadAll(io.LimitReader(resp.Body, maxMetadata))
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		var te tokenError
		if json.Unmarshal(rb, &te) == nil && te.Code != "" {
			return nil, fmt.Errorf("client registration at %s refused: %w", md.RegistrationEndpoint, &te)
		}
		return nil, fmt.Errorf("client registration at %s: HTTP %d", md.RegistrationEndpoint, resp.StatusCode)
	}
	var out struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		AuthMethod   string `json:"token_endpoint_auth_method"`
	}
	if err := json.Unmarshal(rb, &out); err != nil || out.ClientID == "" {
		return nil, fmt.Errorf("client registration at %s answered without a client_id", md.RegistrationEndpoint)
	}
	return &Registration{Issuer: md.Issuer, ClientID: out.ClientID, ClientSecret: out.ClientSecret, AuthMethod: out.AuthMethod, RedirectURI: redirect}, nil
}

// authorize runs the authorization code grant with PKCE: the browser is
// sent to the authorization endpoint and the redirect is caught on a
// loopback port.
func (c *Client) authorize(ctx context.Context, d *Discovery, scopes []string, browser func(ctx context.Context, authURL string) error) (*Token, error) {
	md := d.Metadata
	if md.AuthorizationEndpoint == "" {
		return nil, fmt.Errorf("the authorization server of %s has no authorization_endpoint", c.cfg.Server)
	}
	if d.Found && !slices.Contains(md.CodeChallengeMethodsSupported, "S256") {
		return nil, fmt.Errorf("the authorization server %s does not offer PKCE with S256 (code_challenge_methods_supported %v); TinyElf will not sign in without it", md.Issuer, md.CodeChallengeMethodsSupported)
	}
	preferred := ""
	c.mu.Lock()
	if r := c.saved.Client; r != nil && c.cfg.ClientID == "" {
		if u, err := url.Parse(r.RedirectURI); err == nil && u.Hostname() == "127.0.0.1" {
			preferred = u.Host
		}
	}
	c.mu.Unlock()
	cb, err := listenCallback(c.cfg.Server, preferred)
	if err != nil {
		return nil, err
	}
	defer cb.close()
	auth, err := c.identity(ctx, d, cb.redirectURI)
	if err != nil {
		return nil, err
	}
	verifier, err := transport.GenerateCodeVerifier()
	if err != nil {
		return nil, err
	}
	state, err := transport.GenerateState()
	if err != nil {
		return nil, err
	}
	q := url.Values{
		"response_type": {"code"}, "client_id": {auth.id}, "redirect_uri": {cb.redirectURI},
		"state": {state}, "code_challenge": {transport.GenerateCodeChallenge(verifier)}, "code_challenge_method": {"S256"},
	}
	if len(scopes) > 0 {
		q.Set("scope", strings.Join(scopes, " "))
	}
	if d.Resource != "" {
		q.Set("resource", d.Resource)
	}
	sep := "?"
	if strings.Contains(md.AuthorizationEndpoint, "?") {
		sep = "&"
	}
	authURL := md.AuthorizationEndpoint + sep + q.Encode()
	cb.expect(state)
	if err := browser(ctx, authURL); err != nil {
		return nil, fmt.Errorf("open the sign-in page of %s: %w", c.cfg.Server, err)
	}
	wctx, cancel := context.WithTimeout(ctx, signInWait)
	defer cancel()
	code, iss, err := cb.wait(wctx)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return nil, fmt.Errorf("the sign-in to %s was not completed within %s", c.cfg.Server, signInWait)
		}
		return nil, err
	}
	if err := checkIss(d, iss); err != nil {
		return nil, fmt.Errorf("sign-in to %s: %w", c.cfg.Server, err)
	}
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {cb.redirectURI}, "code_verifier": {verifier}}
	t, err := c.tokenRequest(ctx, d, auth, form, scopes)
	if err != nil {
		return nil, fmt.Errorf("sign-in to %s: %w", c.cfg.Server, err)
	}
	c.mu.Lock()
	reg := c.saved.Client
	c.mu.Unlock()
	return t, c.setToken(ctx, t, reg)
}

// checkIss applies RFC 9207 to an authorization response: an iss that is
// there must be the issuer discovery recorded, compared as a plain string
// (no URL normalization), and one the server promised must be there. It
// defends against a mix-up between two authorization servers.
func checkIss(d *Discovery, iss string) error {
	if !d.Found {
		return nil // the 2025-03-26 default endpoints: no issuer to compare
	}
	switch {
	case iss == "" && d.Metadata.IssParameterSupported:
		return fmt.Errorf("the authorization server %s promised an iss parameter in its response and sent none", d.Metadata.Issuer)
	case iss != "" && iss != d.Metadata.Issuer:
		return fmt.Errorf("the authorization response names issuer %q, not %q: refusing it (a mix-up of authorization servers?)", iss, d.Metadata.Issuer)
	}
	return nil
}

// signInWait bounds how long a sign-in waits for the browser's redirect.
const signInWait = 10 * time.Minute
