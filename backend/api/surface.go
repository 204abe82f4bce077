package api

import (
	"context"
	"encoding/json"
	"io/fs"
	"path/filepath"
	"time"

	"tinyelf/backend/engine"
	"tinyelf/backend/sessions"
)

// The methods in this file are for the service's Go callers (the CLI, the
// window's binding, the HTTP server); the UI calls the method table instead
// (Methods), so they are not in it.

// Subscribe returns a channel of every event the service publishes and the
// function that ends the subscription (closing the channel). A subscriber
// that falls behind loses events and then receives a LaggedEvent.
func (s *Service) Subscribe() (<-chan Event, func()) { return s.bus.Subscribe() }

// Warnings returns the problems met while opening, one sentence each for a
// person: a settings file that did not parse and was set aside (naming the
// copy), or one written by a newer TinyElf. A command prints them once; the
// UI shows them as banners.
func (s *Service) Warnings() []string {
	var out []string
	if w := s.settings.Warning(); w != "" {
		out = append(out, w)
	}
	if w := s.skills.Warning(); w != "" {
		out = append(out, w)
	}
	return out
}

// HTTPOptions configures the HTTP server of a service (NewHTTPServer).
type HTTPOptions struct {
	// Assets is the built frontend; nil serves a page saying it is missing.
	Assets fs.FS
	// Token is the secret every API request (and, with AllowRemote, every
	// request) must carry; "" makes a random one.
	Token string
	// AllowRemote lets Listen accept an address other interfaces can reach.
	AllowRemote bool
}

// NewHTTPServer returns the server that offers this service's methods and
// events to a browser (tinyelf serve).
func (s *Service) NewHTTPServer(o HTTPOptions) *HTTPServer {
	if o.Token == "" {
		o.Token = NewToken()
	}
	return &HTTPServer{Methods: s.Methods(), Bus: s.bus, Assets: o.Assets, Token: o.Token, Version: s.opts.Version, AllowRemote: o.AllowRemote}
}

// StartSessionArgs starts a session for a headless run. Workspace must be
// an existing folder; empty fields take the settings' defaults. Unlike
// CreateSession it does not remember the folder as the last one used.
type StartSessionArgs struct {
	Workspace string
	Mode      Mode
	Agent     string
}

// StartSession creates a session and returns its ID.
func (s *Service) StartSession(ctx context.Context, a StartSessionArgs) (string, error) {
	ws, err := filepath.Abs(a.Workspace)
	if err != nil {
		return "", invalidf("workspace %q: %v", a.Workspace, err)
	}
	id, err := s.engine.NewSession(ctx, ws, engine.Mode(a.Mode), a.Agent, "", "")
	return id, mapErr(err)
}

// Session returns a session's list entry; its error has CodeNotFound when
// there is no such session.
func (s *Service) Session(ctx context.Context, id string) (sessions.Session, error) {
	sess, err := s.store.Get(ctx, id)
	return sess, mapErr(err)
}

// RunTurn runs one turn of a session with the user's text (a slash command
// runs, as in SendMessage) and waits for it to end. When ctx ends the turn is cancelled; RunTurn then returns as soon
// as the engine has wound the turn down (a cancelled TurnResult).
func (s *Service) RunTurn(ctx context.Context, sessionID, text string) (TurnResult, error) {
	res, err := s.engine.RunTyped(ctx, sessionID, text)
	return turnResultOf(res), mapErr(err)
}

// RunToolCall runs one tool call the person at the terminal makes in a
// session, as a turn of its own without a model call (engine.RunToolCall):
// the call is their approval of it; deny rules, the mode, the agent's
// profile and the shell guard still refuse. text is the user message the
// session's history shows for it. A refused or failed call is an error
// result; the error is for a session that cannot run a turn.
func (s *Service) RunToolCall(ctx context.Context, sessionID, text, name string, args json.RawMessage) (ToolCallResult, error) {
	res, err := s.engine.RunToolCall(ctx, sessionID, text, name, args)
	return toolCallResultOf(res), mapErr(err)
}

// WaitIdle waits until no session of this service runs a turn (those a
// tool call started in other sessions included), or ctx ends.
func (s *Service) WaitIdle(ctx context.Context) error { return s.engine.WaitIdle(ctx) }

// WaitMCPServers waits until each of the user's MCP servers has connected,
// failed or is disabled (each bounded by its own start timeout), or until
// ctx ends, and returns their states in configuration order. A headless run
// calls it before its first model call, so that the model sees the
// servers' tools from the start.
func (s *Service) WaitMCPServers(ctx context.Context) []MCPServerState {
	_ = s.userMCP.WaitReady(ctx)
	return mcpStatesOf(s.userMCP.States())
}

// Close stops running turns (waiting up to five seconds for them to wind
// down), stops the MCP servers, kills what the turns left running (Bash
// commands, their process groups) and closes the stores.
func (s *Service) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	return s.Shutdown(ctx)
}

// Shutdown is Close with the wait for running turns bounded by ctx instead:
// a turn still running when ctx ends is left to end on its own (its later
// writes fail), so a process that must exit promptly can.
func (s *Service) Shutdown(ctx context.Context) error {
	s.engine.Shutdown(ctx)
	s.skills.Close()
	_ = s.userTools.Close()
	s.signIns.close()
	_ = s.userMCP.Close()
	s.children.KillAll()
	return s.store.Close()
}

// shutdownGrace is how long Close waits for running turns.
const shutdownGrace = 5 * time.Second
