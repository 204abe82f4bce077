package sessions

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// CapabilityCall is one model call of a replayed session, as the log
// alone rebuilds it: the visible set from the capability diffs before it,
// checked against the model.request record of what was sent.
type CapabilityCall struct {
	// Turn counts turn.start events (1-based); Iteration is the model call
	// within the turn; Seq is the model.request event.
	Turn      int   `json:"turn"`
	Iteration int   `json:"iteration"`
	Seq       int64 `json:"seq"`
	// Visible and Deferred are the rebuilt set.
	Visible  []string `json:"visible"`
	Deferred []string `json:"deferred,omitempty"`
	// Added, Removed and Reasons are the diff that led to this call (empty
	// when the set did not change).
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
	Reasons []string `json:"reasons,omitempty"`
	// Digest and ToolTokens are as the request logged them.
	Digest     string `json:"digest"`
	ToolTokens int    `json:"toolTokens"`
	// Mismatch says how the rebuilt set differs from what was sent; empty
	// when they agree.
	Mismatch string `json:"mismatch,omitempty"`
}

// CapabilityReplay is every model call of a session with its rebuilt
// visible set.
type CapabilityReplay struct {
	SessionID  string           `json:"sessionId"`
	Calls      []CapabilityCall `json:"calls"`
	Mismatches int              `json:"mismatches"`
}

// ReplayCapabilities rebuilds each model call's visible set from the
// session's capability.diff events and checks it against the model.request
// event that recorded what was sent: the same tools in the same order with
// the same schema hashes, and the same deferred index.
func (s *Store) ReplayCapabilities(ctx context.Context, id string) (*CapabilityReplay, error) {
	evs, err := readEvents(ctx, s.r, id, 0)
	if err != nil {
		return nil, fmt.Errorf("replay the capabilities of session %s: %w", id, err)
	}
	if len(evs) == 0 {
		return nil, fmt.Errorf("replay the capabilities of session %s: %w", id, ErrNotFound)
	}
	out := &CapabilityReplay{SessionID: id}
	st := CapabilityState{Hashes: map[string]string{}}
	var (
		pending *CapabilityDiff
		turn    int
	)
	for _, ev := range evs {
		switch ev.Type {
		case EventTurnStart:
			turn++
		case EventCapabilityDiff:
			var d CapabilityDiff
			if err := decode(ev, &d); err != nil {
				return nil, err
			}
			st.apply(d)
			pending = &d
		case EventModelRequest:
			var r ModelRequest
			if err := decode(ev, &r); err != nil {
				return nil, err
			}
			call := CapabilityCall{Turn: turn, Iteration: r.Iteration, Seq: ev.Seq, Visible: slices.Clone(st.Visible),
				Deferred: slices.Clone(st.Deferred), Digest: r.Digest, ToolTokens: r.ToolTokens}
			if pending != nil {
				call.Added, call.Removed, call.Reasons = pending.Added, pending.Removed, pending.Reasons
				pending = nil
			}
			call.Mismatch = compareSent(st.Visible, st.Hashes, st.Deferred, r)
			if call.Mismatch != "" {
				out.Mismatches++
			}
			out.Calls = append(out.Calls, call)
		}
	}
	return out, nil
}

// CapabilityState is a session's visible set as its capability diffs
// leave it: the tools sent (in order) with their schema hashes, and the
// deferred index.
type CapabilityState struct {
	Visible  []string          `json:"visible"`
	Deferred []string          `json:"deferred,omitempty"`
	Hashes   map[string]string `json:"hashes,omitempty"`
	Skills   []string          `json:"skills,omitempty"`
	Loaded   []string          `json:"loaded,omitempty"`
	// Logged is false for a session that never logged a diff.
	Logged bool `json:"logged"`
	// ToolSkipped is the message of the last error of kind
	// ErrorKindToolSkipped in the log ("" when there is none), so a
	// reopened session does not report the same left-out tools again.
	ToolSkipped string `json:"toolSkipped,omitempty"`
}

// ErrorKindToolSkipped is the Error kind that lists the user tools a
// session's tool sources left out.
const ErrorKindToolSkipped = "tool_skipped"

// apply takes one diff: it carries the whole visible set and index, and
// the hashes of the tools it made visible or changed.
func (st *CapabilityState) apply(d CapabilityDiff) {
	st.Logged = true
	st.Visible, st.Deferred = slices.Clone(d.Visible), slices.Clone(d.Deferred)
	st.Skills, st.Loaded = slices.Clone(d.Skills), slices.Clone(d.Loaded)
	for _, it := range d.Items {
		if it.Hash != "" {
			st.Hashes[it.Name] = it.Hash
		}
	}
}

// LastCapabilities returns the visible set a session's log last recorded,
// so a reopened session compares its next set with what its model saw.
func (s *Store) LastCapabilities(ctx context.Context, id string) (CapabilityState, error) {
	st := CapabilityState{Hashes: map[string]string{}}
	for ev, err := range s.Events(ctx, id, 1, 0) {
		if err != nil {
			return st, fmt.Errorf("read the capabilities of session %s: %w", id, err)
		}
		if err := st.fold(ev); err != nil {
			return st, err
		}
	}
	return st, nil
}

// compareSent explains how a request differs from the rebuilt set.
func compareSent(visible []string, hashes map[string]string, deferred []string, r ModelRequest) string {
	var problems []string
	sent := make([]string, len(r.Tools))
	for i, t := range r.Tools {
		sent[i] = t.Name
	}
	if !slices.Equal(sent, visible) {
		problems = append(problems, fmt.Sprintf("sent tools %s, the diffs say %s", list(sent), list(visible)))
	} else {
		for _, t := range r.Tools {
			if h, ok := hashes[t.Name]; !ok || h != t.Hash {
				problems = append(problems, fmt.Sprintf("%s was sent with schema %s, the diffs recorded %s", t.Name, t.Hash, orNone(h)))
			}
		}
	}
	if !slices.Equal(r.Index, deferred) && !(len(r.Index) == 0 && len(deferred) == 0) {
		problems = append(problems, fmt.Sprintf("index %s, the diffs say %s", list(r.Index), list(deferred)))
	}
	return strings.Join(problems, "; ")
}

func list(xs []string) string {
	if len(xs) > 8 {
		return fmt.Sprintf("[%s … %d in all]", strings.Join(xs[:8], " "), len(xs))
	}
	return "[" + strings.Join(xs, " ") + "]"
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// LastModelRequest returns the record of a session's latest model call
// (what its tool definitions and index took), or nil before the first.
func (s *Store) LastModelRequest(ctx context.Context, id string) (*ModelRequest, error) {
	var data string
	err := s.r.QueryRowContext(ctx, `SELECT data FROM events WHERE session_id = ? AND type = 'model.request'
		ORDER BY seq DESC LIMIT 1`, id).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the last model request of session %s: %w", id, classify(err))
	}
	var r ModelRequest
	if err := json.Unmarshal([]byte(data), &r); err != nil {
		return nil, fmt.Errorf("decode the last model request of session %s: %w", id, err)
	}
	return &r, nil
}
