// Package oauth is TinyElf's OAuth 2.1 client for remote MCP servers, as the
// MCP authorization specification (2025-11-25, with the 2025-03-26
// fallbacks) describes it:
//
//   - discovery: the protected resource metadata (RFC 9728) named by a 401's
//     WWW-Authenticate resource_metadata, else at the path-based and then the
//     root well-known URI; the authorization server's metadata (RFC 8414 with
//     path insertion, then OpenID Connect discovery), its issuer checked; and,
//     for a server with no resource metadata, the 2025-03-26 rules (metadata
//     at the server's origin, else /authorize, /token and /register there);
//   - client identity: a pre-registered client ID and secret, a client ID
//     metadata document URL when the authorization server accepts one, or
//     dynamic client registration (RFC 7591), kept for the next sign-in;
//   - the authorization code grant with PKCE S256, the redirect caught on a
//     loopback port (RFC 8252), the RFC 8707 resource parameter on every
//     authorization and token request, scopes from the challenge, else the
//     resource's scopes_supported, else none;
//   - refresh, step-up on 403 insufficient_scope (bounded), and the
//     client_credentials grant for machine-to-machine servers.
//
// Transport puts a Client's tokens on every request of an MCP connection
// and reacts to the server's challenges. mcp-go's own OAuthHandler is not
// used: it knows neither step-up, the challenge's scope, the root resource
// metadata fallback, client ID metadata documents nor client_credentials,
// and it fails a request on 401 where TinyElf retries it. From mcp-go come
// the wire types (transport.AuthServerMetadata, transport.Token's shape) and
// the PKCE helpers.
//
// Tokens never appear in errors, logs or Status.
package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Grants a Client can use.
const (
	// GrantAuthorizationCode: the user signs in in a browser (the default).
	GrantAuthorizationCode = "authorization_code"
	// GrantClientCredentials: a machine-to-machine server; the client's own
	// credentials get the tokens, nobody signs in.
	GrantClientCredentials = "client_credentials"
)

// ErrSignInRequired says that the server needs a sign-in nobody may start
// here (a background connection). SignInError carries the details.
var ErrSignInRequired = errors.New("sign-in required")

// SignInError is the error of a request that needs the user to sign in
// (again), with why.
type SignInError struct {
	Server string
	// Reason says why in a sentence ("the server asks for a sign-in",
	// "the token was revoked", "the server needs the scope files:write").
	Reason string
	// Scopes are the scopes the sign-in should ask for, when known.
	Scopes []string
}

func (e *SignInError) Error() string {
	return fmt.Sprintf("%s needs you to sign in: %s", e.Server, e.Reason)
}

// Unwrap makes errors.Is(err, ErrSignInRequired) true.
func (e *SignInError) Unwrap() error { return ErrSignInRequired }

// Token is one access token with what came with it. It is kept in the
// Store and never shown.
type Token struct {
	AccessToken  string    `json:"access_token"`
	TokenType    string    `json:"token_type,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Scopes       []string  `json:"scopes,omitempty"`
	ExpiresAt    time.Time `json:"expires_at,omitzero"`
	// Account is who signed in, as the ID token or userinfo endpoint named
	// them ("ada@example.com"), when the server said.
	Account string `json:"account,omitempty"`
}

// expired reports whether the token is past (or within skew of) its
// expiry.
func (t *Token) expired(now time.Time) bool {
	return t == nil || t.AccessToken == "" || !t.ExpiresAt.IsZero() && now.Add(expirySkew).After(t.ExpiresAt)
}

// expirySkew renews a token this long before it expires, so a request
// does not leave with a token that dies on the way.
const expirySkew = 30 * time.Second

// Registration is the client identity obtained from an authorization
// server (dynamic registration or a metadata document URL), kept so the
// next sign-in reuses it.
type Registration struct {
	Issuer       string `json:"issuer"`
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret,omitempty"`
	AuthMethod   string `json:"token_endpoint_auth_method,omitempty"`
	RedirectURI  string `json:"redirect_uri,omitempty"`
}

// Saved is what a Store keeps for one server.
type Saved struct {
	// Resource is the MCP server URL the rest belongs to: a server whose
	// address changed signs in again.
	Resource string        `json:"resource"`
	Token    *Token        `json:"token,omitempty"`
	Client   *Registration `json:"client,omitempty"`
}

// Store keeps one server's Saved state; Load returns the zero Saved when
// there is none. Implementations keep it encrypted (secretstore).
type Store interface {
	Load(ctx context.Context) (Saved, error)
	Save(ctx context.Context, s Saved) error
	Delete(ctx context.Context) error
}

// MemoryStore is a Store in memory (tests, one-shot clients).
type MemoryStore struct{ s Saved }

// Load implements Store.
func (m *MemoryStore) Load(context.Context) (Saved, error) { return m.s, nil }

// Save implements Store.
func (m *MemoryStore) Save(_ context.Context, s Saved) error { m.s = s; return nil }

// Delete implements Store.
func (m *MemoryStore) Delete(context.Context) error { m.s = Saved{}; return nil }

// Challenge is what a Bearer WWW-Authenticate challenge said.
type Challenge struct {
	ResourceMetadata string
	Scopes           []string
	// Error is "invalid_token", "insufficient_scope" or "" (no token sent).
	Error string
}

// ParseChallenge reads the Bearer challenge of a 401 or 403 answer, if it
// has one.
func ParseChallenge(h http.Header) (Challenge, bool) {
	for _, line := range h.Values("WWW-Authenticate") {
		for _, c := range splitChallenges(line) {
			if !strings.EqualFold(c.scheme, "bearer") {
				continue
			}
			ch := Challenge{ResourceMetadata: c.params["resource_metadata"], Error: c.params["error"]}
			if s := c.params["scope"]; s != "" {
				ch.Scopes = strings.Fields(s)
			}
			return ch, true
		}
	}
	return Challenge{}, false
}

type challenge struct {
	scheme string
	params map[string]string
}

// splitChallenges parses one WWW-Authenticate value (RFC 9110 §11.6.1):
// schemes, each followed by comma-separated name=value or name="quoted"
// parameters.
func splitChallenges(s string) []challenge {
	var out []challenge
	i := 0
	skip := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == ',') {
			i++
		}
	}
	token := func() string {
		start := i
		for i < len(s) && !strings.ContainsRune(" \t,=\"", rune(s[i])) {
			i++
		}
		return s[start:i]
	}
	for {
		skip()
		if i >= len(s) {
			return out
		}
		word := token()
		if word == "" {
			i++
			continue
		}
		// A word followed by '=' is a parameter of the current challenge.
		j := i
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		if j < len(s) && s[j] == '=' && len(out) > 0 {
			i = j + 1
			for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
				i++
			}
			var val string
			if i < len(s) && s[i] == '"' {
				i++
				var b strings.Builder
				for i < len(s) && s[i] != '"' {
					if s[i] == '\\' && i+1 < len(s) {
						i++
					}
					b.WriteByte(s[i])
					i++
				}
				i++ // the closing quote
				val = b.String()
			} else {
				val = token()
			}
			out[len(out)-1].params[strings.ToLower(word)] = val
			continue
		}
		out = append(out, challenge{scheme: word, params: map[string]string{}})
		// token68 form ("Basic abc==") is skipped: Bearer uses parameters.
	}
}

// unionScopes returns a's scopes followed by those of b it lacks.
func unionScopes(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
