// Package notify shows desktop notifications: when a turn ends while the
// window is not focused, when background work finishes, and when a tool call
// waits for the user's approval.
//
// Notifier is the contract. DBus talks to the freedesktop notification
// service itself (Linux and the BSDs); Beeep wraps github.com/gen2brain/beeep
// for the other platforms; New picks the right one. Fake records what it is
// asked, for tests elsewhere, and Disabled drops everything. Policy decides
// when the agent notifies.
//
// A notification is a courtesy: every error here is returned for the caller
// to log and move on, and no call blocks longer than its context (or, without
// a deadline, DefaultTimeout) allows.
package notify

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"
)

// AppName is the application name notifications are sent under.
const AppName = "TinyElf"

// DesktopEntry is the base name of TinyElf's desktop file
// (build/linux/tinyelf.desktop); its Icon= entry names the same theme icon.
const DesktopEntry = "tinyelf"

// ErrUnavailable reports that no notification service could be reached: no
// session bus, a bus that refuses the connection, or no notification daemon
// on it. Callers usually log it once and carry on.
var ErrUnavailable = errors.New("desktop notifications unavailable")

// Kind says what a notification is about; it sets the urgency.
type Kind string

// The kinds of notification TinyElf sends.
const (
	// KindDone: a turn or a background task finished.
	KindDone Kind = "done"
	// KindApproval: a tool call waits for the user's approval. It is sent
	// with critical urgency, so it stays on screen until dismissed: the agent
	// is blocked until the user answers.
	KindApproval Kind = "approval"
	// KindError: a turn or a background task stopped with an error.
	KindError Kind = "error"
)

// Freedesktop urgency levels (the "urgency" hint).
const (
	urgencyNormal   byte = 1
	urgencyCritical byte = 2
)

func (k Kind) urgency() byte {
	if k == KindApproval {
		return urgencyCritical
	}
	return urgencyNormal
}

// Notification is one desktop notification.
type Notification struct {
	// Title is the one-line summary; empty means AppName.
	Title string
	// Body is the text under the title; it is shown as plain text.
	Body string
	// Kind sets the urgency; empty is treated as KindDone.
	Kind Kind
	// Silent asks the desktop to play no sound with it; otherwise the
	// desktop's message sound is asked for.
	Silent bool
}

// Notifier shows desktop notifications. Implementations are safe for
// concurrent use. Notify returns once the notification was handed to the
// desktop or failed to be; it never panics, and it returns by the time ctx
// is done.
type Notifier interface {
	Notify(ctx context.Context, n Notification) error
}

// Disabled is a Notifier that drops every notification and reports success.
// Use it when the user has turned notifications off or there is no desktop
// (tinyelf run).
type Disabled struct{}

// Notify does nothing.
func (Disabled) Notify(context.Context, Notification) error { return nil }

// Limits on what is sent: notification bubbles show a line of title and a
// few lines of body; the rest would be cut by the server anyway.
const (
	maxTitleRunes = 120
	maxBodyRunes  = 600
)

// cleaned returns n made fit to send: valid UTF-8 without NUL bytes (D-Bus
// rejects both, and the bus drops a client that sends them), a one-line
// title, and both clipped to a readable length.
func (n Notification) cleaned() Notification {
	n.Title = strings.Join(strings.Fields(sanitize(n.Title)), " ")
	if n.Title == "" {
		n.Title = AppName
	}
	n.Title = clip(n.Title, maxTitleRunes)
	n.Body = clip(strings.TrimSpace(sanitize(n.Body)), maxBodyRunes)
	if n.Kind == "" {
		n.Kind = KindDone
	}
	return n
}

func sanitize(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}

// clip shortens s to at most max runes, ending it with an ellipsis when cut.
func clip(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	runes := []rune(s)[:max-1]
	return strings.TrimRight(string(runes), " \t\n") + "…"
}
