package api

import (
	"tinyelf/backend/capabilities"
	"tinyelf/backend/config"
	"tinyelf/backend/engine"
	"tinyelf/backend/llm"
	"tinyelf/backend/mcp"
	"tinyelf/backend/sessions"
	"tinyelf/backend/tools"
)

// The types below are the service's vocabulary for its Go callers (the CLI,
// the window's binding). They are the lower packages' own types, re-exported
// here so that no surface has to reach past the service into the engine, the
// store or the MCP service.

// Event is what the service publishes: every logged session event (Seq > 0)
// and the live-only ones (Seq 0).
type Event = engine.Event

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

// ToolIntent is the data of an EventToolIntent event.
type ToolIntent = sessions.ToolIntent

// ToolResultEvent is the data of an EventToolResult event.
type ToolResultEvent = sessions.ToolResult

// ErrorEvent is the data of an EventError event.
type ErrorEvent = sessions.Error

// TurnResult is how a turn ended.
type TurnResult = engine.TurnResult

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
type Mode = engine.Mode

// The permission modes.
const (
	ModePlan        = engine.ModePlan
	ModeDefault     = engine.ModeDefault
	ModeAcceptEdits = engine.ModeAcceptEdits
	ModeAuto        = engine.ModeAuto
)

// ParseMode checks a permission mode's name; its error lists the valid ones.
func ParseMode(s string) (Mode, error) { return engine.ParseMode(s) }

// Approver answers approval requests for a service without a person at the
// UI (tinyelf run); see Options.Approver.
type Approver = engine.Approver

// ApproverFunc adapts a function to Approver.
type ApproverFunc = engine.ApproverFunc

// ApprovalRequest is a call waiting for a decision.
type ApprovalRequest = engine.ApprovalRequest

// ApprovalAnswer is the decision on an ApprovalRequest.
type ApprovalAnswer = engine.ApprovalAnswer

// The Kinds of approval card an MCP server's requests put up.
const (
	ApprovalElicitation = engine.ApprovalElicitation
	ApprovalSampling    = engine.ApprovalSampling
)

// Decision is how an approval was answered.
type Decision = engine.Decision

// The decisions.
const (
	AllowOnce   = engine.AllowOnce
	AllowAlways = engine.AllowAlways
	Deny        = engine.Deny
)

// LocalModelServer is a model server found on this machine (DetectLocal).
type LocalModelServer = llm.Detected

// Session is a session's list entry.
type Session = sessions.Session

// SearchHit is one full-text search match.
type SearchHit = sessions.SearchHit

// ReplayState is a session's state rebuilt from its log.
type ReplayState = sessions.ReplayState

// MCPServer is an MCP server's configuration.
type MCPServer = config.MCPServer

// MCPOAuth is an MCP server's OAuth client settings.
type MCPOAuth = config.MCPOAuth

// MCPServerState is what is known of a running MCP server.
type MCPServerState = mcp.ServerState

// MCPStatus is where an MCP server is in its life.
type MCPStatus = mcp.Status

// The MCP server statuses.
const (
	MCPDisabled     = mcp.StatusDisabled
	MCPStarting     = mcp.StatusStarting
	MCPConnected    = mcp.StatusConnected
	MCPRestarting   = mcp.StatusRestarting
	MCPFailed       = mcp.StatusFailed
	MCPDisconnected = mcp.StatusDisconnected
)

// MCPImportReport says what an MCP config import did.
type MCPImportReport = mcp.ImportReport

// MCPTestReport is what testing one MCP server found.
type MCPTestReport = mcp.TestReport

// ToolSource says where a tool comes from ("local", "mcp", ...).
type ToolSource = tools.Source

// ToolCallResult is the whole result of one tool call through the pipeline.
type ToolCallResult = tools.CallResult

// Environment variables the provider settings read (Options.Getenv).
const (
	EnvBaseURL  = config.EnvBaseURL
	EnvProvider = config.EnvProvider
	EnvModel    = config.EnvModel
	// EnvBridgeToken gives the MCP bridge its token (a secret).
	EnvBridgeToken = config.EnvBridgeToken
)

// HomeEnv is the variable that overrides the data folder.
const HomeEnv = config.HomeEnv

// DataDir returns the data folder ($TINYELF_HOME, or the user config folder
// plus /tinyelf), creating it when missing.
func DataDir() (string, error) { return config.DataDir() }

// CapabilitySearchResult is what SearchCapabilities found (the model's
// ToolSearch answer); CapabilitySearchItem is one hit of it.
type (
	CapabilitySearchResult = capabilities.SearchResult
	CapabilitySearchItem   = capabilities.SearchItem
)

// CheckCapabilityKind checks a capability kind's name ("" and "any" mean
// every kind); its error lists the valid ones.
func CheckCapabilityKind(s string) error {
	_, err := capabilities.ParseKind(s)
	return err
}

// CapabilityReplay is ReplayCapabilities' answer: every model call of a
// session with the visible set its log rebuilds, checked against what was
// sent; CapabilityCall is one call of it.
type (
	CapabilityReplay = sessions.CapabilityReplay
	CapabilityCall   = sessions.CapabilityCall
)
