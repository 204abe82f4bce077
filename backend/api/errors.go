// Package api is the door to TinyElf: the transport-neutral service the UI
// calls (sessions, messages, approvals, settings) and the event bus that
// carries the engine's events to it. app.go binds it into the desktop
// window; HTTPServer serves it to a browser for `tinyelf serve`;
// backend/cli calls its Go methods, and the smaller entry points beside it
// (Toolbox, MCPConfig, History, Bridge) for the commands that need less
// than the whole service. It translates those calls into calls of the
// engine, the store and the MCP service and their answers back; what
// happens to a message or a tool call (slash commands, tool sources, the
// permission gate) is the engine's. No surface reaches past it: the shapes
// a Go caller names are the service's own (types.go). It knows nothing of
// Wails.
package api

import (
	"fmt"
	"net/http"
)

// Error codes a caller can act on.
const (
	CodeInvalid  = "invalid"   // the arguments are wrong
	CodeNotFound = "not_found" // no such session, rule, approval...
	CodeBusy     = "busy"      // the session is running a turn
	CodeInternal = "internal"  // something broke underneath
)

// Error is a service error with a code the UI can act on and a message a
// person can read.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return e.Message }

// HTTPStatus maps the code to an HTTP status.
func (e *Error) HTTPStatus() int {
	switch e.Code {
	case CodeInvalid:
		return http.StatusBadRequest
	case CodeNotFound:
		return http.StatusNotFound
	case CodeBusy:
		return http.StatusConflict
	}
	return http.StatusInternalServerError
}

func invalidf(format string, args ...any) error {
	return &Error{Code: CodeInvalid, Message: fmt.Sprintf(format, args...)}
}

func notFoundf(format string, args ...any) error {
	return &Error{Code: CodeNotFound, Message: fmt.Sprintf(format, args...)}
}
