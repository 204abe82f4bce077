package api

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// startHTTP serves s on a loopback port for the test.
func startHTTP(t *testing.T, s *HTTPServer) string {
	t.Helper()
	ln, err := s.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Serve(ctx, ln); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return "http://" + ln.Addr().String()
}

func testServer(t *testing.T) (*HTTPServer, string) {
	s := &HTTPServer{
		Methods: map[string]Method{
			"Echo": method(func(_ context.Context, a struct {
				Text string `json:"text"`
			}) (map[string]string, error) {
				return map[string]string{"echo": a.Text}, nil
			}),
			"Missing": method(func(context.Context, struct{}) (struct{}, error) {
				return struct{}{}, notFoundf("no such thing")
			}),
			"Broken": method(func(context.Context, struct{}) (struct{}, error) { return struct{}{}, errors.New("disk on fire") }),
		},
		Bus:     NewBus(),
		Assets:  fstest.MapFS{"index.html": {Data: []byte("<html>app</html>")}, "assets/app.js": {Data: []byte("console.log(1)")}},
		Token:   "secret-token",
		Version: "1.2.3",
	}
	return s, startHTTP(t, s)
}

func do(t *testing.T, method, url, body string, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestHTTPAuthAndOrigin(t *testing.T) {
	t.Parallel()
	_, base := testServer(t)
	port := base[strings.LastIndex(base, ":")+1:]
	bearer := map[string]string{"Authorization": "Bearer secret-token"}
	tests := []struct {
		name, method, path, body string
		header                   map[string]string
		status                   int
		contains                 string
	}{
		{"no token", "POST", "/api/call/Echo", `{"text":"x"}`, nil, 401, "missing or wrong token"},
		{"wrong token", "POST", "/api/call/Echo", `{}`, map[string]string{"Authorization": "Bearer nope"}, 401, "unauthorized"},
		{"token in header", "POST", "/api/call/Echo", `{"text":"hi"}`, bearer, 200, `{"result":{"echo":"hi"}}`},
		{"token in query", "POST", "/api/call/Echo?token=secret-token", `{"text":"q"}`, nil, 200, `"echo":"q"`},
		{"token in cookie", "POST", "/api/call/Echo", `{"text":"c"}`, map[string]string{"Cookie": "tinyelf_token=secret-token"}, 200, `"echo":"c"`},
		{"foreign origin", "POST", "/api/call/Echo", `{}`, map[string]string{"Authorization": "Bearer secret-token", "Origin": "https://evil.example"}, 403, "cross-origin"},
		{"same origin", "POST", "/api/call/Echo", `{"text":"o"}`, map[string]string{"Authorization": "Bearer secret-token", "Origin": "http://127.0.0.1:" + port}, 200, `"echo":"o"`},
		{"localhost origin", "POST", "/api/call/Echo", `{}`, map[string]string{"Authorization": "Bearer secret-token", "Origin": "http://localhost:" + port}, 200, "result"},
		{"origin on another port", "POST", "/api/call/Echo", `{}`, map[string]string{"Authorization": "Bearer secret-token", "Origin": "http://127.0.0.1:1"}, 403, "cross-origin"},
		{"rebinding host", "POST", "/api/call/Echo", `{}`, map[string]string{"Authorization": "Bearer secret-token", "Host": "evil.example:" + port}, 403, "loopback"},
		{"host on another port", "GET", "/", "", map[string]string{"Host": "127.0.0.1:1"}, 403, "loopback"},
		{"unknown method", "POST", "/api/call/Nope", `{}`, bearer, 404, `unknown method \"Nope\"`},
		{"bad JSON", "POST", "/api/call/Echo", `{"text":`, bearer, 400, "not valid JSON"},
		{"unknown field", "POST", "/api/call/Echo", `{"txet":"x"}`, bearer, 200, "result"},
		{"typed error", "POST", "/api/call/Missing", `{}`, bearer, 404, "no such thing"},
		{"internal error", "POST", "/api/call/Broken", `{}`, bearer, 500, "disk on fire"},
		{"version", "GET", "/api/version", "", bearer, 200, `"version":"1.2.3"`},
		{"version needs the token", "GET", "/api/version", "", nil, 401, "unauthorized"},
		{"GET on a call", "GET", "/api/call/Echo", "", bearer, 404, "no such endpoint"},
		{"page without token", "GET", "/", "", nil, 200, "<html>app</html>"},
		{"asset", "GET", "/assets/app.js", "", nil, 200, "console.log"},
		{"spa fallback", "GET", "/sessions/abc", "", nil, 200, "<html>app</html>"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			status, body := do(t, tc.method, base+tc.path, tc.body, tc.header)
			if status != tc.status || !strings.Contains(body, tc.contains) {
				t.Errorf("%s %s: %d %s; want %d containing %q", tc.method, tc.path, status, body, tc.status, tc.contains)
			}
		})
	}
}

func TestPageLoadSetsTheCookie(t *testing.T) {
	t.Parallel()
	_, base := testServer(t)
	resp, err := http.Get(base + "/?token=secret-token")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var found bool
	for _, c := range resp.Cookies() {
		found = found || (c.Name == tokenCookie && c.Value == "secret-token" && c.HttpOnly && c.SameSite == http.SameSiteStrictMode)
	}
	if !found {
		t.Errorf("no HttpOnly SameSite=Strict token cookie: %v", resp.Cookies())
	}
	// The page never sends its URL (with the token) to the image hosts
	// answers may show.
	if rp, csp := resp.Header.Get("Referrer-Policy"), resp.Header.Get("Content-Security-Policy"); rp != "no-referrer" ||
		!strings.Contains(csp, "img-src 'self' data: https:") || !strings.Contains(csp, "media-src 'self' data:") || !strings.Contains(csp, "default-src 'self'") {
		t.Errorf("Referrer-Policy %q, Content-Security-Policy %q", rp, csp)
	}
	resp, _ = http.Get(base + "/?token=wrong")
	resp.Body.Close()
	if len(resp.Cookies()) != 0 {
		t.Error("a wrong token got a cookie")
	}
}

func TestServerSentEvents(t *testing.T) {
	t.Parallel()
	s, base := testServer(t)
	if code, _ := do(t, "GET", base+"/api/events", "", nil); code != 401 {
		t.Fatalf("events without the token: %d", code)
	}
	resp, err := http.Get(base + "/api/events?token=secret-token")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	deadline := time.Now().Add(5 * time.Second)
	for s.Bus.Subscribers() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	s.Bus.Publish(Event{SessionID: "s1", Seq: 7, Type: "user.message", Data: json.RawMessage(`{"text":"héllo"}`)})
	r := bufio.NewReader(resp.Body)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(line, "data: ") {
			var ev Event
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev); err != nil {
				t.Fatal(err)
			}
			if ev.SessionID != "s1" || ev.Seq != 7 || !strings.Contains(string(ev.Data), "héllo") {
				t.Errorf("event %+v", ev)
			}
			return
		}
	}
}

func TestBusNeverBlocks(t *testing.T) {
	t.Parallel()
	b := NewBus()
	slow, stopSlow := b.Subscribe()
	fast, stopFast := b.Subscribe()
	defer stopFast()
	done := make(chan struct{})
	go func() {
		for i := 0; i < busBuffer*2; i++ {
			b.Publish(Event{Type: "x"})
		}
		close(done)
	}()
	go func() {
		for range fast {
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("a subscriber that does not read blocked Publish")
	}
	// The slow subscriber drained later learns it lagged.
	for range busBuffer {
		<-slow
	}
	b.Publish(Event{Type: "after"})
	if ev := <-slow; ev.Type != LaggedEvent {
		t.Errorf("got %q, want %q", ev.Type, LaggedEvent)
	}
	stopSlow()
	stopSlow() // idempotent
	if b.Subscribers() != 1 {
		t.Errorf("%d subscribers", b.Subscribers())
	}
}

func TestListenDefaultsToLoopback(t *testing.T) {
	t.Parallel()
	s := &HTTPServer{Bus: NewBus(), Token: NewToken()}
	ln, err := s.Listen("")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	host, _, _ := net.SplitHostPort(ln.Addr().String())
	if host != "127.0.0.1" {
		t.Errorf("listening on %s", host)
	}
	if !strings.Contains(s.URL(), "/?token="+s.Token) || len(s.Token) < 32 {
		t.Errorf("URL %s", s.URL())
	}
}
