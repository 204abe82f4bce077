// Package notifytest runs a private D-Bus session bus with a fake
// org.freedesktop.Notifications daemon on it, so tests can check the
// notifications code really sends, over the real wire, in the manner of
// httptest.
package notifytest

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// busConfig is a session bus that listens on one socket, lets every peer
// talk and own names, and has no service directories: nothing installed on
// the machine (a real notification daemon, say) is started on it.
const busConfig = `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>%s</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`

// StartBus starts a private dbus-daemon for the test and returns its
// address; t.Cleanup stops it. It skips the test when dbus-daemon is not on
// PATH (Debian: apt-get install dbus).
func StartBus(t testing.TB) string {
	t.Helper()
	daemon, err := exec.LookPath("dbus-daemon")
	if err != nil {
		t.Skip("dbus-daemon is not on PATH; install it (Debian: apt-get install dbus) to run the D-Bus notification tests")
	}
	dir := t.TempDir()
	if len(dir) > 80 { // a unix socket path has room for about 107 bytes
		short, err := os.MkdirTemp("/tmp", "dbus")
		if err != nil {
			t.Fatalf("make a directory for the bus socket: %v", err)
		}
		t.Cleanup(func() { os.RemoveAll(short) })
		dir = short
	}
	var listen bytes.Buffer
	xml.EscapeText(&listen, []byte("unix:path="+dbus.EscapeBusAddressValue(filepath.Join(dir, "bus"))))
	conf := filepath.Join(dir, "session.conf")
	if err := os.WriteFile(conf, fmt.Appendf(nil, busConfig, listen.String()), 0o600); err != nil {
		t.Fatalf("write bus config: %v", err)
	}

	cmd := exec.Command(daemon, "--config-file="+conf, "--nofork", "--print-address=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("dbus-daemon stdout: %v", err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start dbus-daemon: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})

	// The daemon prints its address once it listens.
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case addr := <-line:
		if addr == "" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("dbus-daemon printed no address; stderr: %s", stderr.String())
		}
		return addr
	case <-time.After(10 * time.Second):
		cmd.Process.Kill() // closes stdout, which ends the reader
		t.Fatalf("dbus-daemon did not print its address within 10s")
		return ""
	}
}

// Received is one Notify call as the daemon saw it.
type Received struct {
	AppName       string
	ReplacesID    uint32
	AppIcon       string
	Summary       string
	Body          string
	Actions       []string
	Hints         map[string]dbus.Variant
	ExpireTimeout int32
}

// Options configure a Server.
type Options struct {
	// Capabilities is what GetCapabilities answers; nil means {"body"}.
	Capabilities []string
	// Stall makes Notify never answer, like a hung daemon, until the test
	// ends.
	Stall bool
}

// Server is a fake notification daemon: it owns org.freedesktop.Notifications
// on a bus and records every Notify call. It is safe for concurrent use.
type Server struct {
	mu       sync.Mutex
	received []Received
}

// NewServer connects to the bus at address, takes the name
// org.freedesktop.Notifications and serves /org/freedesktop/Notifications
// until the test ends.
func NewServer(t testing.TB, address string, opts Options) *Server {
	t.Helper()
	conn, err := dbus.Connect(address)
	if err != nil {
		t.Fatalf("connect the fake notification daemon to %s: %v", address, err)
	}
	stop := make(chan struct{})
	t.Cleanup(func() {
		close(stop)
		conn.Close()
	})
	s := &Server{}
	d := &daemon{server: s, caps: opts.Capabilities, stop: stop, stall: opts.Stall}
	if d.caps == nil {
		d.caps = []string{"body"}
	}
	if err := conn.Export(d, "/org/freedesktop/Notifications", "org.freedesktop.Notifications"); err != nil {
		t.Fatalf("export the fake notification daemon: %v", err)
	}
	reply, err := conn.RequestName("org.freedesktop.Notifications", dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own org.freedesktop.Notifications: reply %v, error %v", reply, err)
	}
	return s
}

// Received returns a copy of the Notify calls answered so far, oldest
// first.
func (s *Server) Received() []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.received)
}

// daemon holds the exported D-Bus methods, apart from Server so that only
// the specification's methods are on the bus.
type daemon struct {
	server *Server
	caps   []string
	stop   <-chan struct{}
	stall  bool
}

// Notify records a notification (or, stalled, never answers).
func (d *daemon) Notify(appName string, replacesID uint32, appIcon, summary, body string,
	actions []string, hints map[string]dbus.Variant, expireTimeout int32) (uint32, *dbus.Error) {
	if d.stall {
		<-d.stop
		return 0, dbus.MakeFailedError(fmt.Errorf("stalled daemon stopped"))
	}
	s := d.server
	s.mu.Lock()
	defer s.mu.Unlock()
	s.received = append(s.received, Received{
		AppName: appName, ReplacesID: replacesID, AppIcon: appIcon, Summary: summary, Body: body,
		Actions: actions, Hints: hints, ExpireTimeout: expireTimeout,
	})
	return uint32(len(s.received)), nil
}

// GetCapabilities answers the configured capabilities.
func (d *daemon) GetCapabilities() ([]string, *dbus.Error) { return d.caps, nil }

// GetServerInformation names the fake.
func (d *daemon) GetServerInformation() (name, vendor, version, specVersion string, err *dbus.Error) {
	return "notifytest", "TinyElf", "1", "1.2", nil
}
