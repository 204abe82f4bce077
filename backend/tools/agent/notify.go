package agent

import (
	"context"
	"encoding/json"
	"strings"
	"tinyelf/backend/tools"
)

// Notifier sends a desktop notification. The engine passes in one backed by
// the notify package.
type Notifier interface {
	Notify(ctx context.Context, title, body string) error
}

var notifyParams = json.RawMessage(`{
  "type": "object",
  "properties": {
    "title": {"type": "string", "description": "Short title of the notification."},
    "body": {"type": "string", "description": "Optional text under the title."}
  },
  "required": ["title"],
  "additionalProperties": false
}`)

type notifyTool struct{ n Notifier }

// NewNotify returns the Notify tool, which shows a desktop notification.
func NewNotify(n Notifier) tools.Tool { return &notifyTool{n: n} }

func (t *notifyTool) Info() tools.Info {
	return tools.Info{
		Name:        "Notify",
		Description: "Shows a desktop notification to the user, for example when a long task is finished or needs their attention. Use it sparingly: at most once per task.",
		Parameters:  notifyParams, Safe: true, Source: tools.SourceLocal,
	}
}

func (t *notifyTool) Execute(ctx context.Context, params map[string]any) (tools.Result, error) {
	title := strings.TrimSpace(tools.String(params, "title", ""))
	if title == "" {
		return tools.Errorf("title is empty; give the notification a short title."), nil
	}
	if err := t.n.Notify(ctx, title, tools.String(params, "body", "")); err != nil {
		return tools.Errorf("The notification could not be shown: %v. Tell the user in your reply instead.", err), nil
	}
	return tools.Text("Notification shown."), nil
}

var yieldParams = json.RawMessage(`{
  "type": "object",
  "properties": {
    "message": {"type": "string", "description": "What to hand back to the user (or the parent agent) as the result of this turn."}
  },
  "required": ["message"],
  "additionalProperties": false
}`)

// YieldMetaKey marks a SessionsYield result: the agent loop ends the turn
// and returns Meta[YieldMetaKey] as its message.
const YieldMetaKey = "yield"

type yieldTool struct{}

// NewSessionsYield returns the SessionsYield tool, which ends the agent loop
// and returns a message.
func NewSessionsYield() tools.Tool { return yieldTool{} }

func (yieldTool) Info() tools.Info {
	return tools.Info{
		Name:        "SessionsYield",
		Description: "Ends your work on the current request and returns the message as its result. Use it when the task is done or you need the user to decide something before going on.",
		Parameters:  yieldParams, Safe: true, ReadOnly: true, Source: tools.SourceLocal,
	}
}

func (yieldTool) Execute(_ context.Context, params map[string]any) (tools.Result, error) {
	msg := tools.String(params, "message", "")
	return tools.Result{Content: "Yielded: the turn ends here.", Meta: map[string]any{YieldMetaKey: msg}}, nil
}
