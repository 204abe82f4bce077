package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// mcp-go's Initialize probes with server/discover and takes any successful
// answer as proof of a 2026-07-28 server. Legacy servers that answer every
// unknown method with an empty result (the conformance suite's initialize
// scenario does) then look modern: no initialize is ever sent and the
// server offers nothing. The transports below check the answer first: one
// that is not a DiscoverResult becomes an error, which makes mcp-go fall
// back to the initialize handshake, as the spec's stdio backward
// compatibility rules ask ("the server returns any other error: the server
// is legacy").

// guardedStdio, guardedHTTP and guardedSSE are mcp-go's transports with
// the server/discover check. Embedding keeps every optional interface the
// client looks for (HTTPConnection, the connection-lost hook, the
// bidirectional request handler).
type (
	guardedStdio struct{ *transport.Stdio }
	guardedSSE   struct{ *transport.SSE }
)

// guardedHTTP also opens its HTTP stack's gate for the standalone GET
// stream once notifications/initialized is sent, and answers the server's
// requests that wait for a person (see SetRequestHandler).
type guardedHTTP struct {
	*transport.StreamableHTTP
	hh      *connHTTP
	hc      *http.Client
	url     string
	headers map[string]string
	version atomic.Value // string: the revision initialize negotiated
}

func (t guardedStdio) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	resp, err := t.Stdio.SendRequest(ctx, req)
	return checkDiscover(req, resp, err)
}

func (t *guardedHTTP) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	resp, err := t.StreamableHTTP.SendRequest(ctx, req)
	if err == nil && resp != nil && resp.Error == nil && req.Method == string(mcp.MethodInitialize) {
		var res struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if json.Unmarshal(resp.Result, &res) == nil {
			t.version.Store(res.ProtocolVersion)
		}
	}
	return checkDiscover(req, resp, err)
}

// SendNotification sends n; after notifications/initialized the GET
// stream may open.
func (t *guardedHTTP) SendNotification(ctx context.Context, n mcp.JSONRPCNotification) error {
	err := t.StreamableHTTP.SendNotification(ctx, n)
	if err == nil && n.Method == string(mcp.MethodNotificationInitialized) {
		v, _ := t.version.Load().(string)
		t.hh.initialized(v)
	}
	return err
}

// SetRequestHandler installs h for the server's requests. mcp-go gives a
// handler 30 seconds and answers with that context; a person filling a
// form or reading a sampling request takes longer. Those requests
// (elicitation/create, sampling/createMessage) are answered here instead:
// h runs without mcp-go's deadline (the call's own context bounds it, see
// callRef) and its answer is posted to the server by this transport.
func (t *guardedHTTP) SetRequestHandler(h transport.RequestHandler) {
	t.StreamableHTTP.SetRequestHandler(func(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
		if req.Method != string(mcp.MethodElicitationCreate) && req.Method != string(mcp.MethodSamplingCreateMessage) {
			return h(ctx, req)
		}
		hctx := context.WithoutCancel(ctx)
		cancel := func() {}
		if ref, ok := ctx.Value(callRefKey{}).(*callRef); !ok || ref.ctx == nil {
			hctx, cancel = context.WithTimeout(hctx, serverRequestWait)
		}
		go func() {
			defer cancel()
			resp, err := h(hctx, req)
			if err != nil {
				resp = transport.NewJSONRPCErrorResponse(req.ID, mcp.INTERNAL_ERROR, err.Error(), nil)
			}
			if resp != nil {
				t.answer(resp)
			}
		}()
		return nil, nil // answered by answer
	})
}

// answer posts a response to a server request, as mcp-go would.
func (t *guardedHTTP) answer(resp *transport.JSONRPCResponse) {
	body, err := json.Marshal(resp)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(body))
	if err != nil {
		return
	}
	for k, v := range t.headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if id := t.GetSessionId(); id != "" {
		req.Header.Set(transport.HeaderKeySessionID, id)
	}
	if v, _ := t.version.Load().(string); v != "" {
		req.Header.Set(transport.HeaderKeyProtocolVersion, v)
	}
	r, err := t.hc.Do(req)
	if err != nil {
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, 64<<10))
	r.Body.Close()
}

func (t guardedSSE) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	resp, err := t.SSE.SendRequest(ctx, req)
	return checkDiscover(req, resp, err)
}

// checkDiscover passes every answer through except a server/discover result
// that lacks what a DiscoverResult must carry: a non-empty supportedVersions
// list of strings and a capabilities object. Such an answer becomes a plain
// JSON-RPC error, so the client falls back to initialize. A valid answer
// that does not list the version asked for, but lists another modern one
// both sides speak, becomes UnsupportedProtocolVersionError, on which the
// client renegotiates instead of falling back.
func checkDiscover(req transport.JSONRPCRequest, resp *transport.JSONRPCResponse, err error) (*transport.JSONRPCResponse, error) {
	if err != nil || resp == nil || resp.Error != nil || req.Method != string(mcp.MethodServerDiscover) {
		return resp, err
	}
	var res struct {
		SupportedVersions []string        `json:"supportedVersions"`
		Capabilities      json.RawMessage `json:"capabilities"`
	}
	problem := ""
	switch {
	case json.Unmarshal(resp.Result, &res) != nil:
		problem = "is not a DiscoverResult object"
	case len(res.SupportedVersions) == 0:
		problem = "has no supportedVersions"
	case !isJSONObject(res.Capabilities):
		problem = "has no capabilities object"
	}
	if problem == "" {
		requested := requestedVersion(req.Params)
		if requested == "" || slices.Contains(res.SupportedVersions, requested) {
			return resp, nil
		}
		if v := mcp.NegotiateMutuallySupportedVersion(res.SupportedVersions); mcp.IsModernProtocol(v) {
			return withError(resp, mcp.UNSUPPORTED_PROTOCOL_VERSION, fmt.Sprintf("server/discover: %s is not among the supported versions %v", requested, res.SupportedVersions),
				mcp.UnsupportedProtocolVersionData{Supported: res.SupportedVersions, Requested: requested}), nil
		}
		problem = fmt.Sprintf("lists no version TinyElf speaks without the initialize handshake (%v)", res.SupportedVersions)
	}
	return withError(resp, mcp.INVALID_REQUEST, "the server/discover answer "+problem+"; treating the server as one that needs the initialize handshake", nil), nil
}

func withError(resp *transport.JSONRPCResponse, code int, msg string, data any) *transport.JSONRPCResponse {
	return &transport.JSONRPCResponse{JSONRPC: resp.JSONRPC, ID: resp.ID,
		Error: &mcp.JSONRPCErrorDetails{Code: code, Message: msg, Data: data}}
}

func isJSONObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return len(raw) > 0 && json.Unmarshal(raw, &m) == nil && m != nil
}

// requestedVersion reads the protocol version a request declared in its
// _meta, "" when it declared none.
func requestedVersion(params any) string {
	b, err := json.Marshal(params)
	if err != nil {
		return ""
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	var v string
	if json.Unmarshal(b, &p) == nil {
		_ = json.Unmarshal(p.Meta[mcp.MetaKeyProtocolVersion], &v)
	}
	return v
}
