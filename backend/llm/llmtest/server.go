// Package llmtest is a scripted fake model server for tests. It speaks the
// OpenAI chat-completions SSE format and the Anthropic Messages SSE format
// exactly as the real APIs do, so TinyElf's adapters are exercised through
// the vendors' own SDKs over real HTTP on loopback. It records every request
// it receives so tests can assert what the model was shown.
//
// llmtest is test code: only tests, the fakellm command and the desktop
// smoke run (scripts/smoke) import it.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// NoTurnLeft is the error message the server answers with (status 500) when
// a chat request arrives and the script has no turn left and no default.
const NoTurnLeft = "llmtest: no scripted turn left"

// Server is a fake model server on loopback. It serves, with or without a
// /v1 prefix: POST /chat/completions (OpenAI), POST /messages (Anthropic,
// streamed or not), POST /responses (OpenAI's Responses API, not streamed),
// and GET /models (in the Anthropic shape when the request carries an
// anthropic-version header, the OpenAI shape otherwise). Each chat request
// plays the next scripted turn. POST /_llmtest/resume is Resume for tests
// that drive the server from another process. A Server is safe for
// concurrent use.
type Server struct {
	// URL is the base URL to configure an adapter with, including /v1
	// (http://127.0.0.1:PORT/v1).
	URL string

	srv       *httptest.Server
	closing   chan struct{}
	closeOnce sync.Once

	seq atomic.Int64 // numbers response IDs

	mu       sync.Mutex
	turns    []Turn
	routes   []Route
	fallback *Turn
	models   []string
	requests []Request
	resume   chan struct{} // closed and replaced by Resume
	paused   int           // streams waiting in a PauseAfter
}

// NewServer starts a server that plays turns in order and closes it when
// the test ends.
func NewServer(tb testing.TB, turns ...Turn) *Server {
	tb.Helper()
	s := Start(turns...)
	tb.Cleanup(s.Close)
	return s
}

// Start starts a server on a random loopback port outside of a test. The
// caller must Close it.
func Start(turns ...Turn) *Server {
	s := newServer(turns)
	s.srv = httptest.NewServer(s)
	s.URL = s.srv.URL + "/v1"
	return s
}

// Serve starts a server on the given listener (for a fixed address). The
// caller must Close it.
func Serve(l net.Listener, turns ...Turn) *Server {
	s := newServer(turns)
	s.srv = httptest.NewUnstartedServer(s)
	s.srv.Listener.Close()
	s.srv.Listener = l
	s.srv.Start()
	s.URL = s.srv.URL + "/v1"
	return s
}

func newServer(turns []Turn) *Server {
	return &Server{
		closing: make(chan struct{}),
		turns:   append([]Turn(nil), turns...),
		models:  []string{"fake-model"},
		resume:  make(chan struct{}),
	}
}

// Close ends hanging and slow streams, then shuts the server down.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.closing)
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
}

// Push appends turns to the script.
func (s *Server) Push(turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turns = append(s.turns, turns...)
}

// Route answers every chat request whose system prompt contains System
// with Turn, without taking a turn of the script: the background calls a
// program makes beside its conversation (naming a session, summarizing a
// page) get their own answers and leave the script's order alone.
type Route struct {
	System string `json:"system"`
	Turn   Turn   `json:"turn"`
}

// AddRoute adds a route; routes are tried in the order they were added,
// before the script.
func (s *Server) AddRoute(r Route) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.routes = append(s.routes, r)
}

// SetDefault makes the server play t whenever the script has run out,
// instead of answering with a NoTurnLeft error.
func (s *Server) SetDefault(t Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fallback = &t
}

// SetModels sets the model IDs GET /models lists (default: "fake-model").
func (s *Server) SetModels(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = append([]string(nil), ids...)
}

// Requests returns a copy of every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// ChatRequests returns the recorded chat requests (either format), in order.
func (s *Server) ChatRequests() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Format() != "" {
			out = append(out, r)
		}
	}
	return out
}

// Resume lets the streams that started before it go on past their
// PauseAfter, whether they are already waiting there or not yet; streams
// that start later pause until the next Resume.
func (s *Server) Resume() {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.resume)
	s.resume = make(chan struct{})
}

// Paused returns how many streams are waiting in a PauseAfter.
func (s *Server) Paused() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.paused
}

func (s *Server) addPaused(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.paused += n
}

// Pending returns how many scripted turns have not been played yet.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.turns)
}

// ServeHTTP records the request and answers it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	req := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Raw: raw}
	if len(raw) > 0 {
		var body map[string]any
		if json.Unmarshal(raw, &body) == nil {
			req.Body = body
		}
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.mu.Unlock()

	format := req.Format()
	switch {
	case r.Method == http.MethodGet && strings.TrimPrefix(r.URL.Path, "/v1") == "/models":
		s.serveModels(w, req)
	case r.Method == http.MethodPost && strings.TrimPrefix(r.URL.Path, "/v1") == "/_llmtest/resume":
		s.Resume()
		w.WriteHeader(http.StatusNoContent)
	case r.Method == http.MethodPost && format != "":
		turn, ok := s.next(req)
		if !ok {
			writeError(w, format, http.StatusInternalServerError, NoTurnLeft)
			return
		}
		s.play(w, r, req, turn)
	default:
		writeError(w, "openai", http.StatusNotFound, fmt.Sprintf("llmtest: no route for %s %s", r.Method, r.URL.Path))
	}
}

// next returns the turn of the first route the request matches, or takes
// the next turn of the script, or the default.
func (s *Server) next(req Request) (Turn, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.routes) > 0 {
		system := req.System()
		for _, r := range s.routes {
			if r.System != "" && strings.Contains(system, r.System) {
				return r.Turn, true
			}
		}
	}
	if len(s.turns) > 0 {
		t := s.turns[0]
		s.turns = s.turns[1:]
		return t, true
	}
	if s.fallback != nil {
		return *s.fallback, true
	}
	return Turn{}, false
}

// play answers a chat request with a turn.
func (s *Server) play(w http.ResponseWriter, r *http.Request, req Request, turn Turn) {
	for depth := 0; turn.Dynamic != nil; depth++ {
		if depth == 10 {
			writeError(w, req.Format(), http.StatusInternalServerError, "llmtest: Dynamic turns nest too deep")
			return
		}
		turn = turn.Dynamic(req)
	}
	if turn.Echo {
		turn.Text, turn.Chunks = req.LastUserText(), nil
	}
	if turn.Drop {
		panic(http.ErrAbortHandler)
	}
	for k, v := range turn.Header {
		w.Header().Set(k, v)
	}
	if turn.RetryAfter != "" {
		w.Header().Set("Retry-After", turn.RetryAfter)
	}
	if turn.Status != 0 {
		if turn.Body != "" {
			ct := "text/plain; charset=utf-8"
			if json.Valid([]byte(turn.Body)) {
				ct = "application/json"
			}
			w.Header().Set("Content-Type", ct)
			w.WriteHeader(turn.Status)
			io.WriteString(w, turn.Body)
			return
		}
		msg := turn.ErrorMessage
		if msg == "" {
			msg = http.StatusText(turn.Status)
		}
		writeError(w, req.Format(), turn.Status, msg)
		return
	}
	stream, _ := req.Body["stream"].(bool)
	switch {
	case req.Format() == "responses" && stream:
		writeError(w, req.Format(), http.StatusBadRequest, "llmtest: streamed Responses API requests are not scripted")
		return
	case req.Format() == "responses":
		writeResponses(w, turn, req, fmt.Sprintf("resp_llmtest%d", s.seq.Add(1)))
		return
	case req.Format() == "anthropic" && !stream:
		writeAnthropicMessage(w, turn, req, fmt.Sprintf("msg_llmtest%d", s.seq.Add(1)))
		return
	case !stream:
		writeError(w, req.Format(), http.StatusBadRequest, "llmtest: only streaming chat completions are scripted (stream must be true)")
		return
	}

	s.mu.Lock()
	resume := s.resume
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	sw := &sseWriter{
		w: w, rc: http.NewResponseController(w),
		ctx: r.Context(), closing: s.closing,
		delay: turn.ChunkDelay, cutAfter: turn.CutAfter, hang: turn.Hang,
		pauseAfter: turn.PauseAfter, resume: resume, paused: s.addPaused,
	}
	sw.rc.Flush()
	var err error
	if req.Format() == "openai" {
		err = writeOpenAI(sw, turn, req, fmt.Sprintf("chatcmpl-llmtest%d", s.seq.Add(1)))
	} else {
		err = writeAnthropic(sw, turn, req, fmt.Sprintf("msg_llmtest%d", s.seq.Add(1)))
	}
	if err != errCut {
		return
	}
	switch {
	case turn.StreamError != "":
		sw.streamError(req.Format(), turn.StreamError)
	case turn.CutCleanly:
	default:
		// Drop the connection mid-body: the client sees a truncated stream.
		panic(http.ErrAbortHandler)
	}
}

// serveModels answers GET /models in the shape the caller's SDK expects.
func (s *Server) serveModels(w http.ResponseWriter, req Request) {
	s.mu.Lock()
	ids := append([]string(nil), s.models...)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if req.Header.Get("anthropic-version") != "" {
		data := make([]map[string]any, 0, len(ids))
		for _, id := range ids {
			data = append(data, map[string]any{
				"type": "model", "id": id, "display_name": id, "created_at": "2025-01-01T00:00:00Z",
			})
		}
		page := map[string]any{"data": data, "has_more": false, "first_id": nil, "last_id": nil}
		if len(ids) > 0 {
			page["first_id"], page["last_id"] = ids[0], ids[len(ids)-1]
		}
		json.NewEncoder(w).Encode(page)
		return
	}
	data := make([]map[string]any, 0, len(ids))
	for _, id := range ids {
		data = append(data, map[string]any{"id": id, "object": "model", "created": 1735689600, "owned_by": "llmtest"})
	}
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
}

// writeError answers with an error body in the format's own shape.
func writeError(w http.ResponseWriter, format string, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	var body any
	if format == "anthropic" {
		body = map[string]any{
			"type":  "error",
			"error": map[string]any{"type": anthropicErrorType(status), "message": msg},
		}
	} else {
		typ, code := openAIErrorType(status)
		body = map[string]any{
			"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": code},
		}
	}
	json.NewEncoder(w).Encode(body)
}

func anthropicErrorType(status int) string {
	switch status {
	case 400:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 403:
		return "permission_error"
	case 404:
		return "not_found_error"
	case 413:
		return "request_too_large"
	case 429:
		return "rate_limit_error"
	case 529:
		return "overloaded_error"
	}
	return "api_error"
}

func openAIErrorType(status int) (typ string, code any) {
	switch status {
	case 401:
		return "invalid_request_error", "invalid_api_key"
	case 404:
		return "invalid_request_error", "model_not_found"
	case 429:
		return "requests", "rate_limit_exceeded"
	}
	if status >= 500 {
		return "server_error", nil
	}
	return "invalid_request_error", nil
}
