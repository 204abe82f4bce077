package mcp

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"tinyelf/backend/config"
	"tinyelf/backend/proc"
	"tinyelf/backend/tools"
)

// Options tunes a Service. The zero value of every field means its default.
type Options struct {
	// StartTimeout bounds one server's start (process, handshake, first
	// listing) when its config has no TimeoutSeconds (default 30s).
	StartTimeout time.Duration
	// CallTimeout bounds one tool call, resource read or prompt (default
	// DefaultCallTimeout).
	CallTimeout time.Duration
	// MaxRestarts bounds the restarts of a server that keeps losing its
	// connection before it is marked failed (default 5).
	MaxRestarts int
	// RestartBackoff is the delay before the first restart; it doubles
	// with each further attempt up to MaxRestartBackoff (defaults 1s, 30s).
	RestartBackoff    time.Duration
	MaxRestartBackoff time.Duration
	// StableAfter is how long a connection must last for the restart count
	// to start again from zero (default 1 minute).
	StableAfter time.Duration
	// StopGrace is how long a stdio server gets to exit after its stdin
	// closes, and again after SIGTERM, before it is killed (default 500ms).
	StopGrace time.Duration
	// ClientName and ClientVersion introduce TinyElf to servers (defaults
	// "tinyelf" and ClientVersion()).
	ClientName, ClientVersion string
	// LookupEnv resolves ${VAR} references (default os.LookupEnv).
	LookupEnv LookupEnv
	// HTTPClient carries the http and sse transports (default
	// http.DefaultClient).
	HTTPClient *http.Client
	// MaxResourceBytes bounds what read_mcp_resource returns (default
	// 40000); longer contents are cut with a note.
	MaxResourceBytes int
	// OnChange, when set, is subscribed before any server starts.
	OnChange func(Change)
	// Environ returns the environment a stdio server starts from, before
	// its configured env is added: the user's environment without
	// TinyElf's secrets. Nil means os.Environ() without the variables of
	// config.SecretEnvNames.
	Environ func() []string
	// Children starts stdio servers and keeps them from outliving TinyElf;
	// nil still runs each in a process group of its own.
	Children *proc.Children
	// TokenStores keeps each http or sse server's OAuth tokens and client
	// registration (SecretTokens); nil keeps them in memory only.
	TokenStores TokenStores
	// SignInBrowser, when set, lets a connection sign in on its own when a
	// server asks (the conformance client, tests): it gets the URL to
	// visit. Nil means the user signs in with SignIn.
	SignInBrowser func(ctx context.Context, authURL string) error
	// ClientMetadataURL is the https URL of TinyElf's OAuth client ID
	// metadata document, used as client_id by authorization servers that
	// accept one; empty uses dynamic registration.
	ClientMetadataURL string
}

// defaultEnviron is the environment of a stdio server when Options.Environ
// is not set.
func defaultEnviron() []string {
	return proc.CleanEnv(os.Environ(), proc.Secrets{Names: config.SecretEnvNames()})
}

func (o Options) withDefaults() Options {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.StartTimeout, 30*time.Second)
	def(&o.CallTimeout, DefaultCallTimeout)
	def(&o.RestartBackoff, time.Second)
	def(&o.MaxRestartBackoff, 30*time.Second)
	def(&o.StableAfter, time.Minute)
	def(&o.StopGrace, 500*time.Millisecond)
	if o.MaxRestarts <= 0 {
		o.MaxRestarts = 5
	}
	if o.ClientName == "" {
		o.ClientName = "tinyelf"
	}
	if o.ClientVersion == "" {
		o.ClientVersion = ClientVersion()
	}
	if o.LookupEnv == nil {
		o.LookupEnv = os.LookupEnv
	}
	if o.Environ == nil {
		o.Environ = defaultEnviron
	}
	if o.MaxResourceBytes <= 0 {
		o.MaxResourceBytes = 40000
	}
	return o
}

// Service is the seed's McpService: it runs a set of MCP servers, keeps
// their states, and offers their tools, resources and prompts. The engine
// makes one for the user's servers and one per session for an agent's
// direct servers.
//
// A Service is safe for concurrent use. Its goroutines run from Start until
// Close (or until Start's context ends); Close stops every server and kills
// the process groups of stdio servers.
type Service struct {
	opts   Options
	dialer *dialer

	mu      sync.Mutex
	runners []*runner
	tools   []tools.Tool
	names   []string // sorted names of tools
	prompts []PromptCommand
	subs    map[int]func(Change)
	nextSub int
	ctx     context.Context
	cancel  context.CancelFunc
	started bool
	closed  bool

	// roots are the folders offered as the client's roots when a server
	// asks outside a tool call (SetRoots).
	rootsMu sync.Mutex
	roots   []string

	// notifyMu keeps deliveries in the order they were computed.
	notifyMu sync.Mutex
	// updateMu serializes Update.
	updateMu sync.Mutex
}

// NewService prepares a service for servers; nothing starts before Start.
// Servers with a duplicate name are kept (and fail with an explanation) so
// that the settings panel shows them.
func NewService(servers []config.MCPServer, opts Options) *Service {
	o := opts.withDefaults()
	d := &dialer{self: mcp.Implementation{Name: o.ClientName, Version: o.ClientVersion}, stopGrace: o.StopGrace, http: o.HTTPClient}
	s := &Service{
		opts:   o,
		dialer: d,
		subs:   map[int]func(Change){},
	}
	d.roots = s.Roots
	d.environ, d.children = o.Environ, o.Children
	if o.OnChange != nil {
		s.Subscribe(o.OnChange)
	}
	for _, cfg := range servers {
		s.runners = append(s.runners, newRunner(s, cfg))
	}
	return s
}

// Start starts every server in parallel and returns at once. Servers run
// until Close, or until ctx ends. Calling Start again does nothing.
func (s *Service) Start(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started || s.closed {
		return
	}
	s.started = true
	s.ctx, s.cancel = context.WithCancel(ctx)
	seen := map[string]bool{}
	for _, r := range s.runners {
		s.launchLocked(r, seen[r.cfg.Name])
		seen[r.cfg.Name] = true
	}
}

func (s *Service) launchLocked(r *runner, duplicate bool) {
	ctx, cancel := context.WithCancel(s.ctx)
	r.cancel = cancel
	if duplicate {
		go func() {
			defer close(r.done)
			r.set(ServerState{Status: StatusFailed, Error: fmt.Sprintf("another server is already named %q; rename one of them", r.cfg.Name)}, nil, catalog{}, "duplicate name")
		}()
		return
	}
	go r.run(ctx)
}

// WaitReady waits until every server has settled (connected, failed or
// disabled) or ctx ends, whichever comes first; each server's start is
// bounded by its own timeout, so this returns within the longest one after
// Start. It returns ctx's error when ctx ended first.
func (s *Service) WaitReady(ctx context.Context) error {
	s.mu.Lock()
	rs := slices.Clone(s.runners)
	s.mu.Unlock()
	for _, r := range rs {
		select {
		case <-r.settledCh:
		case <-r.done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// States returns every server's state, in configuration order.
func (s *Service) States() []ServerState {
	s.mu.Lock()
	rs := slices.Clone(s.runners)
	s.mu.Unlock()
	out := make([]ServerState, len(rs))
	for i, r := range rs {
		out[i] = r.snapshot()
	}
	return out
}

// State returns the named server's state.
func (s *Service) State(name string) (ServerState, bool) {
	for _, st := range s.States() {
		if st.Name == name {
			return st, true
		}
	}
	return ServerState{}, false
}

// Subscribe registers fn to hear of every change; the returned function
// unsubscribes. fn runs on the service's goroutines, one change at a time,
// in order; it must return quickly and must not call Close or Update (it
// may read States, Tools and Prompts).
func (s *Service) Subscribe(fn func(Change)) (unsubscribe func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.nextSub
	s.nextSub++
	s.subs[id] = fn
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.subs, id)
	}
}

// Tools returns the tools of every connected server, in configuration
// order then the server's own order. The slice is a snapshot; each tool
// calls its server's current connection. The resource tools are not among
// them: ResourceTools makes the one pair for this and any other groups of
// servers a session sees.
func (s *Service) Tools() []tools.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.tools)
}

// Restart drops the named server's connection (or stops its waiting) and
// starts it again with a fresh restart budget; it returns at once.
func (s *Service) Restart(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.runners {
		if r.cfg.Name == name {
			r.restart()
			return nil
		}
	}
	return fmt.Errorf("no MCP server named %q", name)
}

// Update applies an edited configuration: servers whose config is
// unchanged keep running; removed and changed ones are stopped (their
// tools reported removed), then changed and new ones are started (when the
// service has started). It returns once the stopped servers are down;
// concurrent calls are applied one after the other.
func (s *Service) Update(servers []config.MCPServer) {
	s.updateMu.Lock()
	defer s.updateMu.Unlock()

	s.mu.Lock()
	keep := map[*runner]bool{}
	byName := map[string]*runner{}
	for _, r := range s.runners {
		if _, dup := byName[r.cfg.Name]; !dup {
			byName[r.cfg.Name] = r
		}
	}
	for _, cfg := range servers {
		if r, ok := byName[cfg.Name]; ok && !keep[r] && reflect.DeepEqual(r.cfg, cfg) {
			keep[r] = true
		}
	}
	var stop []*runner
	for _, r := range s.runners {
		if !keep[r] {
			stop = append(stop, r)
		}
	}
	s.mu.Unlock()

	for _, r := range stop {
		if r.cancel != nil {
			r.cancel()
			<-r.done
		}
	}

	s.mu.Lock()
	next := make([]*runner, 0, len(servers))
	seen := map[string]bool{}
	for _, cfg := range servers {
		r := byName[cfg.Name]
		if r == nil || !keep[r] || seen[cfg.Name] {
			r = newRunner(s, cfg)
			if s.started && !s.closed {
				s.launchLocked(r, seen[cfg.Name])
			}
		}
		next = append(next, r)
		seen[cfg.Name] = true
	}
	s.runners = next
	s.mu.Unlock()
	s.changed(nil, "configuration updated")
}

// Close stops every server and waits for them. It is safe to call more
// than once; the service cannot be started again.
func (s *Service) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	rs := slices.Clone(s.runners)
	started := s.started
	if s.cancel != nil {
		s.cancel()
	}
	s.mu.Unlock()
	if started {
		for _, r := range rs {
			<-r.done
		}
	}
	return nil
}

// changed recomputes the tool and prompt names after r changed (nil: the
// server list changed) and tells the subscribers.
func (s *Service) changed(r *runner, reason string) {
	s.notifyMu.Lock()
	defer s.notifyMu.Unlock()
	s.mu.Lock()
	before := s.names
	s.rebuildLocked()
	added, removed := diffNames(before, s.names)
	subs := make([]func(Change), 0, len(s.subs))
	for id := range s.subs {
		subs = append(subs, s.subs[id])
	}
	s.mu.Unlock()
	ch := Change{Added: added, Removed: removed, Reason: reason}
	if r != nil {
		ch.Server = r.cfg.Name
		ch.State = r.snapshot()
	}
	for _, fn := range subs {
		fn(ch)
	}
}

// rebuildLocked makes the tool list and prompt commands from the connected
// runners' catalogs.
func (s *Service) rebuildLocked() {
	var keys []nameKey
	type owned struct {
		r    *runner
		tool mcp.Tool
	}
	var owners []owned
	var pkeys []nameKey
	var powners []promptOwner
	for _, r := range s.runners {
		r.mu.Lock()
		if r.conn != nil && r.state.Status == StatusConnected {
			for _, t := range r.cat.tools {
				keys = append(keys, nameKey{r.cfg.Name, t.Name})
				owners = append(owners, owned{r, t})
			}
			for _, p := range r.cat.prompts {
				pkeys = append(pkeys, nameKey{r.cfg.Name, p.Name})
				powners = append(powners, promptOwner{r, p})
			}
		}
		r.mu.Unlock()
	}
	names := assignNames(keys)
	perRunner := map[*runner][]string{}
	s.tools = s.tools[:0:0]
	for i, o := range owners {
		s.tools = append(s.tools, newRemoteTool(names[i], o.r, o.r.cfg.Name, o.tool, s.opts.CallTimeout))
		perRunner[o.r] = append(perRunner[o.r], names[i])
	}
	for _, r := range s.runners {
		r.mu.Lock()
		r.state.Tools = perRunner[r]
		r.mu.Unlock()
	}
	s.prompts = buildPromptCommands(pkeys, powners)
	s.names = s.names[:0:0]
	for _, t := range s.tools {
		s.names = append(s.names, t.Info().Name)
	}
	slices.Sort(s.names)
}

// diffNames compares two sorted name lists.
func diffNames(before, after []string) (added, removed []string) {
	for _, n := range after {
		if _, ok := slices.BinarySearch(before, n); !ok {
			added = append(added, n)
		}
	}
	for _, n := range before {
		if _, ok := slices.BinarySearch(after, n); !ok {
			removed = append(removed, n)
		}
	}
	return added, removed
}

// runnerNamed returns the runner of a configured server name.
func (s *Service) runnerNamed(name string) *runner {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.runners {
		if r.cfg.Name == name {
			return r
		}
	}
	return nil
}
