package llmtest

import (
	"encoding/base64"
	"fmt"
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

// Image is an image a request carried, decoded from either wire format.
type Image struct {
	// MIME is its media type; Data its bytes (nil when the image was given
	// by URL rather than inline).
	MIME string
	Data []byte
	// URL is the image's URL when it was not inline base64.
	URL string
}

// Images returns the images of every user message, in order: OpenAI's
// image_url parts (data URLs decoded) and Anthropic's base64 image blocks.
func (r Request) Images() []Image {
	var out []Image
	for _, m := range r.Messages() {
		if m["role"] != "user" {
			continue
		}
		parts, _ := m["content"].([]any)
		for _, part := range parts {
			if img, ok := imagePart(part); ok {
				out = append(out, img)
			}
		}
	}
	return out
}

// imagePart decodes one content part when it is an image.
func imagePart(part any) (Image, bool) {
	p, _ := part.(map[string]any)
	switch p["type"] {
	case "image_url": // OpenAI
		iu, _ := p["image_url"].(map[string]any)
		u, _ := iu["url"].(string)
		if rest, ok := strings.CutPrefix(u, "data:"); ok {
			mime, b64, ok := strings.Cut(rest, ";base64,")
			if data, err := base64.StdEncoding.DecodeString(b64); ok && err == nil {
				return Image{MIME: mime, Data: data}, true
			}
		}
		return Image{URL: u}, true
	case "image": // Anthropic
		src, _ := p["source"].(map[string]any)
		mime, _ := src["media_type"].(string)
		if src["type"] == "base64" {
			b64, _ := src["data"].(string)
			data, _ := base64.StdEncoding.DecodeString(b64)
			return Image{MIME: mime, Data: data}, true
		}
		u, _ := src["url"].(string)
		return Image{MIME: mime, URL: u}, true
	}
	return Image{}, false
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
			case "image_url", "image":
				// Echo says what it was shown, so a test can see an image arrive.
				if img, ok := imagePart(p); ok {
					fmt.Fprintf(&tb, "[image %s, %d bytes]", img.MIME, len(img.Data))
				}
			}
		}
		return tb.String(), rb.String()
	}
	return "", ""
}
