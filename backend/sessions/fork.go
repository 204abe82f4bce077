package sessions

import (
	"context"
	"fmt"
)

// Fork starts a new session from a parent's history up to atSeq (a message
// the user picked): the new log opens with a session.created carrying the
// parent's settings plus ForkedFrom and ForkedAtSeq (a subagent's link to
// its parent session is not kept), then copies the
// parent's events 2..atSeq with their times. The parent's soft deletes and
// restores are not copied (a fork of a trashed session is not in the
// trash); the copies are renumbered without gaps, and compaction
// boundaries are moved to match. The parent is unchanged.
func (s *Store) Fork(ctx context.Context, parentID string, atSeq int64) (_ Session, err error) {
	defer s.explain(&err)
	return s.fork(ctx, parentID, atSeq, false)
}

// Branch is Fork for edit-and-resend: the new session is another version
// of the parent's conversation from the user message after atSeq on
// (SessionCreated.Branch), which Conversation puts beside the parent.
func (s *Store) Branch(ctx context.Context, parentID string, atSeq int64) (_ Session, err error) {
	defer s.explain(&err)
	return s.fork(ctx, parentID, atSeq, true)
}

func (s *Store) fork(ctx context.Context, parentID string, atSeq int64, branch bool) (Session, error) {
	id := newID()
	var sess Session
	err := s.write(ctx, func(w *writeTx) error {
		evs, err := readEvents(ctx, w.tx, parentID, atSeq)
		if err != nil {
			return err
		}
		if atSeq < 1 || evs[len(evs)-1].Seq != atSeq {
			return fmt.Errorf("%w: seq %d is not in the log (1..%d)", ErrInvalidEvent, atSeq, evs[len(evs)-1].Seq)
		}
		var created SessionCreated
		if err := decode(evs[0], &created); err != nil {
			return err
		}
		created.ForkedFrom, created.ForkedAtSeq, created.Branch = parentID, atSeq, branch
		// A fork is the user's own session: a subagent's fork no longer
		// belongs under the parent, nor is it limited to what the parent
		// passed on.
		created.Parent, created.ParentCallID, created.Inherited, created.Background = "", "", nil, false
		out := []Event{NewEvent(EventSessionCreated, created)}
		dropped := []int64{} // parent seqs left out, ascending
		for _, ev := range evs[1:] {
			if ev.Type == EventSessionDeleted || ev.Type == EventSessionRestored {
				dropped = append(dropped, ev.Seq)
				continue
			}
			if ev.Type == EventCompaction && len(dropped) > 0 {
				var c Compaction
				if err := decode(ev, &c); err != nil {
					return err
				}
				c.UpToSeq -= countUpTo(dropped, c.UpToSeq)
				ev.Data = NewEvent(EventCompaction, c).Data
			}
			ev.SessionID, ev.Seq = "", 0
			out = append(out, ev)
		}
		sess, _, err = w.append(id, out, true)
		return err
	})
	if err != nil {
		return Session{}, fmt.Errorf("fork session %s at %d: %w", parentID, atSeq, err)
	}
	return sess, nil
}

// countUpTo counts the values in ascending xs that are at most v.
func countUpTo(xs []int64, v int64) int64 {
	var n int64
	for _, x := range xs {
		if x > v {
			break
		}
		n++
	}
	return n
}
