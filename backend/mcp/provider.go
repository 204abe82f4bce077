package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"tinyelf/backend/tools"
)

// BuiltinPrefix starts the server name of every builtin provider:
// "tinyelf-" + Provider.Name(), so its tools read mcp__tinyelf-sessions__search.
const BuiltinPrefix = "tinyelf-"

// Caller says who is asking for builtin MCP tools; providers decide their
// eligibility from it. The engine puts one in the context when it builds an
// agent's tools, and the Bridge puts one (External) for CLI agents.
type Caller struct {
	// Agent is the agent profile's name ("default", a subagent's name).
	Agent string `json:"agent,omitempty"`
	// SessionID is the session the tools are built for.
	SessionID string `json:"sessionId,omitempty"`
	// Workspace is the session's workspace folder.
	Workspace string `json:"workspace,omitempty"`
	// Subagent is set for an agent spawned by another agent.
	Subagent bool `json:"subagent,omitempty"`
	// External is set for a CLI agent outside TinyElf (through the Bridge),
	// which lacks TinyElf's local tools.
	External bool `json:"external,omitempty"`
}

type callerKey struct{}

// WithCaller returns a context carrying c.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the Caller in ctx, if any.
func CallerFrom(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}

// Provider is one builtin MCP server (the seed's McpProvider). Its
// handlers are ordinary tools.Tool values: the registry serves them through
// an in-process mcp-go server, so agents reach them as MCP tools and the
// Bridge can expose them to CLI agents. Adding a provider is one file that
// implements this interface, plus one Register call.
type Provider interface {
	// Name is short and unique ("sessions"); the server is BuiltinPrefix+Name.
	Name() string
	// Description says what the provider offers (the server's instructions).
	Description() string
	// IsEligible reports whether the Caller in ctx (see CallerFrom) sees
	// this provider. It must be cheap and must not block.
	IsEligible(ctx context.Context) bool
	// Tools returns the provider's handlers for the Caller in ctx. Their
	// names must match [a-zA-Z0-9_-]{1,64}; they must be safe for concurrent
	// use and honour ctx.
	Tools(ctx context.Context) ([]tools.Tool, error)
}

// ProviderRegistry is the seed's McpProviderRegistry: the builtin providers,
// in registration order. It is safe for concurrent use.
type ProviderRegistry struct {
	mu        sync.RWMutex
	providers []Provider
}

// NewProviderRegistry returns a registry holding ps (nil providers are
// skipped; a duplicate name panics, as it is a programming error).
func NewProviderRegistry(ps ...Provider) *ProviderRegistry {
	r := &ProviderRegistry{}
	for _, p := range ps {
		if p == nil {
			continue
		}
		if err := r.Register(p); err != nil {
			panic(err)
		}
	}
	return r
}

// Register adds p; it fails when a provider of that name is already there.
func (r *ProviderRegistry) Register(p Provider) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if slices.ContainsFunc(r.providers, func(q Provider) bool { return q.Name() == p.Name() }) {
		return fmt.Errorf("builtin MCP provider %q is registered twice", p.Name())
	}
	r.providers = append(r.providers, p)
	return nil
}

// Providers returns every provider, in registration order.
func (r *ProviderRegistry) Providers() []Provider {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.providers)
}

// Eligible returns the providers the Caller in ctx sees.
func (r *ProviderRegistry) Eligible(ctx context.Context) []Provider {
	var out []Provider
	for _, p := range r.Providers() {
		if p.IsEligible(ctx) {
			out = append(out, p)
		}
	}
	return out
}

// NewServer returns an mcp-go server named name, reporting serverVersion
// as its version (TinyElf's, ClientVersion(), when empty), that serves
// ts, with opts added to its options. Calls run the tool with the given arguments
// (validated against its schema), its progress reported as
// notifications/progress when the caller asked, and its errors (a panic
// included) returned as error results.
func NewServer(name, serverVersion, instructions string, ts []tools.Tool, opts ...server.ServerOption) *server.MCPServer {
	if serverVersion == "" {
		serverVersion = ClientVersion()
	}
	s := server.NewMCPServer(name, serverVersion, append([]server.ServerOption{
		server.WithToolCapabilities(false),
		server.WithInstructions(instructions),
		server.WithInputSchemaValidation(),
	}, opts...)...)
	for _, t := range ts {
		s.AddTool(serverTool(t))
	}
	return s
}

// serverTool describes t to MCP clients and adapts its Execute.
func serverTool(t tools.Tool) (mcp.Tool, server.ToolHandlerFunc) {
	info := t.Info()
	name := info.Name
	params := info.Parameters
	if len(params) == 0 {
		params = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	ro, destructive := info.ReadOnly, !info.ReadOnly
	desc := info.Description
	if desc == "" {
		desc = name // the spec asks every listed tool for one
	}
	mt := mcp.Tool{Name: name, Description: desc, RawInputSchema: params,
		Annotations: mcp.ToolAnnotation{ReadOnlyHint: &ro, DestructiveHint: &destructive}}
	handler := func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		// In-process, ctx is the caller's own (mcp-go hands it through), so
		// tools.ReportProgress already reaches the caller, in order; the
		// notifications would arrive after the result. Other clients get
		// notifications/progress when they ask for them.
		_, inProcess := server.ClientSessionFromContext(ctx).(*server.InProcessSession)
		var last *atomic.Int64
		if !inProcess && req.Params.Meta != nil && req.Params.Meta.ProgressToken != nil {
			ctx, last = withProgressNotifications(ctx, req.Params.Meta.ProgressToken)
		}
		res := runLocal(ctx, t, req.GetArguments())
		if last != nil {
			settleProgress(last.Load())
		}
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(res.Content)}, IsError: res.IsError}, nil
	}
	return mt, handler
}

// withProgressNotifications makes tools.ReportProgress in ctx send
// notifications/progress for token to the calling client; last holds when
// the latest one was sent (unix nanoseconds, 0 for none).
func withProgressNotifications(ctx context.Context, token mcp.ProgressToken) (context.Context, *atomic.Int64) {
	last := &atomic.Int64{}
	srv := server.ServerFromContext(ctx)
	if srv == nil {
		return ctx, last
	}
	var n atomic.Int64
	return tools.WithProgress(ctx, func(msg string) {
		_ = srv.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), map[string]any{
			"progressToken": token, "progress": n.Add(1), "message": msg,
		})
		last.Store(time.Now().UnixNano())
	}), last
}

// progressSettle is how long a result waits after the latest progress
// notification. mcp-go's streamable HTTP server forwards notifications on
// a goroutine of its own, which can lose (or reorder) one queued just
// before the result is written; a tool that reports progress right before
// returning would otherwise see its last update dropped.
const progressSettle = 10 * time.Millisecond

func settleProgress(lastNanos int64) {
	if lastNanos == 0 {
		return
	}
	if wait := progressSettle - time.Since(time.Unix(0, lastNanos)); wait > 0 {
		time.Sleep(wait)
	}
}

// runLocal runs a provider's tool and turns a Go error or a panic into an
// error result, as the registry does for local tools.
func runLocal(ctx context.Context, t tools.Tool, args map[string]any) (res tools.Result) {
	defer func() {
		if p := recover(); p != nil {
			res = tools.Errorf("%s crashed: %v\n%s", t.Info().Name, p, debug.Stack())
		}
	}()
	if args == nil {
		args = map[string]any{}
	}
	r, err := t.Execute(ctx, args)
	if err != nil {
		return tools.Errorf("%s failed: %v", t.Info().Name, err)
	}
	return r
}

// funcTool is a provider handler written as a function.
type funcTool struct {
	info tools.Info
	run  func(ctx context.Context, params map[string]any) (tools.Result, error)
}

func (f funcTool) Info() tools.Info { return f.info }

func (f funcTool) Execute(ctx context.Context, params map[string]any) (tools.Result, error) {
	return f.run(ctx, params)
}
