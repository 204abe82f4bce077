package sessions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
)

// A session's state that changes how it behaves when resumed is in its log
// (ARCHITECTURE: "an event in the session log, rebuilt on reopen, never
// memory alone"). Two reads give it back to a reopened session:
//
//   - DurableState folds the whole log: the visible set the model last saw
//     (what LastCapabilities returns), the files the agent has seen
//     (read.marks) and the tools it promoted (capability.promoted). The
//     engine reads it once, when it opens a session it does not hold.
//   - OpenTurn folds the last turn only: the tool calls of its last answer
//     that never got a result, the approvals it left waiting (a turn cut
//     off by a restart), and the grants it had (permission.granted). It
//     reads back from the last turn.start, so it stays cheap however long
//     the session is.

// MaxReadMarks bounds the read marks DurableState returns: the newest mark
// of each file, at most this many files (the most recently seen).
const MaxReadMarks = 4096

// DurableState is what a session's whole log says a reopened session must
// pick up again.
type DurableState struct {
	// Capabilities is the visible set of the last capability.diff.
	Capabilities CapabilityState `json:"capabilities"`
	// Reads are the newest mark of each file, oldest first.
	Reads []ReadMark `json:"reads,omitempty"`
	// Promoted are the tools promoted in the session, each once with its
	// latest reason, in the order they were first promoted.
	Promoted []Promotion `json:"promoted,omitempty"`
}

// DurableState reads a session's durable state from its log.
func (s *Store) DurableState(ctx context.Context, id string) (_ DurableState, err error) {
	defer s.explain(&err)
	st := DurableState{Capabilities: CapabilityState{Hashes: map[string]string{}}}
	reads := map[string]int{} // path → index in st.Reads
	promoted := map[string]int{}
	for ev, err := range s.Events(ctx, id, 1, 0) {
		if err != nil {
			return st, fmt.Errorf("read the durable state of session %s: %w", id, err)
		}
		switch ev.Type {
		case EventError, EventCapabilityDiff:
			if err := st.Capabilities.fold(ev); err != nil {
				return st, err
			}
		case EventReadMarks:
			var p ReadMarks
			if err := decode(ev, &p); err != nil {
				return st, err
			}
			for _, m := range p.Marks {
				if i, ok := reads[m.Path]; ok {
					st.Reads[i].Path = "" // superseded; dropped below
				}
				reads[m.Path] = len(st.Reads)
				st.Reads = append(st.Reads, m)
			}
			if len(st.Reads) > 2*MaxReadMarks {
				st.Reads = newestMarks(st.Reads, reads)
			}
		case EventCapabilityPromoted:
			var p CapabilityPromoted
			if err := decode(ev, &p); err != nil {
				return st, err
			}
			for _, pr := range p.Tools {
				if i, ok := promoted[pr.Name]; ok {
					st.Promoted[i].Why = pr.Why
					continue
				}
				promoted[pr.Name] = len(st.Promoted)
				st.Promoted = append(st.Promoted, pr)
			}
		}
	}
	st.Reads = newestMarks(st.Reads, reads)
	return st, nil
}

// newestMarks drops superseded marks (their Path cleared) and, past
// MaxReadMarks files, the oldest ones; index follows.
func newestMarks(marks []ReadMark, index map[string]int) []ReadMark {
	live := 0
	for _, m := range marks {
		if m.Path != "" {
			live++
		}
	}
	drop := max(0, live-MaxReadMarks)
	out := marks[:0]
	for _, m := range marks {
		switch {
		case m.Path == "":
		case drop > 0:
			drop--
			delete(index, m.Path)
		default:
			index[m.Path] = len(out)
			out = append(out, m)
		}
	}
	return out
}

// fold applies one event of the log to the state LastCapabilities reads.
func (st *CapabilityState) fold(ev Event) error {
	switch ev.Type {
	case EventError:
		var e Error
		if err := decode(ev, &e); err != nil {
			return err
		}
		if e.Kind == ErrorKindToolSkipped {
			st.ToolSkipped = e.Message
		}
	case EventCapabilityDiff:
		var d CapabilityDiff
		if err := decode(ev, &d); err != nil {
			return err
		}
		st.apply(d)
	}
	return nil
}

// OpenTurn is what a session's last turn left unfinished.
type OpenTurn struct {
	// StartSeq is the seq of the turn's turn.start (0 when the session has
	// had no turn).
	StartSeq int64 `json:"startSeq"`
	// Calls are the tool calls of the turn's last answer that have no
	// result, in the model's order; Intended lists those of them whose
	// tool.intent is logged (they were about to run, or running).
	Calls    []ToolCallRecord `json:"calls,omitempty"`
	Intended []string         `json:"intended,omitempty"`
	// Approvals are the questions the turn asked that were never answered
	// and whose call has no result, in the order asked.
	Approvals []OpenApproval `json:"approvals,omitempty"`
	// Grants are the turn's grants, in order.
	Grants []PermissionGranted `json:"grants,omitempty"`
}

// OpenApproval is an approval asked and not answered.
type OpenApproval struct {
	ApprovalAsked
	// Seq is the approval.asked event.
	Seq int64 `json:"seq"`
}

// OpenTurn reads what the session's last turn left unfinished, from its
// turn.start on.
func (s *Store) OpenTurn(ctx context.Context, id string) (_ OpenTurn, err error) {
	defer s.explain(&err)
	var ot OpenTurn
	err = s.r.QueryRowContext(ctx, `SELECT seq FROM events WHERE session_id = ? AND type = ? ORDER BY seq DESC LIMIT 1`,
		id, string(EventTurnStart)).Scan(&ot.StartSeq)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return ot, fmt.Errorf("find the last turn of session %s: %w", id, classify(err))
	}
	if ot.StartSeq == 0 {
		return ot, nil
	}
	var (
		last     []ToolCallRecord
		intended = map[string]bool{}
		resulted = map[string]bool{}
		open     []OpenApproval
	)
	for ev, err := range s.Events(ctx, id, ot.StartSeq, 0) {
		if err != nil {
			return ot, fmt.Errorf("read the last turn of session %s: %w", id, err)
		}
		switch ev.Type {
		case EventAssistantMessage:
			var p AssistantMessage
			if err := decode(ev, &p); err != nil {
				return ot, err
			}
			if last = p.ToolCalls; p.Partial {
				last = nil // never run
			}
		case EventToolIntent:
			var p ToolIntent
			if err := decode(ev, &p); err != nil {
				return ot, err
			}
			intended[p.CallID] = true
		case EventToolResult:
			var p ToolResult
			if err := decode(ev, &p); err != nil {
				return ot, err
			}
			resulted[p.CallID] = true
		case EventApprovalAsked:
			var p ApprovalAsked
			if err := decode(ev, &p); err != nil {
				return ot, err
			}
			open = append(open, OpenApproval{ApprovalAsked: p, Seq: ev.Seq})
		case EventApprovalAnswered:
			var p ApprovalAnswered
			if err := decode(ev, &p); err != nil {
				return ot, err
			}
			open = slices.DeleteFunc(open, func(a OpenApproval) bool { return a.CallID == p.CallID })
		case EventPermissionGranted:
			var p PermissionGranted
			if err := decode(ev, &p); err != nil {
				return ot, err
			}
			ot.Grants = append(ot.Grants, p)
		}
	}
	for _, c := range last {
		if !resulted[c.ID] {
			ot.Calls = append(ot.Calls, c)
			if intended[c.ID] {
				ot.Intended = append(ot.Intended, c.ID)
			}
		}
	}
	for _, a := range open {
		if !resulted[a.CallID] {
			ot.Approvals = append(ot.Approvals, a)
		}
	}
	return ot, nil
}
