package engine

import (
	"context"
	"encoding/json"
	"html"
	"os"
	"regexp"
	"sync"
	"time"
	"tinyelf/backend/tools/fs"

	"tinyelf/backend/mcp"
	"tinyelf/backend/sessions"
	"tinyelf/backend/skills"
	"tinyelf/backend/tools"
	"tinyelf/backend/usertools"
)

// Step 10 of the registry builder: the three MCP loading paths of seed 000
// and the user tools of seed 002, as the engine's own tool sources. The
// user's servers are in the catalog (MCPChanged keeps their partitions
// current); the builtin providers and an agent's direct servers belong to
// single sessions; the resource tools are one pair over all three.

// MCPOptions gives the engine's sessions the MCP servers.
type MCPOptions struct {
	// User runs the user's MCP servers: their tools, prompts and resources
	// are catalog partitions (see MCPChanged), their prompts slash
	// commands, their resources readable with the resource tools. It must
	// not be nil.
	User *mcp.Service
	// Providers are the builtin MCP providers, connected in-process once
	// for each session; nil offers none.
	Providers *mcp.ProviderRegistry
	// OnDirectChange hears of a state change of a session's direct server
	// (an agent's directMcpServers), with the session; may be nil.
	OnDirectChange func(sessionID string, c mcp.Change)
}

// engineSources are the tool sources the engine makes itself.
type engineSources struct {
	builtin   *builtinSource
	direct    *directSource
	resources *resourceSource
}

// withOwnSources puts the engine's own tool sources in front of
// opts.ToolSources, in the builder's order (the builtin providers, the
// agent's direct servers, the user tools, then the resource tools, which
// look the first two up), and gives the skills the MCP prompts as
// commands. It is called once, by New.
func (e *Engine) withOwnSources() {
	o := &e.opts
	var own []ToolSource
	if o.MCP != nil {
		reg := o.MCP.Providers
		if reg == nil {
			reg = mcp.NewProviderRegistry()
		}
		onChange := o.MCP.OnDirectChange
		if onChange == nil {
			onChange = func(string, mcp.Change) {}
		}
		e.own.builtin = &builtinSource{reg: reg, sets: map[string]*mcp.BuiltinSet{}}
		e.own.direct = &directSource{e: e, onChange: onChange, svcs: map[string]*directRun{}}
		e.own.resources = &resourceSource{user: o.MCP.User, builtin: e.own.builtin, direct: e.own.direct, sets: map[string]resourceEntry{}}
		own = append(own, e.own.builtin, e.own.direct)
		if o.Skills != nil && o.Skills.Prompts == nil {
			sk := *o.Skills
			sk.Prompts = mcpPrompts{o.MCP.User}
			o.Skills = &sk
		}
	}
	if o.UserTools != nil {
		own = append(own, userToolSource{o.UserTools})
	}
	if e.own.resources != nil {
		own = append(own, e.own.resources)
	}
	// Options copied from another engine (a restart) carry that engine's
	// own sources: they are made anew, not kept.
	callers := make([]ToolSource, 0, len(o.ToolSources))
	for _, src := range o.ToolSources {
		switch src.(type) {
		case *builtinSource, *directSource, *resourceSource, userToolSource:
		default:
			callers = append(callers, src)
		}
	}
	o.ToolSources = append(own, callers...)
}

// ReleaseSources stops what the tool sources hold for one session (its
// direct MCP servers, its builtin providers' connections) at once, as an
// idle session's release does: a deleted session's servers must not wait
// for the idle timeout. A session that comes back gets them again.
func (e *Engine) ReleaseSources(sessionID string) {
	for _, src := range e.opts.ToolSources {
		if r, ok := src.(SessionReleaser); ok {
			r.Release(sessionID)
		}
	}
}

// closeSources stops every session's direct servers and builtin
// connections (Shutdown).
func (e *Engine) closeSources() {
	if e.own.direct != nil {
		e.own.direct.close("")
	}
	if e.own.builtin != nil {
		e.own.builtin.close("")
	}
}

// builtinSource offers the builtin MCP providers each session is eligible
// for, connected in-process once per session.
type builtinSource struct {
	reg *mcp.ProviderRegistry

	mu   sync.Mutex
	sets map[string]*mcp.BuiltinSet
}

func (b *builtinSource) Tools(ctx context.Context, info SessionInfo) []tools.Tool {
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

// Release implements SessionReleaser: an idle session's in-process
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
	e        *Engine
	onChange func(sessionID string, c mcp.Change)

	mu   sync.Mutex
	svcs map[string]*directRun
}

type directRun struct {
	svc *mcp.Service
	key string // the servers' config, to notice edits
}

func (d *directSource) Tools(ctx context.Context, info SessionInfo) []tools.Tool {
	agent, ok := d.e.opts.Settings.Get().Agent(info.Agent)
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
			Environ:  func() []string { return ChildEnviron(d.e.settings()) },
			Children: d.e.opts.Children,
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

// Release implements SessionReleaser: an idle session's servers are
// stopped, and started again if it comes back.
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

func (r *resourceSource) Tools(_ context.Context, info SessionInfo) []tools.Tool {
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

// Release implements SessionReleaser.
func (r *resourceSource) Release(sessionID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.sets, sessionID)
}

// userToolSource offers each agent's user tools to its sessions, and the
// tool folders to their FileSystem tools.
type userToolSource struct{ svc *usertools.Service }

func (u userToolSource) Tools(ctx context.Context, info SessionInfo) []tools.Tool {
	return u.svc.Tools(ctx, info.Agent)
}

func (u userToolSource) Roots(info SessionInfo) []fs.Root { return u.svc.Roots(info.Agent) }

// ToolProblems lists the agent's user tools that the last discovery skipped
// (a core tool's name) or could not load, for the session log.
func (u userToolSource) ToolProblems(ctx context.Context, info SessionInfo) []string {
	return u.svc.Report(ctx, info.Agent).Problems()
}

// CoreToolNames lists the built-in tools a session gets, which user tools
// may not be named after.
func CoreToolNames() []string {
	// Every optional step on, so every core name is in the list.
	sess, err := BuildRegistry(BuildOptions{Workspace: os.TempDir(), Unrestricted: true, Notifier: noNotifier{}, Web: &WebTools{}})
	if err != nil {
		return nil
	}
	defer sess.Close()
	return sess.Registry.Names()
}

type noNotifier struct{}

func (noNotifier) Notify(context.Context, string, string) error { return nil }

// mcpPrompts offers the user's MCP prompts as slash commands.
type mcpPrompts struct{ svc *mcp.Service }

func (p mcpPrompts) Prompts() []skills.Prompt {
	var out []skills.Prompt
	for _, pc := range p.svc.Prompts() {
		sp := skills.Prompt{Name: pc.Name, Description: pc.Description}
		if sp.Description == "" {
			sp.Description = pc.Title
		}
		for _, a := range pc.Arguments {
			sp.Arguments = append(sp.Arguments, skills.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
		}
		out = append(out, sp)
	}
	return out
}

func (p mcpPrompts) RunPrompt(ctx context.Context, name string, args map[string]string) (string, error) {
	return p.svc.RunPrompt(ctx, name, args)
}

// SessionReader backs the builtin sessions MCP provider with a session
// store (the sessions' own provider, and the bridge of `tinyelf mcp
// bridge`).
func SessionReader(store *sessions.Store) mcp.SessionReader { return storeReader{store} }

// storeReader backs the builtin sessions provider with the session store.
type storeReader struct{ store *sessions.Store }

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
