package llm_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"tinyelf/backend/llm"
	"tinyelf/backend/llm/llmtest"
)

// conversation is a turn after two parallel tool calls, one of which
// failed, followed by more user text.
var conversation = llm.Request{
	System: "You are TinyElf.",
	Messages: []llm.Message{
		{Role: llm.RoleUser, Content: "What is in the repo?"},
		{Role: llm.RoleAssistant, Content: "Let me look.", ToolCalls: []llm.ToolCall{
			{ID: "call_1", Name: "list_dir", Arguments: `{"path":"."}`},
			{ID: "call_2", Name: "read", Arguments: `{"path":"missing.md"}`},
		}},
		{Role: llm.RoleTool, ToolCallID: "call_1", ToolName: "list_dir", Content: "README.md\nmain.go"},
		{Role: llm.RoleTool, ToolCallID: "call_2", ToolName: "read", Content: "no such file: missing.md", IsError: true},
		{Role: llm.RoleUser, Content: "Also check go.mod."},
	},
	Tools: []llm.ToolDef{
		{Name: "list_dir", Description: "List a directory.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
		{Name: "read", Description: "Read a file.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`)},
	},
}

// check compares the value at path in a recorded request body.
func check(t *testing.T, req llmtest.Request, path string, want any) {
	t.Helper()
	got := req.Get(path)
	// Compare through JSON so numbers and nested values match.
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(want)
	if string(gb) != string(wb) {
		t.Errorf("%s = %s, want %s", path, gb, wb)
	}
}

func TestOpenAIRequestMapping(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Turn{Text: "ok"})
	p := newProvider(t, wires[0], srv, func(c *llm.Config) { c.Headers = map[string]string{"X-Title": "TinyElf"} })
	if _, _, err := stream(t, p, conversation); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	reqs := srv.ChatRequests()
	if len(reqs) != 1 {
		t.Fatalf("got %d chat requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Path != "/v1/chat/completions" {
		t.Errorf("path = %q, want /v1/chat/completions", r.Path)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer sk-test" {
		t.Errorf("Authorization = %q, want the bearer key", got)
	}
	if got := r.Header.Get("X-Title"); got != "TinyElf" {
		t.Errorf("X-Title = %q, want the configured header", got)
	}
	for _, c := range []struct {
		path string
		want any
	}{
		{"model", "fake-gpt"},
		{"stream", true},
		{"stream_options.include_usage", true},
		{"messages.0", map[string]any{"role": "system", "content": "You are TinyElf."}},
		{"messages.1", map[string]any{"role": "user", "content": "What is in the repo?"}},
		{"messages.2.role", "assistant"},
		{"messages.2.content", "Let me look."},
		{"messages.2.tool_calls", []any{
			map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": "list_dir", "arguments": `{"path":"."}`}},
			map[string]any{"id": "call_2", "type": "function", "function": map[string]any{"name": "read", "arguments": `{"path":"missing.md"}`}},
		}},
		{"messages.3", map[string]any{"role": "tool", "tool_call_id": "call_1", "content": "README.md\nmain.go"}},
		// The tool role has no error flag; the text says it.
		{"messages.4", map[string]any{"role": "tool", "tool_call_id": "call_2", "content": "Error: no such file: missing.md"}},
		{"messages.5", map[string]any{"role": "user", "content": "Also check go.mod."}},
		{"tools.0", map[string]any{"type": "function", "function": map[string]any{
			"name": "list_dir", "description": "List a directory.",
			"parameters": map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []any{"path"}},
		}}},
		{"tools.1.function.parameters.additionalProperties", false},
		{"max_tokens", nil},
		{"max_completion_tokens", nil},
	} {
		check(t, r, c.path, c.want)
	}
	if n := len(r.Messages()); n != 6 {
		t.Errorf("sent %d messages, want 6", n)
	}
}

func TestOpenAIMaxTokensField(t *testing.T) {
	t.Parallel()
	tests := []struct {
		preset, field, other string
	}{
		// OpenAI's own API wants max_completion_tokens; compatible servers
		// know max_tokens.
		{"openai", "max_completion_tokens", "max_tokens"},
		{"ollama", "max_tokens", "max_completion_tokens"},
	}
	for _, tc := range tests {
		t.Run(tc.preset, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, llmtest.Turn{Text: "ok"})
			p, err := llm.New(llm.Config{Preset: tc.preset, BaseURL: srv.URL, APIKey: "k"}, llm.WithRetryPolicy(fastRetry))
			if err != nil {
				t.Fatal(err)
			}
			req := hello
			req.MaxTokens = 321
			if _, _, err := stream(t, p, req); err != nil {
				t.Fatalf("Stream: %v", err)
			}
			r := srv.ChatRequests()[0]
			check(t, r, tc.field, 321)
			check(t, r, tc.other, nil)
		})
	}
}

func TestAnthropicRequestMapping(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Turn{Text: "ok"})
	if _, _, err := stream(t, newProvider(t, wires[1], srv), conversation); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	reqs := srv.ChatRequests()
	if len(reqs) != 1 {
		t.Fatalf("got %d chat requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Path != "/v1/messages" {
		t.Errorf("path = %q, want /v1/messages (a /v1 base URL must not double it)", r.Path)
	}
	// anthropic-sdk-go v2 sends the key as a bearer token, not x-api-key.
	if got := r.Header.Get("Authorization"); got != "Bearer sk-ant-test" {
		t.Errorf("Authorization = %q, want the bearer key", got)
	}
	if r.Header.Get("Anthropic-Version") == "" {
		t.Errorf("anthropic-version header missing")
	}
	ephemeral := map[string]any{"type": "ephemeral"}
	for _, c := range []struct {
		path string
		want any
	}{
		{"model", "claude-fake"},
		{"stream", true},
		{"max_tokens", llm.DefaultAnthropicMaxTokens},
		// Prompt caching: the system prompt and the last tool carry a
		// breakpoint; the other tools do not.
		{"system", []any{map[string]any{"type": "text", "text": "You are TinyElf.", "cache_control": ephemeral}}},
		{"tools.0.cache_control", nil},
		{"tools.1.cache_control", ephemeral},
		{"tools.0.name", "list_dir"},
		{"tools.0.description", "List a directory."},
		{"tools.0.input_schema", map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []any{"path"}}},
		{"tools.1.input_schema.additionalProperties", false},
		{"messages.0", map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "What is in the repo?"}}}},
		{"messages.1", map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "text", "text": "Let me look."},
			map[string]any{"type": "tool_use", "id": "call_1", "name": "list_dir", "input": map[string]any{"path": "."}},
			map[string]any{"type": "tool_use", "id": "call_2", "name": "read", "input": map[string]any{"path": "missing.md"}},
		}}},
		// Both results and the user's next words share one user message,
		// results first; the failed one says is_error.
		{"messages.2", map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": "call_1", "content": []any{map[string]any{"type": "text", "text": "README.md\nmain.go"}}},
			map[string]any{"type": "tool_result", "tool_use_id": "call_2", "is_error": true, "content": []any{map[string]any{"type": "text", "text": "no such file: missing.md"}}},
			map[string]any{"type": "text", "text": "Also check go.mod."},
		}}},
	} {
		check(t, r, c.path, c.want)
	}
	if n := len(r.Messages()); n != 3 {
		t.Errorf("sent %d messages, want 3 (user, assistant, user)", n)
	}
}

func TestAnthropicMalformedArgumentsReplayAsObject(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Turn{Text: "ok"})
	req := llm.Request{Messages: []llm.Message{
		{Role: llm.RoleUser, Content: "go"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "t1", Name: "bash", Arguments: `{"command": "ls`}}},
		{Role: llm.RoleTool, ToolCallID: "t1", Content: "invalid arguments", IsError: true},
	}}
	if _, _, err := stream(t, newProvider(t, wires[1], srv), req); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	r := srv.ChatRequests()[0]
	check(t, r, "messages.1.content.0.input", map[string]any{})
	if got := r.Get("messages.1.content"); reflect.ValueOf(got).Len() != 1 {
		t.Errorf("assistant content = %v, want only the tool_use block", got)
	}
}
