package mcp

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"tinyelf/backend/config"
)

// legacyHTTPServer is a hand-written server of the 2025-11-25 era, shaped
// like the MCP conformance suite's initialize scenario: it answers
// server/discover with discover (raw JSON, or a method-not-found error
// when empty) and any other method it does not know with an empty result.
type legacyHTTPServer struct {
	discover string

	mu      sync.Mutex
	methods []string
}

func (l *legacyHTTPServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"params"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	l.mu.Lock()
	l.methods = append(l.methods, req.Method)
	l.mu.Unlock()
	if len(req.ID) == 0 { // a notification
		w.WriteHeader(http.StatusAccepted)
		return
	}
	var result string
	switch req.Method {
	case "initialize":
		v := req.Params.ProtocolVersion
		if v != mcp.ProtocolVersion20251125 && v != "2025-06-18" {
			v = mcp.ProtocolVersion20251125
		}
		result = `{"protocolVersion":"` + v + `","serverInfo":{"name":"legacy","version":"1.0.0"},"capabilities":{"tools":{}}}`
	case "tools/list":
		result = `{"tools":[{"name":"probe","description":"Says hello.","inputSchema":{"type":"object"}}]}`
	case "server/discover":
		if l.discover == "" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"error":{"code":-32601,"message":"Method not found"}}`))
			return
		}
		result = l.discover
	default:
		result = `{}`
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":` + result + `}`))
}

func (l *legacyHTTPServer) seen() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.methods)
}

// TestDiscoverAnswerWithoutRequiredFields: a server/discover answer that is
// not a DiscoverResult does not make a server modern; the client falls back
// to initialize and finds the server's tools.
func TestDiscoverAnswerWithoutRequiredFields(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		discover string
	}{
		{"empty result (the conformance suite's initialize scenario)", `{}`},
		{"no capabilities", `{"supportedVersions":["2026-07-28"]}`},
		{"empty supportedVersions", `{"supportedVersions":[],"capabilities":{}}`},
		{"capabilities not an object", `{"supportedVersions":["2026-07-28"],"capabilities":"all"}`},
		{"no version TinyElf speaks", `{"supportedVersions":["2099-01-01"],"capabilities":{"tools":{}}}`},
		{"method not found", ``},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := &legacyHTTPServer{discover: tc.discover}
			ts := httptest.NewServer(srv)
			t.Cleanup(ts.Close)
			svc, _ := startService(t, testOptions(), config.MCPServer{Name: "legacy", Type: TypeHTTP, URL: ts.URL})
			st, _ := svc.State("legacy")
			if st.Status != StatusConnected || mcp.IsModernProtocol(st.ProtocolVersion) {
				t.Fatalf("state %+v: want connected on a pre-2026-07-28 protocol", st)
			}
			if names := toolNames(svc.Tools()); !slices.Contains(names, "mcp__legacy__probe") {
				t.Errorf("tools %v: the server's tool was not listed", names)
			}
			if m := srv.seen(); !slices.Contains(m, "initialize") || !slices.Contains(m, "notifications/initialized") {
				t.Errorf("methods received %v: no initialize handshake", m)
			}
		})
	}
}

// TestCheckDiscover covers the answers the transports let through or
// rewrite.
func TestCheckDiscover(t *testing.T) {
	t.Parallel()
	req := func(version string) transport.JSONRPCRequest {
		return transport.JSONRPCRequest{Method: string(mcp.MethodServerDiscover),
			Params: map[string]any{"_meta": map[string]any{mcp.MetaKeyProtocolVersion: version}}}
	}
	resp := func(result string) *transport.JSONRPCResponse {
		return &transport.JSONRPCResponse{JSONRPC: "2.0", Result: json.RawMessage(result)}
	}
	valid := `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"public"}`
	tests := []struct {
		name    string
		req     transport.JSONRPCRequest
		resp    *transport.JSONRPCResponse
		wantErr error // nil: passed through unchanged
	}{
		{"valid answer", req("2026-07-28"), resp(valid), nil},
		{"other methods are not checked", transport.JSONRPCRequest{Method: "tools/list"}, resp(`{}`), nil},
		{"empty answer", req("2026-07-28"), resp(`{}`), mcp.ErrInvalidRequest},
		{"not an object", req("2026-07-28"), resp(`[1]`), mcp.ErrInvalidRequest},
		{"asked version missing, another modern one shared", req("2099-01-01"), resp(valid), mcp.UnsupportedProtocolVersionError{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := checkDiscover(tc.req, tc.resp, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantErr == nil {
				if got != tc.resp {
					t.Errorf("answer rewritten: %+v", got.Error)
				}
				return
			}
			if got.Error == nil || !errors.Is(got.Error.AsError(), tc.wantErr) {
				t.Fatalf("error %+v, want %v", got.Error, tc.wantErr)
			}
			if u := (mcp.UnsupportedProtocolVersionError{}); errors.As(got.Error.AsError(), &u) && !slices.Contains(u.Supported, "2026-07-28") {
				t.Errorf("supported versions lost: %+v", u)
			}
		})
	}
}
