package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

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
	guardedHTTP  struct{ *transport.StreamableHTTP }
	guardedSSE   struct{ *transport.SSE }
)

func (t guardedStdio) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	resp, err := t.Stdio.SendRequest(ctx, req)
	return checkDiscover(req, resp, err)
}

func (t guardedHTTP) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	resp, err := t.StreamableHTTP.SendRequest(ctx, req)
	return checkDiscover(req, resp, err)
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
