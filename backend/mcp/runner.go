package mcp

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"time"

	"tinyelf/backend/config"
	"tinyelf/backend/mcp/oauth"
)

// runner supervises one configured server: it connects, keeps the
// connection's catalog, restarts the server with backoff when the
// connection is lost, and reports every change to its service. It is
// owned by the Service; its goroutine ends when its context does.
type runner struct {
	svc *Service
	cfg config.MCPServer // as configured (references unexpanded)
	log *lineLog

	mu      sync.Mutex
	state   ServerState
	conn    *conn
	cat     catalog
	settled bool

	// auth is the OAuth client of an http or sse server (see authClient);
	// authKey the config it was made for; authNeed why the server wants a
	// sign-in, "" when it does not.
	auth     *oauth.Client
	authKey  string
	authNeed string

	settledCh chan struct{} // closed at the first connected, failed or disabled
	kick      chan struct{} // capacity 1: restart now
	cancel    context.CancelFunc
	done      chan struct{} // closed when run returns
}

func newRunner(svc *Service, cfg config.MCPServer) *runner {
	return &runner{
		svc: svc, cfg: cfg, log: newLineLog(StderrLines),
		state:     ServerState{Name: cfg.Name, Type: normalizeType(cfg.Type, cfg), Status: StatusStarting, Since: time.Now()},
		settledCh: make(chan struct{}), kick: make(chan struct{}, 1), done: make(chan struct{}),
	}
}

// connection returns the live connection, or nil with the state that
// explains why there is none.
func (r *runner) connection() (*conn, ServerState) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.conn != nil && r.conn.alive() {
		return r.conn, r.state
	}
	st := r.snapshotLocked()
	if r.conn != nil { // lost a moment ago; run has not caught up yet
		st.Status, st.Detail, st.Error = StatusRestarting, "the connection was just lost", fmt.Sprint(r.conn.lostErr)
	}
	return nil, st
}

func (r *runner) snapshot() ServerState {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.snapshotLocked()
}

func (r *runner) snapshotLocked() ServerState {
	s := r.state
	s.Stderr = r.log.Lines()
	s.Auth = r.authStateLocked()
	s.Tools = append([]string(nil), s.Tools...)
	return s
}

// set moves the runner to a new state (and connection and catalog), then
// lets the service recompute names and tell its subscribers.
func (r *runner) set(st ServerState, c *conn, cat catalog, reason string) {
	r.mu.Lock()
	st.Name, st.Type = r.state.Name, r.state.Type
	if st.Since.IsZero() {
		st.Since = time.Now()
	}
	r.state, r.conn, r.cat = st, c, cat
	settle := !r.settled && (st.Status == StatusConnected || st.Status == StatusFailed || st.Status == StatusDisabled || st.Status == StatusDisconnected)
	if settle {
		r.settled = true
	}
	r.mu.Unlock()
	r.svc.changed(r, reason)
	if settle { // after changed, so that a ready server's tools are offered
		close(r.settledCh)
	}
}

// restart asks the runner to drop its connection (or stop waiting) and
// start again at once, with a fresh restart budget.
func (r *runner) restart() {
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

func (r *runner) startTimeout() time.Duration {
	if r.cfg.TimeoutSeconds > 0 {
		return time.Duration(r.cfg.TimeoutSeconds) * time.Second
	}
	return r.svc.opts.StartTimeout
}

// run is the runner's goroutine.
func (r *runner) run(ctx context.Context) {
	defer close(r.done)
	if r.cfg.Disabled {
		r.set(ServerState{Status: StatusDisabled, Detail: "switched off in the settings"}, nil, catalog{}, "disabled")
		return
	}
	o := r.svc.opts
	failures := 0   // restarts since the server last ran stably
	everUp := false // a server that never came up is not restarted
	for ctx.Err() == nil {
		c, cat, err := r.connect(ctx)
		if ctx.Err() != nil {
			if c != nil {
				c.close()
			}
			break
		}
		if err != nil {
			if !everUp || failures >= o.MaxRestarts {
				if everUp {
					err = fmt.Errorf("gave up after %d restarts: %w", failures, err)
				}
				r.set(ServerState{Status: StatusFailed, Error: err.Error(), Detail: "could not start", Attempt: failures}, nil, catalog{}, "failed: "+err.Error())
				if !r.waitKick(ctx) {
					break
				}
				failures = 0
				continue
			}
			failures++
			if !r.backoff(ctx, &failures, err) {
				break
			}
			continue
		}
		everUp = true
		upAt := time.Now()
		r.set(r.connectedState(c, cat, failures), c, cat, "connected")
		lost := r.serve(ctx, c)
		c.close()
		if ctx.Err() != nil {
			break
		}
		if lost == nil { // restart asked for
			failures = 0
			r.set(ServerState{Status: StatusStarting, Detail: "restarting at the user's request"}, nil, catalog{}, "restart requested")
			continue
		}
		if time.Since(upAt) >= o.StableAfter {
			failures = 0
		}
		if failures >= o.MaxRestarts {
			err := fmt.Errorf("gave up after %d restarts: connection lost: %w", failures, lost)
			r.set(ServerState{Status: StatusFailed, Error: err.Error(), Detail: "kept crashing", Attempt: failures}, nil, catalog{}, "failed: "+err.Error())
			if !r.waitKick(ctx) {
				break
			}
			failures = 0
			continue
		}
		failures++
		if !r.backoff(ctx, &failures, fmt.Errorf("connection lost: %w", lost)) {
			break
		}
	}
	r.set(ServerState{Status: StatusDisconnected, Detail: "stopped"}, nil, catalog{}, "stopped")
}

// connect makes one attempt, bounded by the start timeout.
func (r *runner) connect(ctx context.Context) (*conn, catalog, error) {
	prev := r.snapshot()
	detail := "starting"
	if prev.Status == StatusRestarting {
		detail = "restarting now"
	}
	r.log.Reset()
	r.set(ServerState{Status: StatusStarting, Detail: detail, Attempt: prev.Attempt, Error: prev.Error}, nil, catalog{}, "starting")
	cfg, err := resolveServer(r.cfg, r.svc.opts.LookupEnv)
	if err != nil {
		return nil, catalog{}, err
	}
	start := r.startTimeout()
	tctx, cancel := context.WithTimeout(ctx, start)
	defer cancel()
	c, cat, err := r.svc.dialer.dial(tctx, ctx, cfg, r.log, start, r.authClient(cfg))
	if err != nil {
		r.needSignIn(err)
		return nil, catalog{}, err
	}
	c.authNeeded = r.needSignIn
	r.mu.Lock()
	r.authNeed = ""
	r.mu.Unlock()
	return c, cat, nil
}

func (r *runner) connectedState(c *conn, cat catalog, attempt int) ServerState {
	st := ServerState{
		Status:          StatusConnected,
		Detail:          fmt.Sprintf("connected over %s, protocol %s", c.kind, c.protocol),
		ProtocolVersion: c.protocol, ServerName: c.info.Name, ServerVersion: c.info.Version,
		Prompts: len(cat.prompts), Resources: len(cat.resources) + len(cat.templates),
		Attempt: attempt,
	}
	if len(cat.warnings) > 0 {
		st.Error = fmt.Sprint(cat.warnings)
	}
	return st
}

// serve waits while the connection stands, refreshing the catalog on list
// changes. It returns why the connection was lost, or nil when a restart
// was asked for or ctx ended.
//
// List changes are debounced: the catalog is fetched once the server has
// been quiet for listChangedQuiet, and at the latest listChangedMaxWait
// after the first change of a burst, so a server that announces changes in
// a loop costs one listing per listChangedMaxWait, and the list it settles
// on is still fetched.
func (r *runner) serve(ctx context.Context, c *conn) error {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	var burst time.Time // when the pending burst of changes began; zero: none
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-r.kick:
			return nil
		case <-c.done:
			return c.lostErr
		case <-c.changed:
			now := time.Now()
			if burst.IsZero() {
				burst = now
			}
			timer.Reset(max(0, min(listChangedQuiet, listChangedMaxWait-now.Sub(burst))))
		case <-timer.C:
			burst = time.Time{}
			r.refresh(ctx, c)
		}
	}
}

// The debounce of list changes (see serve).
const (
	listChangedQuiet   = 200 * time.Millisecond
	listChangedMaxWait = time.Second
)

// refresh lists the server's catalog again after a change and reports it
// when it differs from what the runner has.
func (r *runner) refresh(ctx context.Context, c *conn) {
	fctx, cancel := context.WithTimeout(ctx, r.startTimeout())
	cat, err := c.fetch(fctx)
	cancel()
	if err != nil {
		return // a lost connection shows on c.done next
	}
	r.mu.Lock()
	same := r.conn == c && reflect.DeepEqual(r.cat, cat)
	r.mu.Unlock()
	if same {
		return
	}
	st := r.snapshot()
	st.Prompts, st.Resources = len(cat.prompts), len(cat.resources)+len(cat.templates)
	r.set(st, c, cat, "list_changed")
}

// backoff waits before attempt number *attempt, showing when it will
// come; a restart asked for meanwhile starts at once and resets *attempt.
// It returns false when ctx ends first.
func (r *runner) backoff(ctx context.Context, failures *int, cause error) bool {
	o := r.svc.opts
	attempt := *failures
	d := o.RestartBackoff << (attempt - 1)
	if d > o.MaxRestartBackoff || d <= 0 {
		d = o.MaxRestartBackoff
	}
	r.set(ServerState{Status: StatusRestarting, Error: cause.Error(), Detail: restartDetail(d, attempt, o.MaxRestarts),
		RetryAt: time.Now().Add(d), Attempt: attempt}, nil, catalog{}, "restarting: "+cause.Error())
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-r.kick:
		*failures = 0
		return true
	case <-t.C:
		return true
	}
}

// waitKick keeps a failed server failed until a restart is asked for.
func (r *runner) waitKick(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return false
	case <-r.kick:
		return true
	}
}
