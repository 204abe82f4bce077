package notify

import (
	"context"
	"fmt"

	"github.com/gen2brain/beeep"
)

func init() {
	// beeep keeps the application name in a package variable. It is set once
	// here, before any goroutine can send, and never again.
	beeep.AppName = AppName
}

// Beeep is a Notifier on github.com/gen2brain/beeep: the notification
// center on macOS, toast notifications on Windows. New uses it where there
// is no freedesktop notification service; on Linux and the BSDs use DBus.
//
// beeep calls take no context. Notify returns when ctx is done, and a call
// already under way then finishes on its own in the background. beeep has
// no urgency, so every Kind looks alike. The zero value is ready to use;
// Beeep is safe for concurrent use.
type Beeep struct {
	// Icon is a path to a PNG file, or empty for none.
	Icon string
}

// Notify shows n through beeep.
func (b *Beeep) Notify(ctx context.Context, n Notification) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("send notification: %w", err)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}
	n = n.cleaned()
	done := make(chan error, 1) // buffered: an abandoned call does not block
	send := beeep.Notify
	if !n.Silent {
		send = beeep.Alert // a notification with the system's alert sound
	}
	go func() { done <- send(n.Title, n.Body, b.Icon) }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("send notification: %w", err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("send notification: %w", ctx.Err())
	}
}
