package api

import (
	"context"
	"encoding/json"
	"time"

	"tinyelf/backend/capabilities"
	"tinyelf/backend/config"
	"tinyelf/backend/engine"
	"tinyelf/backend/llm"
	"tinyelf/backend/mcp"
	"tinyelf/backend/sessions"
	"tinyelf/backend/tools"
)

// The types below are the service's vocabulary for its Go callers (the
// CLI; the window only passes events on): shapes of the service's own,
// with the JSON the browser and the window read, that the service fills
// from the lower packages' values. A caller names them instead of the
// engine's, the store's or the MCP service's types, so that none of them
// imports a package below this one. Values a caller only reads fields of,
// or prints as JSON, keep the lower packages' types (a session's list
// entry, a search hit, an MCP test report).

// Event is what the service publishes: every logged session event (Seq > 0)
// and the live-only ones (Seq 0). Data is the event's JSON payload, as the
// browser receives it.
type Event struct {
	SessionID string `json:"sessionId"`
	// ParentID and RootID are set on a subagent's events: the session that
	// spawned it, and the top-level session above them all.
	ParentID string          `json:"parentId,omitempty"`
	RootID   string          `json:"rootId,omitempty"`
	Seq      int64           `json:"seq,omitempty"`
	Type     string          `json:"type"`
	Time     time.Time       `json:"time"`
	Data     json.RawMessage `json:"data"`
}

// eventOf is the service's Event for an engine event.
func eventOf(ev engine.Event) Event { return Event(ev) }

// Event types a surface reacts to; the others are for the UI's projections.
const (
	LiveMessageDelta  = engine.LiveMessageDelta // {"text"}
	LiveRetry         = engine.LiveRetry        // {"delayMs", "error"}
	LiveToolProgress  = engine.LiveToolProgress // {"callId", "message"}
	LiveTurnState     = engine.LiveTurnState    // {"running"}
	EventToolIntent   = string(sessions.EventToolIntent)
	EventToolResult   = string(sessions.EventToolResult)
	EventError        = string(sessions.EventError)
	EventTurnEnd      = string(sessions.EventTurnEnd)
	EventUserMessage  = string(sessions.EventUserMessage)
	EventAssistantMsg = string(sessions.EventAssistantMessage)
)

// TurnResult is how a turn ended.
type TurnResult struct {
	// Reason is one of the End* values.
	Reason string `json:"reason"`
	// Text is the final assistant text (or the yield message).
	Text       string    `json:"text"`
	Iterations int       `json:"iterations"`
	Usage      llm.Usage `json:"usage"`
	Err        string    `json:"error,omitempty"`
}

func turnResultOf(r engine.TurnResult) TurnResult {
	return TurnResult{Reason: r.Reason, Text: r.Text, Iterations: r.Iterations, Usage: r.Usage, Err: r.Err}
}

// Turn end reasons (TurnResult.Reason).
const (
	EndDone          = engine.EndDone
	EndYield         = engine.EndYield
	EndMaxIterations = engine.EndMaxIterations
	EndCancelled     = engine.EndCancelled
	EndError         = engine.EndError
	// EndBlocked: a hook refused the message or stopped the agent.
	EndBlocked = engine.EndBlocked
)

// Mode is a permission mode.
type Mode string

// The permission modes.
const (
	ModePlan        Mode = Mode(engine.ModePlan)
	ModeDefault     Mode = Mode(engine.ModeDefault)
	ModeAcceptEdits Mode = Mode(engine.ModeAcceptEdits)
	ModeAuto        Mode = Mode(engine.ModeAuto)
)

// ParseMode checks a permission mode's name; its error lists the valid ones.
func ParseMode(s string) (Mode, error) {
	m, err := engine.ParseMode(s)
	return Mode(m), err
}

// Approver answers approval requests for a service without a person at the
// UI (tinyelf run); see Options.Approver. It is called from the engine's
// goroutines, one request at a time per call but several calls at once.
type Approver interface {
	Ask(ctx context.Context, req ApprovalRequest) (ApprovalAnswer, error)
}

// ApproverFunc adapts a function to Approver.
type ApproverFunc func(ctx context.Context, req ApprovalRequest) (ApprovalAnswer, error)

// Ask calls f.
func (f ApproverFunc) Ask(ctx context.Context, req ApprovalRequest) (ApprovalAnswer, error) {
	return f(ctx, req)
}

// ApprovalRequest is a call waiting for a decision, or a question put on
// the approval card (Kind says which).
type ApprovalRequest struct {
	SessionID string   `json:"sessionId"`
	CallID    string   `json:"callId"`
	Tool      string   `json:"tool"`
	Arguments string   `json:"arguments"`
	Warnings  []string `json:"warnings,omitempty"`
	// Suggestion is what "allow always" saves ("Bash(git status:*)").
	Suggestion string `json:"suggestion,omitempty"`
	// Hold says why the call is asked about in every mode.
	Hold string `json:"hold,omitempty"`
	// OnceOnly says why the call can only be allowed once.
	OnceOnly string `json:"onceOnly,omitempty"`
	// Kind is "" for a tool call's permission, or ApprovalElicitation,
	// ApprovalSampling, a skill's or the project hooks' trust; Question
	// is then what the card asks.
	Kind     string `json:"kind,omitempty"`
	Question string `json:"question,omitempty"`
	Skill    string `json:"skill,omitempty"`
	// Server is the MCP server behind an elicitation or sampling request;
	// Schema an elicitation's form, URL the page it opens, MaxTokens a
	// sampling request's limit.
	Server    string          `json:"server,omitempty"`
	Schema    json.RawMessage `json:"schema,omitempty"`
	URL       string          `json:"url,omitempty"`
	MaxTokens int             `json:"maxTokens,omitempty"`
}

// ApprovalAnswer is the decision on an ApprovalRequest, with an optional
// reason the model reads; Content is an elicitation form's values.
type ApprovalAnswer struct {
	Decision Decision       `json:"decision"`
	Reason   string         `json:"reason,omitempty"`
	Content  map[string]any `json:"content,omitempty"`
}

// Decision is how an approval was answered.
type Decision string

// The decisions.
const (
	AllowOnce   Decision = Decision(engine.AllowOnce)
	AllowAlways Decision = Decision(engine.AllowAlways)
	Deny        Decision = Decision(engine.Deny)
)

// The Kinds of approval card an MCP server's requests put up.
const (
	ApprovalElicitation = engine.ApprovalElicitation
	ApprovalSampling    = engine.ApprovalSampling
)

// engineApprover lets an Approver answer the engine's requests.
type engineApprover struct{ a Approver }

func (e engineApprover) Ask(ctx context.Context, r engine.ApprovalRequest) (engine.ApprovalAnswer, error) {
	ans, err := e.a.Ask(ctx, ApprovalRequest{
		SessionID: r.SessionID, CallID: r.CallID, Tool: r.Tool, Arguments: r.Arguments, Warnings: r.Warnings,
		Suggestion: r.Suggestion, Hold: r.Hold, OnceOnly: r.OnceOnly, Kind: r.Kind, Question: r.Question, Skill: r.Skill,
		Server: r.Server, Schema: r.Schema, URL: r.URL, MaxTokens: r.MaxTokens,
	})
	return engine.ApprovalAnswer{Decision: engine.Decision(ans.Decision), Reason: ans.Reason, Content: ans.Content}, err
}

// ToolCallResult is the whole result of one tool call through the pipeline.
type ToolCallResult struct {
	CallID  string         `json:"callId"`
	Name    string         `json:"name"`
	Params  map[string]any `json:"params,omitempty"`
	Content string         `json:"content"`
	IsError bool           `json:"isError,omitempty"`
	// Invalid marks a call refused before it ran (arguments that did not
	// match the schema).
	Invalid   bool           `json:"invalid,omitempty"`
	Truncated bool           `json:"truncated,omitempty"`
	Meta      map[string]any `json:"meta,omitempty"`
	Duration  time.Duration  `json:"duration"`
}

func toolCallResultOf(r tools.CallResult) ToolCallResult {
	return ToolCallResult{CallID: r.CallID, Name: r.Name, Params: r.Params, Content: r.Content, IsError: r.IsError,
		Invalid: r.Invalid, Truncated: r.Truncated, Meta: r.Meta, Duration: r.Duration}
}

// MCPServer is an MCP server's configuration, as the settings file holds
// it.
type MCPServer struct {
	Name     string            `json:"name"`
	Type     string            `json:"type,omitempty"` // "stdio" (default), "http", "sse"
	Command  string            `json:"command,omitempty"`
	Args     []string          `json:"args,omitempty"`
	Env      map[string]string `json:"env,omitempty"`
	Cwd      string            `json:"cwd,omitempty"`
	URL      string            `json:"url,omitempty"`
	Headers  map[string]string `json:"headers,omitempty"`
	Disabled bool              `json:"disabled,omitempty"`
	// TimeoutSeconds bounds the server's start and each request (0: the
	// default).
	TimeoutSeconds int `json:"timeoutSeconds,omitempty"`
	// OAuth configures an http or sse server's sign-in.
	OAuth *MCPOAuth `json:"oauth,omitempty"`
}

// MCPOAuth is an MCP server's OAuth client settings.
type MCPOAuth struct {
	ClientID     string `json:"clientId,omitempty"`
	ClientSecret string `json:"clientSecret,omitempty"`
	// AuthMethod is how the client authenticates at the token endpoint.
	AuthMethod string   `json:"authMethod,omitempty"`
	Scopes     []string `json:"scopes,omitempty"`
	// Grant is "authorization_code" (default) or "client_credentials".
	Grant string `json:"grant,omitempty"`
}

func mcpServerOf(c config.MCPServer) MCPServer {
	s := MCPServer{Name: c.Name, Type: c.Type, Command: c.Command, Args: c.Args, Env: c.Env, Cwd: c.Cwd, URL: c.URL,
		Headers: c.Headers, Disabled: c.Disabled, TimeoutSeconds: c.TimeoutSeconds}
	if c.OAuth != nil {
		s.OAuth = &MCPOAuth{ClientID: c.OAuth.ClientID, ClientSecret: c.OAuth.ClientSecret, AuthMethod: c.OAuth.AuthMethod,
			Scopes: c.OAuth.Scopes, Grant: c.OAuth.Grant}
	}
	return s
}

func (s MCPServer) config() config.MCPServer {
	c := config.MCPServer{Name: s.Name, Type: s.Type, Command: s.Command, Args: s.Args, Env: s.Env, Cwd: s.Cwd, URL: s.URL,
		Headers: s.Headers, Disabled: s.Disabled, TimeoutSeconds: s.TimeoutSeconds}
	if s.OAuth != nil {
		c.OAuth = &config.MCPOAuth{ClientID: s.OAuth.ClientID, ClientSecret: s.OAuth.ClientSecret, AuthMethod: s.OAuth.AuthMethod,
			Scopes: s.OAuth.Scopes, Grant: s.OAuth.Grant}
	}
	return c
}

// MCPServerState is what is known of a running MCP server.
type MCPServerState struct {
	Name   string    `json:"name"`
	Type   string    `json:"type"`
	Status MCPStatus `json:"status"`
	// Detail explains Status in one line; Error is the last failure.
	Detail string `json:"detail,omitempty"`
	Error  string `json:"error,omitempty"`
	// Stderr holds the server's last lines of stderr (stdio only).
	Stderr []string `json:"stderr,omitempty"`
	// RetryAt is when the next attempt starts, while restarting; Attempt
	// counts the restarts since the server last ran stably.
	RetryAt time.Time `json:"retryAt,omitzero"`
	Attempt int       `json:"attempt,omitempty"`
	// ProtocolVersion, ServerName and ServerVersion are what was
	// negotiated, while connected.
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	ServerName      string `json:"serverName,omitempty"`
	ServerVersion   string `json:"serverVersion,omitempty"`
	// Tools are the names its tools are offered under; Prompts and
	// Resources count what it offers, while connected.
	Tools     []string `json:"tools,omitempty"`
	Prompts   int      `json:"prompts,omitempty"`
	Resources int      `json:"resources,omitempty"`
	// Since is when the server entered Status.
	Since time.Time `json:"since"`
	// Auth is the OAuth sign-in of an http or sse server.
	Auth *mcp.AuthState `json:"auth,omitempty"`
}

func mcpStatesOf(states []mcp.ServerState) []MCPServerState {
	if states == nil {
		return nil
	}
	out := make([]MCPServerState, len(states))
	for i, st := range states {
		out[i] = MCPServerState{Name: st.Name, Type: st.Type, Status: MCPStatus(st.Status), Detail: st.Detail, Error: st.Error,
			Stderr: st.Stderr, RetryAt: st.RetryAt, Attempt: st.Attempt, ProtocolVersion: st.ProtocolVersion,
			ServerName: st.ServerName, ServerVersion: st.ServerVersion, Tools: st.Tools, Prompts: st.Prompts,
			Resources: st.Resources, Since: st.Since, Auth: st.Auth}
	}
	return out
}

// MCPStatus is where an MCP server is in its life.
type MCPStatus string

// The MCP server statuses.
const (
	MCPDisabled     = MCPStatus(mcp.StatusDisabled)
	MCPStarting     = MCPStatus(mcp.StatusStarting)
	MCPConnected    = MCPStatus(mcp.StatusConnected)
	MCPRestarting   = MCPStatus(mcp.StatusRestarting)
	MCPFailed       = MCPStatus(mcp.StatusFailed)
	MCPDisconnected = MCPStatus(mcp.StatusDisconnected)
)

// Environment variables the provider settings read (Options.Getenv).
const (
	EnvBaseURL  = config.EnvBaseURL
	EnvProvider = config.EnvProvider
	EnvModel    = config.EnvModel
	// EnvBridgeToken gives the MCP bridge its token (a secret).
	EnvBridgeToken = config.EnvBridgeToken
)

// DataDir returns the data folder ($TINYELF_HOME, or the user config folder
// plus /tinyelf), creating it when missing.
func DataDir() (string, error) { return config.DataDir() }

// CapabilitySearchResult is what SearchCapabilities found (the model's
// ToolSearch answer); CapabilitySearchItem is one hit of it.
type CapabilitySearchResult struct {
	Query string                 `json:"query"`
	Items []CapabilitySearchItem `json:"items"`
	// Note tells of a cut query or hits left out for the budget.
	Note string `json:"note,omitempty"`
}

// CapabilitySearchItem is one capability a search found.
type CapabilitySearchItem struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Source  string `json:"source"`
	Risk    string `json:"risk"`
	Summary string `json:"summary"`
	// Why says what matched; Use how to use it.
	Why string `json:"why"`
	Use string `json:"use"`
	// State is its standing before the search.
	State  string `json:"state"`
	Tokens int    `json:"tokens"`
}

func searchResultOf(r capabilities.SearchResult) CapabilitySearchResult {
	out := CapabilitySearchResult{Query: r.Query, Note: r.Note}
	if r.Items != nil {
		out.Items = make([]CapabilitySearchItem, len(r.Items))
	}
	for i, it := range r.Items {
		out.Items[i] = CapabilitySearchItem{ID: it.ID, Name: it.Name, Kind: string(it.Kind), Source: it.Source, Risk: string(it.Risk),
			Summary: it.Summary, Why: it.Why, Use: it.Use, State: string(it.State), Tokens: it.Tokens}
	}
	return out
}

// CheckCapabilityKind checks a capability kind's name ("" and "any" mean
// every kind); its error lists the valid ones.
func CheckCapabilityKind(s string) error {
	_, err := capabilities.ParseKind(s)
	return err
}

// CapabilityReplay is ReplayCapabilities' answer: every model call of a
// session with the visible set its log rebuilds, checked against what was
// sent.
type CapabilityReplay struct {
	SessionID  string           `json:"sessionId"`
	Calls      []CapabilityCall `json:"calls"`
	Mismatches int              `json:"mismatches"`
}

// CapabilityCall is one model call of a CapabilityReplay: the turn and
// iteration, the event, the rebuilt visible and deferred tools, what
// changed since the call before and why, the digest and tool tokens, and
// the mismatch with what was sent ("" when it matches).
type CapabilityCall struct {
	Turn       int      `json:"turn"`
	Iteration  int      `json:"iteration"`
	Seq        int64    `json:"seq"`
	Visible    []string `json:"visible"`
	Deferred   []string `json:"deferred,omitempty"`
	Added      []string `json:"added,omitempty"`
	Removed    []string `json:"removed,omitempty"`
	Reasons    []string `json:"reasons,omitempty"`
	Digest     string   `json:"digest"`
	ToolTokens int      `json:"toolTokens"`
	Mismatch   string   `json:"mismatch,omitempty"`
}

func replayOf(r *sessions.CapabilityReplay) *CapabilityReplay {
	if r == nil {
		return nil
	}
	out := &CapabilityReplay{SessionID: r.SessionID, Mismatches: r.Mismatches}
	if r.Calls != nil {
		out.Calls = make([]CapabilityCall, len(r.Calls))
	}
	for i, c := range r.Calls {
		out.Calls[i] = CapabilityCall(c)
	}
	return out
}
