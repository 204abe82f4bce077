package llm

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

// ConnError says a provider's server could not be reached, or dropped the
// connection before it answered. Its message names the base URL and what to
// check ("cannot reach http://127.0.0.1:11434/v1: connection refused: is
// Ollama running? ...").
type ConnError struct {
	// BaseURL is the address that was tried.
	BaseURL string
	// Hint tells the user what to check.
	Hint string
	// Err is the transport error.
	Err error
}

func (e *ConnError) Error() string {
	msg := fmt.Sprintf("cannot reach %s: %s", e.BaseURL, connCause(e.Err))
	if e.Hint != "" {
		msg += ": " + e.Hint
	}
	return msg
}

func (e *ConnError) Unwrap() error { return e.Err }

// Retryable reports whether trying again may help: yes for a reset, a
// dropped connection or a timeout; no for a refused connection, an unknown
// host or a TLS failure, which need the user.
func (e *ConnError) Retryable() bool {
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	switch {
	case errors.Is(e.Err, syscall.ECONNREFUSED),
		errors.As(e.Err, &dnsErr) && !dnsErr.IsTemporary,
		errors.As(e.Err, &certErr), errors.As(e.Err, &unknownAuth), errors.As(e.Err, &hostErr):
		return false
	}
	return true
}

// connCause says in a few words what went wrong with the connection.
func connCause(err error) string {
	var dnsErr *net.DNSError
	var netErr net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.As(err, &dnsErr):
		return "unknown host " + dnsErr.Name
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return "connection reset"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the connection closed before the server answered"
	case errors.As(err, &netErr) && netErr.Timeout():
		return "timed out"
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		return urlErr.Err.Error()
	}
	return err.Error()
}

// isConnFailure reports whether err is a transport failure rather than an
// answer or a local mistake.
func isConnFailure(err error) bool {
	var netErr net.Error
	var urlErr *url.Error
	return errors.As(err, &netErr) || errors.As(err, &urlErr) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED)
}

// exchange records the HTTP answer a call got. The SDKs turn error answers
// into their own error types only when the body has the vendor's shape; the
// status, headers and body recorded here serve every server.
type exchange struct {
	status int
	header http.Header
	body   []byte
}

// maxErrorBody bounds how much of an error answer is kept.
const maxErrorBody = 64 << 10

// observe is an SDK middleware (both SDKs use this signature). It runs on
// the goroutine of the call it is passed to.
func (x *exchange) observe(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	res, err := next(req)
	if err != nil || res == nil {
		return res, err
	}
	x.status, x.header, x.body = res.StatusCode, res.Header.Clone(), nil
	if res.StatusCode >= 400 && res.Body != nil {
		body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
		res.Body.Close()
		x.body = body
		res.Body = io.NopCloser(bytes.NewReader(body))
	}
	return res, nil
}

// classify turns the error of a call that got no usable answer into an
// *APIError (the server answered with an error status), a *ConnError (it
// could not be reached), or the error wrapped with the provider's name. It
// also returns the wait the server asked for.
func (ep endpoint) classify(err error, x *exchange, model string) (error, time.Duration) {
	if x != nil && x.status >= 400 {
		return ep.apiError(x.status, errorMessage(x.body, x.status), model), retryAfter(x.header, time.Now())
	}
	if isConnFailure(err) {
		return &ConnError{BaseURL: ep.baseURL, Hint: ep.unreachableHint(), Err: err}, 0
	}
	return fmt.Errorf("%s: %w", ep.name, err), 0
}

// notAStream returns the error for a successful answer that is not an
// event stream (a web page, a JSON body from a server that ignored
// "stream"), or nil when it is one.
func (ep endpoint) notAStream(x *exchange) error {
	if x == nil || x.status < 200 || x.status >= 300 {
		return nil
	}
	ct := x.header.Get("Content-Type")
	if ct == "" || strings.HasPrefix(strings.ToLower(ct), "text/event-stream") {
		return nil
	}
	return &notStreamError{fmt.Sprintf("%s: the server at %s answered with %s, not a stream: is this the base URL of a %s API?",
		ep.name, ep.baseURL, ct, map[string]string{KindOpenAI: "OpenAI-compatible", KindAnthropic: "Anthropic"}[ep.kind])}
}

// apiError builds the error for an error status, with a hint for the user.
func (ep endpoint) apiError(status int, msg, model string) *APIError {
	e := &APIError{Provider: ep.display, Status: status, Message: msg}
	switch {
	case status == http.StatusUnauthorized && ep.apiKey == "":
		e.Hint = fmt.Sprintf("no API key is set for %s: add one in Settings", ep.display)
	case status == http.StatusUnauthorized:
		e.Hint = fmt.Sprintf("the API key for %s was refused: check it in Settings", ep.display)
	case status == http.StatusForbidden:
		e.Hint = fmt.Sprintf("the API key for %s lacks access to this model or feature: check the key and model in Settings", ep.display)
	case status == http.StatusNotFound && ep.preset.Name == "ollama" && model != "":
		e.Hint = fmt.Sprintf("model %q may not be installed (run `ollama pull %s`), or the base URL %s is wrong", model, model, ep.baseURL)
	case status == http.StatusNotFound && model != "":
		e.Hint = fmt.Sprintf("unknown model %q, or wrong base URL %s: check both in Settings", model, ep.baseURL)
	case status == http.StatusNotFound:
		e.Hint = fmt.Sprintf("wrong base URL %s? Check it in Settings", ep.baseURL)
	case status == http.StatusRequestEntityTooLarge:
		e.Hint = "the request is too large for the model: compact the conversation"
	case status == http.StatusTooManyRequests:
		e.Hint = fmt.Sprintf("rate limited by %s: wait a little, or check your plan's limits", ep.display)
	case status >= 500:
		e.Hint = fmt.Sprintf("%s had a server error: try again later", ep.display)
	}
	return e
}

// unreachableHint says what to check when the server cannot be reached.
func (ep endpoint) unreachableHint() string {
	if ep.preset.unreachableHint != "" {
		return ep.preset.unreachableHint
	}
	if u, err := url.Parse(ep.baseURL); err == nil {
		switch h := u.Hostname(); {
		case h == "localhost", net.ParseIP(h) != nil && net.ParseIP(h).IsLoopback():
			return "is the local model server running?"
		}
	}
	return "check the base URL in Settings and your network connection"
}

// errorMessage digs the human-readable message out of an error body, in the
// shapes the known APIs use: {"error":{"message":…}} (OpenAI, Anthropic,
// Ollama), {"error":"…"}, {"message":…}, a one-element array of those
// (Gemini), or plain text.
func errorMessage(body []byte, status int) string {
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		var list []json.RawMessage
		if json.Unmarshal(body, &list) == nil && len(list) > 0 {
			body = list[0]
		}
	}
	var doc struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  string          `json:"detail"`
	}
	if json.Unmarshal(body, &doc) == nil {
		var inner struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(doc.Error, &inner) == nil && inner.Message != "":
			return inner.Message
		case json.Unmarshal(doc.Error, &s) == nil && s != "":
			return s
		case doc.Message != "":
			return doc.Message
		case doc.Detail != "":
			return doc.Detail
		}
	}
	text := strings.TrimSpace(string(body))
	if text == "" {
		return http.StatusText(status)
	}
	const maxLen = 300
	if len(text) > maxLen {
		cut := maxLen
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut] + "…"
	}
	return text
}

// Error kinds: what went wrong with a model call, in the words the chat's
// error card uses. ErrorKind returns one of them.
const (
	// KindRefused: nothing listens at the base URL (connection refused).
	KindRefused = "connection_refused"
	// KindUnreachable: the host is unknown, the network is down, the TLS
	// handshake failed, or the connection timed out or dropped before the
	// server answered.
	KindUnreachable = "unreachable"
	// KindAuth: the server refused the API key (401, 403).
	KindAuth = "auth"
	// KindNotFound: unknown model or wrong base URL (404).
	KindNotFound = "not_found"
	// KindRateLimit: too many requests or out of quota (429).
	KindRateLimit = "rate_limit"
	// KindTooLarge: the request does not fit the model (413, context length).
	KindTooLarge = "too_large"
	// KindBadRequest: the server rejected the request as malformed (other 4xx).
	KindBadRequest = "bad_request"
	// KindServer: the service itself failed (5xx, an error event in the stream).
	KindServer = "server"
	// KindNotAStream: the base URL answered, but not as a model API.
	KindNotAStream = "not_a_stream"
	// KindStreamCut: the answer broke off after it began.
	KindStreamCut = "stream_cut"
	// KindStalled: the stream sent nothing for the stall timeout.
	KindStalled = "stalled"
	// KindProvider: any other failure of the call.
	KindProvider = "provider"
)

// ErrorKind classifies the error of a failed Stream or Models call.
func ErrorKind(err error) string {
	var (
		stall   *StallError
		conn    *ConnError
		api     *APIError
		notOurs *notStreamError
	)
	switch {
	case err == nil:
		return ""
	case errors.As(err, &stall):
		return KindStalled
	case errors.Is(err, ErrStreamCut):
		return KindStreamCut
	case errors.As(err, &conn):
		if errors.Is(conn.Err, syscall.ECONNREFUSED) {
			return KindRefused
		}
		return KindUnreachable
	case errors.As(err, &notOurs):
		return KindNotAStream
	case errors.As(err, &api):
		switch s := api.Status; {
		case s == http.StatusUnauthorized, s == http.StatusForbidden:
			return KindAuth
		case s == http.StatusNotFound:
			return KindNotFound
		case s == http.StatusTooManyRequests:
			return KindRateLimit
		case s == http.StatusRequestEntityTooLarge, contextTooLong(api.Message):
			return KindTooLarge
		case s >= 500:
			return KindServer
		case s >= 400:
			return KindBadRequest
		}
	}
	return KindProvider
}

// contextTooLong reports whether an error message says the prompt exceeds
// the model's context (servers answer 400 with wordings like these).
func contextTooLong(msg string) bool {
	m := strings.ToLower(msg)
	for _, s := range []string{"context length", "context_length", "maximum context", "too many tokens", "prompt is too long", "context window"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// notStreamError is notAStream's error: the server answered 2xx with
// something other than an event stream.
type notStreamError struct{ msg string }

func (e *notStreamError) Error() string { return e.msg }
