package api

import (
	"context"
	"errors"
	"sync"
	"time"
)

// signIns are the OAuth sign-ins started from a server's card that wait
// for the user's browser, one per server. They belong to the Service and
// end with it.
type signIns struct {
	mu      sync.Mutex
	running map[string]context.CancelFunc
}

func newSignIns() *signIns { return &signIns{running: map[string]context.CancelFunc{}} }

// SignInArgs names the server to sign in to.
type SignInArgs struct {
	Name string `json:"name"`
}

// SignInResult is where the user signs in: the page opens URL in the
// system browser (the desktop) or a new tab (tinyelf serve). The sign-in
// finishes in the background when the browser comes back to TinyElf; the
// server's card follows it through mcp.state events.
type SignInResult struct {
	URL string `json:"url"`
}

// signInWait bounds a sign-in started from the card.
const signInWait = 10 * time.Minute

// SignInMCPServer starts the OAuth sign-in of a user MCP server and
// returns the authorization URL to open as soon as it is known. A second
// call for the same server replaces the first sign-in.
func (s *Service) SignInMCPServer(ctx context.Context, a SignInArgs) (SignInResult, error) {
	if _, ok := s.userMCP.State(a.Name); !ok {
		return SignInResult{}, notFoundf("no MCP server named %q", a.Name)
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), signInWait)
	s.signIns.mu.Lock()
	if prev := s.signIns.running[a.Name]; prev != nil {
		prev()
	}
	s.signIns.running[a.Name] = cancel
	s.signIns.mu.Unlock()
	urls := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		defer cancel()
		err := s.userMCP.SignIn(sctx, a.Name, func(_ context.Context, u string) error {
			urls <- u
			return nil
		})
		done <- err
	}()
	select {
	case u := <-urls:
		return SignInResult{URL: u}, nil
	case err := <-done:
		if err == nil {
			err = errors.New("the server signed in without a browser")
		}
		return SignInResult{}, invalidf("%v", err)
	case <-ctx.Done():
		cancel()
		return SignInResult{}, ctx.Err()
	}
}

// SignOutMCPServer forgets a server's OAuth tokens; it reconnects without
// them.
func (s *Service) SignOutMCPServer(ctx context.Context, a SignInArgs) ([]MCPServerView, error) {
	s.signIns.mu.Lock()
	if c := s.signIns.running[a.Name]; c != nil {
		c()
		delete(s.signIns.running, a.Name)
	}
	s.signIns.mu.Unlock()
	if err := s.userMCP.SignOut(ctx, a.Name); err != nil {
		return nil, invalidf("%v", err)
	}
	return s.ListMCPServers(ctx, struct{}{})
}

// closeSignIns stops the sign-ins still waiting (on Close).
func (s *signIns) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, c := range s.running {
		c()
		delete(s.running, name)
	}
}
