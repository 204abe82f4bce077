package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"tinyelf/backend/capabilities"
	"tinyelf/backend/llm"
	"tinyelf/backend/sessions"
	"tinyelf/backend/skills"
	"tinyelf/backend/tools"
	"tinyelf/backend/tools/fs"
)

// Skills in the loop: the builder's steps 5, 6 and 9 (list_skills,
// read_skill, skillhub_search, skillhub_install, slash_command), the skill
// folders the FileSystem tools may read, the trust question a project
// skill's first load asks through the approval card, and the allowed-tools
// a loaded skill or a command grants for the rest of its turn.

// Skills gives sessions the skills of their workspace.
type Skills struct {
	// Library returns the skills of a workspace; the sessions of one
	// workspace share it. It is called when a session's registry is built.
	Library func(workspace string) *skills.Library
	// Fresh is Library with the skill folders checked for changes first,
	// for what the user sees at once (a typed command, the "/" menu); nil
	// means Library.
	Fresh func(workspace string) *skills.Library
	// Hub backs skillhub_search and skillhub_install; nil leaves them out.
	Hub *skills.Hub
	// Prompts offers the MCP prompts as slash commands; may be nil.
	Prompts skills.PromptSource
	// NoTrustPrompt means nobody can be asked (`tinyelf run` without
	// --yes): a project skill nobody trusted yet is refused with a message
	// saying how to trust it, instead of an approval card.
	NoTrustPrompt bool
}

// SkillTools is what the builder's skills steps need from the session.
type SkillTools struct {
	Library *skills.Library
	// Hub adds skillhub_search and skillhub_install (nil: left out).
	Hub *skills.Hub
	// Trust asks the user about a project skill (nil: refuse, saying how
	// to trust it).
	Trust skills.TrustAsker
	// Prompts are the MCP prompts slash_command runs (may be nil).
	Prompts skills.PromptSource
	// SessionID fills ${CLAUDE_SESSION_ID} in commands.
	SessionID string
}

// skillTools returns the tools of the builder's steps 5, 6 and 9.
func (o *SkillTools) step(n int) []tools.Tool {
	if o == nil || o.Library == nil {
		return nil
	}
	switch n {
	case 5:
		return []tools.Tool{skills.NewListSkills(o.Library), skills.NewReadSkill(o.Library, o.Trust)}
	case 6:
		if o.Hub == nil {
			return nil
		}
		return []tools.Tool{skills.NewSkillHubSearch(o.Hub), skills.NewSkillHubInstall(o.Hub, o.Library)}
	case 9:
		id := o.SessionID
		return []tools.Tool{skills.NewSlashCommand(o.Library, skills.SlashCommandOptions{
			Prompts:   o.Prompts,
			SessionID: func(context.Context) string { return id },
		})}
	}
	return nil
}

// sessionSkills returns the skills tools' options for a turn's session, nil
// when the engine has no skills.
func (t *turn) sessionSkills() *SkillTools {
	sk := t.e.opts.Skills
	if sk == nil || sk.Library == nil {
		return nil
	}
	lib := sk.Library(t.info.Workspace)
	if lib == nil {
		return nil
	}
	o := &SkillTools{Library: lib, Hub: sk.Hub, Prompts: sk.Prompts, SessionID: t.s.id}
	if !sk.NoTrustPrompt {
		o.Trust = trustAsker{e: t.e, s: t.s}
	}
	return o
}

// maxSkillRoots bounds the folders outside the workspace a session's file
// tools reach for skills.
const maxSkillRoots = 64

// SkillRoots are the folders of a library's skills that the FileSystem
// tools may read outside the workspace: the user skills folders, and the
// folder of each loadable skill that lies elsewhere (a skill folder that is
// a symbolic link). All are read-only; scripts run only through Bash and
// its permission gate.
func SkillRoots(lib *skills.Library, workspace string) []fs.Root {
	if lib == nil {
		return nil
	}
	var roots []fs.Root
	var reals []string
	inWorkspace := func(real string) bool {
		ws, err := filepath.EvalSymlinks(workspace)
		if err != nil {
			ws = workspace
		}
		return workspace != "" && within(ws, real)
	}
	covered := func(real string) bool {
		return slices.ContainsFunc(reals, func(r string) bool { return within(r, real) }) || inWorkspace(real)
	}
	add := func(dir, reason string) {
		if len(roots) >= maxSkillRoots {
			return
		}
		st, err := os.Stat(dir)
		if err != nil || !st.IsDir() {
			return
		}
		real, err := filepath.EvalSymlinks(dir)
		if err != nil || covered(real) {
			return
		}
		roots = append(roots, fs.Root{Dir: dir, Reason: reason})
		reals = append(reals, real)
	}
	for _, r := range lib.Snapshot().Roots {
		if r.Source == skills.SourceUser {
			add(r.Dir, "your skills folder")
		}
	}
	snap := lib.Snapshot()
	for _, dir := range lib.ReadableDirs() {
		name := filepath.Base(dir)
		for _, sk := range snap.Skills {
			if filepath.Clean(sk.Dir) == dir {
				name = sk.Name
				break
			}
		}
		add(dir, fmt.Sprintf("the folder of skill %s", name))
	}
	return roots
}

// within reports whether p is dir or lies below it.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}

// rootsKey identifies a list of roots for the registry's cache key.
func rootsKey(roots []fs.Root) string {
	var sb strings.Builder
	for _, r := range roots {
		sb.WriteString(r.Dir)
		sb.WriteByte(0)
	}
	return sb.String()
}

// trustAsker asks the user whether a project skill may guide the agent,
// with the approval card of the call that loads it (read_skill).
type trustAsker struct {
	e *Engine
	s *sessionState
}

// AskTrust implements skills.TrustAsker. Allowing (once or always) trusts
// the skill in this workspace, denying denies it; either answer is
// remembered (Settings → Skills changes it).
func (a trustAsker) AskTrust(ctx context.Context, req skills.TrustRequest) (skills.TrustState, error) {
	callID := tools.CallIDFromContext(ctx)
	if callID == "" {
		return skills.TrustUntrusted, fmt.Errorf("no tool call to attach the question to")
	}
	ans, err := a.e.askQuestion(ctx, a.s, ApprovalRequest{
		SessionID: a.s.id, CallID: callID, Tool: "read_skill", Kind: ApprovalSkillTrust,
		Arguments: argsJSON(map[string]any{"name": req.Skill, "folder": req.Dir, "allowedTools": req.AllowedTools}),
		Question:  req.Question, Skill: req.Skill,
	})
	if err != nil {
		return skills.TrustUntrusted, err
	}
	if ans.Decision == Deny {
		return skills.TrustDenied, nil
	}
	return skills.TrustTrusted, nil
}

// ApprovalSkillTrust is the Kind of the approval that asks whether a
// project skill may guide the agent.
const ApprovalSkillTrust = "skill_trust"

// askQuestion puts a question that is not a tool call's permission (a
// project skill's trust) on the approval card, waits for the answer and
// logs both; the card belongs to the call in progress.
func (e *Engine) askQuestion(ctx context.Context, s *sessionState, req ApprovalRequest) (ApprovalAnswer, error) {
	wait := func(ctx context.Context) (ApprovalAnswer, error) { return askUntilDone(ctx, e.opts.Approver, req) }
	if e.opts.Approver == nil {
		wait = e.expectAnswer(s, req)
	}
	if err := e.recordFor(ctx, s.id, sessions.NewEvent(sessions.EventApprovalAsked, sessions.ApprovalAsked{
		CallID: req.CallID, Name: req.Tool, Arguments: req.Arguments, Kind: req.Kind, Question: req.Question, Skill: req.Skill,
		Server: req.Server, Schema: req.Schema, URL: req.URL, MaxTokens: req.MaxTokens,
	})); err != nil {
		s.mu.Lock()
		delete(s.pending, req.CallID)
		s.mu.Unlock()
		return ApprovalAnswer{}, fmt.Errorf("ask the user: %w", err)
	}
	ans, err := wait(ctx)
	if err != nil {
		why, by := "the turn was stopped before an answer", "cancel"
		if e.closing() {
			// Whoever asked ends with TinyElf: the card cannot come back.
			why, by = expiredClosed, decidedExpired
		}
		_ = e.answered(ctx, s.id, req.CallID, Deny, why, "", by)
		return ApprovalAnswer{}, err
	}
	by := "user"
	if e.opts.Approver != nil {
		by = "cli"
	}
	if err := e.answered(ctx, s.id, req.CallID, ans.Decision, ans.Reason, "", by); err != nil {
		return ApprovalAnswer{}, err
	}
	return ans, nil
}

// TurnOptions are what a slash command the user typed asks of its turn.
type TurnOptions struct {
	// AllowedTools are pre-approved for the turn (never beyond deny rules,
	// plan mode or the shell guard).
	AllowedTools skills.AllowedTools
	// FilterTools limits the turn's tools to AllowedTools (a Markdown
	// command's allowed-tools: Registry.Filtered of seed 000).
	FilterTools bool
	// Command names the command ("/review"), for the grant's audit.
	Command string
	// Skill is the skill the command ran: its load is logged as a
	// capability.loaded event and marked in the index.
	Skill *skills.Skill
	// Direct, when set, is a tool call the person makes themselves
	// (`tinyelf tool` for a tool only a session has): the turn makes it in
	// place of a model call, as the assistant's call, and ends with its
	// result. See Engine.RunToolCall.
	Direct *llm.ToolCall
}

// turnGrants are the allowed-tools granted within one turn: by loaded or
// invoked skills and by commands (pre-approval), and the registry filter
// of Markdown commands. They end with the turn.
type turnGrants struct {
	mu sync.Mutex
	// allow lists each grant with who gave it.
	allow []grant
	// filter, when filtered, keeps only the tools it names visible.
	filter   skills.AllowedTools
	filtered bool
}

type grant struct {
	tools skills.AllowedTools
	by    string // "skill test-fix", "/review"
}

// add records a grant; filter also narrows the turn's tools to it.
func (g *turnGrants) add(ts skills.AllowedTools, by string, filter bool) {
	if len(ts) == 0 && !filter {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(ts) > 0 {
		g.allow = append(g.allow, grant{tools: ts, by: by})
	}
	if filter {
		if g.filtered {
			// A second command narrows further: only what both name.
			g.filter = slices.DeleteFunc(slices.Clone(g.filter), func(a skills.AllowedTool) bool {
				return !slices.ContainsFunc(ts, func(b skills.AllowedTool) bool { return b.MatchesName(a.Tool) || a.MatchesName(b.Tool) })
			})
		} else {
			g.filter, g.filtered = slices.Clone(ts), true
		}
	}
}

// allows says which grant pre-approves the call, if any.
func (g *turnGrants) allows(name string, params map[string]any, wsDir string) (string, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, gr := range g.allow {
		if gr.tools.Allows(name, params, wsDir) {
			return fmt.Sprintf("%s (allowed-tools of %s, this turn)", gr.tools.String(), gr.by), true
		}
	}
	return "", false
}

// narrow applies a command's registry filter to the policy's allowedTools.
func (g *turnGrants) narrow(view func() *capabilities.View, allowed []string) []string {
	g.mu.Lock()
	filter, on := g.filter, g.filtered
	g.mu.Unlock()
	if !on {
		return allowed
	}
	out := []string{capabilities.ToolSearchName}
	for _, e := range view().Entries() {
		if e.Kind != capabilities.KindTool || !capabilities.AllowedBy(allowed, e) {
			continue
		}
		if slices.ContainsFunc(filter, func(a skills.AllowedTool) bool { return a.MatchesName(e.Name) }) && !slices.Contains(out, e.Name) {
			out = append(out, e.Name)
		}
	}
	return out
}

// noteGrants applies what the calls' results grant: a skill loaded with
// read_skill or a command run with slash_command pre-approves its
// allowed-tools for the rest of the turn, and a Markdown command's also
// narrows the turn's tools.
func (t *turn) noteGrants(results []tools.CallResult) {
	for _, r := range results {
		if r.IsError {
			continue
		}
		ts, ok := r.Meta["allowedTools"].(skills.AllowedTools)
		if !ok {
			continue
		}
		by := "a skill"
		if name, ok := r.Meta["skill"].(string); ok {
			by = "skill " + name
		}
		if cmd, ok := r.Meta["command"].(string); ok {
			by = "/" + cmd
		}
		kind, _ := r.Meta["kind"].(string)
		t.grant(ts, by, kind == string(skills.CommandMarkdown))
	}
}

// applyTurnOptions records what a typed command asks of the turn: its
// grants, and the load of the skill it ran.
func (t *turn) applyTurnOptions(ctx context.Context, o TurnOptions) error {
	by := o.Command
	if by == "" {
		by = "the command"
	}
	t.grant(o.AllowedTools, by, o.FilterTools)
	if o.Skill == nil {
		return nil
	}
	t.s.discoveryState().NoteLoaded(o.Skill.ID())
	return t.record(ctx, sessions.NewEvent(sessions.EventCapabilityLoad, sessions.CapabilityLoaded{
		ID: o.Skill.ID(), Kind: string(capabilities.KindSkill), Name: o.Skill.Name, Source: string(o.Skill.Source),
	}))
}

// grantAllows is the permission gate's last step before asking: a call
// the turn's grants pre-approve runs without asking. The gate consults it
// only for a call it would otherwise ask about, so deny rules, plan mode
// and the shell guard's refusals always come first.
func (t *turn) grantAllows(call *tools.Call) (string, bool) {
	if t == nil {
		return "", false
	}
	return t.grants.allows(call.Name, call.Params, t.info.Workspace)
}

// libraryOf returns the library of o (nil when o is).
func libraryOf(o *SkillTools) *skills.Library {
	if o == nil {
		return nil
	}
	return o.Library
}
