package notify

import (
	"context"
	"slices"
	"sync"
)

// Fake is a Notifier for tests: it records every notification it is asked
// to show and returns the error set with SetErr. A call with a context that
// is already done returns the context's error and is not recorded, as with
// the real notifiers. The zero value is ready to use; Fake is safe for
// concurrent use.
type Fake struct {
	mu   sync.Mutex
	sent []Notification
	err  error
}

// Notify records n and returns the error set with SetErr.
func (f *Fake) Notify(ctx context.Context, n Notification) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent = append(f.sent, n)
	return f.err
}

// SetErr makes every later Notify return err (after recording); nil makes
// it succeed again.
func (f *Fake) SetErr(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.err = err
}

// Sent returns a copy of the notifications recorded so far, oldest first.
func (f *Fake) Sent() []Notification {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.sent)
}

// Reset forgets what was recorded.
func (f *Fake) Reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent = nil
}
