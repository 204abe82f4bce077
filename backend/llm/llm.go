// Package llm is TinyElf's model layer: a Provider interface for streaming
// chat with tools, and adapters for the OpenAI-compatible chat completions API
// and Anthropic's Messages API, both on the vendors' official Go SDKs.
package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Role is who a message is from.
type Role string

// The roles of a conversation. System text goes in Request.System.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one message of the conversation sent to the model.
type Message struct {
	Role Role `json:"role"`
	// Content is the text of a user or assistant message, or a tool result.
	Content string `json:"content,omitempty"`
	// ToolCalls are the calls an assistant message made.
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	// ToolCallID links a tool result (RoleTool) to its call.
	ToolCallID string `json:"toolCallId,omitempty"`
	// ToolName is the name of the tool a RoleTool message answers.
	ToolName string `json:"toolName,omitempty"`
	// IsError marks a tool result as an error (Anthropic's is_error).
	IsError bool `json:"isError,omitempty"`
	// Parts are what a user message carries beyond Content: images and the
	// text of attached files, sent after Content in their order.
	Parts []Part `json:"parts,omitempty"`
}

// PartKind says what a Part carries.
type PartKind string

// The kinds of message parts.
const (
	// PartImage is an image, sent as image content (a base64 data URL in the
	// OpenAI format, a base64 image block in Anthropic's).
	PartImage PartKind = "image"
	// PartText is the text of an attached file, sent as a text block.
	PartText PartKind = "text"
)

// Part is one attachment of a user message as the model receives it.
type Part struct {
	Kind PartKind `json:"kind"`
	// Name is the attached file's name, for the model and the logs.
	Name string `json:"name,omitempty"`
	// MIME is an image's media type (image/png, image/jpeg, image/gif,
	// image/webp).
	MIME string `json:"mime,omitempty"`
	// Data is an image's bytes.
	Data []byte `json:"data,omitempty"`
	// Text is a PartText's text, already framed for the model.
	Text string `json:"text,omitempty"`
}

// ToolCall is a complete tool call the model made.
type ToolCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Arguments is the JSON text the model produced, unparsed: it may be
	// malformed, and the tool pipeline reports that to the model.
	Arguments string `json:"arguments"`
}

// ToolDef is a tool the model may call.
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Request is one model call.
type Request struct {
	Model     string    `json:"model"`
	System    string    `json:"system,omitempty"`
	Messages  []Message `json:"messages"`
	Tools     []ToolDef `json:"tools,omitempty"`
	MaxTokens int       `json:"maxTokens,omitempty"` // 0: the adapter's default
	// Temperature is nil for the model's default.
	Temperature *float64 `json:"temperature,omitempty"`
}

// Usage is what a call cost in tokens.
type Usage struct {
	InputTokens      int `json:"inputTokens"`
	OutputTokens     int `json:"outputTokens"`
	CacheReadTokens  int `json:"cacheReadTokens,omitempty"`
	CacheWriteTokens int `json:"cacheWriteTokens,omitempty"`
}

// Add returns the sum of two usages.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		InputTokens: u.InputTokens + o.InputTokens, OutputTokens: u.OutputTokens + o.OutputTokens,
		CacheReadTokens: u.CacheReadTokens + o.CacheReadTokens, CacheWriteTokens: u.CacheWriteTokens + o.CacheWriteTokens,
	}
}

// StopReason says why the model stopped.
type StopReason string

// Stop reasons, normalised across providers.
const (
	StopEndTurn   StopReason = "end_turn"
	StopToolUse   StopReason = "tool_use"
	StopMaxTokens StopReason = "max_tokens"
	StopOther     StopReason = "other"
)

// Response is an assembled model answer.
type Response struct {
	Text       string     `json:"text"`
	ToolCalls  []ToolCall `json:"toolCalls,omitempty"`
	Usage      Usage      `json:"usage"`
	StopReason StopReason `json:"stopReason"`
	Model      string     `json:"model,omitempty"`
}

// EventType says what a stream event carries.
type EventType string

// Stream event types.
const (
	// EventText carries a text delta in Text.
	EventText EventType = "text"
	// EventToolCallDelta carries a growing tool call: Index, ID and Name
	// when first known, and an Arguments fragment in Text.
	EventToolCallDelta EventType = "tool_call_delta"
	// EventRetry says the call failed transiently and will be retried after
	// Delay; Err says why.
	EventRetry EventType = "retry"
)

// StreamEvent is one thing that happened while a response streamed.
type StreamEvent struct {
	Type  EventType     `json:"type"`
	Text  string        `json:"text,omitempty"`
	Index int           `json:"index,omitempty"`
	ID    string        `json:"id,omitempty"`
	Name  string        `json:"name,omitempty"`
	Delay time.Duration `json:"delay,omitempty"`
	Err   string        `json:"err,omitempty"`
}

// ModelInfo is a model a provider offers.
type ModelInfo struct {
	ID            string `json:"id"`
	ContextWindow int    `json:"contextWindow,omitempty"` // tokens; 0 when unknown
}

// Provider streams chat completions with tools. Implementations are safe for
// concurrent use.
type Provider interface {
	// Name identifies the provider configuration ("openai", "anthropic",
	// "ollama", a custom name...).
	Name() string
	// Stream sends req and calls onEvent (from the calling goroutine) for
	// each delta as it arrives. It returns the assembled response. Transient
	// failures before any output are retried with backoff. When the stream
	// breaks after output began, it returns what arrived (a non-nil
	// *Response) together with an error wrapping ErrStreamCut. Cancelling
	// ctx stops the call and returns ctx.Err() (wrapped).
	Stream(ctx context.Context, req Request, onEvent func(StreamEvent)) (*Response, error)
	// Models lists the models the API offers, where it offers a list.
	Models(ctx context.Context) ([]ModelInfo, error)
}

// ErrStreamCut is wrapped by Stream's error when the response broke off
// after some of it arrived.
var ErrStreamCut = errors.New("the model's response was cut off")

// APIError is an error answer from a provider's API, with what the user can
// do about it.
type APIError struct {
	Provider string
	Status   int
	Message  string
	// Hint tells the user how to fix it ("check the API key in Settings").
	Hint string
}

func (e *APIError) Error() string {
	msg := fmt.Sprintf("%s API error %d: %s", e.Provider, e.Status, e.Message)
	if e.Hint != "" {
		msg += " (" + e.Hint + ")"
	}
	return msg
}

// Retryable reports whether the call may succeed if repeated.
func (e *APIError) Retryable() bool {
	return e.Status == 429 || e.Status >= 500
}
