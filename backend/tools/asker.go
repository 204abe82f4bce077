package tools

import (
	"context"
	"encoding/json"
)

// Asker is how a running tool reaches the person behind its session with
// something that is not a permission: an MCP server's elicitation (a form
// to fill, a page to open) or its request to use the session's model
// (sampling). The engine puts one in each tool call's context (WithAsker);
// a call without one (a test, `tinyelf tool`) has nobody to ask. Its
// methods block until the user answers or ctx ends.
type Asker interface {
	// Ask shows q on the call's approval card and returns the answer.
	Ask(ctx context.Context, q Question) (Answer, error)
	// Sample shows req on the call's approval card and, once the user
	// allows it, runs the session's model on it. A refusal is an error
	// wrapping ErrDeclined.
	Sample(ctx context.Context, req SampleRequest) (SampleResult, error)
	// Workspace is the session's folder (an MCP client's root).
	Workspace() string
}

// The kinds of Question.
const (
	// QuestionElicitation: a form built from Schema, or (URL set) a page
	// to open; answered accept (with Content), decline or cancel.
	QuestionElicitation = "elicitation"
)

// The actions that answer an elicitation.
const (
	ActionAccept  = "accept"
	ActionDecline = "decline"
	ActionCancel  = "cancel"
)

// Question is one elicitation from an MCP server.
type Question struct {
	Kind string `json:"kind"`
	// Server is the MCP server asking.
	Server string `json:"server"`
	// Message says what is asked and why, in the server's words.
	Message string `json:"message"`
	// Schema is the requested form (a flat JSON Schema object of strings,
	// numbers, booleans and enums, with defaults); empty in URL mode.
	Schema json.RawMessage `json:"schema,omitempty"`
	// URL is the page to open in URL mode.
	URL string `json:"url,omitempty"`
}

// Answer is the user's answer to a Question.
type Answer struct {
	// Action is ActionAccept, ActionDecline or ActionCancel.
	Action string `json:"action"`
	// Content holds the form's values on accept.
	Content map[string]any `json:"content,omitempty"`
}

// ErrDeclined is wrapped by the error of a request the user refused.
var ErrDeclined = declined{}

type declined struct{}

func (declined) Error() string { return "the user declined" }

// SampleMessage is one message of a sampling request.
type SampleMessage struct {
	Role string `json:"role"` // "user" or "assistant"
	Text string `json:"text"`
}

// SampleRequest is an MCP server's sampling/createMessage.
type SampleRequest struct {
	Server       string          `json:"server"`
	Messages     []SampleMessage `json:"messages"`
	SystemPrompt string          `json:"systemPrompt,omitempty"`
	MaxTokens    int             `json:"maxTokens"`
	// ModelHint is the first model name the server hinted at, for the card.
	ModelHint string `json:"modelHint,omitempty"`
}

// SampleResult is what the session's model answered.
type SampleResult struct {
	Text       string `json:"text"`
	Model      string `json:"model"`
	StopReason string `json:"stopReason,omitempty"`
}

type askerKey struct{}

// WithAsker returns a context whose tool call can reach the user through a.
func WithAsker(ctx context.Context, a Asker) context.Context {
	return context.WithValue(ctx, askerKey{}, a)
}

// AskerFrom returns the call's Asker, if it has one.
func AskerFrom(ctx context.Context) (Asker, bool) {
	a, ok := ctx.Value(askerKey{}).(Asker)
	return a, ok && a != nil
}
