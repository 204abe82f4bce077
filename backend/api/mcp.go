package api

import (
	"context"
	"encoding/json"
	"html"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"tinyelf/backend/config"
	"tinyelf/backend/engine"
	"tinyelf/backend/mcp"
	"tinyelf/backend/proc"
	"tinyelf/backend/sessions"
	"tinyelf/backend/tools"
)

// LiveMCPState is the live event that carries an MCP server's new state
// (an mcp.Change) to the UI.
const LiveMCPState = "mcp.state"

// builtinSource offers the builtin MCP providers each session is eligible
// for, connected in-process once per session.
type builtinSource struct {
	reg *mcp.ProviderRegistry

	mu   sync.Mutex
	sets map[string]*mcp.BuiltinSet
}

func (b *builtinSource) Tools(ctx context.Context, info engine.SessionInfo) []tools.Tool {
	b.mu.Lock()
	defer b.mu.Unlock()
	set, ok := b.sets[info.ID]
	if !ok {
		cctx := mcp.WithCaller(context.WithoutCancel(ctx), mcp.Caller{Agent: info.Agent, SessionID: info.ID, Workspace: info.Workspace})
		var err error
		if set, err = b.reg.Connect(cctx); err != nil {
			return nil // a builtin provider failing to start must not stop the session
		}
		b.sets[info.ID] = set
	}
	return set.Tools()
}

// Release implements engine.SessionReleaser: an idle session's in-process
// connections are closed, and made again if it comes back.
func (b *builtinSource) Release(sessionID string) { b.close(sessionID) }

// set returns the session's builtin set, nil when it has none.
func (b *builtinSource) set(sessionID string) *mcp.BuiltinSet {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sets[sessionID]
}

func (b *builtinSource) close(sessionID string) {
	b.mu.Lock()
	var closing []*mcp.BuiltinSet
	for id, set := range b.sets {
		if sessionID == "" || id == sessionID {
			closing = append(closing, set)
			delete(b.sets, id)
		}
	}
	b.mu.Unlock()
	for _, set := range closing {
		set.Close()
	}
}

// directSource starts the stdio servers an agent declares (directMcpServers)
// for each of that agent's sessions, and stops them with the session.
type directSource struct {
	settings *config.Store
	onChange func(sessionID string, c mcp.Change)
	environ  func() []string
	children *proc.Children

	mu   sync.Mutex
	svcs map[string]*directRun
}

type directRun struct {
	svc *mcp.Service
	key string // the servers' config, to notice edits
}

func (d *directSource) Tools(ctx context.Context, info engine.SessionInfo) []tools.Tool {
	agent, ok := d.settings.Get().Agent(info.Agent)
	if !ok || len(agent.DirectMCPServers) == 0 {
		d.close(info.ID)
		return nil
	}
	b, _ := json.Marshal(agent.DirectMCPServers)
	d.mu.Lock()
	run, ok := d.svcs[info.ID]
	if ok && run.key != string(b) {
		run.svc.Close()
		ok = false
	}
	if !ok {
		run = &directRun{key: string(b), svc: mcp.NewService(agent.DirectMCPServers, mcp.Options{
			OnChange: func(c mcp.Change) { d.onChange(info.ID, c) },
			Environ:  d.environ,
			Children: d.children,
		})}
		d.svcs[info.ID] = run
		run.svc.Start(context.WithoutCancel(ctx))
	}
	d.mu.Unlock()
	if !ok {
		// The agent relies on its own servers: wait for them at first use
		// (bounded by each server's start timeout).
		wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		_ = run.svc.WaitReady(wctx)
		cancel()
	}
	return run.svc.Tools()
}

// Release implements engine.SessionReleaser: an idle session's servers
// are stopped, and started again if it comes back.
func (d *directSource) Release(sessionID string) { d.close(sessionID) }

// service returns the session's direct servers, nil when it has none.
func (d *directSource) service(sessionID string) *mcp.Service {
	d.mu.Lock()
	defer d.mu.Unlock()
	if run, ok := d.svcs[sessionID]; ok {
		return run.svc
	}
	return nil
}

// close stops the session's servers ("" : every session's). The services
// leave the map at once and stop outside the lock, so other sessions' tool
// lookups do not wait for processes to exit.
func (d *directSource) close(sessionID string) {
	d.mu.Lock()
	var closing []*mcp.Service
	for id, run := range d.svcs {
		if sessionID == "" || id == sessionID {
			closing = append(closing, run.svc)
			delete(d.svcs, id)
		}
	}
	d.mu.Unlock()
	for _, svc := range closing {
		svc.Close()
	}
}

// resourceSource offers the one pair of MCP resource tools over every
// server a session sees: the user's, its builtin providers' and its
// agent's direct servers (in that order of precedence for a name two of
// them use). It must come after the sources that make those, which it only
// looks up.
type resourceSource struct {
	user    *mcp.Service
	builtin *builtinSource
	direct  *directSource

	mu   sync.Mutex
	sets map[string]resourceEntry
}

type resourceEntry struct {
	builtin *mcp.BuiltinSet
	direct  *mcp.Service
	set     *mcp.ResourceSet
}

func (r *resourceSource) Tools(_ context.Context, info engine.SessionInfo) []tools.Tool {
	b, d := r.builtin.set(info.ID), r.direct.service(info.ID)
	r.mu.Lock()
	e, ok := r.sets[info.ID]
	if !ok || e.builtin != b || e.direct != d {
		groups := []mcp.ResourceGroup{r.user}
		if b != nil {
			groups = append(groups, b)
		}
		if d != nil {
			groups = append(groups, d)
		}
		e = resourceEntry{builtin: b, direct: d, set: mcp.NewResourceSet(groups...)}
		r.sets[info.ID] = e
	}
	r.mu.Unlock()
	return e.set.Tools()
}

// Release implements engine.SessionReleaser.
func (r *resourceSource) Release(sessionID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.sets, sessionID)
}

// storeReader backs the builtin sessions provider with the session store.
type storeReader struct{ store *sessions.Store }

// NewSessionReader backs the builtin sessions MCP provider with a session
// store (for the bridge of `tinyelf mcp bridge`).
func NewSessionReader(store *sessions.Store) mcp.SessionReader { return storeReader{store} }

func (r storeReader) List(ctx context.Context, limit, offset int) ([]mcp.SessionSummary, error) {
	list, err := r.store.List(ctx, sessions.ListOptions{Limit: limit, Offset: offset})
	out := make([]mcp.SessionSummary, len(list))
	for i, s := range list {
		out[i] = mcp.SessionSummary{ID: s.ID, Title: s.Title, Workspace: s.Workspace, Agent: s.Agent, UpdatedAt: s.UpdatedAt, Messages: s.MessageCount}
	}
	return out, err
}

var markTags = regexp.MustCompile(`</?mark>`)

func (r storeReader) Search(ctx context.Context, q string, limit int) ([]mcp.SessionHit, error) {
	hits, err := r.store.Search(ctx, q, sessions.SearchOptions{Limit: limit})
	out := make([]mcp.SessionHit, len(hits))
	for i, h := range hits {
		out[i] = mcp.SessionHit{SessionID: h.SessionID, SessionTitle: h.SessionTitle, Role: string(h.Role),
			Snippet: html.UnescapeString(markTags.ReplaceAllString(h.Snippet, "**")), Time: h.Time}
	}
	return out, err
}

func (r storeReader) History(ctx context.Context, id string, limit int) ([]mcp.SessionMessage, error) {
	msgs, err := r.store.UIMessages(ctx, id)
	if err != nil {
		return nil, err
	}
	var out []mcp.SessionMessage
	for _, m := range msgs {
		if m.Kind == sessions.UIKind("user") || m.Kind == sessions.UIKind("assistant") {
			out = append(out, mcp.SessionMessage{Role: string(m.Kind), Text: m.Text, Time: m.Time})
		}
	}
	if limit > 0 && len(out) > limit {
		out = out[len(out)-limit:]
	}
	return out, nil
}

// publishMCP sends an MCP state change to the UI.
func (s *Service) publishMCP(sessionID string, c mcp.Change) {
	b, _ := json.Marshal(c)
	s.bus.Publish(engine.Event{SessionID: sessionID, Type: LiveMCPState, Time: time.Now(), Data: b})
}

// MCPServerView is a configured server with its live state. Env and header
// values that look like secrets are masked in Config (config.MaskMCPServer);
// SaveMCPServer keeps the stored value for a masked value sent back as is.
type MCPServerView struct {
	Config config.MCPServer `json:"config"`
	State  mcp.ServerState  `json:"state"`
	Tools  []string         `json:"tools"`
}

// ListMCPServers returns the user's MCP servers with their live states and
// tools. Each server lists the names its own tools are offered under, as
// the MCP service assigned them (shortened or hashed names included), so a
// server whose name starts another's ("git", "github") shows only its own.
func (s *Service) ListMCPServers(context.Context, struct{}) ([]MCPServerView, error) {
	out := []MCPServerView{}
	for _, c := range s.settings.Get().MCPServers {
		st, _ := s.userMCP.State(c.Name)
		v := MCPServerView{Config: config.MaskMCPServer(c), State: st, Tools: []string{}}
		v.Tools = append(v.Tools, st.Tools...)
		out = append(out, v)
	}
	return out, nil
}

// SaveMCPServerArgs adds or replaces a server; Rename is its former name.
type SaveMCPServerArgs struct {
	Server config.MCPServer `json:"server"`
	Rename string           `json:"rename,omitempty"`
}

// SaveMCPServer adds or updates a server and (re)starts it. Values still
// masked as ListMCPServers showed them keep what is stored.
func (s *Service) SaveMCPServer(_ context.Context, a SaveMCPServerArgs) ([]MCPServerView, error) {
	if err := mcp.ValidateServer(a.Server); err != nil {
		return nil, invalidf("%v", err)
	}
	err := s.settings.Update(func(st *config.Settings) error {
		old := a.Rename
		if old == "" {
			old = a.Server.Name
		}
		if i := slices.IndexFunc(st.MCPServers, func(m config.MCPServer) bool { return m.Name == old }); i >= 0 {
			a.Server = config.UnmaskMCPServer(a.Server, st.MCPServers[i])
		}
		if config.HasMasked(a.Server) {
			return invalidf("a value of %s is still masked (%s…); type the secret again", a.Server.Name, config.MaskPrefix)
		}
		if old != a.Server.Name && slices.ContainsFunc(st.MCPServers, func(m config.MCPServer) bool { return m.Name == a.Server.Name }) {
			return invalidf("an MCP server named %q already exists", a.Server.Name)
		}
		if i := slices.IndexFunc(st.MCPServers, func(m config.MCPServer) bool { return m.Name == old }); i >= 0 {
			st.MCPServers[i] = a.Server
		} else {
			st.MCPServers = append(st.MCPServers, a.Server)
		}
		return nil
	})
	if err != nil {
		return nil, mapErr(err)
	}
	s.userMCP.Update(s.settings.Get().MCPServers)
	return s.ListMCPServers(context.Background(), struct{}{})
}

// RemoveMCPServer deletes a server and stops it; its sign-in goes with it.
func (s *Service) RemoveMCPServer(_ context.Context, a NameArgs) ([]MCPServerView, error) {
	if err := mcp.RemoveServer(s.settings, a.Name); err != nil {
		return nil, notFoundf("%v", err)
	}
	_ = mcp.ForgetSignIn(s.tokens, a.Name)
	s.userMCP.Update(s.settings.Get().MCPServers)
	return s.ListMCPServers(context.Background(), struct{}{})
}

// EnableArgs turns a server on or off.
type EnableArgs struct {
	Name    string `json:"name"`
	Enabled bool   `json:"enabled"`
}

// SetMCPServerEnabled enables or disables a server.
func (s *Service) SetMCPServerEnabled(_ context.Context, a EnableArgs) ([]MCPServerView, error) {
	if err := mcp.SetServerDisabled(s.settings, a.Name, !a.Enabled); err != nil {
		return nil, notFoundf("%v", err)
	}
	s.userMCP.Update(s.settings.Get().MCPServers)
	return s.ListMCPServers(context.Background(), struct{}{})
}

// RestartMCPServer retries a failed or disconnected server.
func (s *Service) RestartMCPServer(_ context.Context, a NameArgs) ([]MCPServerView, error) {
	if err := s.userMCP.Restart(a.Name); err != nil {
		return nil, notFoundf("%v", err)
	}
	return s.ListMCPServers(context.Background(), struct{}{})
}

// ImportMCPArgs carries a Claude Desktop / .mcp.json config.
type ImportMCPArgs struct {
	Content string `json:"content"`
}

// ImportMCPResult says what an import did.
type ImportMCPResult struct {
	Report  mcp.ImportReport `json:"report"`
	Servers []MCPServerView  `json:"servers"`
}

// ImportMCPConfig adds the servers of a Claude Desktop
// claude_desktop_config.json or a .mcp.json, and reports what was imported
// and what was skipped and why.
func (s *Service) ImportMCPConfig(_ context.Context, a ImportMCPArgs) (ImportMCPResult, error) {
	var report mcp.ImportReport
	err := s.settings.Update(func(st *config.Settings) error {
		servers, r, err := mcp.ImportServers([]byte(a.Content), st.MCPServers, s.lookupEnv)
		if err != nil {
			return invalidf("%v", err)
		}
		report = r
		st.MCPServers = append(st.MCPServers, servers...)
		return nil
	})
	if err != nil {
		return ImportMCPResult{}, mapErr(err)
	}
	s.userMCP.Update(s.settings.Get().MCPServers)
	list, _ := s.ListMCPServers(context.Background(), struct{}{})
	return ImportMCPResult{Report: report, Servers: list}, nil
}

func (s *Service) lookupEnv(k string) (string, bool) {
	v := s.opts.Getenv(k)
	return v, v != ""
}

// TestMCPArgs names a stored server or carries an unsaved one; with both,
// Server is an edit of the stored server Name (its masked values stand for
// the stored ones).
type TestMCPArgs struct {
	Name   string            `json:"name,omitempty"`
	Server *config.MCPServer `json:"server,omitempty"`
}

// TestMCPServer starts a server on its own, lists what it offers and stops
// it again.
func (s *Service) TestMCPServer(ctx context.Context, a TestMCPArgs) (mcp.TestReport, error) {
	var srv config.MCPServer
	switch {
	case a.Server != nil:
		srv = *a.Server
		name := a.Name
		if name == "" {
			name = srv.Name
		}
		stored := s.settings.Get().MCPServers
		if i := slices.IndexFunc(stored, func(m config.MCPServer) bool { return m.Name == name }); i >= 0 {
			srv = config.UnmaskMCPServer(srv, stored[i])
		}
		if config.HasMasked(srv) {
			return mcp.TestReport{}, invalidf("a value of %s is still masked (%s…); type the secret again", srv.Name, config.MaskPrefix)
		}
	default:
		i := slices.IndexFunc(s.settings.Get().MCPServers, func(m config.MCPServer) bool { return m.Name == a.Name })
		if i < 0 {
			return mcp.TestReport{}, notFoundf("no MCP server named %q", a.Name)
		}
		srv = s.settings.Get().MCPServers[i]
	}
	srv.Disabled = false
	if err := mcp.ValidateServer(srv); err != nil {
		return mcp.TestReport{}, invalidf("%v", err)
	}
	rep, err := mcp.TestServer(ctx, srv, mcp.Options{Environ: s.childEnviron, Children: s.children})
	if err != nil && rep.State.Status == "" {
		return rep, invalidf("%v", err)
	}
	return rep, nil
}

// ListMCPPrompts returns the MCP prompts usable as slash commands.
func (s *Service) ListMCPPrompts(context.Context, struct{}) ([]mcp.PromptCommand, error) {
	p := s.userMCP.Prompts()
	if p == nil {
		p = []mcp.PromptCommand{}
	}
	return p, nil
}

// expandSlash turns "/mcp__server__prompt args" into the prompt's text;
// other text is returned unchanged.
func (s *Service) expandSlash(ctx context.Context, text string) (string, error) {
	if !strings.HasPrefix(strings.TrimSpace(text), "/mcp__") {
		return text, nil
	}
	out, err := s.userMCP.RunPromptLine(ctx, strings.TrimSpace(text))
	if err != nil {
		return "", invalidf("%v", err)
	}
	return out, nil
}
