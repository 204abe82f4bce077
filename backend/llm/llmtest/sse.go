package llmtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

var (
	// errCut tells the handler to drop the connection.
	errCut = errors.New("llmtest: cut")
	// errGone says the client went away or the server is closing.
	errGone = errors.New("llmtest: client gone")
)

// sseWriter writes server-sent events for one response and applies the
// turn's delays, cut and hang.
type sseWriter struct {
	w       io.Writer
	rc      *http.ResponseController
	ctx     context.Context
	closing <-chan struct{}

	delay    time.Duration
	cutAfter int
	hang     bool
	deltas   int

	pauseAfter int
	resume     <-chan struct{} // closed by the Resume that ends the pause
	paused     func(delta int) // counts the stream as paused while it waits
}

// event writes one event (without an event: line when name is empty) and
// flushes it.
func (s *sseWriter) event(name string, data any) error {
	if err := s.wait(s.delay); err != nil {
		return err
	}
	b, err := json.Marshal(data)
	if err != nil {
		return err
	}
	if name != "" {
		fmt.Fprintf(s.w, "event: %s\n", name)
	}
	fmt.Fprintf(s.w, "data: %s\n\n", b)
	return s.flush()
}

// done writes OpenAI's terminating data: [DONE] line.
func (s *sseWriter) done() error {
	if err := s.wait(s.delay); err != nil {
		return err
	}
	io.WriteString(s.w, "data: [DONE]\n\n")
	return s.flush()
}

func (s *sseWriter) flush() error {
	if err := s.rc.Flush(); err != nil {
		return errGone
	}
	return nil
}

// delta writes an event that counts towards CutAfter.
func (s *sseWriter) delta(name string, data any) error {
	if err := s.event(name, data); err != nil {
		return err
	}
	s.deltas++
	if s.cutAfter > 0 && s.deltas >= s.cutAfter {
		return errCut
	}
	if s.pauseAfter > 0 && s.deltas == s.pauseAfter {
		return s.pause()
	}
	return nil
}

// pause waits for Resume, the client or the server, whichever comes first.
func (s *sseWriter) pause() error {
	s.paused(1)
	defer s.paused(-1)
	select {
	case <-s.resume:
		return nil
	case <-s.ctx.Done():
		return errGone
	case <-s.closing:
		return errGone
	}
}

// opened is called once the opening events are out.
func (s *sseWriter) opened() error {
	if s.cutAfter < 0 {
		return errCut
	}
	return nil
}

// beforeFinal is called before the closing events: a hanging turn stops
// here until the client or the server goes away.
func (s *sseWriter) beforeFinal() error {
	if !s.hang {
		return nil
	}
	select {
	case <-s.ctx.Done():
	case <-s.closing:
	}
	return errGone
}

// wait sleeps for d unless the client or the server goes away first.
func (s *sseWriter) wait(d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-s.ctx.Done():
		return errGone
	case <-s.closing:
		return errGone
	}
}

// streamError writes the error event a server sends when it fails
// mid-stream.
func (s *sseWriter) streamError(format, msg string) {
	if format == "anthropic" {
		s.event("error", o("type", "error", "error", o("type", "overloaded_error", "message", msg)))
		return
	}
	s.event("", o("error", o("message", msg, "type", "server_error", "param", nil, "code", nil)))
}
