package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// The Anthropic Messages stream, as the API sends it:
//
//	event: message_start        {"type":"message_start","message":{"id":"msg_…","type":"message","role":"assistant","content":[],"model":"…","stop_reason":null,"stop_sequence":null,"usage":{…}}}
//	event: content_block_start  {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}
//	event: ping                 {"type":"ping"}
//	event: content_block_delta  {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello "}}
//	event: content_block_stop   {"type":"content_block_stop","index":0}
//	event: content_block_start  {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"read","input":{}}}
//	event: content_block_delta  {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"path"}}
//	event: content_block_stop   {"type":"content_block_stop","index":1}
//	event: message_delta        {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":…}}
//	event: message_stop         {"type":"message_stop"}

// obj is a JSON object that keeps its keys in the order written, so the
// events read like the API's own (type first).
type obj []field

type field struct {
	key   string
	value any
}

// o builds an obj from alternating keys and values.
func o(kv ...any) obj {
	out := make(obj, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, field{kv[i].(string), kv[i+1]})
	}
	return out
}

// get returns the value of key, or nil.
func (m obj) get(key string) any {
	for _, f := range m {
		if f.key == key {
			return f.value
		}
	}
	return nil
}

func (m obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range m {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(f.key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(f.value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// writeAnthropic streams turn in the Messages format.
func writeAnthropic(s *sseWriter, turn Turn, req Request, id string) error {
	model := turn.Model
	if model == "" {
		model, _ = req.Body["model"].(string)
	}
	u := turn.usage(len(req.Raw))
	start := o("type", "message_start", "message", o(
		"id", id, "type", "message", "role", "assistant",
		"content", []any{}, "model", model, "stop_reason", nil, "stop_sequence", nil,
		"usage", o(
			"input_tokens", u.Input, "output_tokens", 1,
			"cache_creation_input_tokens", u.CacheWrite, "cache_read_input_tokens", u.CacheRead,
		),
	))
	if err := s.event("message_start", start); err != nil {
		return err
	}

	index := 0
	pinged := false
	// open starts a content block, with the ping the API sends after the
	// first one.
	open := func(block obj) error {
		if err := s.event("content_block_start", o("type", "content_block_start", "index", index, "content_block", block)); err != nil {
			return err
		}
		if !pinged {
			pinged = true
			if err := s.event("ping", o("type", "ping")); err != nil {
				return err
			}
		}
		return nil
	}
	stop := func() error {
		err := s.event("content_block_stop", o("type", "content_block_stop", "index", index))
		index++
		return err
	}

	// Server-side web searches come first, each block whole, as the API
	// streams them after the query's input_json_delta.
	for _, block := range anthropicSearchBlocks(turn) {
		toolUse := block.get("type") == "server_tool_use"
		startBlock := block
		if toolUse {
			startBlock = o("type", "server_tool_use", "id", block.get("id"), "name", "web_search", "input", o(), "caller", block.get("caller"))
		}
		if err := open(startBlock); err != nil {
			return err
		}
		if toolUse {
			in, _ := json.Marshal(block.get("input"))
			d := o("type", "content_block_delta", "index", index, "delta", o("type", "input_json_delta", "partial_json", string(in)))
			if err := s.event("content_block_delta", d); err != nil {
				return err
			}
		}
		if err := stop(); err != nil {
			return err
		}
	}

	text := turn.textChunks()
	if len(text) > 0 {
		if err := open(o("type", "text", "text", "")); err != nil {
			return err
		}
	}
	if err := s.opened(); err != nil {
		return err
	}
	if len(text) > 0 {
		for _, piece := range text {
			d := o("type", "content_block_delta", "index", index, "delta", o("type", "text_delta", "text", piece))
			if err := s.delta("content_block_delta", d); err != nil {
				return err
			}
		}
		if err := stop(); err != nil {
			return err
		}
	}
	for i, call := range turn.ToolCalls {
		id := call.ID
		if id == "" {
			id = fmt.Sprintf("toolu_%d", i+1)
		}
		if err := open(o("type", "tool_use", "id", id, "name", call.Name, "input", o())); err != nil {
			return err
		}
		for _, piece := range call.argChunks() {
			d := o("type", "content_block_delta", "index", index, "delta", o("type", "input_json_delta", "partial_json", piece))
			if err := s.delta("content_block_delta", d); err != nil {
				return err
			}
		}
		if err := stop(); err != nil {
			return err
		}
	}
	if err := s.beforeFinal(); err != nil {
		return err
	}
	delta := o(
		"type", "message_delta",
		"delta", o("stop_reason", turn.stop(), "stop_sequence", nil),
		"usage", o("output_tokens", u.Output),
	)
	if err := s.event("message_delta", delta); err != nil {
		return err
	}
	return s.event("message_stop", o("type", "message_stop"))
}
