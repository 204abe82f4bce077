package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/server"

	"tinyelf/backend/tools"
)

// BridgeOptions configures a Bridge.
type BridgeOptions struct {
	// Addr is the loopback address to listen on (default "127.0.0.1:0", a
	// random port). A non-loopback address is refused.
	Addr string
	// Token is the bearer token clients must send (default: 32 random bytes,
	// hex).
	Token string
	// Caller decides which providers are exposed; External is always set.
	Caller Caller
	// Version is the serverInfo version clients are told (default:
	// version.Version(), this build's).
	Version string
}

// Bridge is the seed's BuiltinMcpHttpServer: one streamable HTTP endpoint
// on loopback that serves the eligible builtin providers to CLI agents
// outside TinyElf. Every request needs the bearer token (401 without it);
// a Host that is not loopback or an Origin that is not a loopback page is
// refused with 403, as the MCP spec asks of local servers. Tools are named
// <provider>_<tool> ("sessions_search"). Close stops it.
type Bridge struct {
	srv   *http.Server
	url   string
	token string
	tools []string
	done  chan error
}

// StartBridge builds the bridge's MCP server from the providers eligible
// for an external caller and starts serving; it returns once it listens.
func StartBridge(ctx context.Context, reg *ProviderRegistry, opts BridgeOptions) (*Bridge, error) {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("bridge address %q: %w", opts.Addr, err)
	}
	if !isLoopback(host) {
		return nil, fmt.Errorf("bridge address %q is not a loopback address; the bridge only serves this machine", opts.Addr)
	}
	if opts.Token == "" {
		var b [32]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, fmt.Errorf("bridge token: %w", err)
		}
		opts.Token = hex.EncodeToString(b[:])
	}
	opts.Caller.External = true
	cctx := WithCaller(ctx, opts.Caller)

	var all []tools.Tool
	var names []string
	var instructions []string
	var sessions SessionReader
	workspace := ""
	for _, p := range reg.Eligible(cctx) {
		switch rp := p.(type) {
		case sessionsProvider:
			sessions = rp.r
		case workspaceProvider:
			if dir, err := filepath.Abs(rp.folder(cctx)); err == nil {
				workspace = dir
			}
		}
		ts, err := p.Tools(cctx)
		if err != nil {
			return nil, fmt.Errorf("builtin MCP provider %s: %w", p.Name(), err)
		}
		instructions = append(instructions, p.Name()+": "+p.Description())
		for _, t := range ts {
			all = append(all, prefixed{t, p.Name() + "_"})
			names = append(names, p.Name()+"_"+t.Info().Name)
		}
	}
	mcpSrv := NewServer("tinyelf", opts.Version, "TinyElf's builtin tools.\n"+strings.Join(instructions, "\n"), all,
		server.WithLogging(), server.WithResourceCapabilities(false, false))
	addBridgeResources(mcpSrv, sessions, workspace)

	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("bridge listen %s: %w", opts.Addr, err)
	}
	b := &Bridge{token: opts.Token, tools: names, done: make(chan error, 1),
		url: "http://" + ln.Addr().String() + "/mcp"}
	mux := http.NewServeMux()
	// No standalone GET stream: the bridge's tool list never changes, and
	// with one open mcp-go may deliver a call's progress there, out of
	// order with the call's own stream.
	mcpHTTP := server.NewStreamableHTTPServer(mcpSrv, server.WithDisableStreaming(true))
	mux.Handle("/mcp", guardLoopback(requireToken(opts.Token, readBody(MaxBridgeBody, knownTools(names, mcpHTTP)))))
	// No WriteTimeout: a call's answer streams for as long as the call runs
	// (its progress). ReadTimeout only bounds reading the request.
	b.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute, IdleTimeout: 2 * time.Minute}
	go func() {
		err := b.srv.Serve(ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		b.done <- err
	}()
	return b, nil
}

// prefixed renames a tool for the bridge.
type prefixed struct {
	tools.Tool
	prefix string
}

func (p prefixed) Info() tools.Info {
	i := p.Tool.Info()
	i.Name = p.prefix + i.Name
	return i
}

// Execute runs the tool; an error result never quotes a long argument back
// whole (a tool's message may name the bad value more than once).
func (p prefixed) Execute(ctx context.Context, params map[string]any) (tools.Result, error) {
	res, err := p.Tool.Execute(ctx, params)
	if err != nil {
		return res, errors.New(shortenArgs(err.Error(), params))
	}
	if res.IsError {
		res.Content = shortenArgs(res.Content, params)
	}
	return res, nil
}

// MaxBridgeBody bounds one request to the bridge, as tinyelf serve does.
const MaxBridgeBody = 16 << 20

// quoteLimit is how much of a bad value an error message quotes.
const quoteLimit = 40

// QuotePrefix quotes at most the first n bytes of s (at a character
// boundary), saying how long the whole was when it is cut: an error can
// name a bad value without echoing megabytes of it.
func QuotePrefix(s string, n int) string {
	if len(s) <= n {
		return strconv.Quote(s)
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(s[:cut]), len(s))
}

// shortenArgs replaces, in msg, every occurrence of a long string argument
// with a short quoted prefix of it.
func shortenArgs(msg string, params map[string]any) string {
	for _, v := range params {
		if s, ok := v.(string); ok && len(s) > quoteLimit && strings.Contains(msg, s) {
			msg = strings.ReplaceAll(msg, s, QuotePrefix(s, quoteLimit))
		}
	}
	return msg
}

// readBody reads a request's body (refusing one over max before reading a
// byte of it when Content-Length says so, and cutting one that grows past
// max), so that the MCP handler below works on bounded memory. (Once the
// body is in, net/http lifts the read deadline: a call may run, and stream
// its progress, for longer than reading the request may take.)
func readBody(max int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > max {
			http.Error(w, fmt.Sprintf("Request Entity Too Large: the bridge takes requests of up to %d MiB", max>>20), http.StatusRequestEntityTooLarge)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
		if err != nil {
			var tooBig *http.MaxBytesError
			var ne net.Error
			switch {
			case errors.As(err, &tooBig):
				http.Error(w, fmt.Sprintf("Request Entity Too Large: the bridge takes requests of up to %d MiB", max>>20), http.StatusRequestEntityTooLarge)
			case errors.As(err, &ne) && ne.Timeout():
				http.Error(w, "Request Timeout: the request body came too slowly", http.StatusRequestTimeout)
			default:
				http.Error(w, "Bad Request: the request body could not be read", http.StatusBadRequest)
			}
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}

// knownTools answers a tools/call for a tool the bridge does not serve
// itself, quoting only a prefix of the name (the MCP handler would echo a
// name of any length back whole).
func knownTools(names []string, next http.Handler) http.Handler {
	known := map[string]bool{}
	for _, n := range names {
		known[n] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body) // readBody already holds it in memory
		r.Body = io.NopCloser(bytes.NewReader(body))
		var call struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &call) != nil || call.Method != "tools/call" || known[call.Params.Name] || len(call.ID) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": call.ID, "error": map[string]any{
			"code": -32602, "message": fmt.Sprintf("unknown tool %s; this server offers: %s", QuotePrefix(call.Params.Name, quoteLimit), strings.Join(names, ", ")),
		}})
	})
}

// URL returns the endpoint, e.g. http://127.0.0.1:41234/mcp.
func (b *Bridge) URL() string { return b.url }

// Token returns the bearer token.
func (b *Bridge) Token() string { return b.token }

// Tools returns the names of the tools the bridge serves.
func (b *Bridge) Tools() []string { return append([]string(nil), b.tools...) }

// ClientConfig returns a ready-to-paste client configuration in the
// .mcp.json / Claude Code shape: {"mcpServers": {name: {"type": "http",
// "url": ..., "headers": {"Authorization": "Bearer ..."}}}}.
func (b *Bridge) ClientConfig(name string) []byte {
	cfg := map[string]any{"mcpServers": map[string]any{name: map[string]any{
		"type": "http", "url": b.url,
		"headers": map[string]string{"Authorization": "Bearer " + b.token},
	}}}
	out, _ := json.MarshalIndent(cfg, "", "  ")
	return out
}

// Done delivers, once, the error that stopped the bridge (nil after
// Close).
func (b *Bridge) Done() <-chan error { return b.done }

// Close stops accepting requests and waits (within ctx) for those in
// flight; streams still open when ctx ends are cut.
func (b *Bridge) Close(ctx context.Context) error {
	if err := b.srv.Shutdown(ctx); err != nil {
		_ = b.srv.Close()
		return fmt.Errorf("bridge shutdown: %w", err)
	}
	return nil
}

// requireToken answers 401 to requests without the bearer token.
func requireToken(token string, next http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="tinyelf"`)
			http.Error(w, "Unauthorized: send Authorization: Bearer <token> (printed by tinyelf mcp bridge)", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// guardLoopback answers 403 to a request whose Host is not a loopback name
// (DNS rebinding) or whose Origin is a page that is not on loopback.
func guardLoopback(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		if !isLoopback(host) {
			http.Error(w, fmt.Sprintf("Forbidden: Host %q is not this machine", r.Host), http.StatusForbidden)
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" && !loopbackOrigin(origin) {
			http.Error(w, fmt.Sprintf("Forbidden: Origin %q may not use this server", origin), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// isLoopback reports whether host (no port; brackets allowed) is
// "localhost" or a loopback IP.
func isLoopback(host string) bool {
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return isLoopback(u.Hostname())
}
