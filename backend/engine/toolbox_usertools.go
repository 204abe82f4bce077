package engine

import (
	"context"
	"encoding/json"
	"io"

	"tinyelf/backend/config"
	"tinyelf/backend/notify"
	"tinyelf/backend/tools"
	"tinyelf/backend/usertools"
)

// LoadUserTools discovers an agent's user tools (seed 002: common, then
// personal) and adds them to the toolbox as the agent's sessions get them:
// each action by its schema name, use_tool and the other user-tool tools,
// in plan mode only read-only ones, only those the agent's allowedTools
// admit, and a built-in tool wins a name clash.
// It returns what the discovery found (skipped tools, load errors); calling
// it again returns the first report.
func (t *Toolbox) LoadUserTools(ctx context.Context, agent string) usertools.Report {
	if t.userTools != nil {
		return t.userReport
	}
	svc, err := t.newUserTools(nil)
	if err != nil {
		return usertools.Report{Agent: agent, Errors: []usertools.Problem{{Message: err.Error()}}}
	}
	t.userTools, t.userAgent = svc, agent
	t.userReport = svc.Report(ctx, agent)
	reg := t.sess.Registry
	for _, tool := range svc.Tools(ctx, agent) {
		info := tool.Info()
		if reg.Has(info.Name) {
			continue
		}
		if t.opts.Mode == ModePlan && !info.ReadOnly {
			t.hidden[info.Name] = "plan mode allows only read-only tools"
			continue
		}
		if !t.admit(info) {
			continue
		}
		if at, ok := tool.(usertools.ActionTool); ok {
			d := at.Definition()
			t.userInfo[info.Name] = userToolInfo{kind: string(d.Kind), folder: d.Dir}
		}
		_ = reg.Register(tool)
	}
	return t.userReport
}

type userToolInfo struct{ kind, folder string }

// newUserTools opens the user tools of the toolbox's data folder; n is told
// when a background task ends.
func (t *Toolbox) newUserTools(n usertools.Notifier) (*usertools.Service, error) {
	settings := t.settings
	return usertools.New(usertools.Options{
		DataDir:          t.opts.DataDir,
		CoreNames:        t.sess.Registry.Names(),
		Credentials:      func() map[string]config.Credential { return settings.Get().Credentials },
		AgentCredentials: func(agent string) map[string]config.Credential { return settings.Get().AgentCredentials(agent) },
		Getenv:           t.opts.Getenv,
		Notifier:         n,
		Children:         t.children,
	})
}

// UserTools describes the loaded agent's user tools with their folders
// (LoadUserTools first).
func (t *Toolbox) UserTools(ctx context.Context) usertools.Listing {
	if t.userTools == nil {
		return usertools.Listing{}
	}
	return t.userTools.List(ctx, t.userAgent)
}

// HasUserTool reports whether a user tool of that name (the file name,
// not a schema name) is loaded.
func (t *Toolbox) HasUserTool(ctx context.Context, name string) bool {
	if t.userTools == nil {
		return false
	}
	for _, v := range t.userTools.List(ctx, t.userAgent).Tools {
		if v.Name == name {
			return true
		}
	}
	return false
}

// RunUserToolCLI runs a user tool's command-line entry with argv and the
// given streams (the seed's animaworks-tool) and returns its exit status;
// a tool without one (cli_main, or "cli" in its manifest) is
// usertools.ErrNoCLI.
func (t *Toolbox) RunUserToolCLI(ctx context.Context, tool string, argv []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	return t.userTools.RunCLI(ctx, t.userAgent, tool, argv, stdin, stdout, stderr)
}

// RunUserToolAction runs one action of a user tool as a model would, with
// use_tool, through the pipeline (see Run): asking for it is the approval,
// a gated action still needs its permission, and deny rules and hooks
// apply. The result is named after the action's schema.
func (t *Toolbox) RunUserToolAction(ctx context.Context, tool, action string, args map[string]any) tools.CallResult {
	params := map[string]any{"tool_name": tool, "action": action}
	if args != nil {
		params["args"] = args
	}
	raw, _ := json.Marshal(params)
	res := t.Run(ctx, usertools.UseToolName, raw)
	res.Name = tool + "_" + action
	if schema, ok := res.Meta["schema"].(string); ok {
		res.Name = schema
	}
	return res
}

// SubmitUserTool queues a background task of a background-eligible action
// for RunUserToolTask to run in another process. Refusals (unknown tool,
// not background-eligible, gated and not allowed, bad arguments) are
// errors to show the user.
func (t *Toolbox) SubmitUserTool(ctx context.Context, tool, action string, args map[string]any) (usertools.Task, error) {
	return t.userTools.Enqueue(ctx, t.userAgent, tool, action, args)
}

// RunUserToolTask runs a queued task until it ends (or ctx does), with a
// desktop notification at the end (when the settings allow them), and
// returns its final record. It needs no LoadUserTools.
func (t *Toolbox) RunUserToolTask(ctx context.Context, id string) (usertools.Task, error) {
	n := t.opts.Notifier
	if n == nil {
		n = notify.New()
	}
	svc, err := t.newUserTools(notify.NewPolicy(n, t.settings.Get().NotificationsOn()))
	if err != nil {
		return usertools.Task{}, err
	}
	defer svc.Close()
	return svc.RunTask(ctx, id)
}

// UserToolTasks returns the background tasks of the loaded agent ("" loads
// every agent's), newest first.
func (t *Toolbox) UserToolTasks(all bool) []usertools.Task {
	if all {
		return t.userTools.Tasks("")
	}
	return t.userTools.Tasks(t.userAgent)
}
