package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"tinyelf/backend/config"
	"tinyelf/backend/mcp/oauth"
	"tinyelf/backend/secretstore"
)

// AuthState is what a server's card shows of its OAuth sign-in; it never
// holds a token. It is set for http and sse servers that have no fixed
// Authorization header.
type AuthState struct {
	oauth.Status
	// Required: the server asked for a sign-in that has not happened (or
	// no longer holds); the card offers "Sign in".
	Required bool `json:"required,omitempty"`
	// Reason says why, when Required.
	Reason string `json:"reason,omitempty"`
}

// TokenStores gives each server's OAuth state its Store; the key is the
// server's configured name.
type TokenStores func(server string) oauth.Store

// SecretTokens keeps every server's OAuth state in s (the OS keyring or
// the encrypted secrets file), under "mcp-oauth/<server>".
func SecretTokens(s *secretstore.Store) TokenStores {
	return func(server string) oauth.Store { return secretTokenStore{s: s, key: "mcp-oauth/" + server} }
}

type secretTokenStore struct {
	s   *secretstore.Store
	key string
}

func (t secretTokenStore) Load(context.Context) (oauth.Saved, error) {
	b, err := t.s.Get(t.key)
	if errors.Is(err, secretstore.ErrNotFound) {
		return oauth.Saved{}, nil
	}
	if err != nil {
		return oauth.Saved{}, err
	}
	var sv oauth.Saved
	if err := json.Unmarshal(b, &sv); err != nil {
		return oauth.Saved{}, nil // unreadable: sign in again
	}
	return sv, nil
}

func (t secretTokenStore) Save(_ context.Context, sv oauth.Saved) error {
	b, err := json.Marshal(sv)
	if err != nil {
		return err
	}
	return t.s.Set(t.key, b)
}

func (t secretTokenStore) Delete(context.Context) error { return t.s.Delete(t.key) }

// hasAuthHeader reports whether a server's headers carry credentials of
// their own, in which case TinyElf does not do OAuth for it.
func hasAuthHeader(h map[string]string) bool {
	for k := range h {
		if strings.EqualFold(k, "Authorization") {
			return true
		}
	}
	return false
}

// authClient returns the runner's OAuth client for its resolved config
// (made anew when the address or the OAuth settings changed), nil for a
// server that does not use OAuth.
func (r *runner) authClient(cfg config.MCPServer) *oauth.Client {
	if cfg.Type != TypeHTTP && cfg.Type != TypeSSE || hasAuthHeader(cfg.Headers) {
		return nil
	}
	b, _ := json.Marshal(cfg.OAuth)
	key := cfg.URL + "\x00" + string(b)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.auth != nil && r.authKey == key {
		return r.auth
	}
	o := r.svc.opts
	oc := oauth.Config{Server: cfg.Name, ServerURL: cfg.URL, ClientMetadataURL: o.ClientMetadataURL, Browser: o.SignInBrowser}
	if o.TokenStores != nil {
		oc.Store = o.TokenStores(cfg.Name)
	}
	if o.HTTPClient != nil {
		hc := *o.HTTPClient
		if hc.Timeout == 0 {
			hc.Timeout = 30 * time.Second
		}
		oc.HTTPClient = &hc
	}
	if a := cfg.OAuth; a != nil {
		oc.ClientID, oc.ClientSecret, oc.AuthMethod, oc.Scopes, oc.Grant = a.ClientID, a.ClientSecret, a.AuthMethod, a.Scopes, a.Grant
	}
	r.auth, r.authKey, r.authNeed = oauth.New(oc), key, ""
	return r.auth
}

// needSignIn records that the server wants a sign-in (err is a
// *oauth.SignInError) and tells the subscribers.
func (r *runner) needSignIn(err error) {
	var se *oauth.SignInError
	if !errors.As(err, &se) {
		return
	}
	r.mu.Lock()
	changed := r.authNeed != se.Reason
	r.authNeed = se.Reason
	r.mu.Unlock()
	if changed {
		r.svc.changed(r, "sign-in required: "+se.Reason)
	}
}

// authStateLocked is the card's view of the sign-in; r.mu is held.
func (r *runner) authStateLocked() *AuthState {
	if r.auth == nil {
		return nil
	}
	st := &AuthState{Status: r.auth.Status(context.Background()), Reason: r.authNeed}
	st.Required = r.authNeed != "" || !st.SignedIn && st.Problem != ""
	return st
}

// SignIn signs in to the named http or sse server through the browser:
// browser receives the authorization URL to show the user (the desktop
// opens it, `tinyelf serve` hands it to the page, `tinyelf mcp login`
// prints it), and SignIn returns once the redirect came back to TinyElf's
// loopback port and the token is saved, or ctx ends. The server then
// reconnects with the token.
func (s *Service) SignIn(ctx context.Context, name string, browser func(ctx context.Context, authURL string) error) error {
	r := s.runnerNamed(name)
	if r == nil {
		return fmt.Errorf("no MCP server named %q", name)
	}
	cfg, err := resolveServer(r.cfg, s.opts.LookupEnv)
	if err != nil {
		return err
	}
	oc := r.authClient(cfg)
	if oc == nil {
		if cfg.Type == TypeStdio {
			return fmt.Errorf("%s is a stdio server: it has no sign-in (its credentials go in its environment)", name)
		}
		return fmt.Errorf("%s sends a fixed Authorization header; remove it from the server's settings to sign in with OAuth", name)
	}
	if err := oc.SignIn(ctx, browser); err != nil {
		s.changed(r, "sign-in failed")
		return err
	}
	r.mu.Lock()
	r.authNeed = ""
	r.mu.Unlock()
	r.restart()
	return nil
}

// SignOut forgets the named server's tokens (and client registration);
// the server reconnects without them.
func (s *Service) SignOut(ctx context.Context, name string) error {
	r := s.runnerNamed(name)
	if r == nil {
		return fmt.Errorf("no MCP server named %q", name)
	}
	cfg, err := resolveServer(r.cfg, s.opts.LookupEnv)
	if err != nil {
		return err
	}
	oc := r.authClient(cfg)
	if oc == nil {
		return nil
	}
	if err := oc.SignOut(ctx); err != nil {
		return err
	}
	r.restart()
	return nil
}

// ForgetSignIn deletes a server's saved OAuth state by name, whether or
// not the service runs it (a removed server's tokens go with it).
func ForgetSignIn(stores TokenStores, name string) error {
	if stores == nil {
		return nil
	}
	return stores(name).Delete(context.Background())
}

// authTransport wraps base with the OAuth client, when there is one.
func authTransport(base http.RoundTripper, oc *oauth.Client) http.RoundTripper {
	if oc == nil {
		return base
	}
	return &oauth.Transport{Base: base, Client: oc}
}
