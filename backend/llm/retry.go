package llm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryPolicy says how Stream retries a call that failed transiently (429,
// 5xx, a dropped connection) before any output arrived. Once a delta has
// been passed to the caller, nothing is retried.
type RetryPolicy struct {
	// MaxAttempts counts every try, the first included (default 4; 1
	// disables retries).
	MaxAttempts int
	// BaseDelay is the wait before the first retry; it doubles on each
	// further one, with jitter (default 1s).
	BaseDelay time.Duration
	// MaxDelay caps the backoff. A server asking (Retry-After) for a longer
	// wait than this gets no retry: its error is returned (default 60s).
	MaxDelay time.Duration
}

// DefaultRetryPolicy is the policy New uses: 4 attempts, 1s base, 60s cap.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxAttempts: 4, BaseDelay: time.Second, MaxDelay: 60 * time.Second}
}

// withDefaults fills the zero fields from DefaultRetryPolicy.
func (p RetryPolicy) withDefaults() RetryPolicy {
	d := DefaultRetryPolicy()
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = d.MaxAttempts
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = d.BaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = max(d.MaxDelay, p.BaseDelay)
	}
	return p
}

// backoff is the wait before retry number n (1-based): BaseDelay·2ⁿ⁻¹ capped
// at MaxDelay, of which the upper half is random.
func (p RetryPolicy) backoff(n int) time.Duration {
	d := p.BaseDelay
	for i := 1; i < n && d < p.MaxDelay; i++ {
		d *= 2
	}
	d = min(d, p.MaxDelay)
	half := d / 2
	return half + rand.N(d-half+1)
}

// attempt is the outcome of one try of a call.
type attempt struct {
	resp *Response
	// streamed is set once a delta went to the caller: no retry after that.
	streamed bool
	// retryAfter is the wait the server asked for, 0 when it did not.
	retryAfter time.Duration
	err        error
}

// run tries a call until it succeeds, fails for good, has streamed, or the
// policy is spent. Before each retry it emits EventRetry and sleeps,
// returning early when ctx ends. One loop serves both adapters.
func (p RetryPolicy) run(ctx context.Context, onEvent func(StreamEvent), try func(context.Context) attempt) (*Response, error) {
	for n := 1; ; n++ {
		a := try(ctx)
		if a.err == nil || a.streamed || ctx.Err() != nil || n >= p.MaxAttempts || !retryable(a.err) {
			return a.resp, a.err
		}
		delay := p.backoff(n)
		if a.retryAfter > 0 {
			if a.retryAfter > p.MaxDelay {
				return a.resp, a.err
			}
			delay = a.retryAfter
		}
		onEvent(StreamEvent{Type: EventRetry, Delay: delay, Err: a.err.Error()})
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return &Response{}, fmt.Errorf("waiting to retry: %w", ctx.Err())
		}
	}
}

// retryable reports whether an error of one try may go away on the next.
func retryable(err error) bool {
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		return apiErr.Retryable()
	}
	var connErr *ConnError
	if errors.As(err, &connErr) {
		return connErr.Retryable()
	}
	var stallErr *StallError
	if errors.As(err, &stallErr) {
		return true
	}
	// A stream that broke before any delta went out is safe to repeat.
	return errors.Is(err, ErrStreamCut)
}

// retryAfter reads how long the server asked the client to wait: the
// non-standard retry-after-ms first (OpenAI, Anthropic), then Retry-After in
// seconds or as an HTTP date. It returns 0 when there is no usable value.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if at, err := http.ParseTime(v); err == nil {
		if d := at.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
