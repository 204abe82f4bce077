package mcp

import (
	"context"
	"encoding/json"
	"strings"

	"tinyelf/backend/tools"
)

// Notifier sends a desktop notification (the same shape as agent.Notifier,
// so the engine can pass the same value).
type Notifier interface {
	Notify(ctx context.Context, title, body string) error
}

type notifyProvider struct{ n Notifier }

// NewNotifyProvider returns the "notify" provider: one tool that shows a
// desktop notification. It is eligible for external CLI agents only, since
// TinyElf's own agents have the local Notify tool.
func NewNotifyProvider(n Notifier) Provider { return notifyProvider{n: n} }

func (p notifyProvider) Name() string { return "notify" }

func (p notifyProvider) Description() string {
	return "Desktop notifications through TinyElf: tell the user when a long task is done or needs them."
}

func (p notifyProvider) IsEligible(ctx context.Context) bool {
	c, _ := CallerFrom(ctx)
	return p.n != nil && c.External
}

func (p notifyProvider) Tools(ctx context.Context) ([]tools.Tool, error) {
	return []tools.Tool{funcTool{
		info: tools.Info{Name: "notify",
			Description: "Shows a desktop notification to the user. Use it sparingly: at most once per task.",
			Parameters: json.RawMessage(`{"type":"object","properties":{
  "title":{"type":"string","description":"Short title of the notification."},
  "body":{"type":"string","description":"Optional text under the title."}},"required":["title"],"additionalProperties":false}`)},
		run: func(ctx context.Context, params map[string]any) (tools.Result, error) {
			title := strings.TrimSpace(tools.String(params, "title", ""))
			if title == "" {
				return tools.Errorf("title is empty; give the notification a short title."), nil
			}
			if err := p.n.Notify(ctx, title, tools.String(params, "body", "")); err != nil {
				return tools.Errorf("The notification could not be shown: %v.", err), nil
			}
			return tools.Text("Notification shown."), nil
		},
	}}, nil
}
