package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// DefaultStallTimeout is how long a streamed answer may go without a byte,
// once its headers have arrived, before the call is given up as stalled.
const DefaultStallTimeout = 120 * time.Second

// StallError says a server sent its headers and then nothing for After.
// Repeating the call may help: it is retried like a dropped connection
// while no output has reached the caller, and otherwise reported (wrapping
// ErrStreamCut too) for the user to send again.
type StallError struct {
	// BaseURL is the server that stalled.
	BaseURL string
	// After is the stall timeout that ran out.
	After time.Duration
}

func (e *StallError) Error() string {
	return fmt.Sprintf("%s sent nothing for %s and the answer was given up (stall timeout; stallTimeoutSeconds in the settings)", e.BaseURL, e.After)
}

// Retryable reports true: a stall is usually the server's passing trouble.
func (e *StallError) Retryable() bool { return true }

// errStalled is the cause a stall watch cancels its request with.
var errStalled = errors.New("stream stalled")

// stallWatch cancels one call's request when its answer stops arriving.
// Its clock starts when the response headers arrive and restarts with
// every byte of the body that is read; the wait for headers is bounded by
// the HTTP client's ResponseHeaderTimeout instead.
type stallWatch struct {
	after  time.Duration
	cancel context.CancelCauseFunc

	mu    sync.Mutex
	timer *time.Timer
}

// watchStalls returns the context to make the call with and its watch, or
// ctx itself and nil when after is not positive. stop must be called when
// the call is over.
func watchStalls(ctx context.Context, after time.Duration) (context.Context, *stallWatch, func()) {
	if after <= 0 {
		return ctx, nil, func() {}
	}
	cctx, cancel := context.WithCancelCause(ctx)
	w := &stallWatch{after: after, cancel: cancel}
	return cctx, w, func() {
		w.mu.Lock()
		if w.timer != nil {
			w.timer.Stop()
		}
		w.mu.Unlock()
		cancel(nil)
	}
}

// observe is an SDK middleware that wraps the response body.
func (w *stallWatch) observe(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	res, err := next(req)
	if w == nil || err != nil || res == nil || res.Body == nil {
		return res, err
	}
	w.mu.Lock()
	w.timer = time.AfterFunc(w.after, func() { w.cancel(errStalled) })
	w.mu.Unlock()
	res.Body = &stallBody{ReadCloser: res.Body, w: w}
	return res, nil
}

// stalled reports whether the watch gave the call up.
func (w *stallWatch) stalled(ctx context.Context) bool {
	return w != nil && errors.Is(context.Cause(ctx), errStalled)
}

type stallBody struct {
	io.ReadCloser
	w *stallWatch
}

func (b *stallBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.w.mu.Lock()
		b.w.timer.Reset(b.w.after)
		b.w.mu.Unlock()
	}
	return n, err
}

// stallAttempt is the outcome of a try the watch gave up: retryable while
// nothing was streamed, a cut stream otherwise.
func (ep endpoint) stallAttempt(resp *Response, streamed bool) attempt {
	err := &StallError{BaseURL: ep.baseURL, After: ep.stall}
	if !streamed {
		return attempt{err: err}
	}
	return attempt{resp: resp, streamed: true, err: fmt.Errorf("%s: %w: %w", ep.name, ErrStreamCut, err)}
}
