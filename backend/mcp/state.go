package mcp

import (
	"fmt"
	"time"
)

// Status is where a server is in its life.
type Status string

// The statuses a server can be in. A server is only ever in one; its tools
// are offered only while it is StatusConnected.
const (
	// StatusDisabled: the user switched the server off; it is not started.
	StatusDisabled Status = "disabled"
	// StatusStarting: the process is starting or the handshake is running.
	StatusStarting Status = "starting"
	// StatusConnected: the handshake succeeded; its tools are offered.
	StatusConnected Status = "connected"
	// StatusRestarting: the connection was lost; another attempt follows at
	// ServerState.RetryAt (Detail says "restarting in 2s (attempt 1 of 5)").
	StatusRestarting Status = "restarting"
	// StatusFailed: the server could not be started, or kept failing; Error
	// and Stderr say why. It stays failed until Restart or a config change.
	StatusFailed Status = "failed"
	// StatusDisconnected: the service was closed (or its context ended).
	StatusDisconnected Status = "disconnected"
)

// ServerState is what the settings panel and the engine see of one server.
// It is a value: later changes do not show in a copy.
type ServerState struct {
	Name   string `json:"name"`
	Type   string `json:"type"` // TypeStdio, TypeHTTP or TypeSSE
	Status Status `json:"status"`
	// Detail is a one-line, human explanation of Status ("restarting in 2s
	// (attempt 1 of 5)", "connected over stdio, protocol 2025-11-25").
	Detail string `json:"detail,omitempty"`
	// Error is the last failure, kept while the server is restarting or
	// failed.
	Error string `json:"error,omitempty"`
	// Stderr holds the server's last StderrLines lines of stderr (stdio
	// only), and any non-JSON line it printed on stdout, prefixed "stdout: ".
	Stderr []string `json:"stderr,omitempty"`
	// RetryAt is when the next attempt starts, while restarting.
	RetryAt time.Time `json:"retryAt,omitzero"`
	// Attempt counts the restarts since the server last ran stably.
	Attempt int `json:"attempt,omitempty"`
	// ProtocolVersion is the MCP revision negotiated ("2025-11-25",
	// "2026-07-28"), and ServerName/ServerVersion what the server calls
	// itself, while connected.
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	ServerName      string `json:"serverName,omitempty"`
	ServerVersion   string `json:"serverVersion,omitempty"`
	// Tools are the names under which the server's tools are offered
	// (mcp__<server>__<tool>), while connected.
	Tools []string `json:"tools,omitempty"`
	// Prompts and Resources count what the server offers, while connected.
	Prompts   int `json:"prompts,omitempty"`
	Resources int `json:"resources,omitempty"`
	// Since is when the server entered Status.
	Since time.Time `json:"since"`
	// Auth is the OAuth sign-in of an http or sse server (nil for stdio
	// servers and for servers with a fixed Authorization header).
	Auth *AuthState `json:"auth,omitempty"`
}

// Change reports that a server's state or tools changed. Added and Removed
// list tool names across the whole service (a new server's tools, a lost
// server's tools, or a tools/list_changed refresh), so the engine can log a
// capability.diff from it directly.
type Change struct {
	Server  string      `json:"server"`
	State   ServerState `json:"state"`
	Added   []string    `json:"added,omitempty"`
	Removed []string    `json:"removed,omitempty"`
	// Reason says what happened, for the log: "connected", "failed: ...",
	// "connection lost: exited with status 2", "tools/list_changed".
	Reason string `json:"reason"`
}

// restartDetail is the Detail of a restarting server.
func restartDetail(in time.Duration, attempt, max int) string {
	return fmt.Sprintf("restarting in %s (attempt %d of %d)", in.Round(time.Second/10), attempt, max)
}
