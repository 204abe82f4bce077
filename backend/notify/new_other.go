//go:build !unix || darwin || ios

package notify

// New returns the desktop's notifier: beeep on this platform.
func New() Notifier { return &Beeep{} }
