package llm

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// anthropicProvider speaks Anthropic's Messages API through the official
// SDK. It holds no per-call state, so it is safe for concurrent use.
type anthropicProvider struct {
	ep     endpoint
	retry  RetryPolicy
	client anthropic.Client
}

func newAnthropic(ep endpoint, o options) *anthropicProvider {
	opts := []option.RequestOption{
		// No ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL or profile from the
		// environment: the Config is the whole truth.
		option.WithoutEnvironmentDefaults(),
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
	return &anthropicProvider{ep: ep, retry: o.retry, client: anthropic.NewClient(opts...)}
}

func (p *anthropicProvider) Name() string { return p.ep.name }

func (p *anthropicProvider) Stream(ctx context.Context, req Request, onEvent func(StreamEvent)) (*Response, error) {
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
func (p *anthropicProvider) try(ctx context.Context, params anthropic.MessageNewParams, onEvent func(StreamEvent)) attempt {
	x := &exchange{}
	sctx, watch, stop := watchStalls(ctx, p.ep.stall)
	defer stop()
	stream := p.client.Messages.NewStreaming(sctx, params, option.WithMiddleware(x.observe), option.WithMiddleware(watch.observe))
	defer stream.Close()

	var (
		msg       anthropic.Message
		gotEvent  bool               // the HTTP answer was a stream
		streamed  bool               // a delta went to onEvent
		finished  bool               // the stop reason arrived: the answer is complete
		toolIndex = map[int64]int{}  // content block index → tool call index
		closed    = map[int64]bool{} // content blocks whose stop event arrived
		// rawArgs keeps each tool_use block's argument text as the model sent
		// it: the SDK's accumulator drops input that is not valid JSON, and
		// the tool pipeline must be able to tell the model so.
		rawArgs  = map[int64]*strings.Builder{}
		badEvent error
	)
	for stream.Next() {
		ev := stream.Current()
		gotEvent = true
		if err := msg.Accumulate(ev); err != nil {
			badEvent = err
			break
		}
		switch ev.Type {
		case "content_block_start":
			if ev.ContentBlock.Type == "tool_use" {
				i := len(toolIndex)
				toolIndex[ev.Index] = i
				streamed = true
				onEvent(StreamEvent{Type: EventToolCallDelta, Index: i, ID: ev.ContentBlock.ID, Name: ev.ContentBlock.Name})
			}
		case "content_block_delta":
			switch ev.Delta.Type {
			case "text_delta":
				if ev.Delta.Text != "" {
					streamed = true
					onEvent(StreamEvent{Type: EventText, Text: ev.Delta.Text})
				}
			case "input_json_delta":
				if i, ok := toolIndex[ev.Index]; ok && ev.Delta.PartialJSON != "" {
					if rawArgs[ev.Index] == nil {
						rawArgs[ev.Index] = &strings.Builder{}
					}
					rawArgs[ev.Index].WriteString(ev.Delta.PartialJSON)
					streamed = true
					onEvent(StreamEvent{Type: EventToolCallDelta, Index: i, Text: ev.Delta.PartialJSON})
				}
			}
		case "content_block_stop":
			closed[ev.Index] = true
		case "message_delta":
			if ev.Delta.StopReason != "" {
				finished = true
			}
		case "message_stop":
			finished = true
		}
	}
	err := stream.Err()
	if badEvent != nil {
		err = badEvent
	}
	var sdkErr *anthropic.Error
	if err != nil && errors.As(err, &sdkErr) && x.status < 400 {
		// An error event inside a 200 stream (overloaded_error...): the
		// answer broke off, whether or not anything came before it.
		gotEvent = true
		err = fmt.Errorf("error event: %s", cmp.Or(sdkErr.Message, string(sdkErr.Type()), "unknown"))
	}
	resp := anthropicResponse(&msg, finished, closed, rawArgs)
	if watch.stalled(sctx) && ctx.Err() == nil && !finished {
		return p.ep.stallAttempt(resp, streamed)
	}

	switch {
	case ctx.Err() != nil:
		return attempt{resp: resp, streamed: streamed, err: fmt.Errorf("%s: %w", p.ep.name, ctx.Err())}
	case !gotEvent && p.ep.notAStream(x) != nil:
		return attempt{err: p.ep.notAStream(x)}
	case !gotEvent && err != nil:
		e, after := p.ep.classify(err, x, string(params.Model))
		return attempt{err: e, retryAfter: after}
	case finished:
		return attempt{resp: resp, streamed: streamed}
	}
	if err == nil {
		err = errors.New("the stream ended before message_stop")
	}
	return attempt{resp: resp, streamed: streamed, err: fmt.Errorf("%s: %w: %w", p.ep.name, ErrStreamCut, err)}
}

// anthropicResponse assembles the response from the accumulated message.
// When the stream did not finish, only the tool_use blocks whose stop event
// arrived are complete.
func anthropicResponse(msg *anthropic.Message, finished bool, closed map[int64]bool, rawArgs map[int64]*strings.Builder) *Response {
	r := &Response{
		Model: string(msg.Model),
		Usage: Usage{
			InputTokens:      int(msg.Usage.InputTokens),
			OutputTokens:     int(msg.Usage.OutputTokens),
			CacheReadTokens:  int(msg.Usage.CacheReadInputTokens),
			CacheWriteTokens: int(msg.Usage.CacheCreationInputTokens),
		},
	}
	var text strings.Builder
	for i, b := range msg.Content {
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "tool_use":
			if finished || closed[int64(i)] {
				args := string(b.Input)
				if raw := rawArgs[int64(i)]; raw != nil && !json.Valid([]byte(raw.String())) {
					args = raw.String()
				}
				r.ToolCalls = append(r.ToolCalls, ToolCall{ID: b.ID, Name: b.Name, Arguments: argsOrEmpty(args)})
			}
		}
	}
	r.Text = text.String()
	if finished {
		r.StopReason = anthropicStop(msg.StopReason)
	}
	return r
}

// anthropicStop normalises a stop_reason.
func anthropicStop(reason anthropic.StopReason) StopReason {
	switch reason {
	case anthropic.StopReasonEndTurn, anthropic.StopReasonStopSequence:
		return StopEndTurn
	case anthropic.StopReasonToolUse:
		return StopToolUse
	case anthropic.StopReasonMaxTokens, anthropic.StopReasonModelContextWindowExceeded:
		return StopMaxTokens
	}
	return StopOther
}

// params maps a request onto the Messages API, with prompt-cache
// breakpoints on the system prompt and on the last tool definition (the
// tools and system prompt change rarely, so the prefix they form is cached).
func (p *anthropicProvider) params(req Request) (anthropic.MessageNewParams, error) {
	model, err := p.ep.modelFor(req)
	if err != nil {
		return anthropic.MessageNewParams{}, err
	}
	params := anthropic.MessageNewParams{
		Model:     anthropic.Model(model),
		MaxTokens: int64(cmp.Or(req.MaxTokens, p.ep.maxTokens, DefaultAnthropicMaxTokens)),
	}
	if req.System != "" {
		params.System = []anthropic.TextBlockParam{{
			Text:         req.System,
			CacheControl: anthropic.NewCacheControlEphemeralParam(),
		}}
	}
	if params.Messages, err = anthropicMessages(req.Messages); err != nil {
		return params, err
	}
	for i, t := range req.Tools {
		schema, err := toolSchema(t)
		if err != nil {
			return params, err
		}
		tool := anthropic.ToolParam{Name: t.Name, InputSchema: inputSchema(schema)}
		if t.Description != "" {
			tool.Description = anthropic.String(t.Description)
		}
		if i == len(req.Tools)-1 {
			tool.CacheControl = anthropic.NewCacheControlEphemeralParam()
		}
		params.Tools = append(params.Tools, anthropic.ToolUnionParam{OfTool: &tool})
	}
	// Request.Temperature is not sent: the v2 SDK dropped the field, the
	// API having deprecated it.
	return params, nil
}

// anthropicMessages maps the conversation. Tool results become tool_result
// blocks of a user message; consecutive tool results (and a user text right
// after them) share one user message, results first, as the API requires.
func anthropicMessages(msgs []Message) ([]anthropic.MessageParam, error) {
	var (
		out    []anthropic.MessageParam
		role   Role
		blocks []anthropic.ContentBlockParamUnion
	)
	flush := func() {
		if len(blocks) == 0 {
			return
		}
		if role == RoleAssistant {
			out = append(out, anthropic.NewAssistantMessage(blocks...))
		} else {
			// tool_result blocks must open the message.
			var results, rest []anthropic.ContentBlockParamUnion
			for _, b := range blocks {
				if b.OfToolResult != nil {
					results = append(results, b)
				} else {
					rest = append(rest, b)
				}
			}
			out = append(out, anthropic.NewUserMessage(append(results, rest...)...))
		}
		blocks = nil
	}
	for i, m := range msgs {
		want := RoleUser
		if m.Role == RoleAssistant {
			want = RoleAssistant
		}
		if want != role {
			flush()
			role = want
		}
		switch m.Role {
		case RoleUser:
			if m.Content != "" {
				blocks = append(blocks, anthropic.NewTextBlock(m.Content))
			}
			for _, p := range m.Parts {
				switch p.Kind {
				case PartImage:
					blocks = append(blocks, anthropic.NewImageBlockBase64(p.MIME, base64.StdEncoding.EncodeToString(p.Data)))
				default:
					if p.Text != "" { // the API refuses empty text blocks
						blocks = append(blocks, anthropic.NewTextBlock(p.Text))
					}
				}
			}
		case RoleTool:
			result := anthropic.ToolResultBlockParam{ToolUseID: m.ToolCallID}
			if m.Content != "" {
				result.Content = []anthropic.ToolResultBlockParamContentUnion{{OfText: &anthropic.TextBlockParam{Text: m.Content}}}
			}
			if m.IsError {
				result.IsError = anthropic.Bool(true)
			}
			blocks = append(blocks, anthropic.ContentBlockParamUnion{OfToolResult: &result})
		case RoleAssistant:
			if m.Content != "" {
				blocks = append(blocks, anthropic.NewTextBlock(m.Content))
			}
			for _, tc := range m.ToolCalls {
				blocks = append(blocks, anthropic.NewToolUseBlock(tc.ID, toolInput(tc.Arguments), tc.Name))
			}
		default:
			return nil, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
	}
	flush()
	return out, nil
}

// toolInput is a tool call's arguments as the object tool_use.input must
// be; arguments the model botched are replayed as {}.
func toolInput(args string) any {
	trimmed := strings.TrimSpace(args)
	if strings.HasPrefix(trimmed, "{") && json.Valid([]byte(trimmed)) {
		return json.RawMessage(trimmed)
	}
	return map[string]any{}
}

// inputSchema splits a JSON Schema object into the SDK's input_schema.
func inputSchema(schema map[string]any) anthropic.ToolInputSchemaParam {
	s := anthropic.ToolInputSchemaParam{Properties: schema["properties"], ExtraFields: map[string]any{}}
	if req, ok := schema["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				s.Required = append(s.Required, name)
			}
		}
	}
	for k, v := range schema {
		switch k {
		case "type", "properties", "required":
		default:
			s.ExtraFields[k] = v
		}
	}
	return s
}

// Models lists GET /v1/models, following its pages.
func (p *anthropicProvider) Models(ctx context.Context) ([]ModelInfo, error) {
	x := &exchange{}
	pager := p.client.Models.ListAutoPaging(ctx, anthropic.ModelListParams{Limit: anthropic.Int(1000)}, option.WithMiddleware(x.observe))
	var out []ModelInfo
	for pager.Next() {
		m := pager.Current()
		out = append(out, ModelInfo{ID: m.ID, ContextWindow: ContextWindow(m.ID)})
	}
	if err := pager.Err(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("list %s models: %w", p.ep.name, ctx.Err())
		}
		e, _ := p.ep.classify(err, x, "")
		return nil, fmt.Errorf("list %s models: %w", p.ep.name, e)
	}
	return out, nil
}
