package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"tinyelf/backend/config"
	"tinyelf/backend/mcp/oauth"
	"tinyelf/backend/proc"
)

// dialer holds what every connection attempt of one service shares.
type dialer struct {
	self      mcp.Implementation // how TinyElf introduces itself
	stopGrace time.Duration      // how long a stdio server gets to exit
	http      *http.Client
	environ   func() []string // a stdio server's base environment
	children  *proc.Children  // starts stdio servers
	roots     func() []string // the roots offered outside a tool call
	legacy    sync.Map        // URL -> the pre-2026 revision a server spoke
}

// clientOptions are the mcp-go client options every user server gets:
// the capabilities TinyElf declares (elicitation in form and URL mode,
// sampling, roots with list changes) and their handlers.
func (d *dialer) clientOptions(asks *serverAsks, start time.Duration) []client.ClientOption {
	return []client.ClientOption{
		client.WithDiscoverTimeout(discoverTimeout(start)),
		client.WithClientCapabilities(mcp.ClientCapabilities{
			Elicitation: &mcp.ElicitationCapability{Form: &struct{}{}, URL: &struct{}{}},
		}),
		client.WithElicitationHandler(asks),
		client.WithSamplingHandler(asks),
		client.WithRootsHandler(asks),
	}
}

// quiet is the logger handed to mcp-go: its transports log every broken
// stream, which the server's state already reports.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// discoverTimeout bounds mcp-go's server/discover probe (how it tells a
// 2026-07-28 server from an older one) to a share of the start timeout, so a
// legacy server that ignores unknown methods still leaves time for the
// initialize handshake.
func discoverTimeout(start time.Duration) time.Duration {
	return max(200*time.Millisecond, min(5*time.Second, start/3))
}

// dial connects to a resolved server. ctx bounds the handshake and the
// first listing (the start timeout); life bounds the connection itself.
// log receives a stdio server's stderr. On failure nothing is left running.
// auth is the server's OAuth client (nil: none).
func (d *dialer) dial(ctx, life context.Context, cfg config.MCPServer, log *lineLog, start time.Duration, auth *oauth.Client) (*conn, catalog, error) {
	switch cfg.Type {
	case TypeStdio:
		return d.dialStdio(ctx, life, cfg, log, start)
	case TypeHTTP, TypeSSE:
		if v, ok := d.legacy.Load(cfg.URL); ok && cfg.Type == TypeHTTP {
			c, cat, err := d.dialHTTP(ctx, life, cfg, start, true, v.(string), auth)
			if err == nil {
				return c, cat, nil
			}
			d.legacy.Delete(cfg.URL) // ask again how it speaks
		}
		c, cat, err := d.dialHTTP(ctx, life, cfg, start, false, "", auth)
		if err != nil || cfg.Type == TypeSSE || mcp.IsModernProtocol(c.protocol) {
			return c, cat, err
		}
		// A legacy streamable HTTP server sends list changes, and the
		// requests it makes outside a call's own stream (an elicitation,
		// a sampling request, roots/list), only on the standalone GET
		// stream, which mcp-go opens only when asked up front, and asking
		// up front would rule out 2026-07-28. Now that the revision is
		// known, reconnect with the stream, and remember the server's
		// revision so that the next start asks up front.
		v := c.protocol
		c.close()
		d.legacy.Store(cfg.URL, v)
		return d.dialHTTP(ctx, life, cfg, start, true, v, auth)
	}
	return nil, catalog{}, fmt.Errorf("unknown transport type %q (want stdio, http or sse)", cfg.Type)
}

func (d *dialer) dialStdio(ctx, life context.Context, cfg config.MCPServer, log *lineLog, start time.Duration) (*conn, catalog, error) {
	proc, err := startProcess(cfg, log, d.environ, d.children)
	if err != nil {
		return nil, catalog{}, err
	}
	tap := &stdoutTap{r: proc.stdout, garbage: log}
	asks := &serverAsks{roots: d.roots}
	cl := client.NewClient(guardedStdio{transport.NewIO(tap, proc.stdin, nil)}, d.clientOptions(asks, start)...)
	lctx, cancel := context.WithCancel(life)
	c := newConn(cfg.Name, TypeStdio, cl, lctx, cancel)
	asks.c = c
	c.proc, c.tap, c.stopGrace = proc, tap, d.stopGrace
	c.watch()
	cat, err := d.finish(ctx, lctx, c)
	if err != nil {
		return nil, catalog{}, d.explainStdio(c, err, start)
	}
	return c, cat, nil
}

// explainStdio turns a failed stdio start into what the user needs: the
// exit status, a hint about stdout noise, or the timeout.
func (d *dialer) explainStdio(c *conn, err error, start time.Duration) error {
	timedOut := errors.Is(err, context.DeadlineExceeded)
	if !timedOut && c.proc.waitFor(300*time.Millisecond) || c.proc.exited() {
		select { // let the last words on stderr reach the log
		case <-c.proc.logged:
		case <-time.After(300 * time.Millisecond):
		}
	}
	exit := c.proc.exitError()
	c.close()
	var msg string
	switch {
	case exit != "":
		msg = "the server " + exit + " before completing the MCP handshake"
	case timedOut:
		msg = fmt.Sprintf("the server did not answer the MCP handshake within %s", start)
	default:
		msg = err.Error()
	}
	if n := c.tap.count.Load(); n > 0 {
		msg += fmt.Sprintf("; it printed %d line(s) of non-JSON text on stdout, where an MCP server must write only protocol messages (see the log)", n)
	}
	return errors.New(msg)
}

func (d *dialer) dialHTTP(ctx, life context.Context, cfg config.MCPServer, start time.Duration, listen bool, version string, auth *oauth.Client) (*conn, catalog, error) {
	if err := checkURL(cfg.URL); err != nil {
		return nil, catalog{}, err
	}
	base := http.DefaultClient
	if d.http != nil {
		base = d.http
	}
	// Each connection has its own HTTP stack: the OAuth client's tokens
	// over the handshake gate (connHTTP) over the shared transport.
	hh := newConnHTTP(base.Transport)
	hcopy := *base
	hcopy.Transport = authTransport(hh, auth)
	hc := &hcopy
	var tr transport.Interface
	var err error
	if cfg.Type == TypeSSE {
		hh.initialized("") // the SSE stream is how this transport starts
		var sse *transport.SSE
		sse, err = transport.NewSSE(cfg.URL, transport.WithHeaders(cfg.Headers), transport.WithHTTPClient(hc),
			transport.WithSSELogger(quiet), transport.WithEndpointTimeout(start))
		tr = guardedSSE{sse}
	} else {
		opts := []transport.StreamableHTTPCOption{transport.WithHTTPHeaders(cfg.Headers),
			transport.WithHTTPBasicClient(hc), transport.WithHTTPLogger(quiet)}
		if listen {
			opts = append(opts, transport.WithContinuousListening())
		}
		var sh *transport.StreamableHTTP
		sh, err = transport.NewStreamableHTTP(cfg.URL, opts...)
		tr = &guardedHTTP{StreamableHTTP: sh, hh: hh, hc: hc, url: cfg.URL, headers: cfg.Headers}
	}
	if err != nil {
		return nil, catalog{}, fmt.Errorf("url %s: %w", cfg.URL, err)
	}
	asks := &serverAsks{roots: d.roots}
	copts := d.clientOptions(asks, start)
	if version != "" {
		copts = append(copts, client.WithProtocolVersion(version))
	}
	cl := client.NewClient(tr, copts...)
	lctx, cancel := context.WithCancel(life)
	c := newConn(cfg.Name, cfg.Type, cl, lctx, cancel)
	asks.c = c
	c.onHandshake = hh.initialized
	cl.OnConnectionLost(func(err error) { c.lose(fmt.Errorf("the connection was lost: %w", err)) })
	// The SSE stream and the GET listener live as long as the connection,
	// but their start must not outlast the start timeout.
	stop := context.AfterFunc(ctx, cancel)
	cat, err := d.finish(ctx, lctx, c)
	if err == nil && listen {
		// A request the server sends on the GET stream before it is open
		// is lost (an elicitation of the first call would hang): wait for
		// the stream, within reason.
		t := time.NewTimer(listenAckWait)
		select {
		case <-hh.streamAnswered():
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
	if err == nil && !stop() {
		err = ctx.Err()
	}
	if err != nil {
		c.close()
		return nil, catalog{}, explainHTTP(err, cfg.URL, start)
	}
	return c, cat, nil
}

func checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("url %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("url %q must be an http:// or https:// address", raw)
	}
	return nil
}

func explainHTTP(err error, url string, start time.Duration) error {
	var opErr *net.OpError
	switch {
	case errors.As(err, &opErr):
		return fmt.Errorf("cannot reach %s: %v", url, opErr.Err)
	case errors.Is(err, oauth.ErrSignInRequired):
		var se *oauth.SignInError
		if errors.As(err, &se) {
			return fmt.Errorf("%w. Sign in with the button on its card (Settings → MCP) or 'tinyelf mcp login %s'", se, se.Server)
		}
		return err
	case errors.Is(err, transport.ErrAuthorizationRequired) || errors.Is(err, transport.ErrOAuthAuthorizationRequired):
		return fmt.Errorf("the server requires authorization (HTTP 401); set an Authorization header, for example \"Bearer ${TOKEN}\": %w", err)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("the server did not answer the MCP handshake within %s: %w", start, err)
	}
	return err
}

// dialInProcess connects to one of TinyElf's own mcp-go servers.
func (d *dialer) dialInProcess(ctx context.Context, name string, srv *server.MCPServer) (*conn, catalog, error) {
	cl, err := client.NewInProcessClient(srv)
	if err != nil {
		return nil, catalog{}, fmt.Errorf("builtin MCP %s: %w", name, err)
	}
	lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	c := newConn(name, kindInProcess, cl, lctx, cancel)
	cat, err := d.finish(ctx, lctx, c)
	if err != nil {
		c.close()
		return nil, catalog{}, fmt.Errorf("builtin MCP %s: %w", name, err)
	}
	return c, cat, nil
}

// finish starts the client, runs the handshake and the first listing.
func (d *dialer) finish(ctx, life context.Context, c *conn) (catalog, error) {
	if err := c.client.Start(life); err != nil {
		return catalog{}, err
	}
	if err := c.handshake(ctx, d.self); err != nil {
		return catalog{}, err
	}
	c.listen(ctx, life)
	return c.fetch(ctx)
}
