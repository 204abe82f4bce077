package llm

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"
)

// openAIProvider speaks the OpenAI-compatible chat completions API through
// the openai-go SDK. It holds no per-call state, so it is safe for
// concurrent use.
type openAIProvider struct {
	ep     endpoint
	retry  RetryPolicy
	chat   openai.ChatCompletionService
	models openai.ModelService
	// responses serves native web search (openai_websearch.go).
	responses responses.ResponseService
	// httpc makes the calls no SDK service covers (Gemini's grounded
	// search, gemini_websearch.go).
	httpc *http.Client
}

func newOpenAI(ep endpoint, o options) *openAIProvider {
	// The services are built directly rather than through openai.NewClient,
	// which would read OPENAI_API_KEY, OPENAI_BASE_URL and friends from the
	// environment and could send an OpenAI key to another provider.
	opts := []option.RequestOption{
		option.WithHTTPClient(o.httpClient),
		option.WithBaseURL(ep.baseURL),
		option.WithMaxRetries(0), // retry.go retries, and only before output
	}
	if ep.apiKey != "" {
		opts = append(opts, option.WithAPIKey(ep.apiKey))
	}
	for k, v := range ep.headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	return &openAIProvider{
		ep:     ep,
		retry:  o.retry,
		chat:   openai.NewChatCompletionService(opts...),
		models: openai.NewModelService(opts...),

		responses: responses.NewResponseService(opts...),
		httpc:     o.httpClient,
	}
}

func (p *openAIProvider) Name() string { return p.ep.name }

func (p *openAIProvider) Stream(ctx context.Context, req Request, onEvent func(StreamEvent)) (*Response, error) {
	if onEvent == nil {
		onEvent = func(StreamEvent) {}
	}
	params, err := p.params(req)
	if err != nil {
		return nil, err
	}
	return p.retry.run(ctx, onEvent, func(ctx context.Context) attempt {
		return p.try(ctx, params, onEvent)
	})
}

// try makes one streaming call.
func (p *openAIProvider) try(ctx context.Context, params openai.ChatCompletionNewParams, onEvent func(StreamEvent)) attempt {
	x := &exchange{}
	sctx, watch, stop := watchStalls(ctx, p.ep.stall)
	defer stop()
	stream := p.chat.NewStreaming(sctx, params, option.WithMiddleware(x.observe), option.WithMiddleware(watch.observe))
	defer stream.Close()

	var (
		acc      openai.ChatCompletionAccumulator
		gotChunk bool // the HTTP answer was a stream
		streamed bool // a delta went to onEvent
		finished bool // a finish_reason arrived: the answer is complete
		lastTool = -1 // tool calls below this index are complete
		badChunk error
	)
	for stream.Next() {
		chunk := stream.Current()
		gotChunk = true
		if !acc.AddChunk(chunk) {
			badChunk = errors.New("malformed stream chunk")
			break
		}
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue
			}
			if ch.Delta.Content != "" {
				streamed = true
				onEvent(StreamEvent{Type: EventText, Text: ch.Delta.Content})
			}
			for _, tc := range ch.Delta.ToolCalls {
				i := max(int(tc.Index), 0) // some servers send -1 for a lone call
				lastTool = max(lastTool, i)
				streamed = true
				onEvent(StreamEvent{Type: EventToolCallDelta, Index: i, ID: tc.ID, Name: tc.Function.Name, Text: tc.Function.Arguments})
			}
			if ch.FinishReason != "" {
				finished = true
			}
		}
	}
	err := stream.Err()
	if badChunk != nil {
		err = badChunk
	}
	var eventErr *ssestream.StreamError
	if errors.As(err, &eventErr) {
		// An error event inside a 200 stream: the answer broke off, whether
		// or not anything came before it.
		gotChunk = true
		err = fmt.Errorf("error event: %s", errorMessage(eventErr.Event.Data, 0))
	}
	resp := openAIResponse(&acc.ChatCompletion, finished, lastTool)
	if watch.stalled(sctx) && ctx.Err() == nil && !finished {
		return p.ep.stallAttempt(resp, streamed)
	}

	switch {
	case ctx.Err() != nil:
		return attempt{resp: resp, streamed: streamed, err: fmt.Errorf("%s: %w", p.ep.name, ctx.Err())}
	case !gotChunk && p.ep.notAStream(x) != nil:
		return attempt{err: p.ep.notAStream(x)}
	case !gotChunk && err != nil:
		e, after := p.ep.classify(err, x, string(params.Model))
		return attempt{err: e, retryAfter: after}
	case finished:
		// A drop after the finish_reason only loses the usage chunk.
		return attempt{resp: resp, streamed: streamed}
	}
	if err == nil {
		err = errors.New("the stream ended before its finish_reason")
	}
	return attempt{resp: resp, streamed: streamed, err: fmt.Errorf("%s: %w: %w", p.ep.name, ErrStreamCut, err)}
}

// openAIResponse assembles the response from the accumulated chunks. When
// the stream did not finish, only the tool calls followed by another one
// are known to be complete.
func openAIResponse(cc *openai.ChatCompletion, finished bool, lastTool int) *Response {
	cached := int(cc.Usage.PromptTokensDetails.CachedTokens)
	r := &Response{
		Model: cc.Model,
		Usage: Usage{
			// OpenAI counts cached tokens in prompt_tokens; Usage counts
			// them apart, as Anthropic does.
			InputTokens:     max(int(cc.Usage.PromptTokens)-cached, 0),
			OutputTokens:    int(cc.Usage.CompletionTokens),
			CacheReadTokens: cached,
		},
	}
	if len(cc.Choices) == 0 {
		return r
	}
	msg := cc.Choices[0].Message
	r.Text = msg.Content
	for i, tc := range msg.ToolCalls {
		if !finished && i >= lastTool {
			break
		}
		if tc.ID == "" && tc.Function.Name == "" {
			continue // a hole left by a sparse index
		}
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_%d", i) // some local servers send none
		}
		r.ToolCalls = append(r.ToolCalls, ToolCall{ID: id, Name: tc.Function.Name, Arguments: argsOrEmpty(tc.Function.Arguments)})
	}
	if finished {
		r.StopReason = openAIStop(cc.Choices[0].FinishReason, len(r.ToolCalls) > 0)
	}
	return r
}

// openAIStop normalises a finish_reason. Some local servers say "stop"
// after tool calls; the calls decide.
func openAIStop(reason string, calledTools bool) StopReason {
	switch {
	case reason == "tool_calls" || reason == "function_call" || calledTools:
		return StopToolUse
	case reason == "stop":
		return StopEndTurn
	case reason == "length":
		return StopMaxTokens
	}
	return StopOther
}

// params maps a request onto the chat completions API.
func (p *openAIProvider) params(req Request) (openai.ChatCompletionNewParams, error) {
	model, err := p.ep.modelFor(req)
	if err != nil {
		return openai.ChatCompletionNewParams{}, err
	}
	params := openai.ChatCompletionNewParams{
		Model:         model,
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	if req.System != "" {
		params.Messages = append(params.Messages, openai.SystemMessage(req.System))
	}
	for i, m := range req.Messages {
		msg, err := openAIMessage(m)
		if err != nil {
			return params, fmt.Errorf("message %d: %w", i, err)
		}
		params.Messages = append(params.Messages, msg)
	}
	for _, t := range req.Tools {
		schema, err := toolSchema(t)
		if err != nil {
			return params, err
		}
		fn := openai.FunctionDefinitionParam{Name: t.Name, Parameters: schema}
		if t.Description != "" {
			fn.Description = openai.String(t.Description)
		}
		params.Tools = append(params.Tools, openai.ChatCompletionToolUnionParam{
			OfFunction: &openai.ChatCompletionFunctionToolParam{Function: fn},
		})
	}
	if limit := cmp.Or(req.MaxTokens, p.ep.maxTokens); limit > 0 {
		// OpenAI's own API rejects max_tokens for reasoning models; the
		// compatible servers mostly know only max_tokens.
		if p.ep.preset.Name == "openai" {
			params.MaxCompletionTokens = openai.Int(int64(limit))
		} else {
			params.MaxTokens = openai.Int(int64(limit))
		}
	}
	if req.Temperature != nil {
		params.Temperature = openai.Float(*req.Temperature)
	}
	return params, nil
}

// openAIMessage maps one message: tool results to the tool role with their
// tool_call_id, assistant tool calls to tool_calls.
func openAIMessage(m Message) (openai.ChatCompletionMessageParamUnion, error) {
	switch m.Role {
	case RoleUser:
		if len(m.Parts) == 0 {
			return openai.UserMessage(m.Content), nil
		}
		return openai.UserMessage(openAIParts(m)), nil
	case RoleAssistant:
		var a openai.ChatCompletionAssistantMessageParam
		if m.Content != "" || len(m.ToolCalls) == 0 {
			a.Content.OfString = openai.String(m.Content)
		}
		for _, tc := range m.ToolCalls {
			a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
					ID: tc.ID,
					Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{
						Name: tc.Name, Arguments: argsOrEmpty(tc.Arguments),
					},
				},
			})
		}
		return openai.ChatCompletionMessageParamUnion{OfAssistant: &a}, nil
	case RoleTool:
		content := m.Content
		// The tool role has no error flag: say it in the text.
		if m.IsError && !strings.HasPrefix(strings.ToLower(content), "error") {
			content = "Error: " + content
		}
		return openai.ToolMessage(content, m.ToolCallID), nil
	}
	return openai.ChatCompletionMessageParamUnion{}, fmt.Errorf("unknown role %q", m.Role)
}

// openAIParts is a user message with attachments as a content array: its
// text first, then each part, images as base64 data URLs.
func openAIParts(m Message) []openai.ChatCompletionContentPartUnionParam {
	var parts []openai.ChatCompletionContentPartUnionParam
	if m.Content != "" {
		parts = append(parts, openai.TextContentPart(m.Content))
	}
	for _, p := range m.Parts {
		switch p.Kind {
		case PartImage:
			parts = append(parts, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: dataURL(p)}))
		default:
			if p.Text != "" {
				parts = append(parts, openai.TextContentPart(p.Text))
			}
		}
	}
	if len(parts) == 0 {
		parts = append(parts, openai.TextContentPart(""))
	}
	return parts
}

// dataURL is an image part as a data: URL.
func dataURL(p Part) string {
	return "data:" + p.MIME + ";base64," + base64.StdEncoding.EncodeToString(p.Data)
}

// Models lists GET {base}/models, the one page OpenAI-compatible servers
// return.
func (p *openAIProvider) Models(ctx context.Context) ([]ModelInfo, error) {
	x := &exchange{}
	page, err := p.models.List(ctx, option.WithMiddleware(x.observe))
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("list %s models: %w", p.ep.name, ctx.Err())
		}
		e, _ := p.ep.classify(err, x, "")
		return nil, fmt.Errorf("list %s models: %w", p.ep.name, e)
	}
	out := make([]ModelInfo, 0, len(page.Data))
	for _, m := range page.Data {
		out = append(out, ModelInfo{ID: m.ID, ContextWindow: ContextWindow(m.ID)})
	}
	return out, nil
}

// toolSchema decodes a tool's JSON Schema; no schema means no parameters.
func toolSchema(t ToolDef) (map[string]any, error) {
	if len(t.Parameters) == 0 || string(t.Parameters) == "null" {
		return map[string]any{"type": "object", "properties": map[string]any{}}, nil
	}
	var schema map[string]any
	if err := json.Unmarshal(t.Parameters, &schema); err != nil {
		return nil, fmt.Errorf("tool %s: parameters are not a JSON object: %w", t.Name, err)
	}
	return schema, nil
}

// argsOrEmpty makes empty arguments an empty object.
func argsOrEmpty(args string) string {
	if strings.TrimSpace(args) == "" {
		return "{}"
	}
	return args
}
