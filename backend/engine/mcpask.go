package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"tinyelf/backend/llm"
	"tinyelf/backend/tools"
)

// The Kinds of the approval cards an MCP server's requests put up.
const (
	// ApprovalElicitation: the server asks the user for information (a
	// form built from Schema) or to open URL. Allowing accepts (with the
	// answer's Content), Deny declines, Cancel dismisses.
	ApprovalElicitation = "elicitation"
	// ApprovalSampling: the server asks to use the session's model on the
	// messages in Arguments, up to MaxTokens; allowing runs the model.
	ApprovalSampling = "sampling"
)

// samplingMaxTokens caps what a server's sampling request may make the
// session's model write, whatever it asks for.
const samplingMaxTokens = 8192

// callAsker is the tools.Asker of one tool call: what the call's MCP
// server asks goes on the call's approval card, one question at a time.
type callAsker struct {
	t      *turn
	call   string // the tool call's ID
	name   string // the tool's name
	serial *sync.Mutex
}

func newCallAsker(t *turn, callID, name string) callAsker {
	return callAsker{t: t, call: callID, name: name, serial: &sync.Mutex{}}
}

// Ask implements tools.Asker.
func (a callAsker) Ask(ctx context.Context, q tools.Question) (tools.Answer, error) {
	a.serial.Lock()
	defer a.serial.Unlock()
	args, _ := json.Marshal(map[string]any{"server": q.Server, "message": q.Message})
	ans, err := a.t.e.askQuestion(ctx, a.t.s, ApprovalRequest{
		SessionID: a.t.s.id, CallID: a.call, Tool: a.name, Kind: ApprovalElicitation, Arguments: string(args),
		Question: q.Message, Server: q.Server, Schema: q.Schema, URL: q.URL,
	})
	if err != nil {
		return tools.Answer{}, err
	}
	switch ans.Decision {
	case AllowOnce, AllowAlways:
		return tools.Answer{Action: tools.ActionAccept, Content: ans.Content}, nil
	case Cancel:
		return tools.Answer{Action: tools.ActionCancel}, nil
	}
	return tools.Answer{Action: tools.ActionDecline}, nil
}

// Sample implements tools.Asker: the card shows the server, the prompt and
// the token limit; once allowed, the session's model answers (without
// tools), and the cost counts in the session's usage.
func (a callAsker) Sample(ctx context.Context, r tools.SampleRequest) (tools.SampleResult, error) {
	a.serial.Lock()
	defer a.serial.Unlock()
	maxTokens := r.MaxTokens
	if maxTokens <= 0 || maxTokens > samplingMaxTokens {
		maxTokens = samplingMaxTokens
	}
	args, _ := json.Marshal(map[string]any{"server": r.Server, "systemPrompt": r.SystemPrompt, "messages": r.Messages,
		"maxTokens": maxTokens, "modelHint": r.ModelHint})
	ans, err := a.t.e.askQuestion(ctx, a.t.s, ApprovalRequest{
		SessionID: a.t.s.id, CallID: a.call, Tool: a.name, Kind: ApprovalSampling, Arguments: string(args),
		Question: fmt.Sprintf("%s asks to use this session's model (%s)", r.Server, a.t.provCfg.Model),
		Server:   r.Server, MaxTokens: maxTokens,
	})
	if err != nil {
		return tools.SampleResult{}, err
	}
	if ans.Decision != AllowOnce && ans.Decision != AllowAlways {
		return tools.SampleResult{}, fmt.Errorf("sampling for %s: %w", r.Server, tools.ErrDeclined)
	}
	msgs := make([]llm.Message, 0, len(r.Messages))
	for _, m := range r.Messages {
		role := llm.RoleUser
		if strings.EqualFold(m.Role, "assistant") {
			role = llm.RoleAssistant
		}
		msgs = append(msgs, llm.Message{Role: role, Content: m.Text})
	}
	resp, err := a.t.provider.Stream(ctx, llm.Request{Model: a.t.provCfg.Model, System: r.SystemPrompt, MaxTokens: maxTokens, Messages: msgs}, nil)
	if resp != nil {
		a.t.e.recordBackgroundUsage(ctx, a.t, a.t.provCfg.Model, resp.Usage)
	}
	if err != nil {
		return tools.SampleResult{}, fmt.Errorf("the session's model %s failed: %w", a.t.provCfg.Model, err)
	}
	stop := "endTurn"
	if resp.StopReason == llm.StopMaxTokens {
		stop = "maxTokens"
	}
	return tools.SampleResult{Text: resp.Text, Model: a.t.provCfg.Model, StopReason: stop}, nil
}

// Workspace implements tools.Asker.
func (a callAsker) Workspace() string { return a.t.info.Workspace }
