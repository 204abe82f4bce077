package llmtest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

// WebSearch is a server-side web search a scripted turn reports, in each
// API's own shape:
//
//   - Anthropic Messages (streamed or not): a server_tool_use block
//     {"type":"server_tool_use","id":"srvtoolu_…","name":"web_search","input":{"query":…}}
//     and a web_search_tool_result block whose content is a list of
//     {"type":"web_search_result","title","url","encrypted_content","page_age"}
//     or an error object {"type":"web_search_tool_result_error","error_code":…};
//     the answer's text blocks cite the results (web_search_result_location).
//   - OpenAI Responses (POST /responses): a web_search_call output item
//     {"type":"web_search_call","status":"completed","action":{"type":"search","query","sources"}}
//     followed by a message whose output_text carries url_citation
//     annotations.
type WebSearch struct {
	Query   string            `json:"query"`
	Results []WebSearchResult `json:"results,omitempty"`
	// ErrorCode makes the search fail: Anthropic's error_code
	// ("unavailable", "max_uses_exceeded", "too_many_requests"), or an
	// OpenAI web_search_call with status "failed".
	ErrorCode string `json:"errorCode,omitempty"`
}

// WebSearchResult is one source of a scripted search.
type WebSearchResult struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	PageAge string `json:"pageAge,omitempty"`
	// Snippet is the text the answer cites from the source.
	Snippet string `json:"snippet,omitempty"`
}

func searchID(prefix string, i int) string { return fmt.Sprintf("%s_llmtest%02d", prefix, i+1) }

// encrypted stands in for the opaque encrypted_content the API returns.
func encrypted(s string) string {
	return "Eq" + base64.RawStdEncoding.EncodeToString([]byte("llmtest:"+s))
}

// anthropicSearchBlocks returns the server_tool_use and
// web_search_tool_result blocks of the turn's searches.
func anthropicSearchBlocks(turn Turn) []obj {
	var out []obj
	for i, ws := range turn.WebSearches {
		id := searchID("srvtoolu", i)
		caller := o("type", "direct")
		out = append(out, o("type", "server_tool_use", "id", id, "name", "web_search", "input", o("query", ws.Query), "caller", caller))
		var content any
		if ws.ErrorCode != "" {
			content = o("type", "web_search_tool_result_error", "error_code", ws.ErrorCode)
		} else {
			list := []obj{}
			for _, r := range ws.Results {
				list = append(list, o("type", "web_search_result", "title", r.Title, "url", r.URL,
					"encrypted_content", encrypted(r.URL), "page_age", nullable(r.PageAge)))
			}
			content = list
		}
		out = append(out, o("type", "web_search_tool_result", "tool_use_id", id, "content", content, "caller", caller))
	}
	return out
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// anthropicCitedText returns the answer's text blocks with a citation of
// each result that has a snippet, as the API writes them after a search.
func anthropicCitedText(turn Turn) []obj {
	var out []obj
	for _, ws := range turn.WebSearches {
		for _, r := range ws.Results {
			if r.Snippet == "" {
				continue
			}
			cite := o("type", "web_search_result_location", "url", r.URL, "title", r.Title,
				"encrypted_index", encrypted("index:"+r.URL), "cited_text", r.Snippet)
			out = append(out, o("type", "text", "text", r.Snippet+" ", "citations", []obj{cite}))
		}
	}
	return out
}

// writeAnthropicMessage answers a non-streaming Messages request with the
// whole message: search blocks, text, tool calls.
func writeAnthropicMessage(w http.ResponseWriter, turn Turn, req Request, id string) {
	model := turn.Model
	if model == "" {
		model, _ = req.Body["model"].(string)
	}
	var content []obj
	content = append(content, anthropicSearchBlocks(turn)...)
	content = append(content, anthropicCitedText(turn)...)
	if text := strings.Join(turn.textChunks(), ""); text != "" {
		content = append(content, o("type", "text", "text", text, "citations", nil))
	}
	for i, call := range turn.ToolCalls {
		cid := call.ID
		if cid == "" {
			cid = fmt.Sprintf("toolu_%d", i+1)
		}
		args := call.Arguments
		if args == "" {
			args = "{}"
		}
		content = append(content, o("type", "tool_use", "id", cid, "name", call.Name, "input", json.RawMessage(args)))
	}
	if content == nil {
		content = []obj{}
	}
	u := turn.usage(len(req.Raw))
	usage := o("input_tokens", u.Input, "output_tokens", u.Output,
		"cache_creation_input_tokens", u.CacheWrite, "cache_read_input_tokens", u.CacheRead)
	if n := len(turn.WebSearches); n > 0 {
		usage = append(usage, field{"server_tool_use", o("web_search_requests", n)})
	}
	msg := o("id", id, "type", "message", "role", "assistant", "model", model, "content", content,
		"stop_reason", turn.stop(), "stop_sequence", nil, "usage", usage)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(msg)
}

// writeResponses answers POST /responses (OpenAI's Responses API, not
// streamed) with the turn's searches and text.
func writeResponses(w http.ResponseWriter, turn Turn, req Request, id string) {
	model := turn.Model
	if model == "" {
		model, _ = req.Body["model"].(string)
	}
	var output []obj
	var text strings.Builder
	var annotations []obj
	for i, ws := range turn.WebSearches {
		status := "completed"
		if ws.ErrorCode != "" {
			status = "failed"
		}
		sources := []obj{}
		for _, r := range ws.Results {
			sources = append(sources, o("type", "url", "url", r.URL))
		}
		output = append(output, o("type", "web_search_call", "id", searchID("ws", i), "status", status,
			"action", o("type", "search", "query", ws.Query, "sources", sources)))
		for _, r := range ws.Results {
			if r.Snippet == "" {
				continue
			}
			// The annotation covers the inline citation after the claim.
			host := r.URL
			if u, err := url.Parse(r.URL); err == nil {
				host = u.Hostname()
			}
			text.WriteString(r.Snippet + " ")
			start := utf8.RuneCountInString(text.String())
			text.WriteString(fmt.Sprintf("([%s](%s?utm_source=openai))", host, r.URL))
			end := utf8.RuneCountInString(text.String())
			text.WriteString(". ")
			annotations = append(annotations, o("type", "url_citation", "start_index", start, "end_index", end, "url", r.URL, "title", r.Title))
		}
	}
	text.WriteString(strings.Join(turn.textChunks(), ""))
	if annotations == nil {
		annotations = []obj{}
	}
	output = append(output, o("id", searchID("msg", 0), "type", "message", "status", "completed", "role", "assistant",
		"content", []obj{o("type", "output_text", "text", strings.TrimSpace(text.String()), "annotations", annotations, "logprobs", []any{})}))
	u := turn.usage(len(req.Raw))
	resp := o(
		"id", id, "object", "response", "created_at", time.Now().Unix(), "status", "completed",
		"error", nil, "incomplete_details", nil, "instructions", req.Body["instructions"],
		"max_output_tokens", req.Body["max_output_tokens"], "model", model, "output", output,
		"parallel_tool_calls", true, "previous_response_id", nil,
		"reasoning", o("effort", nil, "summary", nil), "store", false, "temperature", 1.0,
		"text", o("format", o("type", "text")), "tool_choice", "auto",
		"tools", []obj{o("type", "web_search", "search_context_size", "medium",
			"user_location", o("type", "approximate", "city", nil, "country", "US", "region", nil, "timezone", nil))},
		"top_p", 1.0, "truncation", "disabled",
		"usage", o("input_tokens", u.Input+u.CacheRead, "input_tokens_details", o("cached_tokens", u.CacheRead),
			"output_tokens", u.Output, "output_tokens_details", o("reasoning_tokens", 0), "total_tokens", u.Input+u.CacheRead+u.Output),
		"user", nil, "metadata", o(),
	)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}
