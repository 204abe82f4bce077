package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
)

//go:embed sessions_send.md
var sessionsSendDescription string

var sessionsSendParams = json.RawMessage(`{
  "type": "object",
  "properties": {
    "sessionId": {"type": "string", "description": "The session to send to (SessionsList shows IDs)."},
    "message": {"type": "string", "description": "The message, as the user would type it."}
  },
  "required": ["sessionId", "message"],
  "additionalProperties": false
}`)

type sessionsSendTool struct{ s SessionStore }

// NewSessionsSend returns SessionsSend, which sends a message to another
// session.
func NewSessionsSend(s SessionStore) Tool { return &sessionsSendTool{s: s} }

func (t *sessionsSendTool) Info() Info {
	return Info{Name: "SessionsSend", Description: sessionsSendDescription, Parameters: sessionsSendParams, Source: SourceLocal}
}

func (t *sessionsSendTool) Execute(ctx context.Context, params map[string]any) (Result, error) {
	id := strings.TrimSpace(String(params, "sessionId", ""))
	msg := strings.TrimSpace(String(params, "message", ""))
	switch {
	case id == "":
		return Errorf("sessionId is empty: pass a session ID from SessionsList."), nil
	case msg == "":
		return Errorf("message is empty: say what the other session should do."), nil
	}
	if err := t.s.SendToSession(ctx, id, msg); err != nil {
		return refusalOr(err)
	}
	return Text(fmt.Sprintf("Sent to session %s; its agent is working on it. Read its answer later with SessionsHistory(sessionId: %q).", id, id)), nil
}
