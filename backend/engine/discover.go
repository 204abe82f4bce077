package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"tinyelf/backend/capabilities"
	"tinyelf/backend/config"
	"tinyelf/backend/llm"
	"tinyelf/backend/sessions"
	"tinyelf/backend/tools"
)

// Capability discovery in the loop (seed 003 §十一): before each model call
// the session's tools go into the catalog, the policy computes the visible
// set from the catalog and the call's inputs, a change is logged as a
// capability.diff, and the request carries only the visible tools' schemas
// plus the index. Execution uses a registry of every tool in the session's
// view; the visibility check in front of it refuses the rest.

// discovery is a session's capability-discovery state, kept with its
// sessionState.
type discovery struct {
	disc *capabilities.Discovery
	// local is the built registry last put in the catalog; sources holds
	// the tools each ToolSource gave last.
	local   *Session
	sources [][]tools.Tool
	// exec is the registry of every tool in the view with key execKey.
	exec    *tools.Registry
	execKey string
	// baseline is the visible set a reopened session's log last recorded;
	// the first call diffs against it, then it is dropped.
	baseline *sessions.CapabilityState
	// clashes are the tool-name clashes last reported.
	clashes []string
	// problems is the tool_skipped message last reported (or, in a
	// reopened session, last logged).
	problems string
	// capVersions are the versions the CapabilitySources gave last.
	capVersions []string
}

func localPartition(id string) string         { return "session/" + id + "/local" }
func sourcePartition(id string, i int) string { return fmt.Sprintf("session/%s/source%d", id, i) }

// syncCatalog puts the session's local tools and its sources' current tools
// into the catalog, replacing a partition only when its tools changed.
func (t *turn) syncCatalog(ctx context.Context) {
	cat := t.e.catalog
	s := t.s
	s.mu.Lock()
	local := s.reg
	d := &s.discovery
	changedLocal := d.local != local
	d.local = local
	s.mu.Unlock()
	if changedLocal && local != nil {
		var es []capabilities.Entry
		for _, n := range local.Registry.Names() {
			if tool, ok := local.Registry.Get(n); ok {
				es = append(es, t.e.entries.entry(tool))
			}
		}
		cat.Replace(localPartition(s.id), es, capabilities.PartitionOptions{Session: s.id, Priority: capabilities.PriorityLocal,
			Reason: fmt.Sprintf("the session's tools were built for %s", t.info.Workspace)})
	}
	for i, src := range t.e.opts.ToolSources {
		ts := src.Tools(ctx, t.info)
		s.mu.Lock()
		for len(d.sources) <= i {
			d.sources = append(d.sources, nil)
		}
		prev := d.sources[i]
		same := prev != nil && sameTools(prev, ts)
		if !same {
			d.sources[i] = ts
		}
		s.mu.Unlock()
		if same {
			continue
		}
		es := make([]capabilities.Entry, 0, len(ts))
		for _, tool := range ts {
			es = append(es, t.e.entries.entry(tool))
		}
		cat.Replace(sourcePartition(s.id, i), es, capabilities.PartitionOptions{Session: s.id, Priority: capabilities.PriorityMCP,
			Reason: sourceReason(prev, ts)})
	}
}

func capPartition(id string, i int) string { return fmt.Sprintf("session/%s/capabilities%d", id, i) }

// syncCapabilitySources replaces the session's partitions of the sources
// whose version changed.
func (t *turn) syncCapabilitySources(ctx context.Context) {
	s := t.s
	for i, src := range t.e.opts.CapabilitySources {
		version, es := src.Capabilities(ctx, t.info)
		s.mu.Lock()
		d := &s.discovery
		for len(d.capVersions) <= i {
			d.capVersions = append(d.capVersions, "\x00none")
		}
		changed := d.capVersions[i] != version
		d.capVersions[i] = version
		s.mu.Unlock()
		if changed {
			t.e.catalog.Replace(capPartition(s.id, i), es, capabilities.PartitionOptions{Session: s.id, Priority: capabilities.PrioritySkill,
				Reason: "the session's workspace offers these capabilities"})
		}
	}
}

// sourceReason describes how a source's tool list changed, by where the
// tools come from: an MCP server, or the user tools.
func sourceReason(prev, next []tools.Tool) string {
	origins := func(ts []tools.Tool) map[string][]string {
		out := map[string][]string{}
		for _, t := range ts {
			info := t.Info()
			var from string
			switch {
			case capabilities.ServerOf(info) != "":
				from = "MCP server " + capabilities.ServerOf(info)
			case info.Source == tools.SourceUserTool:
				from = userToolsWords
			default:
				continue
			}
			out[from] = append(out[from], info.Name)
		}
		return out
	}
	before, after := origins(prev), origins(next)
	var parts []string
	// The user tools change by refresh (refresh_tools, Settings → Tools):
	// name what came and went, which the user did not see happen.
	if old, now := before[userToolsWords], after[userToolsWords]; !slices.Equal(old, now) {
		var came, went []string
		for _, n := range now {
			if !slices.Contains(old, n) {
				came = append(came, n)
			}
		}
		for _, n := range old {
			if !slices.Contains(now, n) {
				went = append(went, n)
			}
		}
		if len(came) > 0 {
			parts = append(parts, userToolsWords+" added "+nameList(came))
		}
		if len(went) > 0 {
			parts = append(parts, userToolsWords+" no longer have "+nameList(went)+" (their files were removed or no longer load)")
		}
		if len(came) == 0 && len(went) == 0 {
			parts = append(parts, userToolsWords+" changed their tools")
		}
	}
	delete(before, userToolsWords)
	delete(after, userToolsWords)
	for _, from := range slices.Sorted(maps.Keys(after)) {
		switch old, had := before[from]; {
		case !had:
			parts = append(parts, from+" offers tools")
		case !slices.Equal(old, after[from]):
			parts = append(parts, from+" changed its tools")
		}
	}
	for _, from := range slices.Sorted(maps.Keys(before)) {
		if _, still := after[from]; !still {
			parts = append(parts, from+" no longer offers tools (disconnected, failed, stopped or removed)")
		}
	}
	if len(parts) == 0 {
		return "the session's tool sources changed their tools"
	}
	return strings.Join(parts, "; ")
}

// userToolsWords names the user tools (seed 002) as a source of tools.
const userToolsWords = "the user tools"

// nameList lists a few names, and how many more there are.
func nameList(names []string) string {
	const most = 5
	if len(names) <= most {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:most], ", "), len(names)-most)
}

// inputs gathers the policy's inputs for the next model call.
func (t *turn) inputs() capabilities.Inputs {
	in := policyInputs(t.settings, t.agent, t.info.Mode, t.e.rules())
	in.Inherited = t.info.Inherited // a subagent sees only what its parent passed on
	in.Task, in.Project, in.Observation = t.task, t.project, t.observation
	in.Allowed = t.grants.narrow(func() *capabilities.View { return t.e.catalog.Snapshot().View(t.s.id) }, in.Allowed)
	in.ContextWindow, in.ContextUsed = t.contextWindow(), t.s.contextUsed()
	return in
}

// policyInputs are the inputs the settings, the agent, the mode and the
// rules decide.
func policyInputs(st config.Settings, agent config.Agent, mode Mode, rules []config.Rule) capabilities.Inputs {
	ds := st.DiscoveryFor(agent)
	defer_, _ := capabilities.ParseDeferMode(ds.Defer) // an unknown value means auto
	return capabilities.Inputs{
		Mode: string(mode), Allowed: agent.AllowedTools,
		Settings: capabilities.Settings{Defer: defer_, Threshold: ds.Threshold},
		Blocked:  func(name string) string { return blockedBy(rules, name) },
	}
}

// blockedBy says why a deny rule blocks a whole tool (a rule on the tool
// without a pattern, or a wildcard over its server), or "".
func blockedBy(rules []config.Rule, name string) string {
	for _, r := range rules {
		if r.Action != config.RuleDeny || r.Pattern != "" {
			continue
		}
		if r.Tool == name || strings.HasSuffix(r.Tool, "*") && strings.HasPrefix(name, strings.TrimSuffix(r.Tool, "*")) {
			return fmt.Sprintf("a deny rule (%s) forbids it", describeRule(r))
		}
	}
	return ""
}

// discover computes the visible set for the next model call, logs how it
// changed, and readies the registry calls run through.
func (t *turn) discover(ctx context.Context) error {
	t.syncCatalog(ctx)
	t.syncCapabilitySources(ctx)
	view := t.e.catalog.Snapshot().View(t.s.id)
	if err := t.reportClashes(ctx, view); err != nil {
		return err
	}
	if err := t.reportSourceProblems(ctx); err != nil {
		return err
	}
	d := t.s.discoveryState()
	vs := capabilities.Compute(view, t.inputs(), d)
	prev := d.Last()
	if prev == nil {
		t.s.mu.Lock()
		b := t.s.discovery.baseline
		t.s.discovery.baseline = nil
		t.s.mu.Unlock()
		if b != nil {
			prev = capabilities.Baseline(view, b.Visible, b.Deferred, b.Hashes, b.Skills, b.Loaded)
		}
	}
	diff := capabilities.DiffSets(prev, vs)
	if prev == nil || !diff.Empty() {
		// Logged with the model call's answer, before its request.
		t.hold(sessions.NewEvent(sessions.EventCapabilityDiff, diffEvent(diff, vs)))
	}
	d.SetLast(vs)
	t.vs = vs
	t.reg = t.execRegistry(view)
	return nil
}

// reportClashes logs the tool-name clashes of the session's view (a tool
// left out because another source took its name), once for each change of
// them, so the user learns why a tool is missing.
func (t *turn) reportClashes(ctx context.Context, view *capabilities.View) error {
	var clashes []string
	for _, sh := range view.Shadowed {
		winner, _ := view.ByID(sh.By)
		clashes = append(clashes, fmt.Sprintf("Two tools are named %s (from %s and %s); the second is left out. Rename one of the servers (Settings → MCP) so that both can be used.",
			sh.Name, sourceWords(winner.Source), sourceWords(sh.Source)))
	}
	t.s.mu.Lock()
	same := slices.Equal(clashes, t.s.discovery.clashes)
	t.s.discovery.clashes = clashes
	t.s.mu.Unlock()
	if same || len(clashes) == 0 {
		return nil
	}
	return t.record(ctx, sessions.NewEvent(sessions.EventError, sessions.Error{Message: strings.Join(clashes, "\n"), Kind: "tool_clash"}))
}

// sourceWords names a descriptor source for the user.
func sourceWords(source string) string {
	switch {
	case source == capabilities.SourceBuiltin:
		return "TinyElf's own tools"
	case strings.HasPrefix(source, "mcp:"):
		return "MCP server " + strings.TrimPrefix(source, "mcp:")
	}
	return source
}

// diffEvent is the log's record of a visible-set change.
func diffEvent(diff capabilities.SetDiff, vs *capabilities.VisibleSet) sessions.CapabilityDiff {
	ev := sessions.CapabilityDiff{
		Added: diff.Added, Removed: diff.Removed, Reasons: diff.Reasons,
		Visible: vs.ToolNames(), Deferred: vs.DeferredNames(), DeferReason: vs.DeferReason,
	}
	for _, e := range vs.Skills {
		ev.Skills = append(ev.Skills, e.ID)
		if dec, _ := vs.Decision(e.ID); dec.State == capabilities.StateVisible {
			ev.Loaded = append(ev.Loaded, e.ID)
		}
	}
	for _, it := range diff.Items {
		ev.Items = append(ev.Items, sessions.CapabilityItem{ID: it.ID, Name: it.Name, Kind: string(it.Kind), Change: it.Change,
			From: string(it.From), To: string(it.To), Reason: it.Reason, Hash: it.Hash})
	}
	ev.Inputs, _ = json.Marshal(vs.Inputs)
	return ev
}

// execRegistry returns a registry of every tool in the view, with the
// permission gate, rebuilt only when the view changes. A tool whose schema
// the registry refuses is left out (its descriptor already says why).
func (t *turn) execRegistry(view *capabilities.View) *tools.Registry {
	s := t.s
	s.mu.Lock()
	defer s.mu.Unlock()
	d := &s.discovery
	if d.exec != nil && d.execKey == view.Key() {
		return d.exec
	}
	// The hooks wrap the gate: PreToolUse before it decides, PostToolUse
	// only around calls it let through.
	reg := tools.NewRegistry(tools.WithMiddleware(t.e.pipeline(s)...), tools.WithSchemaCache(t.e.schemas))
	for _, e := range view.Entries() {
		if e.Kind != capabilities.KindTool {
			continue
		}
		if p := e.Prepared(); p != nil {
			_ = reg.RegisterPrepared(p)
		}
	}
	d.exec, d.execKey = reg, view.Key()
	return reg
}

// definitions projects the visible set into the request's tool list.
func (t *turn) definitions() []llm.ToolDef {
	defs := t.vs.Definitions()
	out := make([]llm.ToolDef, len(defs))
	for i, d := range defs {
		out[i] = llm.ToolDef{Name: d.Name, Description: d.Description, Parameters: d.Parameters}
	}
	return out
}

// logRequest records what a model call was offered, so replay can check
// the visible set it rebuilds from the diffs. The record is written with the
// turn's next event.
func (t *turn) logRequest(iter int, req llm.Request) {
	// The names are the request's own; the hashes are those of the visible
	// set it was projected from (computed once per tool), or computed here
	// for a tool the set does not have in that place.
	visible := t.vs.Hashes()
	sent := make([]sessions.ToolSent, len(req.Tools))
	hashes := make([][2]string, len(req.Tools))
	for i, d := range req.Tools {
		var h string
		if i < len(visible) && visible[i][0] == d.Name {
			h = visible[i][1]
		} else {
			h = capabilities.SchemaHash(d.Name, d.Description, d.Parameters)
		}
		sent[i] = sessions.ToolSent{Name: d.Name, Hash: h}
		hashes[i] = [2]string{d.Name, h}
	}
	index := t.vs.DeferredNames()
	ev := sessions.NewEvent(sessions.EventModelRequest, sessions.ModelRequest{
		Iteration: iter, Tools: sent, Index: index, Digest: capabilities.Digest(hashes, index),
		ToolTokens: t.vs.ToolTokens, IndexTokens: t.vs.IndexTokens,
	})
	t.hold(ev)
}

// hold keeps records of the model call being made (how the visible set
// changed, the request) for the next write, which logs them first.
func (t *turn) hold(evs ...sessions.Event) {
	t.logMu.Lock()
	t.held = append(t.held, evs...)
	t.logMu.Unlock()
}

// takeHeld returns the records hold kept, and forgets them.
func (t *turn) takeHeld() []sessions.Event {
	t.logMu.Lock()
	defer t.logMu.Unlock()
	evs := t.held
	t.held = nil
	return evs
}

// reasonCalledByName is the capability diff's reason for a deferred tool
// the model called by its exact name.
const reasonCalledByName = "called by its exact name: loaded and run in the same step"

// callStanding is what the visibility step decided for one call.
type callStanding int

const (
	// standRun: the tool is visible (or was loaded for this call); the
	// call goes on to the permission gate.
	standRun callStanding = iota
	// standDenied: a deny rule hides the tool; the permission gate refuses
	// the call and records its decision, and the call counts as invalid.
	standDenied
	// standRefused: the call did not run; the result says why.
	standRefused
)

// visibility is the pipeline's visibility step: a call to a tool the model
// was not shown gets an observation instead of running. A deferred tool
// called by its exact name is loaded — recorded as a capability diff — and
// runs at once through the permission gate like any visible tool: the
// model clearly wants it, and knowing a name is no way around a gate. A
// hidden tool is explained, an unknown one lists what there is; both are
// invalid calls (they count towards demotion).
func (t *turn) visibility(ctx context.Context, c llm.ToolCall) (tools.CallResult, callStanding) {
	if t.vs == nil || t.vs.IsVisible(c.Name) {
		return tools.CallResult{}, standRun
	}
	refuse := func(msg string, invalid bool) (tools.CallResult, callStanding) {
		return tools.CallResult{CallID: c.ID, Name: c.Name, IsError: true, Invalid: invalid, Content: msg + "\n\n" + tools.ErrorHint}, standRefused
	}
	e, dec, ok := t.vs.Lookup(c.Name)
	switch {
	case !ok:
		return refuse(fmt.Sprintf("Unknown tool %q. The tools you can call now are: %s. ToolSearch finds others by what they do.",
			c.Name, strings.Join(t.vs.ToolNames(), ", ")), true)
	case dec.Cause == capabilities.CauseRule:
		return tools.CallResult{}, standDenied
	case dec.State == capabilities.StateDeferred:
		loaded, why, err := t.loadCalled(ctx, c.Name)
		if err != nil {
			return refuse(fmt.Sprintf("%s could not be loaded: %v.", c.Name, err), false)
		}
		if !loaded {
			return refuse(fmt.Sprintf("%s could not be loaded for this step: %s. ToolSearch says what is available.", c.Name, why), false)
		}
		return tools.CallResult{}, standRun
	default:
		return refuse(fmt.Sprintf("%s is not available in this session: %s.", e.Name, dec.Reason), true)
	}
}

// loadCalled loads a deferred tool the model called by its exact name: it
// is promoted for the rest of the session, the visible set is recomputed
// and its change logged as a capability diff with the reason, before the
// call runs. It reports whether the tool is visible now, and why not.
// Calls of one step may load tools at the same time; they take turns.
func (t *turn) loadCalled(ctx context.Context, name string) (bool, string, error) {
	t.loadMu.Lock()
	defer t.loadMu.Unlock()
	d := t.s.discoveryState()
	d.Promote(name, reasonCalledByName)
	vs := capabilities.Compute(t.vs.View(), t.inputs(), d)
	if !vs.IsVisible(name) {
		_, dec, _ := vs.Lookup(name)
		return false, dec.Reason, nil
	}
	prev := d.Last()
	diff := capabilities.DiffSets(prev, vs)
	d.SetLast(vs)
	if diff.Empty() {
		return true, "", nil
	}
	return true, "", t.record(ctx, sessions.NewEvent(sessions.EventCapabilityDiff, diffEvent(diff, vs)))
}

// SearchCapabilities answers the session's ToolSearch calls: the policy's
// view of the catalog, filtered by mode, profile and rules, within the
// context budget; the tools found are visible from the next model call on.
func (t *turn) SearchCapabilities(_ context.Context, req capabilities.SearchRequest) (capabilities.SearchResult, error) {
	view := t.vs.View()
	res, err := capabilities.Find(view, t.inputs(), t.vs, req)
	if err != nil {
		return res, err
	}
	t.s.discoveryState().PromoteHits(res)
	return res, nil
}

// noteResults feeds the call outcomes back into discovery: paths touched,
// tools used or called invalidly (a tool demoted after repeated invalid
// calls says so in its result), skills loaded, and the observation text
// the next call's mentions are looked for in.
func (t *turn) noteResults(ctx context.Context, results []tools.CallResult, first bool) {
	d := t.s.discoveryState()
	var obs strings.Builder
	if !first {
		obs.WriteString(t.observation)
	}
	for i := range results {
		r := &results[i]
		obs.WriteString(r.Content)
		obs.WriteByte('\n')
		if n := d.NoteCall(r.Name, r.Invalid); n == capabilities.DemoteAfter {
			r.Content += fmt.Sprintf("\n\n(%s was called with invalid arguments %d times in a row, so it is set aside for now; call ToolSearch for it to load its definition again.)", r.Name, n)
		}
		for _, k := range []string{"path", "file_path"} {
			if p, ok := r.Params[k].(string); ok {
				d.Touch(p)
			}
		}
		if loaded, ok := r.Meta["capabilityLoaded"].(map[string]any); ok {
			id, _ := loaded["id"].(string)
			if id == "" {
				continue
			}
			d.NoteLoaded(id)
			kind, _ := loaded["kind"].(string)
			src, _ := loaded["source"].(string)
			_ = t.record(ctx, sessions.NewEvent(sessions.EventCapabilityLoad, sessions.CapabilityLoaded{
				ID: id, Kind: kind, Name: strings.TrimPrefix(id, kind+"__"), Source: src, CallID: r.CallID,
			}))
		}
	}
	t.observation = obs.String()
}

// previewSession is the catalog scope of previews for sessions that are not
// open: the built-in tools as a new session would have them.
const previewSession = "\x00preview"

// Preview computes the visible set the next model call of a session would
// get — of a new session in the settings' mode when sessionID is empty —
// without logging anything or changing the session. mode, when set,
// overrides the session's mode. A session that is not open is previewed
// with the built-in tools and the shared sources (its own MCP servers are
// only known once it runs).
func (e *Engine) Preview(ctx context.Context, sessionID, mode string) (*capabilities.VisibleSet, error) {
	view, in, d, err := e.preview(ctx, sessionID, mode)
	if err != nil {
		return nil, err
	}
	return capabilities.Compute(view, in, d), nil
}

// SearchPreview runs a ToolSearch as Preview's session would, without
// loading what it finds.
func (e *Engine) SearchPreview(ctx context.Context, sessionID, mode string, req capabilities.SearchRequest) (capabilities.SearchResult, error) {
	view, in, d, err := e.preview(ctx, sessionID, mode)
	if err != nil {
		return capabilities.SearchResult{}, err
	}
	return capabilities.Find(view, in, capabilities.Compute(view, in, d), req)
}

func (e *Engine) preview(ctx context.Context, sessionID, mode string) (*capabilities.View, capabilities.Inputs, *capabilities.Discovery, error) {
	st := e.settings()
	info := SessionInfo{Agent: "default"}
	if m, err := ParseMode(st.Permissions.Mode); err == nil {
		info.Mode = m
	} else {
		info.Mode = ModeDefault
	}
	if sessionID != "" {
		var err error
		if info, err = e.opts.Log.Info(ctx, sessionID); err != nil {
			return nil, capabilities.Inputs{}, nil, err
		}
	}
	if mode != "" {
		m, err := ParseMode(mode)
		if err != nil {
			return nil, capabilities.Inputs{}, nil, err
		}
		info.Mode = m
	}
	agent, ok := st.Agent(info.Agent)
	if !ok {
		agent, _ = st.Agent("default")
	}
	in := policyInputs(st, agent, info.Mode, e.rules())
	in.Inherited = info.Inherited
	in.Project = capabilities.DetectProject(info.Workspace)
	if pc, ok := st.Provider(info.Provider); ok {
		if info.Model != "" {
			pc.Model = info.Model
		}
		in.ContextWindow = pc.ContextWindow
		if in.ContextWindow <= 0 {
			in.ContextWindow = llm.ContextWindow(pc.Model)
		}
	}
	e.mu.Lock()
	s, open := e.sessions[sessionID]
	e.mu.Unlock()
	if open && sessionID != "" {
		s.mu.Lock()
		built := s.discovery.local != nil
		s.mu.Unlock()
		in.ContextUsed = s.contextUsed()
		if built {
			// Compute only extends the tool order, which the session's next
			// call would do the same way.
			return e.catalog.Snapshot().View(sessionID), in, s.discoveryState(), nil
		}
	}
	if err := e.ensurePreviewTools(); err != nil {
		return nil, in, nil, err
	}
	return e.catalog.Snapshot().View(previewSession), in, capabilities.NewDiscovery(), nil
}

// ensurePreviewTools puts the built-in tools, bound to a scratch folder,
// in the catalog for previews, once.
func (e *Engine) ensurePreviewTools() error {
	e.previewOnce.Do(func() {
		dir, err := os.MkdirTemp("", "tinyelf-preview-")
		if err != nil {
			e.previewErr = fmt.Errorf("prepare the capability preview: %w", err)
			return
		}
		var sk *SkillTools
		if e.opts.Skills != nil && e.opts.Skills.Library != nil {
			// The skills tools as a new session has them (never run here).
			sk = &SkillTools{Library: e.opts.Skills.Library(""), Hub: e.opts.Skills.Hub, Prompts: e.opts.Skills.Prompts}
		}
		built, err := BuildRegistry(BuildOptions{Workspace: dir, Notifier: e.opts.Notifier, Web: e.webTools(e.settings()), Skills: sk, Spawner: e.subagents, Sessions: sessionTools{e}})
		if err != nil {
			e.previewErr = fmt.Errorf("prepare the capability preview: %w", err)
			return
		}
		var es []capabilities.Entry
		for _, n := range built.Registry.Names() {
			if tool, ok := built.Registry.Get(n); ok {
				es = append(es, capabilities.ToolEntry(tool))
			}
		}
		built.Close()
		os.Remove(dir)
		e.catalog.Replace(localPartition(previewSession), es, capabilities.PartitionOptions{Session: previewSession, Priority: capabilities.PriorityLocal})
	})
	return e.previewErr
}

// contextUsed is what the session's last model call took of the context
// window, as the provider reported it (0 when unknown).
func (s *sessionState) contextUsed() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lastCall == nil {
		return 0
	}
	return s.lastCall.inputTokens + s.lastCall.outputTokens
}
