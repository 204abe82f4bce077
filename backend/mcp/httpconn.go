package mcp

import (
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/client/transport"
)

// connHTTP is the HTTP stack of one streamable HTTP or SSE connection,
// below mcp-go's transport. It holds the standalone GET stream back until
// the handshake is over (mcp-go opens it as soon as the initialize answer
// arrives, before notifications/initialized goes out), and puts the
// negotiated MCP-Protocol-Version on every request after the handshake
// that lacks it (the GET stream's first request can race mcp-go's own
// setting of it).
type connHTTP struct {
	base http.RoundTripper

	version  atomic.Value // string: the negotiated revision, once known
	initOnce sync.Once
	init     chan struct{} // closed once notifications/initialized was sent

	getOnce sync.Once
	got     chan struct{} // closed once the first GET stream was answered
}

func newConnHTTP(base http.RoundTripper) *connHTTP {
	if base == nil {
		base = http.DefaultTransport
	}
	return &connHTTP{base: base, init: make(chan struct{}), got: make(chan struct{})}
}

// initialized opens the gate: the handshake is complete.
func (h *connHTTP) initialized(version string) {
	if version != "" {
		h.version.Store(version)
	}
	h.initOnce.Do(func() { close(h.init) })
}

// RoundTrip implements http.RoundTripper.
func (h *connHTTP) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodGet {
		select {
		case <-h.init:
		case <-req.Context().Done():
			if req.Body != nil {
				req.Body.Close()
			}
			return nil, req.Context().Err()
		}
	}
	if v, _ := h.version.Load().(string); v != "" && req.Header.Get(transport.HeaderKeyProtocolVersion) == "" {
		req = req.Clone(req.Context())
		req.Header.Set(transport.HeaderKeyProtocolVersion, v)
	}
	resp, err := h.base.RoundTrip(req)
	if req.Method == http.MethodGet {
		h.getOnce.Do(func() { close(h.got) })
	}
	return resp, err
}

// streamAnswered is closed once the server answered the first GET (the
// stream is open, or the server said it offers none).
func (h *connHTTP) streamAnswered() <-chan struct{} { return h.got }
