package llmtest

import (
	"encoding/json"
	"fmt"
	"time"
)

// The OpenAI chat-completions stream, chunk by chunk, as the API sends it:
//
//	data: {"id":"chatcmpl-…","object":"chat.completion.chunk","created":…,"model":"…","system_fingerprint":null,
//	       "choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":null}
//	data: {… "choices":[{"index":0,"delta":{"content":"Hello "},…}]}
//	data: {… "delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"read","arguments":""}}]} …}
//	data: {… "delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"path"}}]} …}
//	data: {… "choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}]}
//	data: {… "choices":[],"usage":{"prompt_tokens":…,"completion_tokens":…,"total_tokens":…,…}}   (only with stream_options.include_usage)
//	data: [DONE]

type oaChunk struct {
	ID                string     `json:"id"`
	Object            string     `json:"object"`
	Created           int64      `json:"created"`
	Model             string     `json:"model"`
	SystemFingerprint *string    `json:"system_fingerprint"`
	Choices           []oaChoice `json:"choices"`
	// Usage is null on every chunk but the last when usage was requested,
	// and absent otherwise.
	Usage any `json:"usage,omitempty"`
}

type oaChoice struct {
	Index        int       `json:"index"`
	Delta        oaDelta   `json:"delta"`
	Logprobs     *struct{} `json:"logprobs"`
	FinishReason *string   `json:"finish_reason"`
}

type oaDelta struct {
	Role      string       `json:"role,omitempty"`
	Content   *string      `json:"content,omitempty"`
	ToolCalls []oaToolCall `json:"tool_calls,omitempty"`
}

type oaToolCall struct {
	Index    int        `json:"index"`
	ID       string     `json:"id,omitempty"`
	Type     string     `json:"type,omitempty"`
	Function oaFunction `json:"function"`
}

type oaFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

type oaUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
		AudioTokens  int `json:"audio_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails struct {
		ReasoningTokens          int `json:"reasoning_tokens"`
		AudioTokens              int `json:"audio_tokens"`
		AcceptedPredictionTokens int `json:"accepted_prediction_tokens"`
		RejectedPredictionTokens int `json:"rejected_prediction_tokens"`
	} `json:"completion_tokens_details"`
}

// writeOpenAI streams turn in the chat-completions format.
func writeOpenAI(s *sseWriter, turn Turn, req Request, id string) error {
	model := turn.Model
	if model == "" {
		model, _ = req.Body["model"].(string)
	}
	includeUsage, _ := req.Get("stream_options.include_usage").(bool)
	base := oaChunk{
		ID:      id,
		Object:  "chat.completion.chunk",
		Created: time.Now().Unix(),
		Model:   model,
	}
	if includeUsage {
		base.Usage = json.RawMessage("null")
	}
	chunk := func(d oaDelta, finish *string) oaChunk {
		c := base
		c.Choices = []oaChoice{{Index: 0, Delta: d, FinishReason: finish}}
		return c
	}
	str := func(v string) *string { return &v }

	if err := s.event("", chunk(oaDelta{Role: "assistant", Content: str("")}, nil)); err != nil {
		return err
	}
	if err := s.opened(); err != nil {
		return err
	}
	for _, piece := range turn.textChunks() {
		if err := s.delta("", chunk(oaDelta{Content: str(piece)}, nil)); err != nil {
			return err
		}
	}
	for i, call := range turn.ToolCalls {
		id := call.ID
		if id == "" {
			id = fmt.Sprintf("call_%d", i+1)
		}
		open := oaToolCall{Index: i, ID: id, Type: "function", Function: oaFunction{Name: call.Name}}
		if err := s.event("", chunk(oaDelta{ToolCalls: []oaToolCall{open}}, nil)); err != nil {
			return err
		}
		for _, piece := range call.argChunks() {
			d := oaDelta{ToolCalls: []oaToolCall{{Index: i, Function: oaFunction{Arguments: piece}}}}
			if err := s.delta("", chunk(d, nil)); err != nil {
				return err
			}
		}
	}
	if err := s.beforeFinal(); err != nil {
		return err
	}
	if err := s.event("", chunk(oaDelta{}, str(openAIFinish(turn.stop())))); err != nil {
		return err
	}
	if includeUsage {
		u := turn.usage(len(req.Raw))
		var wire oaUsage
		wire.PromptTokens = u.Input + u.CacheRead
		wire.CompletionTokens = u.Output
		wire.TotalTokens = wire.PromptTokens + wire.CompletionTokens
		wire.PromptTokensDetails.CachedTokens = u.CacheRead
		last := base
		last.Choices = []oaChoice{}
		last.Usage = wire
		if err := s.event("", last); err != nil {
			return err
		}
	}
	return s.done()
}

// openAIFinish maps a stop reason to a finish_reason.
func openAIFinish(stop string) string {
	switch stop {
	case "end_turn":
		return "stop"
	case "tool_use":
		return "tool_calls"
	case "max_tokens":
		return "length"
	}
	return stop
}
