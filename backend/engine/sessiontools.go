package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"tinyelf/backend/config"
	"tinyelf/backend/sessions"
	agenttools "tinyelf/backend/tools/agent"
)

// sessionTools backs the Sessions* tools (step 11 of the registry builder)
// with the engine and its session log. It acts for the session whose turn
// the call's context carries.
type sessionTools struct{ e *Engine }

func (st sessionTools) caller(ctx context.Context, tool string) (*turn, error) {
	t := turnFrom(ctx)
	if t == nil {
		return nil, agenttools.Refusef("%s runs only inside an agent's turn", tool)
	}
	return t, nil
}

// ListSessions implements agent.SessionStore.
func (st sessionTools) ListSessions(ctx context.Context, limit, offset int) ([]agenttools.SessionSummary, error) {
	if _, err := st.caller(ctx, "SessionsList"); err != nil {
		return nil, err
	}
	list, err := st.e.opts.Log.ListSessions(ctx, limit, offset)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	for i := range list {
		list[i].Running = st.e.Running(list[i].ID)
	}
	return list, nil
}

// lookup reads a session the model named, refusing an unknown ID.
func (st sessionTools) lookup(ctx context.Context, id string) (SessionInfo, error) {
	info, err := st.e.opts.Log.Info(ctx, id)
	if errors.Is(err, sessions.ErrNotFound) {
		return SessionInfo{}, agenttools.Refusef("there is no session %q; SessionsList shows the sessions and their IDs", id)
	}
	if err != nil {
		return SessionInfo{}, fmt.Errorf("read session %s: %w", id, err)
	}
	return info, nil
}

// SessionHistory implements agent.SessionStore.
func (st sessionTools) SessionHistory(ctx context.Context, id string, limit int) (agenttools.SessionSummary, []agenttools.HistoryMessage, int, error) {
	if _, err := st.caller(ctx, "SessionsHistory"); err != nil {
		return agenttools.SessionSummary{}, nil, 0, err
	}
	info, err := st.lookup(ctx, id)
	if err != nil {
		return agenttools.SessionSummary{}, nil, 0, err
	}
	msgs, err := st.e.opts.Log.ModelMessages(ctx, id)
	if err != nil {
		return agenttools.SessionSummary{}, nil, 0, fmt.Errorf("read the history of session %s: %w", id, err)
	}
	total := len(msgs)
	if len(msgs) > limit {
		msgs = msgs[len(msgs)-limit:]
	}
	out := make([]agenttools.HistoryMessage, len(msgs))
	for i, m := range msgs {
		h := agenttools.HistoryMessage{Role: string(m.Role), Content: m.Content, ToolName: m.ToolName, IsError: m.IsError}
		for _, c := range m.ToolCalls {
			h.ToolCalls = append(h.ToolCalls, c.Name+"("+c.Arguments+")")
		}
		out[i] = h
	}
	sum := agenttools.SessionSummary{ID: info.ID, Title: info.Title, Agent: info.Agent, Workspace: info.Workspace,
		Parent: info.Parent, Running: st.e.Running(id), Messages: total}
	return sum, out, total, nil
}

// SendToSession implements agent.SessionStore.
func (st sessionTools) SendToSession(ctx context.Context, id, message string) error {
	t, err := st.caller(ctx, "SessionsSend")
	if err != nil {
		return err
	}
	if id == t.s.id {
		return agenttools.Refusef("%s is your own session: a message to it would only reach you after this turn. Answer here instead", id)
	}
	if _, err := st.lookup(ctx, id); err != nil {
		return err
	}
	if st.e.Running(id) {
		return agenttools.Refusef("session %s is still working on a turn; wait until it ends (SessionsList shows it running) and send again", id)
	}
	if err := st.e.Send(id, message); err != nil {
		if errors.Is(err, ErrBusy) {
			return agenttools.Refusef("session %s is still working on a turn; wait until it ends and send again", id)
		}
		return fmt.Errorf("send to session %s: %w", id, err)
	}
	return nil
}

// SpawnSession implements agent.SessionStore.
func (st sessionTools) SpawnSession(ctx context.Context, prompt, agent, title string) (agenttools.SessionSummary, error) {
	t, err := st.caller(ctx, "SessionsSpawn")
	if err != nil {
		return agenttools.SessionSummary{}, err
	}
	if agent == "" {
		agent = config.DefaultAgent
	}
	settings := st.e.settings()
	a, ok := settings.Agent(agent)
	if !ok {
		return agenttools.SessionSummary{}, agenttools.Refusef("there is no agent profile %q; the agents are: %s", agent, describeAgents(settings))
	}
	// The new session starts in its profile's (or the settings') mode, but
	// never looser than the session that asked for it.
	mode, err := ParseMode(cmp.Or(a.PermissionMode, settings.Permissions.Mode))
	if err != nil || mode.Looser(t.info.Mode) {
		mode = t.info.Mode
	}
	id, err := st.e.NewSession(context.WithoutCancel(ctx), t.info.Workspace, mode, agent, "", "")
	if err != nil {
		return agenttools.SessionSummary{}, fmt.Errorf("create a session: %w", err)
	}
	if title = strings.TrimSpace(title); title != "" {
		if err := st.e.record(ctx, id, sessions.NewEvent(sessions.EventSessionRenamed, sessions.SessionRenamed{Title: title})); err != nil {
			return agenttools.SessionSummary{}, err
		}
	}
	if err := st.e.Send(id, prompt); err != nil {
		return agenttools.SessionSummary{}, fmt.Errorf("start session %s: %w", id, err)
	}
	return agenttools.SessionSummary{ID: id, Title: title, Agent: agent, Workspace: t.info.Workspace, Running: true}, nil
}

var (
	_ agenttools.SessionStore = sessionTools{}
	_ agenttools.Spawner      = (*SubagentManager)(nil)
)
