package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"tinyelf/backend/capabilities"
	"tinyelf/backend/llm"
	"tinyelf/backend/sessions"
	"tinyelf/backend/tokens"
	"tinyelf/backend/tools"
)

// summaryPrompt asks the model for a compaction summary.
const summaryPrompt = `The conversation above is about to be replaced by your summary, because the context window is nearly full. Write a summary that lets you continue the work without the original messages:
- the user's requests and constraints, in their words where it matters;
- what has been done so far: files read and changed (with paths), commands run and their outcomes;
- findings, decisions and open questions;
- the exact next steps.
Be complete but concise. Answer with the summary only.`

// requestTokens estimates what req costs in tokens, with the one fast
// estimate (tokens.Estimate, tokens.EstimateTool) plus a small overhead for
// the request and for each message and tool call. It errs neither way by
// much (within 15% of the tokenizer on real text); budgets keep their own
// reserve.
func requestTokens(req llm.Request) int {
	n := 8 + tokens.Estimate(req.System)
	for _, m := range req.Messages {
		n += 4 + tokens.Estimate(m.Content)
		for _, c := range m.ToolCalls {
			n += 8 + tokens.Estimate(c.Name) + tokens.Estimate(c.Arguments)
		}
	}
	for _, t := range req.Tools {
		n += tokens.EstimateTool(t.Name, t.Description, t.Parameters)
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

// promptCall is what the engine remembers of a session's last model call:
// the input tokens the provider reported for it, what it answered, and the
// request's shape, so the next request's size is the reported figure plus
// an estimate of what was added since.
type promptCall struct {
	inputTokens  int // input, cache reads and cache writes: the whole prompt
	outputTokens int
	messages     int // messages in that request
	systemEst    int // requestTokens of its system prompt and tools
}

// noteCall remembers a successful model call's reported usage.
func (t *turn) noteCall(req llm.Request, u llm.Usage) {
	in := u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens
	t.s.mu.Lock()
	defer t.s.mu.Unlock()
	if in == 0 {
		t.s.lastCall = nil // the provider reported nothing usable
		return
	}
	t.s.lastCall = &promptCall{inputTokens: in, outputTokens: u.OutputTokens, messages: len(req.Messages), systemEst: t.frameTokens(req)}
}

// frameEstimate is the estimate of one request's system prompt and tool
// definitions, kept for the model call it was made for: promptTokens and
// noteCall both need it.
type frameEstimate struct {
	system string
	tools  []llm.ToolDef
	tokens int
}

// frameTokens estimates the system prompt and tool definitions of req,
// once per request (the same system text and the same tool list, one slice:
// every call builds its own). The tool definitions are what the visible set
// holds (t.definitions), whose ToolTokens the catalog summed from each
// entry's estimate when it was made (tokens.EstimateTool of the same
// definition); a tool list that is not the visible set's is estimated
// here.
func (t *turn) frameTokens(req llm.Request) int {
	f := &t.frame
	if f.tools != nil && len(f.tools) == len(req.Tools) && len(req.Tools) > 0 && &f.tools[0] == &req.Tools[0] && f.system == req.System {
		return f.tokens
	}
	n := requestTokens(llm.Request{System: req.System})
	if t.vs != nil && visibleDefinitions(t.vs.Tools, req.Tools) {
		n += t.vs.ToolTokens
	} else {
		n += requestTokens(llm.Request{Tools: req.Tools}) - requestTokens(llm.Request{})
	}
	*f = frameEstimate{system: req.System, tools: req.Tools, tokens: n}
	return n
}

// visibleDefinitions reports whether defs are the visible tools, in order.
func visibleDefinitions(visible []*capabilities.Entry, defs []llm.ToolDef) bool {
	if len(visible) != len(defs) {
		return false
	}
	for i, e := range visible {
		if e.Name != defs[i].Name {
			return false
		}
	}
	return true
}

// promptTokens is the size of req in tokens: the input the provider
// reported for the session's last call, plus its answer, plus an estimate
// of the messages added since and of any change to the system prompt and
// tools. Without a report (the first call, after a restart or a
// compaction) the whole request is estimated.
func (t *turn) promptTokens(req llm.Request) int {
	t.s.mu.Lock()
	last := t.s.lastCall
	t.s.mu.Unlock()
	// The previous request's messages, then its answer, then what is new.
	if last == nil || len(req.Messages) < last.messages+1 {
		return requestTokens(req)
	}
	added := requestTokens(llm.Request{Messages: req.Messages[last.messages+1:]}) - requestTokens(llm.Request{})
	return max(0, last.inputTokens+last.outputTokens+added+t.frameTokens(req)-last.systemEst)
}

// currentMarker precedes the turn's user message, kept verbatim, in a
// summary that had to fold the turn's own work.
const currentMarker = "\n\n---\nThe user's message for the current task, verbatim:\n"

// maybeCompact compacts the history when the request would fill more than
// the configured share of the context window: the model summarises the
// conversation, the summary is logged as a compaction event (the original
// events stay), and the request is rebuilt from the compacted history.
//
// The turn's own user message is never summarised. First only the history
// before it is compacted; when that is not enough, the turn's work since
// (tool calls and results) is folded too, and the message is kept word for
// word after the summary. A request that still does not fit the window
// fails with what the user can do.
func (t *turn) maybeCompact(ctx context.Context, req llm.Request) (llm.Request, error) {
	window := t.contextWindow()
	limit := int(float64(window) * t.settings.CompactThresholdFor(t.agent))
	before := t.promptTokens(req)
	if before <= limit {
		return req, nil
	}
	k := t.currentIndex(req.Messages)
	if k > 0 { // history before the turn's message
		compacted, err := t.compact(ctx, req, req.Messages[:k], t.userSeq-1, "", before, req.Messages[k:])
		if err != nil {
			return req, err
		}
		req = compacted
		if requestTokens(req) <= limit {
			return req, nil
		}
		k = t.currentIndex(req.Messages)
	}
	if k < len(req.Messages)-1 { // the turn's work too
		upTo, err := t.e.opts.Log.LastSeq(ctx, t.s.id)
		if err != nil {
			return req, err
		}
		compacted, err := t.compact(ctx, req, withoutVerbatim(req.Messages), upTo, t.userText, requestTokens(req), nil)
		if err != nil {
			return req, err
		}
		req = compacted
	}
	if est, room := requestTokens(req), window-outputReserve(window); est > room {
		return req, fmt.Errorf("the request does not fit the model's context window even after compacting the conversation: about %d tokens for a window of %d (%d kept for the answer). "+
			"Shorten your message or the files it brings in, start a new session, or pick a model with a larger context window (Settings → Providers)", est, window, window-room)
	}
	return req, nil
}

// outputReserve is the part of the window kept free for the answer.
func outputReserve(window int) int { return min(llm.DefaultAnthropicMaxTokens, window/4) }

// currentIndex finds the turn's user message in msgs, -1 when a compaction
// already folded it into a summary.
func (t *turn) currentIndex(msgs []llm.Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleUser && msgs[i].Content == t.userText {
			return i
		}
	}
	return -1
}

// withoutVerbatim drops the verbatim copy of the turn's message from an
// earlier summary, so that a new summary does not paraphrase it.
func withoutVerbatim(msgs []llm.Message) []llm.Message {
	out := slices.Clone(msgs)
	for i, m := range out {
		if before, _, ok := strings.Cut(m.Content, currentMarker); ok && m.Role == llm.RoleUser {
			out[i].Content = before
		}
	}
	return out
}

// compact asks the model to summarise input, logs the summary as replacing
// the history up to seq upTo, and returns the request rebuilt from the
// compacted log. A non-empty verbatim is the turn's message: the model
// reads it as context, and it follows the summary word for word. kept are
// the messages after upTo, for the logged size estimate.
func (t *turn) compact(ctx context.Context, req llm.Request, input []llm.Message, upTo int64, verbatim string, before int, kept []llm.Message) (llm.Request, error) {
	if err := t.preCompactHooks(ctx); err != nil {
		return req, err
	}
	prompt := summaryPrompt
	if verbatim != "" {
		prompt += "\n\nThe user's current message is kept word for word after your summary; do not repeat it. Summarise the work done on it so far, so that it can be continued."
	}
	isSkill := t.skillNamed()
	input, loaded := withoutSkillBodies(input, isSkill)
	// The agent's background model summarises when it has one; the
	// session's own model does otherwise, or when that one is not set up.
	prov, model, background := t.provider, req.Model, false
	if a := t.agent; a.BackgroundModel != "" || a.BackgroundProvider != "" {
		if bp, _, bm, err := t.e.backgroundModel(t); err == nil {
			prov, model, background = bp, bm, true
		}
	}
	sumReq := llm.Request{
		Model:    model,
		System:   "You summarise a working session between a user and an AI agent so the agent can continue it.",
		Messages: append(trimForSummary(input), llm.Message{Role: llm.RoleUser, Content: prompt}),
	}
	resp, err := prov.Stream(ctx, sumReq, nil)
	if resp != nil {
		if background {
			t.e.recordBackgroundUsage(ctx, t, model, resp.Usage)
		} else {
			t.usage = t.usage.Add(resp.Usage)
		}
	}
	if err != nil {
		return req, fmt.Errorf("compact the conversation: %w", err)
	}
	summary := strings.TrimSpace(resp.Text)
	if summary == "" {
		return req, fmt.Errorf("compact the conversation: the model returned an empty summary")
	}
	for _, name := range loaded {
		summary += "\n" + skillNote(name)
	}
	if verbatim != "" {
		summary += currentMarker + verbatim
	}
	after := req
	after.Messages = append([]llm.Message{{Role: llm.RoleUser, Content: summary}}, kept...)
	if err := t.record(ctx, sessions.NewEvent(sessions.EventCompaction, sessions.Compaction{
		Summary: summary, UpToSeq: upTo, TokensBefore: before, TokensAfter: requestTokens(after),
	})); err != nil {
		return req, err
	}
	t.s.mu.Lock()
	t.s.lastCall = nil // the reported usage was for the history before
	t.s.mu.Unlock()
	// The loaded skills' bodies are notes now: they go back to the index
	// and can be loaded again. A skill loaded in the messages kept after
	// the summary is still loaded.
	d := t.s.discoveryState()
	d.Forget()
	_, still := withoutSkillBodies(kept, isSkill)
	for _, name := range still {
		d.NoteLoaded(skillID(name))
	}
	if len(loaded) > 0 {
		// The index said "(loaded)" for them: the next call's must not.
		if err := t.discover(ctx); err != nil {
			return req, err
		}
	}
	// SessionStart hooks for "compact" put back what the summary may have
	// dropped, after it.
	if err := t.compactedHooks(ctx); err != nil {
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

// skillNote is the line that stands for a loaded skill's body after a
// compaction.
func skillNote(name string) string {
	return fmt.Sprintf("[Skill %q was loaded before this summary; its instructions are no longer in the conversation: call read_skill(name=%q) to read them again.]", name, name)
}

// skillID is the catalog ID of the skill named name (skills.Skill.ID).
func skillID(name string) string { return "skill__" + name }

// skillNamed reports whether the session's workspace has a skill of that
// name (a slash_command that ran one loaded its body).
func (t *turn) skillNamed() func(string) bool {
	o := t.sessionSkills()
	if o == nil {
		return func(string) bool { return false }
	}
	return func(name string) bool {
		_, ok := o.Library.Get(name)
		return ok
	}
}

// withoutSkillBodies returns msgs with the results that carry a skill's
// body or files replaced by a one-line note: read_skill's, and
// slash_command's when the command is a skill (isSkill); it also returns
// the names of the skills whose bodies were loaded, in order. msgs is not
// modified.
func withoutSkillBodies(msgs []llm.Message, isSkill func(string) bool) ([]llm.Message, []string) {
	type loadCall struct{ tool, args string }
	calls := map[string]loadCall{}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			if c.Name == "read_skill" || c.Name == "slash_command" {
				calls[c.ID] = loadCall{c.Name, c.Arguments}
			}
		}
	}
	var out []llm.Message
	var loaded []string
	for i, m := range msgs {
		c, ok := calls[m.ToolCallID]
		if m.Role != llm.RoleTool || !ok || m.IsError {
			continue
		}
		var p struct{ Name, File, Command string }
		if json.Unmarshal([]byte(c.args), &p) != nil {
			continue
		}
		if c.tool == "slash_command" {
			p.Name = strings.TrimPrefix(strings.TrimSpace(p.Command), "/")
			if p.Name == "" || !isSkill(p.Name) {
				continue
			}
		}
		if p.Name == "" {
			continue
		}
		if out == nil {
			out = slices.Clone(msgs)
		}
		if p.File != "" {
			out[i].Content = fmt.Sprintf("[The file %s of skill %q was read here; read_skill(name=%q, file=%q) reads it again.]", p.File, p.Name, p.Name, p.File)
			continue
		}
		out[i].Content = skillNote(p.Name)
		if !slices.Contains(loaded, p.Name) {
			loaded = append(loaded, p.Name)
		}
	}
	if out == nil {
		out = msgs
	}
	return out, loaded
}
