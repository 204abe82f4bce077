package api

import (
	"context"

	"tinyelf/backend/engine"
	"tinyelf/backend/sessions"
)

// RetryTurn runs a session's last request again after an error (the error
// card's Retry): no new message is logged; the turn starts from the
// history as it is. It fails with CodeBusy while a turn runs.
func (s *Service) RetryTurn(ctx context.Context, a SessionArgs) (struct{}, error) {
	return s.resume(ctx, a.SessionID, engine.ResumeRetry)
}

// ContinueTurn lets the agent go on after the user stopped it (Continue):
// like RetryTurn, and when the history ends with the model's stopped
// answer, the model is asked to carry on from there.
func (s *Service) ContinueTurn(ctx context.Context, a SessionArgs) (struct{}, error) {
	return s.resume(ctx, a.SessionID, engine.ResumeContinue)
}

func (s *Service) resume(ctx context.Context, id, how string) (struct{}, error) {
	if _, err := s.store.Get(ctx, id); err != nil {
		return struct{}{}, mapErr(err)
	}
	return struct{}{}, mapErr(s.engine.SendInput(id, engine.Input{Resume: how}))
}

// Regenerate asks for a new answer to the session's last user message
// (Regenerate on the last answer): like edit-and-resend with the same text
// and attachments, it forks the session just before that message and sends
// it again in the fork, so the first answer stays where it was. It returns
// the fork.
func (s *Service) Regenerate(ctx context.Context, a SessionArgs) (sessions.Session, error) {
	if s.engine.Running(a.SessionID) {
		return sessions.Session{}, mapErr(engine.ErrBusy)
	}
	msgs, err := s.store.UIMessages(ctx, a.SessionID)
	if err != nil {
		return sessions.Session{}, mapErr(err)
	}
	var last *sessions.UIMessage
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Kind == sessions.UIUser {
			last = &msgs[i]
			break
		}
	}
	if last == nil {
		return sessions.Session{}, invalidf("there is no message to answer again")
	}
	fork, err := s.store.Fork(ctx, a.SessionID, last.Seq-1)
	if err != nil {
		return sessions.Session{}, mapErr(err)
	}
	if err := s.engine.SendInput(fork.ID, engine.Input{Text: last.Text, Attachments: last.Attachments}); err != nil {
		return fork, mapErr(err)
	}
	return fork, nil
}
