package engine

import (
	"context"
	"fmt"
	"strings"

	"tinyelf/backend/llm"
	"tinyelf/backend/sessions"
	"tinyelf/backend/tools"
)

// summaryPrompt asks the model for a compaction summary.
const summaryPrompt = `The conversation above is about to be replaced by your summary, because the context window is nearly full. Write a summary that lets you continue the work without the original messages:
- the user's requests and constraints, in their words where it matters;
- what has been done so far: files read and changed (with paths), commands run and their outcomes;
- findings, decisions and open questions;
- the exact next steps.
Be complete but concise. Answer with the summary only.`

// EstimateTokens is a fast, provider-independent token estimate: about four
// bytes of text per token plus a small overhead per message. It errs high
// for non-English text, which is the safe side for a budget.
func EstimateTokens(req llm.Request) int {
	n := len(req.System)/4 + 8
	for _, m := range req.Messages {
		n += 4 + len(m.Content)/4
		for _, c := range m.ToolCalls {
			n += 8 + (len(c.Name)+len(c.Arguments))/4
		}
	}
	for _, t := range req.Tools {
		n += 8 + (len(t.Name)+len(t.Description)+len(t.Parameters))/4
	}
	return n
}

// contextWindow returns the window of the session's model in tokens.
func (t *turn) contextWindow() int {
	if t.provCfg.ContextWindow > 0 {
		return t.provCfg.ContextWindow
	}
	return llm.ContextWindow(t.provCfg.Model)
}

// maybeCompact compacts the history when the request would fill more than
// the configured share of the context window: the model summarises the
// conversation, the summary is logged as a compaction event (the original
// events stay), and the request is rebuilt from the compacted history.
func (t *turn) maybeCompact(ctx context.Context, req llm.Request) (llm.Request, error) {
	window := t.contextWindow()
	before := EstimateTokens(req)
	limit := int(float64(window) * t.settings.CompactThreshold())
	if before <= limit || len(req.Messages) < 3 {
		return req, nil
	}
	upTo, err := t.e.opts.Log.LastSeq(ctx, t.s.id)
	if err != nil {
		return req, err
	}
	sumReq := llm.Request{
		Model:    req.Model,
		System:   "You summarise a working session between a user and an AI agent so the agent can continue it.",
		Messages: append(trimForSummary(req.Messages), llm.Message{Role: llm.RoleUser, Content: summaryPrompt}),
	}
	resp, err := t.provider.Stream(ctx, sumReq, nil)
	if resp != nil {
		t.usage = t.usage.Add(resp.Usage)
	}
	if err != nil {
		return req, fmt.Errorf("compact the conversation: %w", err)
	}
	summary := strings.TrimSpace(resp.Text)
	if summary == "" {
		return req, fmt.Errorf("compact the conversation: the model returned an empty summary")
	}
	compacted := req
	compacted.Messages = []llm.Message{{Role: llm.RoleUser, Content: summary}}
	if err := t.e.record(ctx, t.s.id, sessions.NewEvent(sessions.EventCompaction, sessions.Compaction{
		Summary: summary, UpToSeq: upTo, TokensBefore: before, TokensAfter: EstimateTokens(compacted),
	})); err != nil {
		return req, err
	}
	msgs, err := t.e.opts.Log.ModelMessages(ctx, t.s.id)
	if err != nil {
		return req, err
	}
	return t.request(msgs), nil
}

// summaryInputBytes bounds each message's text in the summary request, so a
// history that overflows the window can still be summarised.
const summaryInputBytes = 4000

// trimForSummary shortens long messages (tool output, mostly) while keeping
// the conversation's structure, which the APIs check.
func trimForSummary(msgs []llm.Message) []llm.Message {
	out := make([]llm.Message, len(msgs))
	for i, m := range msgs {
		if len(m.Content) > summaryInputBytes {
			m.Content = tools.CutUTF8(m.Content, summaryInputBytes) + "\n[... cut for the summary ...]"
		}
		out[i] = m
	}
	return out
}
