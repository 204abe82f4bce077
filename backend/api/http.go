package api

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"
)

// maxRequestBytes bounds a call's JSON body.
const maxRequestBytes = 16 << 20

// tokenCookie carries the token after the first page load, so the page's
// own requests (and EventSource, which cannot set headers) are authorised.
const tokenCookie = "tinyelf_token"

// Method is one callable operation of the service: it takes the call's
// JSON arguments and returns a JSON-encodable result.
type Method func(ctx context.Context, args json.RawMessage) (any, error)

// HTTPServer serves the UI and the service to a browser: HTTP JSON for
// calls (POST /api/call/NAME), server-sent events for events (GET
// /api/events), and the built frontend for everything else. By default it
// listens on loopback only: Listen refuses an address other machines can
// reach, and a request that did not arrive on a loopback address, or whose
// Host or Origin names another host, is refused (which defeats DNS
// rebinding and cross-site requests). Every /api request needs the token
// (Authorization: Bearer, the token query parameter, or the cookie set when
// the page loads). With AllowRemote it may listen on any address, and then
// every request, pages included, needs the token.
//
// Slow or idle clients are cut off: the timeouts below bound reading a
// request, writing an answer and keeping an idle connection, while the
// event stream stays open as long as the client reads it.
type HTTPServer struct {
	Methods map[string]Method
	Bus     *Bus
	// Assets is the built frontend; nil serves a page saying so.
	Assets fs.FS
	// Token is the secret the URL carries.
	Token string
	// Version is reported by GET /api/version.
	Version string
	// AllowRemote lets the server listen on an address other machines can
	// reach; the token is then required on every request.
	AllowRemote bool

	// ReadHeaderTimeout, ReadTimeout, WriteTimeout and IdleTimeout are the
	// http.Server's (defaults 10s, 1 min, 1 min, 2 min). The read and write
	// timeouts bound reading a request and writing its answer; a call may
	// run longer than either, and the event stream renews its write
	// deadline with each event.
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration

	addr string // host:port actually listened on
	port string // its port, for Host/Origin checks
}

// ErrNotLoopback is returned (wrapped) by Listen for an address that other
// machines can reach when AllowRemote is not set.
var ErrNotLoopback = errors.New("the address is reachable from other machines")

// NewToken returns a random token for an HTTPServer.
func NewToken() string {
	var b [24]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// LoopbackAddr reports whether addr (host:port) names only this machine:
// a loopback IP or "localhost". An empty host (":8080"), 0.0.0.0, :: and
// every other address or name are reachable from elsewhere.
func LoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// Listen opens the listener. addr defaults to 127.0.0.1:0 (a free port).
// Without AllowRemote an address other machines could reach is refused
// with ErrNotLoopback.
func (s *HTTPServer) Listen(addr string) (net.Listener, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	if !s.AllowRemote && !LoopbackAddr(addr) {
		return nil, fmt.Errorf("listen on %s: %w", addr, ErrNotLoopback)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	if !s.AllowRemote && !isLoopbackNetAddr(ln.Addr()) {
		ln.Close() // "localhost" resolved to something else
		return nil, fmt.Errorf("listen on %s (%s): %w", addr, ln.Addr(), ErrNotLoopback)
	}
	s.setAddr(ln.Addr().String())
	return ln, nil
}

func (s *HTTPServer) setAddr(addr string) {
	s.addr = addr
	_, s.port, _ = net.SplitHostPort(addr)
}

// URL is the address to open in a browser on this machine, token included.
// For a server on every interface it names the loopback address; other
// machines use this machine's address with the same port and token.
func (s *HTTPServer) URL() string {
	host, port, err := net.SplitHostPort(s.addr)
	if err == nil {
		if ip, err := netip.ParseAddr(host); err == nil && ip.IsUnspecified() {
			host = "127.0.0.1"
			if ip.Is6() && !ip.Is4In6() {
				host = "::1"
			}
		}
		return fmt.Sprintf("http://%s/?token=%s", net.JoinHostPort(host, port), s.Token)
	}
	return fmt.Sprintf("http://%s/?token=%s", s.addr, s.Token)
}

// Serve serves on ln until ctx ends, then shuts down gracefully.
func (s *HTTPServer) Serve(ctx context.Context, ln net.Listener) error {
	if s.addr == "" {
		s.setAddr(ln.Addr().String())
	}
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: orDefault(s.ReadHeaderTimeout, 10*time.Second),
		ReadTimeout:       orDefault(s.ReadTimeout, time.Minute),
		WriteTimeout:      orDefault(s.WriteTimeout, time.Minute),
		IdleTimeout:       orDefault(s.IdleTimeout, 2*time.Minute),
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
		return nil
	}
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Handler returns the server's routes wrapped in the Host and Origin checks.
func (s *HTTPServer) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/call/{method}", s.authed(s.handleCall))
	mux.HandleFunc("GET /api/events", s.authed(s.handleEvents))
	mux.HandleFunc("GET /api/version", s.authed(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"version": s.Version})
	}))
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, errorBody("not_found", "no such endpoint: "+r.Method+" "+r.URL.Path))
	})
	mux.HandleFunc("/", s.handleAssets)
	return s.checkOrigin(mux)
}

// checkOrigin refuses requests that did not arrive on a loopback address
// (unless AllowRemote), whose Host is not an address of this listener, and
// cross-origin requests. With AllowRemote it also demands the token on
// every request.
func (s *HTTPServer) checkOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		local := localAddr(r)
		if !s.AllowRemote && !local.IsLoopback() {
			writeJSON(w, http.StatusForbidden, errorBody("forbidden", "this server only answers on its loopback address"))
			return
		}
		if !s.allowedHost(r.Host, local) {
			msg := "this server only answers on its loopback address"
			if s.AllowRemote {
				msg = "this server only answers to its own address"
			}
			writeJSON(w, http.StatusForbidden, errorBody("forbidden", msg))
			return
		}
		if o := r.Header.Get("Origin"); o != "" {
			u, err := url.Parse(o)
			if err != nil || u.Scheme != "http" || !s.allowedHost(u.Host, local) || (s.AllowRemote && u.Host != r.Host) {
				writeJSON(w, http.StatusForbidden, errorBody("forbidden", "cross-origin requests are not allowed"))
				return
			}
		}
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "no-referrer")
		if s.AllowRemote && !s.tokenOK(r) {
			if strings.HasPrefix(r.URL.Path, "/api/") {
				writeJSON(w, http.StatusUnauthorized, errorBody("unauthorized", "missing or wrong token: open the URL that `tinyelf serve` printed"))
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `<!doctype html><title>TinyElf</title><p>This TinyElf server needs its access token: open the whole URL that <code>tinyelf serve</code> printed.</p>`)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// localAddr is the address the request's connection arrived on (the
// invalid address when unknown, which is not loopback).
func localAddr(r *http.Request) netip.Addr {
	a, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if a == nil {
		return netip.Addr{}
	}
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return netip.Addr{}
	}
	return ap.Addr().Unmap()
}

func isLoopbackNetAddr(a net.Addr) bool {
	ap, err := netip.ParseAddrPort(a.String())
	return err == nil && ap.Addr().Unmap().IsLoopback()
}

// allowedHost reports whether a Host (or Origin host) names this server as
// reached over the connection's local address: the listener's port, and a
// loopback name or IP when the connection is a loopback one. With
// AllowRemote, the connection's own IP, or any DNS name (the token guards
// those requests), also do.
func (s *HTTPServer) allowedHost(host string, local netip.Addr) bool {
	h, p, err := net.SplitHostPort(host)
	if err != nil || p != s.port {
		return false
	}
	if strings.EqualFold(h, "localhost") {
		return local.IsLoopback()
	}
	ip, err := netip.ParseAddr(strings.Trim(h, "[]"))
	if err != nil {
		return s.AllowRemote // a name: only a server meant for other machines answers to one
	}
	ip = ip.Unmap()
	if ip.IsLoopback() {
		return local.IsLoopback()
	}
	return s.AllowRemote && ip == local
}

func (s *HTTPServer) authed(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.tokenOK(r) {
			writeJSON(w, http.StatusUnauthorized, errorBody("unauthorized", "missing or wrong token: open the URL that `tinyelf serve` printed"))
			return
		}
		h(w, r)
	}
}

func (s *HTTPServer) tokenOK(r *http.Request) bool {
	candidates := []string{r.URL.Query().Get("token")}
	if auth := r.Header.Get("Authorization"); strings.HasPrefix(auth, "Bearer ") {
		candidates = append(candidates, strings.TrimPrefix(auth, "Bearer "))
	}
	if c, err := r.Cookie(tokenCookie); err == nil {
		candidates = append(candidates, c.Value)
	}
	for _, c := range candidates {
		if c != "" && subtle.ConstantTimeCompare([]byte(c), []byte(s.Token)) == 1 {
			return true
		}
	}
	return false
}

func (s *HTTPServer) handleCall(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("method")
	m, ok := s.Methods[name]
	if !ok {
		writeJSON(w, http.StatusNotFound, errorBody("not_found", fmt.Sprintf("unknown method %q", name)))
		return
	}
	if r.ContentLength > maxRequestBytes {
		writeJSON(w, http.StatusRequestEntityTooLarge, errorBody("invalid", fmt.Sprintf("the request body is over %d MiB", maxRequestBytes>>20)))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		var ne net.Error
		switch {
		case errors.As(err, &tooBig):
			writeJSON(w, http.StatusRequestEntityTooLarge, errorBody("invalid", fmt.Sprintf("the request body is over %d MiB", maxRequestBytes>>20)))
		case errors.As(err, &ne) && ne.Timeout():
			writeJSON(w, http.StatusRequestTimeout, errorBody("invalid", "the request body came too slowly"))
		default:
			writeJSON(w, http.StatusBadRequest, errorBody("invalid", "the request body could not be read"))
		}
		return
	}
	// A call may run longer than the write timeout (testing an MCP server):
	// its answer is written under a fresh deadline. (net/http lifts the read
	// deadline once the body is in.)
	rc := http.NewResponseController(w)
	if len(strings.TrimSpace(string(body))) == 0 {
		body = []byte("{}")
	}
	if !json.Valid(body) {
		writeJSON(w, http.StatusBadRequest, errorBody("invalid", "the request body is not valid JSON"))
		return
	}
	res, err := m(r.Context(), body)
	_ = rc.SetWriteDeadline(time.Now().Add(orDefault(s.WriteTimeout, time.Minute)))
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			e = &Error{Code: CodeInternal, Message: err.Error()}
		}
		writeJSON(w, e.HTTPStatus(), errorBody(e.Code, e.Message))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"result": res})
}

func (s *HTTPServer) handleEvents(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		writeJSON(w, http.StatusInternalServerError, errorBody(CodeInternal, "streaming unsupported"))
		return
	}
	events, unsubscribe := s.Bus.Subscribe()
	defer unsubscribe()
	// The stream outlives the server's write timeout: each write gets a
	// deadline of its own, so a client that stops reading is still cut off.
	rc := http.NewResponseController(w)
	writeTimeout := orDefault(s.WriteTimeout, time.Minute)
	send := func(format string, args ...any) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
		if _, err := fmt.Fprintf(w, format, args...); err != nil {
			return false
		}
		flusher.Flush()
		return true
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Connection", "keep-alive")
	_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
	w.WriteHeader(http.StatusOK)
	if !send(": connected\n\n") {
		return
	}
	keepalive := time.NewTicker(min(15*time.Second, writeTimeout/2))
	defer keepalive.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-keepalive.C:
			if !send(": keepalive\n\n") {
				return
			}
		case ev, ok := <-events:
			if !ok {
				return
			}
			b, err := json.Marshal(ev)
			if err != nil {
				continue
			}
			if !send("data: %s\n\n", b) {
				return
			}
		}
	}
}

func (s *HTTPServer) handleAssets(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeJSON(w, http.StatusMethodNotAllowed, errorBody("invalid", "method not allowed"))
		return
	}
	// Loading the page with the right token sets the cookie the page's own
	// requests then carry.
	if t := r.URL.Query().Get("token"); t != "" && subtle.ConstantTimeCompare([]byte(t), []byte(s.Token)) == 1 {
		http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: s.Token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	}
	if s.Assets == nil {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>TinyElf</title><p>This TinyElf binary was built without its user interface. Build it with <code>bash scripts/build.sh</code>; the API is available under /api/.</p>`)
		return
	}
	path := strings.TrimPrefix(r.URL.Path, "/")
	if path == "" {
		path = "index.html"
	}
	if _, err := fs.Stat(s.Assets, path); err != nil {
		path = "index.html" // single-page app: unknown paths get the app
	}
	// Answers may show images from https addresses and MCP tools return
	// images and audio as data URLs; no page the app loads may learn the
	// URL (it carries the access token), so no referrer is ever sent.
	w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data: https:; media-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'")
	w.Header().Set("Referrer-Policy", "no-referrer")
	http.ServeFileFS(w, r, s.Assets, path)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func errorBody(code, msg string) map[string]any {
	return map[string]any{"error": map[string]string{"code": code, "message": msg}}
}
