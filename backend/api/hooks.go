package api

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"tinyelf/backend/config"
	"tinyelf/backend/engine"
	"tinyelf/backend/hooks"
	"tinyelf/backend/proc"
)

// The methods of Settings → Hooks and `tinyelf hooks`.

// TranscriptsFolder is where sessions' transcripts for hooks are written,
// inside the data folder.
const TranscriptsFolder = "transcripts"

// Hooks is the hooks part of the API: the Service offers its methods
// (Settings → Hooks), and OpenHooks gives `tinyelf hooks` the same ones
// without starting an engine. It is safe for concurrent use.
type Hooks struct {
	settings *config.Store
	trust    *hooks.TrustStore
	runner   *hooks.Runner
	// sessionWorkspace finds a session's workspace (nil: no sessions here).
	sessionWorkspace func(ctx context.Context, id string) (string, error)
	// children is OpenHooks' own tracker, killed on Close.
	children *proc.Children
}

// HooksOptions configure OpenHooks.
type HooksOptions struct {
	// DataDir holds the settings and the trust file (default: DataDir()).
	DataDir string
	// Getenv reads the environment for the hooks' clean environment
	// (default: os.Getenv).
	Getenv func(string) string
}

// OpenHooks reads the settings and the hooks trust, for `tinyelf hooks`.
// Close it when done: hooks it started that still run are killed.
func OpenHooks(o HooksOptions) (*Hooks, error) {
	if o.DataDir == "" {
		dir, err := config.DataDir()
		if err != nil {
			return nil, err
		}
		o.DataDir = dir
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	settings, err := config.OpenStore(filepath.Join(o.DataDir, config.SettingsFile))
	if err != nil {
		return nil, err
	}
	trust, err := hooks.OpenTrustStore(filepath.Join(o.DataDir, hooks.TrustFile))
	if err != nil {
		return nil, err
	}
	children := engine.NewChildren(o.DataDir, settings, o.Getenv)
	return &Hooks{settings: settings, trust: trust, children: children, runner: &hooks.Runner{Children: children,
		Environ: func() []string { return engine.ChildEnviron(settings.Get().WithEnvironment(o.Getenv)) }}}, nil
}

// Warnings returns the problems met reading the settings and the trust
// file.
func (k *Hooks) Warnings() []string {
	var out []string
	for _, w := range []string{k.settings.Warning(), k.trust.Warning()} {
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}

// Close kills the hooks OpenHooks' Hooks started that still run.
func (k *Hooks) Close() error {
	if k.children != nil {
		k.children.KillAll()
	}
	return nil
}

// HooksArgs names the workspace whose project hooks are listed along with
// the settings' ones: Workspace, or the workspace of SessionID.
type HooksArgs struct {
	Workspace string `json:"workspace,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
}

// HookEventInfo describes an event for the settings form.
type HookEventInfo struct {
	Name hooks.Event `json:"name"`
	// MatchField is what its matcher is tested against ("tool_name",
	// "source"...), "" when it has no matcher.
	MatchField string `json:"matchField,omitempty"`
	// MatcherValues are the usual matchers (the SessionStart sources...).
	MatcherValues []string `json:"matcherValues,omitempty"`
}

// ProjectHooks is a workspace's project hooks and their trust.
type ProjectHooks struct {
	Workspace string              `json:"workspace"`
	Files     []hooks.ProjectFile `json:"files"`
	// Hash identifies the hooks the trust is about ("" when none).
	Hash string `json:"hash,omitempty"`
	// Trust is "trusted", "denied" or "untrusted" (asked the next time
	// the agent works there), for exactly these hooks.
	Trust hooks.TrustState `json:"trust"`
	// Paths are the files project hooks are read from (missing ones too).
	Paths []string `json:"paths"`
}

// HookList is Settings → Hooks: the settings' hooks, with what in them
// cannot run, and the workspace's project hooks.
type HookList struct {
	Events   []HookEventInfo `json:"events"`
	Hooks    hooks.Config    `json:"hooks"`
	Problems []hooks.Problem `json:"problems"`
	// SettingsPath is the settings file that holds Hooks.
	SettingsPath string        `json:"settingsPath"`
	Project      *ProjectHooks `json:"project,omitempty"`
	// Warning explains a trust file that could not be read.
	Warning string `json:"warning,omitempty"`
}

// ListHooks returns the settings' hooks and the workspace's.
func (k *Hooks) ListHooks(ctx context.Context, a HooksArgs) (HookList, error) {
	ws, err := k.workspace(ctx, a.SessionID, a.Workspace)
	if err != nil {
		return HookList{}, err
	}
	c, problems := hooks.Parse(k.settings.Get().Hooks)
	out := HookList{Hooks: c, Problems: problems, SettingsPath: k.settings.Path(), Warning: k.trust.Warning()}
	if out.Problems == nil {
		out.Problems = []hooks.Problem{}
	}
	for _, ev := range hooks.Events {
		out.Events = append(out.Events, HookEventInfo{Name: ev, MatchField: ev.MatchField(), MatcherValues: ev.MatcherValues()})
	}
	if ws != "" {
		out.Project = k.project(ws)
	}
	return out, nil
}

// project returns a workspace's project hooks with their trust.
func (k *Hooks) project(ws string) *ProjectHooks {
	p := hooks.LoadProject(ws)
	out := &ProjectHooks{Workspace: ws, Files: p.Files, Hash: p.Hash, Trust: k.trust.State(ws, p.Hash)}
	if out.Files == nil {
		out.Files = []hooks.ProjectFile{}
	}
	for _, f := range hooks.ProjectFiles {
		out.Paths = append(out.Paths, filepath.ToSlash(f))
	}
	return out
}

// SaveHooksArgs replaces the settings' hooks section; Workspace (or
// SessionID) names the workspace the returned list shows too.
type SaveHooksArgs struct {
	Hooks     hooks.Config `json:"hooks"`
	Workspace string       `json:"workspace,omitempty"`
	SessionID string       `json:"sessionId,omitempty"`
}

// SaveHooks checks the hooks strictly (an event TinyElf does not know, a
// hook without a command, a matcher that is not a valid pattern are
// refused, naming each) and saves them in the settings file, in Claude
// Code's shape. Sessions use them from their next turn.
func (k *Hooks) SaveHooks(ctx context.Context, a SaveHooksArgs) (HookList, error) {
	c := hooks.Config{}
	for ev, groups := range a.Hooks {
		for _, g := range groups {
			g.Matcher = strings.TrimSpace(g.Matcher)
			for i := range g.Hooks {
				if g.Hooks[i].Type == "" {
					g.Hooks[i].Type = hooks.TypeCommand
				}
				g.Hooks[i].Command = strings.TrimSpace(g.Hooks[i].Command)
			}
			c[ev] = append(c[ev], g)
		}
	}
	if err := hooks.Validate(c); err != nil {
		return HookList{}, invalidf("%v", err)
	}
	raw, err := c.Marshal()
	if err != nil {
		return HookList{}, err
	}
	if err := k.settings.Update(func(s *config.Settings) error { s.Hooks = raw; return nil }); err != nil {
		return HookList{}, err
	}
	return k.ListHooks(ctx, HooksArgs{Workspace: a.Workspace, SessionID: a.SessionID})
}

// HooksTrustArgs trusts, denies or forgets (untrusted: ask again) a
// workspace's project hooks as they are now.
type HooksTrustArgs struct {
	Workspace string `json:"workspace,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
	// Trust is "trusted", "denied" or "untrusted".
	Trust string `json:"trust"`
}

// SetHooksTrust records the user's answer about a workspace's project
// hooks; a later change of them asks again.
func (k *Hooks) SetHooksTrust(ctx context.Context, a HooksTrustArgs) (HookList, error) {
	state, err := hooks.ParseTrustState(a.Trust)
	if err != nil {
		return HookList{}, invalidf("%v", err)
	}
	ws, err := k.workspace(ctx, a.SessionID, a.Workspace)
	if err != nil {
		return HookList{}, err
	}
	if ws == "" {
		return HookList{}, invalidf("name the workspace whose project hooks to trust")
	}
	p := hooks.LoadProject(ws)
	if p.Empty() && state != hooks.TrustUntrusted {
		return HookList{}, invalidf("%s has no project hooks (in %s)", ws, strings.Join(hooks.ProjectFiles, " or "))
	}
	if err := k.trust.Set(ws, p.Hash, state); err != nil {
		return HookList{}, err
	}
	return k.ListHooks(ctx, HooksArgs{Workspace: ws})
}

// TestHookArgs runs an event's hooks once with a sample input, as `tinyelf
// hooks test EVENT` does. The fields fill the event's input; unset ones
// take plain defaults (tool Bash, source "startup"...).
type TestHookArgs struct {
	Event     string `json:"event"`
	Workspace string `json:"workspace,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
	// Tool and Input are a tool event's tool_name and tool_input (a JSON
	// object); Response is PostToolUse's result text (or
	// PostToolUseFailure's error).
	Tool     string          `json:"tool,omitempty"`
	Input    json.RawMessage `json:"input,omitempty"`
	Response string          `json:"response,omitempty"`
	// Prompt is UserPromptSubmit's; Message Notification's.
	Prompt  string `json:"prompt,omitempty"`
	Message string `json:"message,omitempty"`
	// Match is the value a session event's matcher is tested against: the
	// SessionStart source, SessionEnd reason, Notification type, PreCompact
	// trigger or SubagentStop agent.
	Match string `json:"match,omitempty"`
}

// HookTestRun is one hook's run in a test.
type HookTestRun struct {
	Command    string        `json:"command"`
	Source     string        `json:"source"`
	Matcher    string        `json:"matcher,omitempty"`
	ExitCode   int           `json:"exitCode"`
	DurationMs int64         `json:"durationMs"`
	TimedOut   bool          `json:"timedOut,omitempty"`
	Stdout     string        `json:"stdout,omitempty"`
	Stderr     string        `json:"stderr,omitempty"`
	Verdict    hooks.Verdict `json:"verdict"`
}

// HookTestResult is what an event's hooks said in a test: each run, and
// what TinyElf would do with them together.
type HookTestResult struct {
	Event hooks.Event `json:"event"`
	// Input is the JSON the hooks read on stdin.
	Input json.RawMessage `json:"input"`
	Runs  []HookTestRun   `json:"runs"`
	// Decision, Reason, Context, UpdatedInput and Stop are the combined
	// outcome (see hooks.Outcome).
	Decision     string         `json:"decision,omitempty"`
	Reason       string         `json:"reason,omitempty"`
	Context      []string       `json:"context,omitempty"`
	UpdatedInput map[string]any `json:"updatedInput,omitempty"`
	Stop         bool           `json:"stop,omitempty"`
	StopReason   string         `json:"stopReason,omitempty"`
	// Skipped says why some hooks did not run (untrusted project hooks).
	Skipped string `json:"skipped,omitempty"`
}

// TestHook runs the hooks an event would run for the sample input: the
// settings' and the workspace's trusted project hooks, in the workspace,
// with the hooks' usual environment.
func (k *Hooks) TestHook(ctx context.Context, a TestHookArgs) (HookTestResult, error) {
	ev, err := hooks.ParseEvent(a.Event)
	if err != nil {
		return HookTestResult{}, invalidf("%v", err)
	}
	ws, err := k.workspace(ctx, a.SessionID, a.Workspace)
	if err != nil {
		return HookTestResult{}, err
	}
	if ws == "" {
		if ws, err = os.Getwd(); err != nil {
			return HookTestResult{}, err
		}
	}
	in, err := testInput(ev, ws, a)
	if err != nil {
		return HookTestResult{}, err
	}
	global, _ := hooks.Parse(k.settings.Get().Hooks)
	sources := []hooks.Source{{Name: hooks.SourceSettings, Config: global}}
	out := HookTestResult{Event: ev, Runs: []HookTestRun{}}
	if p := hooks.LoadProject(ws); !p.Empty() {
		if k.trust.State(ws, p.Hash) == hooks.TrustTrusted {
			sources = append(sources, p.Sources()...)
		} else {
			out.Skipped = fmt.Sprintf("The project hooks of %s are not trusted, so they did not run (trust them with `tinyelf hooks trust --workspace %s`).", ws, ws)
		}
	}
	out.Input, _ = json.Marshal(in)
	hs := hooks.NewSet(sources...).Match(ev, in.MatchValue())
	runs := k.runner.Run(ctx, hs, in, ws)
	for _, r := range runs {
		out.Runs = append(out.Runs, HookTestRun{Command: r.Hook.Command, Source: r.Hook.Source, Matcher: r.Hook.Matcher, ExitCode: r.ExitCode,
			DurationMs: r.Duration.Milliseconds(), TimedOut: r.TimedOut, Stdout: r.Stdout, Stderr: r.Stderr, Verdict: r.Verdict})
	}
	o := hooks.Combine(runs)
	out.Decision, out.Reason, out.Context, out.UpdatedInput, out.Stop, out.StopReason = o.Decision, o.Reason, o.Context, o.UpdatedInput, o.Stop, o.StopReason
	return out, nil
}

// testInput is the sample input of a test run.
func testInput(ev hooks.Event, ws string, a TestHookArgs) (hooks.Input, error) {
	id := a.SessionID
	if id == "" {
		id = "hook-test"
	}
	in := hooks.Input{SessionID: id, Cwd: ws, PermissionMode: string(engine.ModeDefault), Event: ev}
	if ev.ToolEvent() {
		in.ToolName, in.ToolUseID = a.Tool, "hook-test-call"
		if in.ToolName == "" {
			in.ToolName = "Bash"
		}
		in.ToolInput = map[string]any{}
		if len(a.Input) > 0 {
			if err := json.Unmarshal(a.Input, &in.ToolInput); err != nil || in.ToolInput == nil {
				return in, invalidf("the tool input must be a JSON object: %s", a.Input)
			}
		}
		if p, ok := in.ToolInput["path"].(string); ok && (in.ToolName == "Read" || in.ToolName == "Write" || in.ToolName == "Edit") {
			if !filepath.IsAbs(p) {
				p = filepath.Join(ws, p)
			}
			in.ToolInput["file_path"] = p
		}
		switch ev {
		case hooks.PostToolUse:
			file, _ := in.ToolInput["file_path"].(string)
			in.ToolResponse = hooks.ToolResponse(in.ToolName, a.Response, false, file)
		case hooks.PostToolUseFailure:
			in.Error = a.Response
		case hooks.PermissionRequest:
			in.PermissionSuggestions = []hooks.Suggestion{}
		}
	}
	match := a.Match
	switch ev {
	case hooks.UserPromptSubmit:
		in.Prompt = a.Prompt
	case hooks.Notification:
		in.Message, in.Title, in.NotificationType = a.Message, "TinyElf", textOr(match, hooks.NotifyIdle)
		if in.Message == "" {
			in.Message = "TinyElf test notification"
		}
	case hooks.SessionStart:
		in.Source = textOr(match, hooks.SourceStartup)
	case hooks.SessionEnd:
		in.Reason = textOr(match, hooks.EndOther)
	case hooks.PreCompact:
		in.Trigger = textOr(match, hooks.TriggerManual)
	case hooks.SubagentStop:
		in.AgentID, in.AgentType = id, textOr(match, "default")
	}
	return in, nil
}

func textOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// workspace resolves a workspace argument ("" when none is named).
func (k *Hooks) workspace(ctx context.Context, sessionID, dir string) (string, error) {
	ws := dir
	if sessionID != "" {
		if k.sessionWorkspace == nil {
			return "", invalidf("sessions are not available here; name the workspace instead")
		}
		var err error
		if ws, err = k.sessionWorkspace(ctx, sessionID); err != nil {
			return "", err
		}
	}
	if ws == "" {
		return "", nil
	}
	abs, err := filepath.Abs(ws)
	if err != nil {
		return "", invalidf("workspace %q: %v", ws, err)
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return "", invalidf("workspace %s is not a folder", abs)
	}
	return abs, nil
}
