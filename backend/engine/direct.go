package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"

	"tinyelf/backend/llm"
	"tinyelf/backend/tools"
	"tinyelf/backend/tools/agent"
)

// sessionToolNames are the tools only a session has: they need its
// subagent manager (spawn_agent, subagent_*), the session store and the
// engine that runs other sessions (Sessions*), or its notifier (Notify).
// A direct `tinyelf tool` call of one runs in a one-off session
// (RunToolCall).
var sessionToolNames = []string{
	spawnAgentName, "subagent_list", "subagent_status",
	"SessionsSpawn", "SessionsList", "SessionsSend", "SessionsHistory", "Notify",
}

// IsSessionTool reports whether a tool is one only a session has.
func IsSessionTool(name string) bool { return slices.Contains(sessionToolNames, name) }

// SessionTools returns the tools only a session has, for their
// descriptions and schemas (`tinyelf tool list`); they run only through
// RunToolCall, which gives them their session.
func SessionTools() []tools.Tool {
	return []tools.Tool{
		agent.NewSpawnAgent(nil), agent.NewSubagentList(nil), agent.NewSubagentStatus(nil),
		agent.NewSessionsSpawn(nil), agent.NewSessionsList(nil), agent.NewSessionsSend(nil), agent.NewSessionsHistory(nil),
		agent.NewNotify(nil),
	}
}

// RunToolCall runs one tool call a person makes themselves in a session, as
// a turn of its own: the turn logs text as the user's message and the call
// as the assistant's, runs it through the whole pipeline — visibility (a
// deferred tool is loaded; one the mode or the agent's profile hides is
// refused), permission (asking for the call is the approval of that one
// call; deny rules and the shell guard still refuse), hooks, truncation,
// audit — and ends with its result, without a model call. The call has the
// session's context: spawn_agent starts a real subagent (which needs a
// model provider), the Sessions* tools see the store and start other
// sessions' turns. It waits for the turn to end (cancelling it when ctx
// ends) and fails with ErrBusy while the session runs another turn.
func (e *Engine) RunToolCall(ctx context.Context, sessionID, text, name string, args json.RawMessage) (tools.CallResult, error) {
	var b [6]byte
	_, _ = rand.Read(b[:])
	call := llm.ToolCall{ID: "direct_" + hex.EncodeToString(b[:]), Name: name, Arguments: string(args)}
	if len(args) == 0 {
		call.Arguments = "{}"
	}
	res, err := e.RunWith(ctx, sessionID, text, TurnOptions{Direct: &call})
	if err != nil {
		return tools.CallResult{}, err
	}
	if res.Tool == nil {
		msg := res.Err
		if msg == "" {
			msg = "the turn ended (" + res.Reason + ") before the call ran"
		}
		return tools.CallResult{CallID: call.ID, Name: name, IsError: true, Content: msg}, nil
	}
	return *res.Tool, nil
}

// direct is the turn of a direct call: the call stands in for the model's
// answer, and its result ends the turn.
func (t *turn) direct(ctx context.Context, call llm.ToolCall) TurnResult {
	t.directID = call.ID
	resp := &llm.Response{ToolCalls: []llm.ToolCall{call}}
	t.hold(t.assistantEvents(resp, false)...)
	results := t.runCalls(ctx, resp.ToolCalls)
	if err := t.logFailure(); err != nil {
		return t.fail(ctx, "internal", "", 0, logFailed(err))
	}
	if len(results) == 0 {
		return t.end(ctx, EndCancelled, "", 0, nil)
	}
	r := results[0]
	res := t.end(ctx, EndDone, r.Content, 0, nil)
	res.Tool = &r
	return res
}

// WaitIdle waits until no session has a turn running — the ones a direct
// call started (SessionsSpawn, SessionsSend) included — or ctx ends.
func (e *Engine) WaitIdle(ctx context.Context) error {
	for {
		e.mu.Lock()
		var running []string
		for id, s := range e.sessions {
			s.mu.Lock()
			if s.running {
				running = append(running, id)
			}
			s.mu.Unlock()
		}
		e.mu.Unlock()
		if len(running) == 0 {
			return nil
		}
		for _, id := range running {
			if err := e.Wait(ctx, id); err != nil {
				return fmt.Errorf("wait for session %s: %w", id, err)
			}
		}
	}
}
