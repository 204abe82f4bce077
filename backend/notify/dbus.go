package notify

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"
)

// DefaultTimeout bounds a Notify call whose context has no deadline.
const DefaultTimeout = 3 * time.Second

// The freedesktop notification service (Desktop Notifications Specification 1.2).
const (
	serviceName      = "org.freedesktop.Notifications"
	servicePath      = dbus.ObjectPath("/org/freedesktop/Notifications")
	serviceInterface = "org.freedesktop.Notifications"
)

// DBus is a Notifier that calls the org.freedesktop.Notifications service on
// a D-Bus session bus, which every Linux and BSD desktop provides (GNOME
// Shell, Plasma, xfce4-notifyd, dunst, mako, ...).
//
// Each Notify opens its own connection, makes its calls and closes it, as
// notify-send does; a notification is at most one per turn, and a local
// connection costs about a millisecond. That is why DBus does not go through
// beeep, which on these systems uses godbus's process-wide shared session
// connection: that connection is fixed to the address the process first
// reached, its calls take no context, and when it fails beeep falls back to
// notify-send and kdialog, which need the same bus. Here the whole exchange,
// from dialling to the reply, is bounded by the context, and the bus address
// is looked up on every call, so a restarted session bus or a test's private
// one is simply used.
//
// The zero value is ready to use. DBus is safe for concurrent use; its fields
// must not change once it is in use.
type DBus struct {
	// Address is the bus address, in the form of DBUS_SESSION_BUS_ADDRESS.
	// Empty means the session bus of the environment, looked up on every
	// call: DBUS_SESSION_BUS_ADDRESS, then $XDG_RUNTIME_DIR/bus. A bus is
	// never started just to deliver a notification: with no bus, Notify
	// returns ErrUnavailable.
	Address string
	// AppName is the application name sent; empty means AppName.
	AppName string
	// Icon is a theme icon name or a file:// URI; empty means the icon named
	// by the desktop entry ("tinyelf"). Servers show a generic icon when the
	// theme has no such icon.
	Icon string
	// Timeout bounds a call whose context has no deadline; zero means
	// DefaultTimeout.
	Timeout time.Duration
}

// Notify shows n. It returns ErrUnavailable (wrapped, with the cause) when
// there is no session bus or no notification daemon on it, and the
// context's error when the daemon did not answer in time.
func (d *DBus) Notify(ctx context.Context, n Notification) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("send notification: %w", err)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cmp.Or(d.Timeout, DefaultTimeout))
		defer cancel()
	}
	addr, err := d.address()
	if err != nil {
		return err
	}
	// The connection lives no longer than ctx: godbus closes it when ctx is
	// done, which also ends a handshake with a bus that does not answer.
	conn, err := dbus.Connect(addr, dbus.WithContext(ctx))
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return fmt.Errorf("connect to session bus %s: %w", addr, ctxErr)
		}
		return fmt.Errorf("%w: connect to session bus %s: %w", ErrUnavailable, addr, err)
	}
	defer conn.Close()

	obj := conn.Object(serviceName, servicePath)
	var caps []string
	err = obj.CallWithContext(ctx, serviceInterface+".GetCapabilities", 0).Store(&caps)
	if err != nil {
		return callError(ctx, "ask the notification daemon for its capabilities", err)
	}

	n = n.cleaned()
	body := n.Body
	if slices.Contains(caps, "body-markup") {
		// The daemon reads the body as markup; an agent's summary is plain
		// text that may well contain "<" or "&".
		body = markupEscaper.Replace(body)
	}
	hints := map[string]dbus.Variant{
		"urgency":       dbus.MakeVariant(n.Kind.urgency()),
		"desktop-entry": dbus.MakeVariant(DesktopEntry),
	}
	if n.Silent {
		hints["suppress-sound"] = dbus.MakeVariant(true)
	} else {
		hints["sound-name"] = dbus.MakeVariant("message-new-instant")
	}
	var id uint32
	err = obj.CallWithContext(ctx, serviceInterface+".Notify", 0,
		cmp.Or(d.AppName, AppName), // app_name
		uint32(0),                  // replaces_id: a new notification
		cmp.Or(d.Icon, DesktopEntry),
		n.Title,
		body,
		[]string{}, // actions
		hints,
		int32(-1), // expire_timeout: the daemon's default
	).Store(&id)
	if err != nil {
		return callError(ctx, "send notification", err)
	}
	return nil
}

// markupEscaper escapes only what the markup subset of the specification
// needs, with named entities: GNOME Shell re-escapes numeric ones and would
// show "&#39;" literally.
var markupEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// address returns the bus to talk to, without starting one.
func (d *DBus) address() (string, error) {
	if d.Address != "" {
		return d.Address, nil
	}
	if a := os.Getenv("DBUS_SESSION_BUS_ADDRESS"); a != "" && a != "autolaunch:" {
		return a, nil
	}
	dir := os.Getenv("XDG_RUNTIME_DIR")
	if dir == "" {
		dir = fmt.Sprintf("/run/user/%d", os.Getuid())
	}
	sock := filepath.Join(dir, "bus")
	if fi, err := os.Stat(sock); err == nil && fi.Mode().Type() == fs.ModeSocket {
		return "unix:path=" + dbus.EscapeBusAddressValue(sock), nil
	}
	return "", fmt.Errorf("%w: no session bus (DBUS_SESSION_BUS_ADDRESS is not set and there is no %s)", ErrUnavailable, sock)
}

// callError describes a failed method call: the context's error when it
// ran out, ErrUnavailable when nobody owns the service name.
func callError(ctx context.Context, what string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s: %w", what, ctxErr)
	}
	var dbusErr dbus.Error
	if errors.As(err, &dbusErr) && serviceMissing(dbusErr.Name) {
		return fmt.Errorf("%w: no notification daemon on the session bus: %w", ErrUnavailable, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// serviceMissing reports whether a D-Bus error name means that no process
// owns the notification service and none could be started.
func serviceMissing(name string) bool {
	switch name {
	case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
		return true
	}
	return strings.HasPrefix(name, "org.freedesktop.DBus.Error.Spawn.")
}
