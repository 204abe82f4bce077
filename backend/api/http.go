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

// HTTPServer serves the UI and the service to a browser on loopback: HTTP
// JSON for calls (POST /api/call/NAME), server-sent events for events (GET
// /api/events), and the built frontend for everything else. Every /api
// request needs the token (Authorization: Bearer, the token query parameter,
// or the cookie set when the page loads); a foreign Host or Origin header is
// refused, which defeats DNS rebinding and cross-site requests.
type HTTPServer struct {
	Methods map[string]Method
	Bus     *Bus
	// Assets is the built frontend; nil serves a page saying so.
	Assets fs.FS
	// Token is the secret the URL carries.
	Token string
	// Version is reported by GET /api/version.
	Version string

	addr string // host:port actually listened on, for Host/Origin checks
}

// NewToken returns a random token for an HTTPServer.
func NewToken() string {
	var b [24]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Listen opens the listener. addr defaults to 127.0.0.1:0 (a free port).
func (s *HTTPServer) Listen(addr string) (net.Listener, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	s.addr = ln.Addr().String()
	return ln, nil
}

// URL is the address to open in a browser, token included.
func (s *HTTPServer) URL() string {
	return fmt.Sprintf("http://%s/?token=%s", s.addr, s.Token)
}

// Serve serves on ln until ctx ends, then shuts down gracefully.
func (s *HTTPServer) Serve(ctx context.Context, ln net.Listener) error {
	if s.addr == "" {
		s.addr = ln.Addr().String()
	}
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, BaseContext: func(net.Listener) context.Context { return ctx }}
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

// checkOrigin refuses requests whose Host is not this loopback listener,
// and cross-origin requests.
func (s *HTTPServer) checkOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.allowedHost(r.Host) {
			writeJSON(w, http.StatusForbidden, errorBody("forbidden", "this server only answers on its loopback address"))
			return
		}
		if o := r.Header.Get("Origin"); o != "" {
			u, err := url.Parse(o)
			if err != nil || u.Scheme != "http" || !s.allowedHost(u.Host) {
				writeJSON(w, http.StatusForbidden, errorBody("forbidden", "cross-origin requests are not allowed"))
				return
			}
		}
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "no-referrer")
		next.ServeHTTP(w, r)
	})
}

func (s *HTTPServer) allowedHost(host string) bool {
	_, port, err := net.SplitHostPort(s.addr)
	if err != nil {
		return false
	}
	h, p, err := net.SplitHostPort(host)
	if err != nil || p != port {
		return false
	}
	return h == "127.0.0.1" || h == "localhost" || h == "::1"
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
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBytes))
	if err != nil {
		writeJSON(w, http.StatusRequestEntityTooLarge, errorBody("invalid", "request body too large or unreadable"))
		return
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		body = []byte("{}")
	}
	if !json.Valid(body) {
		writeJSON(w, http.StatusBadRequest, errorBody("invalid", "the request body is not valid JSON"))
		return
	}
	res, err := m(r.Context(), body)
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
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Connection", "keep-alive")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, ": connected\n\n")
	flusher.Flush()
	keepalive := time.NewTicker(15 * time.Second)
	defer keepalive.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-keepalive.C:
			fmt.Fprint(w, ": keepalive\n\n")
			flusher.Flush()
		case ev, ok := <-events:
			if !ok {
				return
			}
			b, err := json.Marshal(ev)
			if err != nil {
				continue
			}
			fmt.Fprintf(w, "data: %s\n\n", b)
			flusher.Flush()
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
	w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'")
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
