package api

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"
)

func TestListenRefusesRemoteAddresses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		addr        string
		allowRemote bool
		refused     bool
	}{
		{"127.0.0.1:0", false, false},
		{"localhost:0", false, false},
		{"0.0.0.0:0", false, true},
		{"[::]:0", false, true},
		{":0", false, true},
		{"192.0.2.1:0", false, true},   // a LAN address
		{"example.com:0", false, true}, // a name that is not localhost
		{"not-an-address", false, true},
		{"0.0.0.0:0", true, false},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s remote=%v", tc.addr, tc.allowRemote), func(t *testing.T) {
			t.Parallel()
			s := &HTTPServer{Bus: NewBus(), Token: NewToken(), AllowRemote: tc.allowRemote}
			ln, err := s.Listen(tc.addr)
			if ln != nil {
				ln.Close()
			}
			if tc.refused {
				if err == nil || (tc.addr != "not-an-address" && !errors.Is(err, ErrNotLoopback)) {
					t.Fatalf("Listen(%q) = %v, want ErrNotLoopback", tc.addr, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Listen(%q): %v", tc.addr, err)
			}
			if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") && !strings.HasPrefix(s.URL(), "http://[::1]:") {
				t.Errorf("URL %s does not name this machine", s.URL())
			}
		})
	}
}

// requestOn runs one request through the handler as if it had arrived on
// the connection address local.
func requestOn(s *HTTPServer, local, host, path string, header map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Host = host
	for k, v := range header {
		req.Header.Set(k, v)
	}
	addr, _ := net.ResolveTCPAddr("tcp", local)
	req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, addr))
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	return rec
}

// TestHostCheckUsesTheConnection checks that the Host header alone does
// not let a request in: the address the connection arrived on decides.
func TestHostCheckUsesTheConnection(t *testing.T) {
	t.Parallel()
	bearer := map[string]string{"Authorization": "Bearer tok"}
	tests := []struct {
		name        string
		allowRemote bool
		local, host string
		header      map[string]string
		status      int
	}{
		{"loopback", false, "127.0.0.1:8080", "127.0.0.1:8080", bearer, 200},
		{"LAN connection claiming loopback", false, "192.0.2.2:8080", "127.0.0.1:8080", bearer, 403},
		{"LAN connection with its own address", false, "192.0.2.2:8080", "192.0.2.2:8080", bearer, 403},
		{"remote: own address", true, "192.0.2.2:8080", "192.0.2.2:8080", bearer, 200},
		{"remote: a name", true, "192.0.2.2:8080", "tinyelf.lan:8080", bearer, 200},
		{"remote: claiming loopback", true, "192.0.2.2:8080", "127.0.0.1:8080", bearer, 403},
		{"remote: claiming localhost", true, "192.0.2.2:8080", "localhost:8080", bearer, 403},
		{"remote: another IP", true, "192.0.2.2:8080", "192.0.2.9:8080", bearer, 403},
		{"remote: another port", true, "192.0.2.2:8080", "192.0.2.2:9090", bearer, 403},
		{"remote: cross origin", true, "192.0.2.2:8080", "192.0.2.2:8080",
			map[string]string{"Authorization": "Bearer tok", "Origin": "http://tinyelf.lan:8080"}, 403},
		{"remote: same origin", true, "192.0.2.2:8080", "192.0.2.2:8080",
			map[string]string{"Authorization": "Bearer tok", "Origin": "http://192.0.2.2:8080"}, 200},
		{"remote: no token", true, "192.0.2.2:8080", "192.0.2.2:8080", nil, 401},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := &HTTPServer{Bus: NewBus(), Token: "tok", Version: "1", AllowRemote: tc.allowRemote}
			s.setAddr("0.0.0.0:8080")
			rec := requestOn(s, tc.local, tc.host, "/api/version", tc.header)
			if rec.Code != tc.status {
				t.Errorf("status %d, want %d: %s", rec.Code, tc.status, rec.Body)
			}
		})
	}
}

// TestRemoteNeedsTheTokenOnEveryRequest serves with AllowRemote (on
// loopback, as tests do): pages and assets need the token too, and the
// page load with it sets the cookie the page's own requests carry.
func TestRemoteNeedsTheTokenOnEveryRequest(t *testing.T) {
	t.Parallel()
	s := &HTTPServer{Bus: NewBus(), Token: "tok", AllowRemote: true,
		Assets: fstest.MapFS{"index.html": {Data: []byte("<html>app</html>")}, "assets/app.js": {Data: []byte("js")}}}
	base := startHTTP(t, s)
	for _, path := range []string{"/", "/assets/app.js", "/sessions/x", "/api/version", "/api/events"} {
		if code, body := do(t, "GET", base+path, "", nil); code != http.StatusUnauthorized {
			t.Errorf("GET %s without the token: %d %s", path, code, body)
		}
	}
	resp, err := http.Get(base + "/?token=tok")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var cookie string
	for _, c := range resp.Cookies() {
		if c.Name == tokenCookie {
			cookie = c.Name + "=" + c.Value
		}
	}
	if resp.StatusCode != 200 || cookie == "" {
		t.Fatalf("page with the token: %d, cookie %q", resp.StatusCode, cookie)
	}
	if code, body := do(t, "GET", base+"/assets/app.js", "", map[string]string{"Cookie": cookie}); code != 200 || body != "js" {
		t.Errorf("asset with the cookie: %d %s", code, body)
	}
}

// TestIdleConnectionsAreClosed opens 300 connections that sit idle, half
// before sending anything (cut by the read-header timeout) and half after
// one request (cut by the idle timeout): the server closes them all. Each
// half has a server of its own whose other timeout is long, so how fast
// the test's goroutines get going does not matter.
func TestIdleConnectionsAreClosed(t *testing.T) {
	t.Parallel()
	const short, long = 300 * time.Millisecond, time.Minute
	silent := strings.TrimPrefix(startHTTP(t, &HTTPServer{Bus: NewBus(), Token: "tok", Version: "1",
		ReadHeaderTimeout: short, IdleTimeout: long}), "http://")
	afterOne := strings.TrimPrefix(startHTTP(t, &HTTPServer{Bus: NewBus(), Token: "tok", Version: "1",
		ReadHeaderTimeout: long, IdleTimeout: short}), "http://")
	const n = 300
	var wg sync.WaitGroup
	errs := make(chan error, n)
	start := time.Now()
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			addr := silent
			if i%2 == 1 {
				addr = afterOne
			}
			c, err := net.Dial("tcp", addr)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(30 * time.Second))
			r := bufio.NewReader(c)
			if addr == afterOne {
				fmt.Fprintf(c, "GET /api/version HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer tok\r\n\r\n", addr)
				resp, err := http.ReadResponse(r, nil)
				if err != nil {
					errs <- fmt.Errorf("first request: %w", err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			// Idle now: the server must close the connection.
			if _, err := r.ReadByte(); err != io.EOF {
				errs <- fmt.Errorf("connection %d: read %v, want EOF (closed by the server)", i, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	t.Logf("%d idle connections closed after %s", n, time.Since(start).Round(time.Millisecond))
}

// TestSlowBodyIsCutOff sends a call's body at one byte a second: the
// server stops waiting at its read timeout.
func TestSlowBodyIsCutOff(t *testing.T) {
	t.Parallel()
	s := &HTTPServer{Bus: NewBus(), Token: "tok", ReadTimeout: time.Second,
		Methods: map[string]Method{"Echo": method(func(context.Context, struct{}) (struct{}, error) { return struct{}{}, nil })}}
	base := startHTTP(t, s)
	addr := strings.TrimPrefix(base, "http://")
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	fmt.Fprintf(c, "POST /api/call/Echo HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer tok\r\nContent-Length: 1000\r\n\r\n", addr)
	closed := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(c) // the answer, if any, then EOF
		closed <- string(b)
	}()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	sent := 0
	for {
		select {
		case answer := <-closed:
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("the connection stayed open %s", took)
			}
			if answer != "" && !strings.Contains(answer, "408") {
				t.Errorf("answer %q, want 408 or none", answer)
			}
			t.Logf("cut off after %s and %d bytes", time.Since(start).Round(10*time.Millisecond), sent)
			return
		case <-tick.C:
			if sent >= 10 {
				t.Fatalf("still reading a 1 B/s body after %d bytes", sent)
			}
			c.Write([]byte("x"))
			sent++
		}
	}
}

// TestLongCallsAndStreamsOutliveTheTimeouts checks that the read and write
// timeouts only bound reading a request and writing its answer: a call
// that runs longer still answers, and the event stream stays open.
func TestLongCallsAndStreamsOutliveTheTimeouts(t *testing.T) {
	t.Parallel()
	const timeout = 300 * time.Millisecond
	s := &HTTPServer{Bus: NewBus(), Token: "tok", ReadTimeout: timeout, WriteTimeout: timeout,
		Methods: map[string]Method{"Slow": method(func(ctx context.Context, _ struct{}) (string, error) {
			select {
			case <-time.After(3 * timeout):
				return "done", nil
			case <-ctx.Done():
				return "", ctx.Err()
			}
		})}}
	base := startHTTP(t, s)
	if code, body := do(t, "POST", base+"/api/call/Slow", "{}", map[string]string{"Authorization": "Bearer tok"}); code != 200 || !strings.Contains(body, "done") {
		t.Errorf("a call longer than the timeouts: %d %s", code, body)
	}

	resp, err := http.Get(base + "/api/events?token=tok")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	start := time.Now()
	for time.Since(start) < 4*timeout { // keepalives keep coming past both timeouts
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("the stream ended after %s: %v", time.Since(start), err)
		}
		_ = line
	}
	s.Bus.Publish(Event{SessionID: "late", Type: "user.message", Data: json.RawMessage(`{}`)})
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("the stream ended before the event: %v", err)
		}
		if strings.Contains(line, `"late"`) {
			return
		}
	}
}
