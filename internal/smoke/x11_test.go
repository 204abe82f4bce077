package smoke

import (
	"encoding/binary"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeX is the server end of one X11 connection: it answers the setup
// with setupStatus, InternAtom with atoms numbered from 100 (an event
// before the first reply, as a real server may send one), records the
// SendEvent and, when failSend is set, answers it with a BadWindow error.
type fakeX struct {
	setupStatus byte
	failSend    bool

	atoms map[string]uint32
	sent  []byte // the SendEvent request
	err   error
}

func (f *fakeX) serve(conn net.Conn) {
	defer conn.Close()
	f.atoms = make(map[string]uint32)
	setup := make([]byte, 12)
	if _, f.err = io.ReadFull(conn, setup); f.err != nil {
		return
	}
	if setup[0] != 'l' || binary.LittleEndian.Uint16(setup[2:]) != 11 {
		f.err = io.ErrUnexpectedEOF
		return
	}
	reason := "no"
	head := make([]byte, 8)
	head[0] = f.setupStatus
	head[1] = byte(len(reason))
	binary.LittleEndian.PutUint16(head[6:], 1)
	conn.Write(append(head, reason+"\x00\x00"...))
	if f.setupStatus != 1 {
		return
	}
	var seq uint16
	reply := func(b []byte) {
		msg := make([]byte, 32)
		copy(msg, b)
		binary.LittleEndian.PutUint16(msg[2:], seq)
		conn.Write(msg)
	}
	for {
		h := make([]byte, 4)
		if _, err := io.ReadFull(conn, h); err != nil {
			return // the client is done
		}
		body := make([]byte, 4*int(binary.LittleEndian.Uint16(h[2:]))-4)
		if _, f.err = io.ReadFull(conn, body); f.err != nil {
			return
		}
		seq++
		switch h[0] {
		case opInternAtom:
			n := binary.LittleEndian.Uint16(body[0:])
			name := string(body[4 : 4+n])
			if len(f.atoms) == 0 {
				conn.Write(append([]byte{12}, make([]byte, 31)...)) // an Expose event
			}
			f.atoms[name] = uint32(100 + len(f.atoms))
			rep := make([]byte, 12)
			rep[0] = 1
			binary.LittleEndian.PutUint32(rep[8:], f.atoms[name])
			reply(rep)
		case opSendEvent:
			f.sent = append(h, body...)
			if f.failSend {
				e := make([]byte, 8)
				e[0], e[1] = 0, 3
				binary.LittleEndian.PutUint32(e[4:], binary.LittleEndian.Uint32(body[0:]))
				reply(e)
			}
		case opGetInputFocus:
			reply([]byte{1})
		}
	}
}

func runFake(t *testing.T, f *fakeX, window uint32) error {
	t.Helper()
	// A Unix socket, not net.Pipe: like a real X connection it buffers, so
	// an error the server sends while the client still writes waits.
	l, err := net.Listen("unix", filepath.Join(t.TempDir(), "X"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		server, err := l.Accept()
		if err != nil {
			f.err = err
			return
		}
		f.serve(server)
	}()
	client, err := net.Dial("unix", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	client.SetDeadline(time.Now().Add(10 * time.Second))
	err = sendDelete(client, window)
	client.Close()
	<-done
	if f.err != nil {
		t.Fatalf("fake X server: %v", f.err)
	}
	return err
}

func TestSendDelete(t *testing.T) {
	t.Parallel()
	f := &fakeX{setupStatus: 1}
	if err := runFake(t, f, 0x20000e); err != nil {
		t.Fatalf("sendDelete: %v", err)
	}
	if len(f.sent) != 44 {
		t.Fatalf("SendEvent request is %d bytes, want 44", len(f.sent))
	}
	le := binary.LittleEndian
	req, ev := f.sent[:12], f.sent[12:]
	checks := []struct {
		what      string
		got, want uint32
	}{
		{"request length", uint32(le.Uint16(req[2:])), 11},
		{"destination", le.Uint32(req[4:]), 0x20000e},
		{"event mask", le.Uint32(req[8:]), 0},
		{"event code", uint32(ev[0]), clientMessage},
		{"format", uint32(ev[1]), 32},
		{"event window", le.Uint32(ev[4:]), 0x20000e},
		{"message type", le.Uint32(ev[8:]), f.atoms["WM_PROTOCOLS"]},
		{"protocol", le.Uint32(ev[12:]), f.atoms["WM_DELETE_WINDOW"]},
		{"timestamp", le.Uint32(ev[16:]), 0},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %#x, want %#x", c.what, c.got, c.want)
		}
	}
	if f.atoms["WM_PROTOCOLS"] == 0 || f.atoms["WM_DELETE_WINDOW"] == 0 {
		t.Errorf("atoms asked for: %v, want WM_PROTOCOLS and WM_DELETE_WINDOW", f.atoms)
	}
}

func TestSendDeleteErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		f    *fakeX
		want string
	}{
		{"no such window", &fakeX{setupStatus: 1, failSend: true}, "BadWindow"},
		{"refused", &fakeX{setupStatus: 0}, "refused the connection: no"},
		{"authentication", &fakeX{setupStatus: 2}, "authentication"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := runFake(t, tt.f, 0x42)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("sendDelete = %v, want an error saying %q", err, tt.want)
			}
		})
	}
}

func TestDisplaySocket(t *testing.T) {
	t.Parallel()
	tests := []struct {
		display, want string
		ok            bool
	}{
		{":1", "/tmp/.X11-unix/X1", true},
		{":12.0", "/tmp/.X11-unix/X12", true},
		{"unix:3", "/tmp/.X11-unix/X3", true},
		{"example.org:0", "", false},
		{":", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, err := displaySocket(tt.display)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("displaySocket(%q) = %q, %v; want %q (ok %v)", tt.display, got, err, tt.want, tt.ok)
		}
	}
}

func TestRequestCloseBadInput(t *testing.T) {
	t.Parallel()
	if err := RequestClose(":1", "not-an-id", time.Second); err == nil || !strings.Contains(err.Error(), "window id") {
		t.Errorf("RequestClose with a bad id = %v, want a window id error", err)
	}
	if err := RequestClose("far.away:0", "0x1", time.Second); err == nil || !strings.Contains(err.Error(), "not a local display") {
		t.Errorf("RequestClose on a remote display = %v, want a local display error", err)
	}
}
