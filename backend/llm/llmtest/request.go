package llmtest

import (
	"net/http"
	"strconv"
	"strings"
)

// Request is a request the fake server received, as recorded.
type Request struct {
	Method string
	Path   string
	Header http.Header
	// Body is the decoded JSON body; nil when the request had none or it
	// was not JSON.
	Body map[string]any
	// Raw is the body as received.
	Raw []byte
}

// Format returns the wire format the request used: "openai" for chat
// completions, "anthropic" for messages, "responses" for OpenAI's
// Responses API, "" for anything else.
func (r Request) Format() string {
	switch strings.TrimPrefix(r.Path, "/v1") {
	case "/chat/completions":
		return "openai"
	case "/messages":
		return "anthropic"
	case "/responses":
		return "responses"
	}
	return ""
}

// Get returns the value at a dot-separated path in the body, with numbers
// indexing arrays ("messages.1.content.0.type"), or nil when there is none.
func (r Request) Get(path string) any {
	var cur any = r.Body
	for key := range strings.SplitSeq(path, ".") {
		switch v := cur.(type) {
		case map[string]any:
			cur = v[key]
		case []any:
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(v) {
				return nil
			}
			cur = v[i]
		default:
			return nil
		}
	}
	return cur
}

// Messages returns the body's messages array.
func (r Request) Messages() []map[string]any {
	list, _ := r.Body["messages"].([]any)
	out := make([]map[string]any, 0, len(list))
	for _, m := range list {
		if mm, ok := m.(map[string]any); ok {
			out = append(out, mm)
		}
	}
	return out
}

// LastUserText returns the text of the last user message in either wire
// format: its text parts, or, when it has none, the text of its tool results.
func (r Request) LastUserText() string {
	msgs := r.Messages()
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i]["role"] != "user" {
			continue
		}
		text, results := contentText(msgs[i]["content"])
		if text == "" {
			return results
		}
		return text
	}
	return ""
}

// System returns the request's system prompt in either wire format: the
// Anthropic "system" field (a string or text blocks), or the text of the
// OpenAI system and developer messages, joined by blank lines.
func (r Request) System() string {
	if sys, ok := r.Body["system"]; ok {
		text, _ := contentText(sys)
		return text
	}
	var parts []string
	for _, m := range r.Messages() {
		if m["role"] == "system" || m["role"] == "developer" {
			if text, _ := contentText(m["content"]); text != "" {
				parts = append(parts, text)
			}
		}
	}
	return strings.Join(parts, "\n\n")
}

// contentText flattens a message content (a string or a list of parts) into
// its text and the text of its tool_result blocks.
func contentText(content any) (text, toolResults string) {
	switch c := content.(type) {
	case string:
		return c, ""
	case []any:
		var tb, rb strings.Builder
		for _, part := range c {
			p, _ := part.(map[string]any)
			switch p["type"] {
			case "text":
				s, _ := p["text"].(string)
				tb.WriteString(s)
			case "tool_result":
				t, _ := contentText(p["content"])
				rb.WriteString(t)
			}
		}
		return tb.String(), rb.String()
	}
	return "", ""
}
