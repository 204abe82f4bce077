package smoke

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// RequestClose asks an X11 top-level window to close, as a window
// manager's close button does: it sends the window's client the ICCCM
// WM_DELETE_WINDOW message (a WM_PROTOCOLS ClientMessage). The client
// decides what follows; GTK turns it into the window's delete-event, the
// path a user's click on the close button takes. It waits until the X
// server has passed the message on.
//
// display is a local display name (":1" or ":1.0"); only its Unix socket
// is used, as the smoke's Xvfb listens on nothing else. window is the
// window id as xwininfo prints it ("0x1a00003").
func RequestClose(display, window string, timeout time.Duration) error {
	id, err := strconv.ParseUint(strings.TrimPrefix(window, "0x"), 16, 32)
	if err != nil {
		return fmt.Errorf("window id %q: %w", window, err)
	}
	sock, err := displaySocket(display)
	if err != nil {
		return err
	}
	conn, err := net.DialTimeout("unix", sock, timeout)
	if err != nil {
		return fmt.Errorf("connect to X display %s: %w", display, err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(timeout)); err != nil {
		return err
	}
	return sendDelete(conn, uint32(id))
}

// displaySocket is the Unix socket of a local X display.
func displaySocket(display string) (string, error) {
	host, rest, ok := strings.Cut(display, ":")
	if !ok || (host != "" && host != "unix") {
		return "", fmt.Errorf("display %q is not a local display (want :N)", display)
	}
	num, _, _ := strings.Cut(rest, ".")
	if _, err := strconv.Atoi(num); err != nil {
		return "", fmt.Errorf("display %q has no number", display)
	}
	return "/tmp/.X11-unix/X" + num, nil
}

// The X11 core protocol requests sendDelete makes.
const (
	opInternAtom    = 16
	opSendEvent     = 25
	opGetInputFocus = 43
	clientMessage   = 33 // the ClientMessage event code
)

// x11 is one client connection speaking the core protocol in the little
// endian byte order; it keeps count of the requests sent, as replies and
// errors name the request by that number.
type x11 struct {
	w   *bufio.Writer
	r   *bufio.Reader
	seq uint16
}

var le = binary.LittleEndian

// sendDelete speaks to an X server over conn: the connection setup (no
// authorization, which Xvfb without -auth accepts locally), the two atoms,
// the ClientMessage to window, and a round trip that returns once the
// server has handled everything before it.
func sendDelete(conn io.ReadWriter, window uint32) error {
	x := &x11{w: bufio.NewWriter(conn), r: bufio.NewReader(conn)}
	if err := x.setup(); err != nil {
		return err
	}
	protocols, err := x.internAtom("WM_PROTOCOLS")
	if err != nil {
		return err
	}
	del, err := x.internAtom("WM_DELETE_WINDOW")
	if err != nil {
		return err
	}
	ev := make([]byte, 32)
	ev[0] = clientMessage
	ev[1] = 32 // format: the data are 32-bit values
	le.PutUint32(ev[4:], window)
	le.PutUint32(ev[8:], protocols)
	le.PutUint32(ev[12:], del)
	// ev[16:20] is the timestamp: 0, CurrentTime; the rest is unused.
	req := make([]byte, 12, 44)
	req[0] = opSendEvent
	req[1] = 0 // propagate: no
	le.PutUint16(req[2:], 11)
	le.PutUint32(req[4:], window)
	le.PutUint32(req[8:], 0) // no event mask: to the window's own client
	if err := x.request(append(req, ev...)); err != nil {
		return err
	}
	// SendEvent has no reply; a request that has one, answered, means the
	// server processed the SendEvent (or sent its error) before it.
	focus := []byte{opGetInputFocus, 0, 1, 0}
	if err := x.request(focus); err != nil {
		return err
	}
	_, err = x.reply("SendEvent WM_DELETE_WINDOW")
	return err
}

// setup opens the connection.
func (x *x11) setup() error {
	msg := []byte{'l', 0, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0} // little endian, protocol 11.0, no authorization
	if _, err := x.w.Write(msg); err != nil {
		return err
	}
	if err := x.w.Flush(); err != nil {
		return fmt.Errorf("X connection setup: %w", err)
	}
	head := make([]byte, 8)
	if _, err := io.ReadFull(x.r, head); err != nil {
		return fmt.Errorf("X connection setup: %w", err)
	}
	rest := make([]byte, 4*int(le.Uint16(head[6:])))
	if _, err := io.ReadFull(x.r, rest); err != nil {
		return fmt.Errorf("X connection setup: %w", err)
	}
	switch head[0] {
	case 1:
		return nil
	case 0: // failed: head[1] is the reason's length
		return fmt.Errorf("the X server refused the connection: %s", rest[:min(int(head[1]), len(rest))])
	default:
		return errors.New("the X server asks for authentication (start Xvfb without -auth)")
	}
}

// internAtom returns the atom named name, creating it if need be.
func (x *x11) internAtom(name string) (uint32, error) {
	n := len(name)
	padded := (n + 3) &^ 3
	req := make([]byte, 8+padded)
	req[0] = opInternAtom
	req[1] = 0 // only if exists: no
	le.PutUint16(req[2:], uint16(2+padded/4))
	le.PutUint16(req[4:], uint16(n))
	copy(req[8:], name)
	if err := x.request(req); err != nil {
		return 0, err
	}
	rep, err := x.reply("InternAtom " + name)
	if err != nil {
		return 0, err
	}
	return le.Uint32(rep[8:]), nil
}

// request sends one request.
func (x *x11) request(b []byte) error {
	x.seq++
	if _, err := x.w.Write(b); err != nil {
		return err
	}
	return x.w.Flush()
}

// reply reads until the reply to the last request, skipping events; an
// error (for any request so far) fails it. what names the request in
// errors.
func (x *x11) reply(what string) ([]byte, error) {
	for {
		msg := make([]byte, 32)
		if _, err := io.ReadFull(x.r, msg); err != nil {
			return nil, fmt.Errorf("X %s: %w", what, err)
		}
		switch msg[0] {
		case 0:
			return nil, fmt.Errorf("X %s: error %d (%s) for request %d, resource 0x%x",
				what, msg[1], errorName(msg[1]), le.Uint16(msg[2:]), le.Uint32(msg[4:]))
		case 1:
			if extra := le.Uint32(msg[4:]); extra > 0 {
				more := make([]byte, 4*int(extra))
				if _, err := io.ReadFull(x.r, more); err != nil {
					return nil, fmt.Errorf("X %s: %w", what, err)
				}
				msg = append(msg, more...)
			}
			if le.Uint16(msg[2:]) == x.seq {
				return msg, nil
			}
		}
		// An event, or a reply to an earlier request: not this one.
	}
}

// errorName names the core protocol errors a close request can meet.
func errorName(code byte) string {
	switch code {
	case 3:
		return "BadWindow: no such window"
	case 5:
		return "BadAtom"
	case 11:
		return "BadAlloc"
	case 16:
		return "BadLength"
	}
	return "see the X11 protocol"
}
