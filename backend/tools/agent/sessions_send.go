package agent

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"tinyelf/backend/tools"
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
func NewSessionsSend(s SessionStore) tools.Tool { return &sessionsSendTool{s: s} }

func (t *sessionsSendTool) Info() tools.Info {
	return tools.Info{Name: "SessionsSend", Description: sessionsSendDescription, Parameters: sessionsSendParams, Source: tools.SourceLocal}
}

func (t *sessionsSendTool) Execute(ctx context.Context, params map[string]any) (tools.Result, error) {
	id := strings.TrimSpace(tools.String(params, "sessionId", ""))
	msg := strings.TrimSpace(tools.String(params, "message", ""))
	switch {
	case id == "":
		return tools.Errorf("sessionId is empty: pass a session ID from SessionsList."), nil
	case msg == "":
		return tools.Errorf("message is empty: say what the other session should do."), nil
	}
	if err := t.s.SendToSession(ctx, id, msg); err != nil {
		return refusalOr(err)
	}
	return tools.Text(fmt.Sprintf("Sent to session %s; its agent is working on it. Read its answer later with SessionsHistory(sessionId: %q).", id, id)), nil
}
