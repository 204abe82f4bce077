//go:build unix && !darwin && !ios

package notify

// New returns the desktop's notifier: DBus on the session bus here.
func New() Notifier { return &DBus{} }
