package notify

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"tinyelf/backend/notify/notifytest"
)

// quick is how long an unreachable notification service may hold up the
// agent in these tests; the calls under test are bounded well below it.
const quick = 2 * time.Second

func TestDBusDeliversToDaemon(t *testing.T) {
	t.Parallel()
	bad := "bad \xff byte and a NUL\x00 here"
	tests := []struct {
		name        string
		caps        []string
		n           Notification
		wantTitle   string
		wantBody    string
		wantUrgency byte
	}{
		{
			name:      "turn done",
			n:         Notification{Title: "Refactor the parser", Body: "Renamed 3 files; tests pass.", Kind: KindDone},
			wantTitle: "Refactor the parser", wantBody: "Renamed 3 files; tests pass.", wantUrgency: 1,
		},
		{
			name:      "approval is critical",
			n:         Notification{Title: "Refactor the parser", Body: "Waiting for your approval to run Bash.", Kind: KindApproval},
			wantTitle: "Refactor the parser", wantBody: "Waiting for your approval to run Bash.", wantUrgency: 2,
		},
		{
			name:      "error",
			n:         Notification{Title: "Build", Body: "Stopped with an error: rate limited", Kind: KindError},
			wantTitle: "Build", wantBody: "Stopped with an error: rate limited", wantUrgency: 1,
		},
		{
			name:      "empty title and kind",
			n:         Notification{Body: "x"},
			wantTitle: "TinyElf", wantBody: "x", wantUrgency: 1,
		},
		{
			name:      "plain body for a daemon without markup",
			n:         Notification{Title: "t", Body: "if a < b && c > d"},
			wantTitle: "t", wantBody: "if a < b && c > d", wantUrgency: 1,
		},
		{
			name:      "escaped body for a daemon with markup",
			caps:      []string{"body", "body-markup", "actions"},
			n:         Notification{Title: "t", Body: "if a < b && c > d, it's \"fine\""},
			wantTitle: "t", wantBody: "if a &lt; b &amp;&amp; c &gt; d, it's \"fine\"", wantUrgency: 1,
		},
		{
			name:      "invalid UTF-8 and NUL are cleaned, not rejected by the bus",
			n:         Notification{Title: bad, Body: bad},
			wantTitle: "bad \uFFFD byte and a NUL here", wantBody: "bad \uFFFD byte and a NUL here", wantUrgency: 1,
		},
		{
			name:      "long text is clipped",
			n:         Notification{Title: strings.Repeat("t", 500), Body: strings.Repeat("b", 5000)},
			wantTitle: strings.Repeat("t", maxTitleRunes-1) + "…", wantBody: strings.Repeat("b", maxBodyRunes-1) + "…", wantUrgency: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			addr := notifytest.StartBus(t)
			srv := notifytest.NewServer(t, addr, notifytest.Options{Capabilities: tt.caps})

			if err := (&DBus{Address: addr}).Notify(context.Background(), tt.n); err != nil {
				t.Fatalf("Notify: %v", err)
			}

			got := srv.Received()
			if len(got) != 1 {
				t.Fatalf("daemon received %d notifications, want 1", len(got))
			}
			r := got[0]
			if r.AppName != "TinyElf" || r.Summary != tt.wantTitle || r.Body != tt.wantBody {
				t.Errorf("received app %q title %q body %q, want %q %q %q", r.AppName, r.Summary, r.Body, "TinyElf", tt.wantTitle, tt.wantBody)
			}
			if r.AppIcon != "tinyelf" || r.ReplacesID != 0 || r.ExpireTimeout != -1 || len(r.Actions) != 0 {
				t.Errorf("received icon %q replaces %d expire %d actions %v, want tinyelf 0 -1 []", r.AppIcon, r.ReplacesID, r.ExpireTimeout, r.Actions)
			}
			if u, _ := r.Hints["urgency"].Value().(byte); u != tt.wantUrgency {
				t.Errorf("urgency hint = %v, want %d", r.Hints["urgency"], tt.wantUrgency)
			}
			if de, _ := r.Hints["desktop-entry"].Value().(string); de != "tinyelf" {
				t.Errorf("desktop-entry hint = %v, want tinyelf", r.Hints["desktop-entry"])
			}
		})
	}
}

// The default notifier reads DBUS_SESSION_BUS_ADDRESS on every call, so a
// test (or a session bus that restarted) is used at once, unlike godbus's
// process-wide shared session connection.
func TestDBusFollowsSessionBusAddress(t *testing.T) {
	n := &DBus{}
	for i := range 2 {
		addr := notifytest.StartBus(t)
		srv := notifytest.NewServer(t, addr, notifytest.Options{})
		t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
		title := fmt.Sprintf("bus %d", i)
		if err := n.Notify(context.Background(), Notification{Title: title}); err != nil {
			t.Fatalf("Notify on %s: %v", title, err)
		}
		if got := srv.Received(); len(got) != 1 || got[0].Summary != title {
			t.Fatalf("%s received %+v, want one notification titled %q", title, got, title)
		}
	}
}

func TestDBusUnreachableFailsFast(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T) (*DBus, context.Context)
		wantErr error
	}{
		{
			name: "no socket at the address",
			setup: func(t *testing.T) (*DBus, context.Context) {
				return &DBus{Address: "unix:path=" + filepath.Join(t.TempDir(), "missing")}, context.Background()
			},
			wantErr: ErrUnavailable,
		},
		{
			name: "no session bus in the environment",
			setup: func(t *testing.T) (*DBus, context.Context) {
				t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
				t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
				return &DBus{}, context.Background()
			},
			wantErr: ErrUnavailable,
		},
		{
			name: "bus without a notification daemon",
			setup: func(t *testing.T) (*DBus, context.Context) {
				return &DBus{Address: notifytest.StartBus(t)}, context.Background()
			},
			wantErr: ErrUnavailable,
		},
		{
			name: "socket that never answers the handshake",
			setup: func(t *testing.T) (*DBus, context.Context) {
				return &DBus{Address: silentSocket(t), Timeout: 200 * time.Millisecond}, context.Background()
			},
			wantErr: context.DeadlineExceeded,
		},
		{
			name: "daemon that never answers",
			setup: func(t *testing.T) (*DBus, context.Context) {
				addr := notifytest.StartBus(t)
				notifytest.NewServer(t, addr, notifytest.Options{Stall: true})
				return &DBus{Address: addr, Timeout: 200 * time.Millisecond}, context.Background()
			},
			wantErr: context.DeadlineExceeded,
		},
		{
			name: "caller's deadline wins over Timeout",
			setup: func(t *testing.T) (*DBus, context.Context) {
				addr := notifytest.StartBus(t)
				notifytest.NewServer(t, addr, notifytest.Options{Stall: true})
				ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
				t.Cleanup(cancel)
				return &DBus{Address: addr, Timeout: time.Hour}, ctx
			},
			wantErr: context.DeadlineExceeded,
		},
		{
			name: "cancelled by the caller",
			setup: func(t *testing.T) (*DBus, context.Context) {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				return &DBus{Address: notifytest.StartBus(t)}, ctx
			},
			wantErr: context.Canceled,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, ctx := tt.setup(t)
			start := time.Now()
			err := n.Notify(ctx, Notification{Title: "t", Body: "b"})
			elapsed := time.Since(start)
			t.Logf("error: %v", err)
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("Notify error = %v, want %v", err, tt.wantErr)
			}
			if elapsed > quick {
				t.Errorf("Notify took %v, want under %v", elapsed, quick)
			}
		})
	}
}

// silentSocket listens on a unix socket, accepts connections and never
// writes a byte, like a wedged bus.
func silentSocket(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "silent")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Skipf("unix socket: %v", err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	})
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
		for _, c := range conns {
			c.Close()
		}
	})
	return "unix:path=" + path
}

func TestDBusConcurrentNotify(t *testing.T) {
	t.Parallel()
	addr := notifytest.StartBus(t)
	srv := notifytest.NewServer(t, addr, notifytest.Options{})
	n := &DBus{Address: addr}

	const senders = 16
	errs := make(chan error, senders)
	var wg sync.WaitGroup
	for i := range senders {
		wg.Go(func() {
			errs <- n.Notify(context.Background(), Notification{Title: fmt.Sprintf("task %d", i)})
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("Notify: %v", err)
		}
	}
	if got := len(srv.Received()); got != senders {
		t.Errorf("daemon received %d notifications, want %d", got, senders)
	}
}
