package llmtest

import (
	"strings"
	"time"
	"unicode/utf8"
)

// Turn is one scripted answer of the fake server: a streamed response, an
// HTTP error, or a misbehaving stream. The zero Turn streams an empty answer
// that ends the turn. Turns are values; the server never modifies one.
type Turn struct {
	// Text is the answer's text, streamed one word (with its trailing
	// space) per chunk. Chunks, when set, replaces it with explicit pieces.
	Text   string   `json:"text,omitempty"`
	Chunks []string `json:"chunks,omitempty"`
	// Echo answers with the text of the request's last user message (its
	// tool results when it has no text), streamed like Text.
	Echo bool `json:"echo,omitempty"`
	// ToolCalls are streamed after the text, in order, each with its
	// arguments split across several chunks.
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	// Usage is reported at the end of the stream. Nil reports an estimate:
	// a quarter of the request body's bytes in, one token per chunk out.
	Usage *Usage `json:"usage,omitempty"`
	// Stop is the stop reason in TinyElf's terms: "end_turn", "tool_use",
	// "max_tokens", or any other string, sent as is. Empty derives it:
	// tool_use when there are tool calls, end_turn otherwise.
	Stop string `json:"stop,omitempty"`
	// Model overrides the model the response names (default: the request's).
	Model string `json:"model,omitempty"`
	// WebSearches are server-side web searches reported before the text
	// (see WebSearch), for Anthropic's web_search tool and OpenAI's
	// Responses API.
	WebSearches []WebSearch `json:"webSearches,omitempty"`

	// Status, when not 0, answers with this HTTP status instead of a
	// stream. Body is sent as is when set; otherwise an error body in the
	// endpoint's own format carries ErrorMessage (default: the status text).
	Status       int    `json:"status,omitempty"`
	Body         string `json:"body,omitempty"`
	ErrorMessage string `json:"errorMessage,omitempty"`
	// RetryAfter sets the Retry-After header ("2", or an HTTP date).
	RetryAfter string `json:"retryAfter,omitempty"`
	// Header holds extra response headers ("retry-after-ms": "20").
	Header map[string]string `json:"header,omitempty"`

	// Drop closes the connection without answering at all, as a reset
	// connection or a crashed server would.
	Drop bool `json:"drop,omitempty"`

	// ChunkDelay is waited before each SSE event, for slow streams.
	ChunkDelay time.Duration `json:"-"`
	// CutAfter, when positive, cuts the stream right after that many deltas
	// (text pieces and tool-argument pieces; the events that open a
	// message, a content block or a tool call do not count): the final
	// events never come, and the connection is dropped. A negative value
	// cuts after the opening events, before any delta.
	CutAfter int `json:"cutAfter,omitempty"`
	// CutCleanly makes the cut a well-formed end of the response body
	// (the SSE stream just stops, without its final events) instead of a
	// dropped connection.
	CutCleanly bool `json:"cutCleanly,omitempty"`
	// StreamError, with CutAfter, sends an error event with this message at
	// the cut and then ends the body: Anthropic's "event: error"
	// (overloaded_error), or an OpenAI data chunk holding an "error" object.
	StreamError string `json:"streamError,omitempty"`
	// Hang streams every delta, then sends nothing more until the client
	// goes away (cancels) or the server closes.
	Hang bool `json:"hang,omitempty"`
	// PauseAfter, when positive, holds the stream right after that many
	// deltas (counted as for CutAfter) until Server.Resume is called, or the
	// client or the server goes away; then the turn goes on to its end. A
	// test can look at a half-streamed answer for as long as it needs,
	// without racing the stream.
	PauseAfter int `json:"pauseAfter,omitempty"`

	// Dynamic, when set, is called with the request and its result is
	// played instead of this turn.
	Dynamic func(Request) Turn `json:"-"`
}

// ToolCall is a tool call a scripted turn makes.
type ToolCall struct {
	// ID defaults to call_<n> (OpenAI) or toolu_<n> (Anthropic).
	ID   string `json:"id,omitempty"`
	Name string `json:"name"`
	// Arguments is the JSON text of the arguments ("{}" when empty), sent
	// in pieces of a few characters. ArgChunks, when set, gives the pieces.
	Arguments string   `json:"arguments,omitempty"`
	ArgChunks []string `json:"argChunks,omitempty"`
}

// Usage is the token usage a turn reports. In the OpenAI format,
// prompt_tokens is Input+CacheRead (OpenAI counts cached tokens in the
// prompt) and CacheWrite is not sent.
type Usage struct {
	Input      int `json:"input"`
	Output     int `json:"output"`
	CacheRead  int `json:"cacheRead,omitempty"`
	CacheWrite int `json:"cacheWrite,omitempty"`
}

// textChunks returns the pieces the turn's text is streamed in.
func (t Turn) textChunks() []string {
	if len(t.Chunks) > 0 {
		return t.Chunks
	}
	var out []string
	for piece := range strings.SplitAfterSeq(t.Text, " ") {
		if piece != "" {
			out = append(out, piece)
		}
	}
	return out
}

// argChunks returns the pieces the call's arguments are streamed in. Pieces
// end on rune boundaries so each one is valid UTF-8 on the wire.
func (c ToolCall) argChunks() []string {
	if len(c.ArgChunks) > 0 {
		return c.ArgChunks
	}
	args := c.Arguments
	if args == "" {
		args = "{}"
	}
	const pieceRunes = 7
	var out []string
	for len(args) > 0 {
		n, runes := 0, 0
		for n < len(args) && runes < pieceRunes {
			_, size := utf8.DecodeRuneInString(args[n:])
			n += size
			runes++
		}
		out = append(out, args[:n])
		args = args[n:]
	}
	return out
}

// stop returns the turn's stop reason in TinyElf's terms.
func (t Turn) stop() string {
	switch {
	case t.Stop != "":
		return t.Stop
	case len(t.ToolCalls) > 0:
		return "tool_use"
	default:
		return "end_turn"
	}
}

// deltaCount is how many deltas the turn streams.
func (t Turn) deltaCount() int {
	n := len(t.textChunks())
	for _, c := range t.ToolCalls {
		n += len(c.argChunks())
	}
	return n
}

// usage returns the usage to report for a request body of bodyLen bytes.
func (t Turn) usage(bodyLen int) Usage {
	if t.Usage != nil {
		return *t.Usage
	}
	return Usage{Input: max(1, bodyLen/4), Output: max(1, t.deltaCount())}
}
