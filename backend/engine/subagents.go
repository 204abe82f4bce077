package engine

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"tinyelf/backend/config"
	"tinyelf/backend/llm"
	"tinyelf/backend/sessions"
	"tinyelf/backend/tools"
	"tinyelf/backend/tools/agent"
)

// Subagents (seed 000's spawn_agent, subagent_list, subagent_status; seed
// 003 §十六 on what delegation keeps):
//
//   - A child is a session of its own, with its own event log, linked to
//     its parent by the session.created event (parent, spawning call,
//     inherited tools). Its capability diffs, approvals and results are in
//     that log; the parent's spawn_agent result links to it.
//   - It sees exactly what its parent passed on: list_skills, read_skill,
//     slash_command, the MCP resource pair and every mcp__* tool the parent
//     sees (visible or deferred), plus what spawn_agent's tools named among
//     the parent's tools, plus its own profile's direct MCP servers. Never a
//     tool the parent lacks: a hidden tool of the parent's is not given,
//     and the call says so. The discovery policy applies the list
//     (capabilities.Inputs.Inherited), so the rest is hidden with a reason,
//     not unknown.
//   - It keeps ToolSearch, which finds only within that inherited set: the
//     search applies the same policy. So it may search, but not for more.
//   - Its permission mode is its parent's or stricter; asking for a looser
//     one is refused. Its calls go through its own permission gate in that
//     mode: an MCP call that needs approval asks the user (in the parent's
//     window, labelled with the child), whatever the parent was allowed.
//   - Foreground children return their final answer and usage as the
//     spawn_agent result; background ones return a run ID at once and a
//     desktop notification tells when they finish or need an approval.
//   - Nesting is bounded (MaxDepth), cancelling a session cancels its
//     children, and consecutive spawn_agent calls of one model step run
//     together, at most Parallel at once.

// SubagentLimits bounds spawn_agent; zero fields take the defaults.
type SubagentLimits struct {
	// MaxDepth is how deep subagents nest: a top-level session's child is
	// at depth 1 (DefaultMaxDepth when 0).
	MaxDepth int
	// Parallel is how many spawn_agent calls of one model step run at once
	// (DefaultParallel when 0).
	Parallel int
}

// The defaults of SubagentLimits.
const (
	DefaultMaxDepth = 2
	DefaultParallel = 4
)

// spawnAgentName is the tool whose consecutive calls run in parallel.
const spawnAgentName = "spawn_agent"

// LiveSubagent is the live event a parent session gets when one of its
// subagents starts, makes progress or ends: {"callId", "run": {runId,
// sessionId, agent, background, state, iterations, progress}}.
const LiveSubagent = "subagent.update"

// inheritableTools are what a subagent gets from its parent unasked (the
// seed's inheritableToolNames), besides every mcp__* tool; the MCP resource
// pair is MCP by another name.
var inheritableTools = []string{"list_skills", "read_skill", "slash_command", "list_mcp_resources", "read_mcp_resource"}

func inheritable(name string) bool {
	return strings.HasPrefix(name, "mcp__") || slices.Contains(inheritableTools, name)
}

// keptRuns bounds the ended runs the manager remembers for subagent_status;
// older ones are read back from their session's log.
const keptRuns = 256

// SubagentManager starts subagents and follows them: the engine's
// implementation of agent.Spawner. It is safe for concurrent use.
type SubagentManager struct {
	e      *Engine
	limits SubagentLimits

	mu      sync.RWMutex
	runs    map[string]*subRun // by run ID, which is the child's session ID
	lineage map[string]lineage // child session → its parent and root
}

// lineage places a subagent's session in its tree.
type lineage struct{ parent, root string }

// subRun is one subagent. Its fixed fields are set before it is shared;
// info changes under mu.
type subRun struct {
	id, parent    string
	agent         string
	background    bool
	maxIterations int

	mu   sync.Mutex
	info agent.SubagentRun
}

func (r *subRun) snapshot() agent.SubagentRun {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.info
	out.Inherited = slices.Clone(out.Inherited)
	out.Visible = slices.Clone(out.Visible)
	return out
}

func newSubagentManager(e *Engine, limits SubagentLimits) *SubagentManager {
	if limits.MaxDepth <= 0 {
		limits.MaxDepth = DefaultMaxDepth
	}
	if limits.Parallel <= 0 {
		limits.Parallel = DefaultParallel
	}
	return &SubagentManager{e: e, limits: limits, runs: map[string]*subRun{}, lineage: map[string]lineage{}}
}

// Subagents returns the engine's subagent manager.
func (e *Engine) Subagents() *SubagentManager { return e.subagents }

// lineageOf returns a subagent session's parent and root ("" for a
// top-level session).
func (m *SubagentManager) lineageOf(sessionID string) (parent, root string) {
	m.mu.RLock()
	l := m.lineage[sessionID]
	m.mu.RUnlock()
	return l.parent, l.root
}

func (m *SubagentManager) setLineage(child, parent, root string) {
	m.mu.Lock()
	m.lineage[child] = lineage{parent, root}
	m.mu.Unlock()
}

// forgetLineage drops a session's place in its tree once the engine holds
// neither it nor a run of it that is under way: the map then holds only
// sessions in memory and the runs kept for subagent_status, and a session
// opened again is placed from its log (ancestry).
func (m *SubagentManager) forgetLineage(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r := m.runs[id]; r != nil {
		r.mu.Lock()
		over := r.info.Over()
		r.mu.Unlock()
		if !over {
			return
		}
	}
	delete(m.lineage, id)
}

// active returns the run a session is doing for its parent, nil when it is
// not a subagent's session or its spawned turn has ended.
func (m *SubagentManager) active(sessionID string) *subRun {
	m.mu.RLock()
	r := m.runs[sessionID]
	m.mu.RUnlock()
	if r == nil {
		return nil
	}
	r.mu.Lock()
	over := r.info.Over()
	r.mu.Unlock()
	if over {
		return nil
	}
	return r
}

// activeChildren lists the sessions of a session's subagents that are
// still working.
func (m *SubagentManager) activeChildren(parent string) []string {
	m.mu.RLock()
	var out []string
	for id, r := range m.runs {
		if r.parent == parent {
			out = append(out, id)
		}
	}
	m.mu.RUnlock()
	return slices.DeleteFunc(out, func(id string) bool { return m.active(id) == nil })
}

// spawnPlan is what a spawn_agent call will start, once checked.
type spawnPlan struct {
	created  sessions.SessionCreated
	maxIter  int
	notGiven []string
	notes    []string
}

// Spawn implements agent.Spawner: it checks the request against the
// calling session, creates the child session and runs its first turn on
// the prompt, in the foreground (waiting; ctx ending stops the child) or
// the background (returning at once).
func (m *SubagentManager) Spawn(ctx context.Context, req agent.SpawnRequest) (agent.SubagentRun, error) {
	t := turnFrom(ctx)
	if t == nil {
		return agent.SubagentRun{}, agent.Refusef("spawn_agent runs only inside an agent's turn")
	}
	plan, err := m.plan(t, req, tools.CallIDFromContext(ctx))
	if err != nil {
		return agent.SubagentRun{}, err
	}
	e := m.e
	// The child's session, its first message and its turn's start are one
	// write when the log can do that.
	in := Input{Text: req.Prompt}
	var childID string
	if cw, ok := e.opts.Log.(sessionCreatorWith); ok {
		childID, in.started, err = cw.CreateSessionWith(context.WithoutCancel(ctx), plan.created,
			sessions.NewEvent(sessions.EventUserMessage, sessions.UserMessage{Text: req.Prompt}),
			sessions.NewEvent(sessions.EventTurnStart, sessions.TurnStart{Mode: plan.created.Mode}))
	} else {
		childID, err = e.opts.Log.CreateSession(context.WithoutCancel(ctx), plan.created)
	}
	if err != nil {
		return agent.SubagentRun{}, fmt.Errorf("create the subagent's session: %w", err)
	}
	c := plan.created
	run := &subRun{id: childID, parent: c.Parent, agent: c.Agent, background: c.Background, maxIterations: plan.maxIter}
	run.info = agent.SubagentRun{
		RunID: childID, SessionID: childID, ParentID: c.Parent, CallID: c.ParentCallID, Agent: c.Agent,
		Provider: c.Provider, Model: c.Model, Mode: c.Mode, Background: c.Background, Prompt: req.Prompt,
		Inherited: c.Inherited, NotGiven: plan.notGiven, Notes: plan.notes, State: agent.RunRunning, Started: e.opts.Now(),
		Progress: "starting",
	}
	_, root := m.lineageOf(c.Parent)
	if root == "" {
		root = c.Parent
	}
	m.mu.Lock()
	m.runs[childID] = run
	m.lineage[childID] = lineage{c.Parent, root}
	m.mu.Unlock()
	m.publish(run)
	e.publish(childID, in.started)
	started, err := e.startInput(childID, in)
	if err != nil {
		m.finished(run, TurnResult{Reason: EndError, Err: err.Error()})
		return run.snapshot(), nil
	}
	if c.Background {
		go func() {
			<-started.done
			m.finished(run, started.result)
		}()
		return run.snapshot(), nil
	}
	m.finished(run, e.await(ctx, childID, started))
	return run.snapshot(), nil
}

// plan checks a spawn request against the calling turn: the nesting
// depth, the agent profile, the permission mode, the provider and model,
// and the tools passed on.
func (m *SubagentManager) plan(t *turn, req agent.SpawnRequest, callID string) (spawnPlan, error) {
	if t.depth >= m.limits.MaxDepth {
		return spawnPlan{}, agent.Refusef("subagents may nest only %d deep, and this session is already at depth %d: do this part of the work yourself, or return what you have", m.limits.MaxDepth, t.depth)
	}
	st := t.settings
	name := req.Agent
	if name == "" {
		name = config.DefaultAgent
	}
	a, ok := st.Agent(name)
	if !ok {
		return spawnPlan{}, agent.Refusef("there is no agent profile %q; the agents are: %s", name, describeAgents(st))
	}
	parentMode := t.info.Mode
	mode := parentMode
	var notes []string
	if req.PermissionMode != "" {
		asked, err := ParseMode(req.PermissionMode)
		if err != nil {
			return spawnPlan{}, agent.Refusef("%v", err)
		}
		if asked.Looser(parentMode) {
			return spawnPlan{}, agent.Refusef("permissionMode %s is looser than this session's (%s): a subagent may have your mode or a stricter one (plan < default < acceptEdits < auto). Ask for %s or stricter, or ask the user to change your mode", asked, parentMode, parentMode)
		}
		mode = asked
	} else if a.PermissionMode != "" {
		if pm, err := ParseMode(a.PermissionMode); err == nil {
			if pm.Looser(parentMode) {
				notes = append(notes, fmt.Sprintf("the profile's mode %s is looser than yours, so the child runs in %s", pm, parentMode))
			} else {
				mode = pm
			}
		}
	}
	provider, model := a.Provider, a.Model
	if provider == "" {
		provider = t.provCfg.Name
		if model == "" {
			model = t.provCfg.Model
		}
	}
	if req.Model != "" {
		model = req.Model
		if p, rest, ok := strings.Cut(req.Model, "/"); ok {
			if _, known := st.Provider(p); known {
				provider, model = p, rest
			}
		}
	}
	pc, ok := st.Provider(provider)
	if !ok {
		return spawnPlan{}, agent.Refusef("the agent %s uses provider %q, which is not set up (Settings → Providers)", a.Name, provider)
	}
	if model == "" {
		model = pc.Model
	}
	maxIter := req.MaxIterations
	if maxIter < 0 {
		maxIter = 0
	}
	granted, notGiven := inherit(t, req.Tools, a)
	return spawnPlan{
		created: sessions.SessionCreated{
			Workspace: t.info.Workspace, Agent: a.Name, Mode: string(mode), Provider: pc.Name, Model: model,
			Parent: t.s.id, ParentCallID: callID, Inherited: granted, Background: req.Background,
		},
		maxIter: maxIter, notGiven: notGiven, notes: notes,
	}, nil
}

// describeAgents lists the agent profiles with what they are for.
func describeAgents(st config.Settings) string {
	var parts []string
	for _, a := range st.AgentList() {
		if d := strings.TrimSpace(a.Description); d != "" {
			parts = append(parts, fmt.Sprintf("%s (%s)", a.Name, tools.CutUTF8(d, 80)))
		} else {
			parts = append(parts, a.Name)
		}
	}
	return strings.Join(parts, ", ")
}

// inherit computes what a child gets from the calling turn: the
// inheritable tools the parent sees (visible or deferred), the ones asked
// for that the parent has (a trailing * matches a prefix), and the
// child's own profile's direct MCP servers. What was asked for and not
// given comes back with the reason.
func inherit(t *turn, asked []string, profile config.Agent) (granted, notGiven []string) {
	granted = []string{}
	seen := map[string]bool{}
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			granted = append(granted, n)
		}
	}
	var have []string // the parent's tools that are not hidden
	if t.vs != nil {
		for _, d := range t.vs.Decisions() {
			if d.Kind == "tool" && d.State != "hidden" {
				have = append(have, d.Name)
				if inheritable(d.Name) {
					add(d.Name)
				}
			}
		}
	}
	for _, n := range asked {
		n = strings.TrimSpace(n)
		switch {
		case n == "" || seen[n] || n == "ToolSearch":
			continue
		case strings.HasSuffix(n, "*"):
			matched := false
			for _, h := range have {
				if strings.HasPrefix(h, strings.TrimSuffix(n, "*")) {
					add(h)
					matched = true
				}
			}
			if !matched {
				notGiven = append(notGiven, fmt.Sprintf("%s (none of your tools match it)", n))
			}
			continue
		}
		if t.vs == nil {
			notGiven = append(notGiven, fmt.Sprintf("%s (you have no tools to pass on)", n))
			continue
		}
		_, d, ok := t.vs.Lookup(n)
		switch {
		case !ok:
			notGiven = append(notGiven, fmt.Sprintf("%s (there is no such tool)", n))
		case d.State == "hidden":
			notGiven = append(notGiven, fmt.Sprintf("%s (you do not have it: %s)", n, d.Reason))
		default:
			add(n)
		}
	}
	for _, srv := range profile.DirectMCPServers {
		if !srv.Disabled {
			add("mcp__" + srv.Name)
		}
	}
	return granted, notGiven
}

// finished records how a run's turn ended and tells its parent.
func (m *SubagentManager) finished(r *subRun, res TurnResult) {
	r.mu.Lock()
	in := &r.info
	switch res.Reason {
	case EndDone, EndYield:
		in.State = agent.RunDone
	case EndMaxIterations:
		in.State = agent.RunMaxIterations
	case EndCancelled:
		in.State = agent.RunCancelled
	default:
		in.State = agent.RunFailed
		in.Error = res.Err
		if in.Error == "" {
			in.Error = "it stopped without saying why"
		}
	}
	if res.Reason == EndMaxIterations {
		in.Error = res.Err
	}
	in.Text, in.Iterations, in.Progress = res.Text, max(in.Iterations, res.Iterations), ""
	in.Usage = agent.SubagentUsage{InputTokens: res.Usage.InputTokens + res.Usage.CacheReadTokens + res.Usage.CacheWriteTokens,
		OutputTokens: res.Usage.OutputTokens, CostUSD: Cost(in.Model, res.Usage)}
	in.Ended = m.e.opts.Now()
	r.mu.Unlock()
	m.publish(r)
	m.prune()
}

// prune forgets the oldest ended runs beyond keptRuns, and the lineage of
// those whose session is not in memory either (a reopened child is placed
// in its tree from its log).
func (m *SubagentManager) prune() {
	var gone []string
	defer func() {
		for _, id := range gone {
			if m.e.peek(id) == nil {
				m.forgetLineage(id)
			}
		}
	}()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.runs) <= keptRuns {
		return
	}
	type ended struct {
		id  string
		at  int64
		run *subRun
	}
	var over []ended
	for id, r := range m.runs {
		r.mu.Lock()
		if r.info.Over() {
			over = append(over, ended{id, r.info.Ended.UnixNano(), r})
		}
		r.mu.Unlock()
	}
	slices.SortFunc(over, func(a, b ended) int { return cmp.Compare(a.at, b.at) })
	for _, o := range over[:max(0, len(m.runs)-keptRuns)] {
		delete(m.runs, o.id)
		gone = append(gone, o.id)
	}
}

// publish tells the run's parent session where the run stands.
func (m *SubagentManager) publish(r *subRun) {
	r.mu.Lock()
	in := r.info
	r.mu.Unlock()
	m.e.live(r.parent, LiveSubagent, map[string]any{"callId": in.CallID, "run": map[string]any{
		"runId": in.RunID, "sessionId": in.SessionID, "agent": in.Agent, "background": in.Background,
		"state": in.State, "iterations": in.Iterations, "progress": in.Progress, "error": in.Error,
		"capabilityDiffs": in.Diffs,
	}})
}

// observe follows a subagent's logged events: model calls, tool calls,
// approvals, capability diffs and usage, told to the parent as they come.
func (m *SubagentManager) observe(sessionID string, evs []sessions.Event) {
	m.mu.RLock()
	r := m.runs[sessionID]
	m.mu.RUnlock()
	if r == nil {
		return
	}
	changed := false
	r.mu.Lock()
	in := &r.info
	if in.Over() {
		r.mu.Unlock()
		return
	}
	// Each payload is decoded only as far as the run's state needs it: a
	// request's tool list or a result's content is not read.
	type named struct {
		Name string `json:"name"`
	}
	for _, ev := range evs {
		switch ev.Type {
		case sessions.EventModelRequest:
			var p struct {
				Iteration int `json:"iteration"`
			}
			if ev.Decode(&p) == nil && p.Iteration > in.Iterations {
				in.Iterations, changed = p.Iteration, true
			}
		case sessions.EventToolIntent:
			var p named
			if ev.Decode(&p) == nil {
				in.Progress, changed = "running "+p.Name, true
			}
		case sessions.EventApprovalAsked:
			var p named
			if ev.Decode(&p) == nil {
				in.State, in.Progress, changed = agent.RunWaiting, "waiting for your approval of "+p.Name, true
			}
		case sessions.EventApprovalAnswered:
			if in.State == agent.RunWaiting {
				in.State, in.Progress, changed = agent.RunRunning, "approval answered", true
			}
		case sessions.EventToolResult:
			var p named
			if ev.Decode(&p) == nil {
				in.Progress, changed = "ran "+p.Name, true
			}
		case sessions.EventCapabilityDiff:
			if visible, err := visibleOf(ev.Data); err == nil {
				in.Diffs++
				in.Visible = visible
				changed = true
			}
		case sessions.EventUsage:
			var p sessions.Usage
			if ev.Decode(&p) == nil {
				in.Usage.InputTokens += p.InputTokens + p.CacheReadTokens + p.CacheWriteTokens
				in.Usage.OutputTokens += p.OutputTokens
				in.Usage.CostUSD += p.CostUSD
			}
		}
	}
	r.mu.Unlock()
	if changed {
		m.publish(r)
	}
}

// Runs implements agent.Spawner: the calling session's subagents, newest
// first.
func (m *SubagentManager) Runs(ctx context.Context) ([]agent.SubagentRun, error) {
	t := turnFrom(ctx)
	if t == nil {
		return nil, agent.Refusef("subagent_list runs only inside an agent's turn")
	}
	return m.RunsOf(t.s.id), nil
}

// RunsOf lists a session's subagents this process started, newest first.
func (m *SubagentManager) RunsOf(parent string) []agent.SubagentRun {
	m.mu.RLock()
	var mine []*subRun
	for _, r := range m.runs {
		if r.parent == parent {
			mine = append(mine, r)
		}
	}
	m.mu.RUnlock()
	out := make([]agent.SubagentRun, len(mine))
	for i, r := range mine {
		out[i] = r.snapshot()
	}
	slices.SortFunc(out, func(a, b agent.SubagentRun) int {
		return cmp.Or(b.Started.Compare(a.Started), cmp.Compare(a.RunID, b.RunID))
	})
	return out
}

// Run implements agent.Spawner: one of the calling session's subagents.
// A run this process no longer remembers (it ended long ago, or before a
// restart) is read back from its session's log.
func (m *SubagentManager) Run(ctx context.Context, runID string) (agent.SubagentRun, error) {
	t := turnFrom(ctx)
	if t == nil {
		return agent.SubagentRun{}, agent.Refusef("subagent_status runs only inside an agent's turn")
	}
	m.mu.RLock()
	r := m.runs[runID]
	m.mu.RUnlock()
	if r != nil && r.parent == t.s.id {
		return r.snapshot(), nil
	}
	info, err := m.e.opts.Log.Info(ctx, runID)
	if err != nil && !errors.Is(err, sessions.ErrNotFound) {
		return agent.SubagentRun{}, fmt.Errorf("read subagent run %s: %w", runID, err)
	}
	if err != nil || info.Parent != t.s.id {
		return agent.SubagentRun{}, agent.Refusef("there is no subagent run %q of this session; subagent_list shows yours", runID)
	}
	run := agent.SubagentRun{
		RunID: runID, SessionID: runID, ParentID: info.Parent, CallID: info.ParentCallID, Agent: info.Agent,
		Provider: info.Provider, Model: info.Model, Mode: string(info.Mode), Background: info.Background,
		Inherited: info.Inherited, State: agent.RunDone,
		Progress: "read from the session's log (it ran before TinyElf last started)",
	}
	if m.e.Running(runID) {
		run.State = agent.RunRunning
	}
	msgs, err := m.e.opts.Log.ModelMessages(ctx, runID)
	if err != nil {
		return agent.SubagentRun{}, fmt.Errorf("read subagent run %s: %w", runID, err)
	}
	if len(msgs) > 0 {
		run.Prompt = msgs[0].Content
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleAssistant && msgs[i].Content != "" {
			run.Text = msgs[i].Content
			break
		}
	}
	return run, nil
}

// ancestry places a subagent's session in its tree from the log: its depth
// (1 for a top-level session's child) and its root.
func (m *SubagentManager) ancestry(ctx context.Context, info SessionInfo) (depth int, root string, err error) {
	root = info.ID
	seen := map[string]bool{info.ID: true}
	for cur := info; cur.Parent != ""; depth++ {
		if seen[cur.Parent] || depth > 16 {
			return depth, root, fmt.Errorf("session %s: its parent links form a loop", info.ID)
		}
		seen[cur.Parent] = true
		root = cur.Parent
		if cur, err = m.e.opts.Log.Info(ctx, cur.Parent); err != nil {
			if errors.Is(err, sessions.ErrNotFound) {
				return depth + 1, root, nil // the parent was purged: the child stays where it was
			}
			return depth, root, err
		}
	}
	return depth, root, nil
}

// visibleOf reads a capability.diff's visible list, and stops there: the
// items and inputs after it (most of the event) are not parsed.
func visibleOf(data []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("capability diff is not an object")
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, err
		}
		if key == "visible" {
			var visible []string
			err := dec.Decode(&visible)
			return visible, err
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return nil, nil
}
