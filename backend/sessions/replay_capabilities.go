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
	var (
		visible  []string
		hashes   = map[string]string{}
		deferred []string
		pending  *CapabilityDiff
		turn     int
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
			visible, deferred = slices.Clone(d.Visible), slices.Clone(d.Deferred)
			for _, it := range d.Items {
				if it.Hash != "" {
					hashes[it.Name] = it.Hash
				}
			}
			pending = &d
		case EventModelRequest:
			var r ModelRequest
			if err := decode(ev, &r); err != nil {
				return nil, err
			}
			call := CapabilityCall{Turn: turn, Iteration: r.Iteration, Seq: ev.Seq, Visible: slices.Clone(visible),
				Deferred: slices.Clone(deferred), Digest: r.Digest, ToolTokens: r.ToolTokens}
			if pending != nil {
				call.Added, call.Removed, call.Reasons = pending.Added, pending.Removed, pending.Reasons
				pending = nil
			}
			call.Mismatch = compareSent(visible, hashes, deferred, r)
			if call.Mismatch != "" {
				out.Mismatches++
			}
			out.Calls = append(out.Calls, call)
		}
	}
	return out, nil
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
