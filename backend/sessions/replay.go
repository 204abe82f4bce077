package sessions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// ReplayState is a session as it stood after one event, rebuilt from the
// log alone by the same projection code that maintains the stored
// projections.
type ReplayState struct {
	// Seq is the last event applied.
	Seq      int64       `json:"seq"`
	Session  Session     `json:"session"`
	UI       []UIMessage `json:"ui"`
	Messages []Message   `json:"messages"` // what the model would be sent
	// VisibleTools is the visible tool set of the latest capability.diff
	// (nil before the first); LastDiff is that event.
	VisibleTools []string        `json:"visibleTools"`
	LastDiff     *CapabilityDiff `json:"lastDiff,omitempty"`
	Approvals    []Approval      `json:"approvals"`
	Usage        UsageTotals     `json:"usage"`
	Turns        int             `json:"turns"` // turn.start events so far
}

// Approval is one permission decision of a replayed session: asked of the
// user (AskedSeq > 0) or made without asking by a rule or the mode.
type Approval struct {
	CallID      string   `json:"callId"`
	Name        string   `json:"name,omitempty"`
	Arguments   string   `json:"arguments,omitempty"`
	Warnings    []string `json:"warnings,omitempty"`
	Suggestion  string   `json:"suggestion,omitempty"`
	Held        bool     `json:"held,omitempty"`
	AskedSeq    int64    `json:"askedSeq,omitempty"`
	Decision    string   `json:"decision,omitempty"` // "" while waiting
	Reason      string   `json:"reason,omitempty"`
	Rule        string   `json:"rule,omitempty"`
	By          string   `json:"by,omitempty"`
	AnsweredSeq int64    `json:"answeredSeq,omitempty"`
}

// Replay rebuilds a session's state after event uptoSeq (0, or anything
// past the end, for the whole log) from its events.
func (s *Store) Replay(ctx context.Context, id string, uptoSeq int64) (_ *ReplayState, err error) {
	defer s.explain(&err)
	evs, err := readEvents(ctx, s.r, id, uptoSeq)
	if err != nil {
		return nil, fmt.Errorf("replay session %s: %w", id, err)
	}
	st, err := replay(evs)
	if err != nil {
		return nil, fmt.Errorf("replay session %s: %w", id, err)
	}
	return st, nil
}

// replay applies events in order to an empty state.
func replay(evs []Event) (*ReplayState, error) {
	st := &ReplayState{}
	mem := newMemSink()
	pending := map[string]int{} // call ID -> index of its open approval
	for _, ev := range evs {
		if err := project(&st.Session, ev, mem); err != nil {
			return nil, err
		}
		st.Seq = ev.Seq
		switch ev.Type {
		case EventCapabilityDiff:
			var d CapabilityDiff
			if err := decode(ev, &d); err != nil {
				return nil, err
			}
			st.VisibleTools, st.LastDiff = d.Visible, &d
		case EventTurnStart:
			st.Turns++
		case EventApprovalAsked:
			var a ApprovalAsked
			if err := decode(ev, &a); err != nil {
				return nil, err
			}
			st.Approvals = append(st.Approvals, Approval{CallID: a.CallID, Name: a.Name, Arguments: a.Arguments,
				Warnings: a.Warnings, Suggestion: a.Suggestion, Held: a.Held, AskedSeq: ev.Seq})
			pending[a.CallID] = len(st.Approvals) - 1
		case EventApprovalAnswered:
			var a ApprovalAnswered
			if err := decode(ev, &a); err != nil {
				return nil, err
			}
			i, ok := pending[a.CallID]
			if !ok {
				st.Approvals = append(st.Approvals, Approval{CallID: a.CallID})
				i = len(st.Approvals) - 1
				if item, found := mem.byCall[callKey(UITool, a.CallID)]; found {
					st.Approvals[i].Name, st.Approvals[i].Arguments = mem.ui[item].Tool.Name, mem.ui[item].Tool.Arguments
				}
			}
			delete(pending, a.CallID)
			p := &st.Approvals[i]
			p.Decision, p.Reason, p.Rule, p.By, p.AnsweredSeq = a.Decision, a.Reason, a.Rule, a.By, ev.Seq
		}
	}
	st.UI, st.Messages, st.Usage = mem.ui, mem.messages(), st.Session.Usage
	return st, nil
}

// ResumeState is what the engine needs to continue a session.
type ResumeState struct {
	Session Session `json:"session"`
	// Messages is the model history, ready to send: a tool call that never
	// got a result (the app stopped mid-call) is answered by an error
	// result saying so, since providers refuse unanswered calls.
	Messages []Message `json:"messages"`
	// Summary is the summary of the latest compaction in effect, "" when
	// the history was never compacted (it is also Messages[0]).
	Summary string `json:"summary,omitempty"`
	// VisibleTools is the visible set of the latest capability.diff, nil
	// when there was none.
	VisibleTools []string `json:"visibleTools"`
}

// InterruptedResult is the content of the result Resume supplies for a
// tool call that has none (with IsError set and Seq the seq of the
// assistant message that made the call).
const InterruptedResult = "error: this tool call was interrupted and has no result; run it again if it is still needed"

// Resume reads what continuing a session needs, from one snapshot.
func (s *Store) Resume(ctx context.Context, id string) (_ *ResumeState, err error) {
	defer s.explain(&err)
	st := &ResumeState{}
	err = s.read(ctx, func(tx *sql.Tx) error {
		var err error
		if st.Session, err = getSession(ctx, tx, id); err != nil {
			return err
		}
		if st.Messages, err = modelMessages(ctx, tx, id); err != nil {
			return err
		}
		var data []byte
		err = tx.QueryRowContext(ctx, `SELECT data FROM events WHERE session_id = ? AND type = ? ORDER BY seq DESC LIMIT 1`,
			id, string(EventCapabilityDiff)).Scan(&data)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return classify(err)
		}
		var d CapabilityDiff
		if err := decode(Event{Type: EventCapabilityDiff, Data: data}, &d); err != nil {
			return err
		}
		st.VisibleTools = d.Visible
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("resume session %s: %w", id, err)
	}
	if len(st.Messages) > 0 && st.Messages[0].Summary {
		st.Summary = st.Messages[0].Content
	}
	st.Messages = closeToolCalls(st.Messages)
	return st, nil
}

// closeToolCalls adds an error result for each assistant tool call that is
// not answered before the next user or assistant message.
func closeToolCalls(msgs []Message) []Message {
	var out []Message
	var open []ToolCallRecord
	var openSeq int64
	flush := func() {
		for _, c := range open {
			out = append(out, Message{Seq: openSeq, Role: RoleTool, Content: InterruptedResult, ToolCallID: c.ID, ToolName: c.Name, IsError: true})
		}
		open = nil
	}
	for _, m := range msgs {
		if m.Role == RoleTool {
			for i, c := range open {
				if c.ID == m.ToolCallID {
					open = append(open[:i:i], open[i+1:]...)
					break
				}
			}
			out = append(out, m)
			continue
		}
		flush()
		out = append(out, m)
		if m.Role == RoleAssistant && len(m.ToolCalls) > 0 {
			open, openSeq = append([]ToolCallRecord(nil), m.ToolCalls...), m.Seq
		}
	}
	flush()
	return out
}
