package oauth

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
)

// MaxStepUps bounds the sign-ins one request may start after 403
// insufficient_scope answers: a server that keeps asking for a scope it
// never accepts is not asked forever.
const MaxStepUps = 2

// Transport is an http.RoundTripper that sends Client's bearer token with
// every request and answers the server's challenges: on 401 it renews the
// token (refresh, client_credentials, or, when the Client has a Browser,
// a sign-in) and sends the request again once; on 403 insufficient_scope
// it asks for the wider scope (with a Browser) at most MaxStepUps times.
// A request that needs the user fails with a *SignInError.
type Transport struct {
	Base   http.RoundTripper // default http.DefaultTransport
	Client *Client
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	body, err := replayable(req)
	if err != nil {
		return nil, err
	}
	ctx := req.Context()
	tok, gen, err := t.Client.token(ctx)
	if err != nil {
		return nil, err
	}
	interactive := t.Client.cfg.Browser != nil
	stepUps := 0
	renewed := false
	for {
		r := req.Clone(ctx)
		if body != nil {
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
		}
		if tok != nil {
			r.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		}
		resp, err := base.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		ch, has := ParseChallenge(resp.Header)
		switch {
		case resp.StatusCode == http.StatusUnauthorized && !renewed:
			renewed = true
			if !has {
				ch = Challenge{Error: "invalid_token"}
			}
			if tok != nil && ch.Error == "" {
				ch.Error = "invalid_token"
			}
			drain(resp)
			nt, err := t.Client.renew(ctx, gen, ch, interactive)
			if err != nil {
				return nil, err
			}
			tok, gen = nt, t.Client.generation()
			continue
		case resp.StatusCode == http.StatusForbidden && has && ch.Error == "insufficient_scope":
			if stepUps >= MaxStepUps || !interactive {
				drain(resp)
				t.Client.noteChallenge(ch)
				scopes := ch.Scopes
				if tok != nil {
					scopes = unionScopes(tok.Scopes, ch.Scopes)
				}
				why := "the server needs more permission (" + strings.Join(ch.Scopes, " ") + ")"
				if stepUps >= MaxStepUps {
					why = fmt.Sprintf("the server still refuses after %d sign-ins asking for the scope %s", stepUps, strings.Join(ch.Scopes, " "))
				}
				return nil, &SignInError{Server: t.Client.cfg.Server, Reason: why, Scopes: slices.Clip(scopes)}
			}
			stepUps++
			drain(resp)
			nt, err := t.Client.renew(ctx, gen, ch, true)
			if err != nil {
				return nil, err
			}
			tok, gen = nt, t.Client.generation()
			continue
		}
		return resp, nil
	}
}

func (c *Client) generation() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// replayable reads a request's body so it can be sent twice.
func replayable(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	defer req.Body.Close()
	return io.ReadAll(req.Body)
}

func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}
