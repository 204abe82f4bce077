package oauth

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"sync"
	"time"
)

// callback catches the authorization server's redirect on a loopback port
// (RFC 8252 §7.3): http://127.0.0.1:<port>/callback.
type callback struct {
	server      string
	redirectURI string
	srv         *http.Server

	mu    sync.Mutex
	state string
	done  chan result
	once  sync.Once
}

type result struct {
	code, iss string
	err       error
}

// listenCallback listens on preferred (the port of the redirect URI a
// saved registration names, so the registration still fits) or, when that
// is taken or empty, a random loopback port.
func listenCallback(server, preferred string) (*callback, error) {
	var ln net.Listener
	err := errors.New("no port")
	if preferred != "" {
		ln, err = net.Listen("tcp", preferred)
	}
	if err != nil {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		return nil, fmt.Errorf("listen for the sign-in redirect: %w", err)
	}
	cb := &callback{server: server, done: make(chan result, 1),
		redirectURI: "http://" + ln.Addr().String() + "/callback"}
	mux := http.NewServeMux()
	mux.HandleFunc("/callback", cb.handle)
	cb.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = cb.srv.Serve(ln) }()
	return cb, nil
}

func (cb *callback) expect(state string) {
	cb.mu.Lock()
	cb.state = state
	cb.mu.Unlock()
}

func (cb *callback) handle(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	cb.mu.Lock()
	want := cb.state
	cb.mu.Unlock()
	if q.Get("state") != want || want == "" {
		// Not our sign-in (a stale tab, a forged link): ignore it.
		http.Error(w, "This sign-in link is not the one TinyElf is waiting for. Start the sign-in again from TinyElf.", http.StatusBadRequest)
		return
	}
	var res result
	switch {
	case q.Get("error") != "":
		msg := q.Get("error")
		if d := q.Get("error_description"); d != "" {
			msg += ": " + d
		}
		res.err = fmt.Errorf("the authorization server refused the sign-in to %s (%s)", cb.server, msg)
	case q.Get("code") == "":
		res.err = errors.New("the sign-in redirect carried no authorization code")
	default:
		res.code, res.iss = q.Get("code"), q.Get("iss")
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	title, text := "Signed in", "TinyElf is signed in to "+cb.server+". You can close this tab and go back to TinyElf."
	if res.err != nil {
		title, text = "Sign-in failed", res.err.Error()
	}
	fmt.Fprintf(w, "<!doctype html><meta charset=utf-8><title>%s</title><body style=\"font-family:sans-serif;margin:3rem\"><h1>%s</h1><p>%s</p>",
		html.EscapeString(title), html.EscapeString(title), html.EscapeString(text))
	cb.once.Do(func() { cb.done <- res })
}

// wait returns the authorization code and the response's iss, or why
// there is none.
func (cb *callback) wait(ctx context.Context) (code, iss string, err error) {
	select {
	case r := <-cb.done:
		return r.code, r.iss, r.err
	case <-ctx.Done():
		return "", "", ctx.Err()
	}
}

func (cb *callback) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = cb.srv.Shutdown(ctx)
}
