package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"tinyelf/backend/api"
)

const runUsage = `Usage: tinyelf run -p PROMPT [flags]

Runs one task headless and prints the result.

  -p, --prompt TEXT      the task ("-" reads it from stdin)
  --workspace DIR        the folder to work in (default: the current folder)
  --mode MODE            plan | default | acceptEdits | auto (default: the settings' mode)
  --agent NAME           the agent profile to use
  --provider NAME        a provider from the settings or the environment (env-openai, env-anthropic, a preset name)
  --model MODEL          the model to use
  --base-url URL         send the chosen provider's requests here (a gateway, proxy or local server);
                         without --provider, an OpenAI-compatible server
  --output FORMAT        text (default), json (one result object) or stream-json (one event per line)
  --resume ID            continue an earlier session
  --yes                  approve every call that would ask (the shell deny list and deny rules still apply),
                         and trust the workspace's project skills for this run

The MCP servers in the settings are started first, and the run waits until
each has connected or failed (bounded by its start timeout), so the model
sees their tools from its first call; a server that fails is named on
stderr with its error and the run goes on without it.

In default mode a call that needs approval is denied unless --yes is given or
a rule allows it. Project skills (.tinyelf/skills, .agents/skills,
.claude/skills in the workspace) load only once trusted: with
'tinyelf skills trust NAME --workspace DIR', in Settings → Skills, or for one
run with --yes. A prompt that is a slash command ("/review src") runs it.
Ctrl+C (or SIGTERM) stops the turn; a second Ctrl+C quits
at once. Exit status: 0 when the agent finished, 1 when it stopped with an
error, was cancelled or hit its step limit, 2 on a usage error, 130 when
quit by a second Ctrl+C.
`

// cancelGrace is how long a cancelled run waits for its turn to wind down
// before it leaves it behind (a tool that ignores cancellation) and exits.
const cancelGrace = 600 * time.Millisecond

type runFlags struct {
	prompt, workspace, mode, agent, provider, model, baseURL, output, resume string
	yes                                                                      bool
}

// runRun implements `tinyelf run`.
func runRun(ctx context.Context, args []string, stdout, stderr io.Writer, o Options) int {
	var f runFlags
	flags := flag.NewFlagSet("tinyelf run", flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	flags.StringVar(&f.prompt, "p", "", "")
	flags.StringVar(&f.prompt, "prompt", "", "")
	flags.StringVar(&f.workspace, "workspace", ".", "")
	flags.StringVar(&f.mode, "mode", "", "")
	flags.StringVar(&f.agent, "agent", "", "")
	flags.StringVar(&f.provider, "provider", "", "")
	flags.StringVar(&f.model, "model", "", "")
	flags.StringVar(&f.baseURL, "base-url", "", "")
	flags.StringVar(&f.output, "output", "text", "")
	flags.StringVar(&f.resume, "resume", "", "")
	flags.BoolVar(&f.yes, "yes", false, "")
	help := flags.Bool("help", false, "")
	flags.BoolVar(help, "h", false, "")
	if err := flags.Parse(args); err != nil {
		return usageError(stderr, "run", err.Error())
	}
	if *help {
		fmt.Fprint(stdout, runUsage)
		return exitOK
	}
	if flags.NArg() > 0 {
		return usageError(stderr, "run", fmt.Sprintf("unexpected argument %q (quote the prompt and pass it with -p)", flags.Arg(0)))
	}
	if f.prompt == "-" {
		b, err := io.ReadAll(o.Stdin)
		if err != nil {
			return usageError(stderr, "run", "read the prompt from stdin: "+err.Error())
		}
		f.prompt = string(b)
	}
	if strings.TrimSpace(f.prompt) == "" {
		return usageError(stderr, "run", "no prompt: pass the task with -p")
	}
	if f.output != "text" && f.output != "json" && f.output != "stream-json" {
		return usageError(stderr, "run", fmt.Sprintf("unknown output format %q (want text, json or stream-json)", f.output))
	}
	var mode api.Mode
	if f.mode != "" {
		m, err := api.ParseMode(f.mode)
		if err != nil {
			return usageError(stderr, "run", err.Error())
		}
		mode = m
	}

	// The approver (engine goroutine) and the printer both write to stderr.
	stderr = &lockedWriter{w: stderr}
	svc, err := api.New(ctx, api.Options{
		Approver:   cliApprover(f.yes, stderr),
		Background: true,
		// Nobody can answer a project skill's trust question here: --yes
		// trusts them all for this run, otherwise only those trusted
		// before (tinyelf skills trust) load.
		TrustProjectSkills: f.yes,
		NoSkillTrustPrompt: !f.yes,
		// The same for the workspace's project hooks.
		TrustProjectHooks: f.yes,
		NoHookTrustPrompt: !f.yes,
		Getenv:            f.getenv(os.Getenv),
		Version:           o.Version,
	})
	if err != nil {
		return fail(stderr, "run", err)
	}
	closeWithin := shutdownGrace
	defer func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeWithin)
		defer cancel()
		_ = svc.Shutdown(sctx)
	}()
	warn(stderr, svc.Warnings())
	if st, _ := svc.State(ctx, struct{}{}); !st.HasProvider && f.resume == "" {
		// Nothing configured: a model server on this machine will do.
		found, _ := svc.DetectLocal(ctx, struct{}{})
		for _, d := range found {
			if len(d.Models) > 0 {
				f.baseURL = d.BaseURL
				if f.model == "" {
					f.model = d.Models[0].ID
				}
				fmt.Fprintf(stderr, "No provider is set up; using %s at %s with model %s.\n", oneLine(d.Preset), oneLine(d.BaseURL), oneLine(f.model))
				break
			}
		}
	}

	id := f.resume
	if id == "" {
		if id, err = svc.StartSession(ctx, api.StartSessionArgs{Workspace: f.workspace, Mode: mode, Agent: f.agent}); err != nil {
			fmt.Fprintf(stderr, "tinyelf run: %s\n", text(err.Error()))
			return exitUsage
		}
	} else {
		if _, err := svc.Session(ctx, id); err != nil {
			return usageError(stderr, "run", fmt.Sprintf("cannot resume %s: %v", id, err))
		}
		if mode != "" {
			if _, err := svc.SetMode(ctx, api.SetModeArgs{SessionID: id, Mode: string(mode)}); err != nil {
				return fail(stderr, "run", err)
			}
		}
	}

	// The model's first call should see the MCP servers' tools.
	reportMCP(stderr, svc.WaitMCPServers(ctx), "; running without its tools")
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "tinyelf run: interrupted before the turn started")
		return exitError
	}

	events, unsubscribe := svc.Subscribe()
	printed := make(chan struct{})
	out := runPrinter{w: stdout, errw: stderr, format: f.output}
	go func() {
		defer close(printed)
		for ev := range events {
			out.event(ev)
		}
	}()
	type outcome struct {
		res api.TurnResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := svc.RunTurn(ctx, id, f.prompt)
		done <- outcome{res, err}
	}()
	var end outcome
	select {
	case end = <-done:
	case <-ctx.Done():
		fmt.Fprintln(stderr, "\nInterrupted: stopping the turn (press Ctrl+C again to quit at once).")
		select {
		case end = <-done:
		case <-time.After(cancelGrace):
			// A tool ignores the cancel: leave the turn behind and exit.
			end.res = api.TurnResult{Reason: api.EndCancelled, Err: "a tool did not stop when asked; it was left behind"}
			closeWithin = 100 * time.Millisecond
		}
	}
	unsubscribe()
	<-printed
	if end.err != nil {
		return fail(stderr, "run", end.err)
	}
	out.finish(id, end.res)
	if end.res.Reason == api.EndDone || end.res.Reason == api.EndYield {
		return exitOK
	}
	return exitError
}

// shutdownGrace is how long a finished run waits for the service to close.
const shutdownGrace = 5 * time.Second

// getenv layers the command line's provider choices over the environment,
// where the settings layer picks them up. It reads f when called, so a
// provider detected later (a local Ollama) is seen too.
func (f *runFlags) getenv(base func(string) string) func(string) string {
	return func(k string) string {
		switch {
		case k == api.EnvBaseURL && f.baseURL != "":
			return f.baseURL
		case k == api.EnvProvider && f.provider != "":
			return f.provider
		case k == api.EnvModel && f.model != "":
			return f.model
		}
		return base(k)
	}
}

// cliApprover answers approvals without a person: all allowed with --yes,
// all denied (with a message saying how to allow them) otherwise.
func cliApprover(yes bool, stderr io.Writer) api.Approver {
	var mu sync.Mutex
	return api.ApproverFunc(func(_ context.Context, req api.ApprovalRequest) (api.ApprovalAnswer, error) {
		mu.Lock()
		defer mu.Unlock()
		switch req.Kind {
		case api.ApprovalElicitation:
			return elicitationAnswer(yes, req, stderr), nil
		case api.ApprovalSampling:
			if yes {
				fmt.Fprintf(stderr, "[approved by --yes] %s may use the session's model (up to %d tokens)\n", oneLine(req.Server), req.MaxTokens)
				return api.ApprovalAnswer{Decision: api.AllowOnce}, nil
			}
			fmt.Fprintf(stderr, "[declined] %s asked to use the session's model; rerun with --yes to allow it\n", oneLine(req.Server))
			return api.ApprovalAnswer{Decision: api.Deny, Reason: "this is a non-interactive run"}, nil
		}
		if yes {
			fmt.Fprintf(stderr, "[approved by --yes] %s %s\n", oneLine(req.Tool), oneLine(cutArgs(req.Arguments)))
			return api.ApprovalAnswer{Decision: api.AllowOnce}, nil
		}
		if req.Hold != "" {
			// The shell guard asks in every mode: say why, and that --yes allows it.
			fmt.Fprintf(stderr, "[denied] %s %s: %s Rerun with --yes to allow it.\n", oneLine(req.Tool), oneLine(cutArgs(req.Arguments)), oneLine(req.Hold))
			return api.ApprovalAnswer{Decision: api.Deny, Reason: "this is a non-interactive run, and this command needs the user's approval in every mode"}, nil
		}
		fmt.Fprintf(stderr, "[denied] %s %s: needs approval; rerun with --yes, use --mode acceptEdits/auto, or add an allow rule\n", oneLine(req.Tool), oneLine(cutArgs(req.Arguments)))
		return api.ApprovalAnswer{Decision: api.Deny, Reason: "this is a non-interactive run and the call was not pre-approved (no --yes flag or allow rule); do without it or explain what you would need"}, nil
	})
}

// elicitationAnswer answers an MCP server's elicitation without a person:
// with --yes a form is accepted with its defaults (TinyElf fills them in)
// and a page to open is printed and accepted; without, it is declined.
func elicitationAnswer(yes bool, req api.ApprovalRequest, stderr io.Writer) api.ApprovalAnswer {
	if !yes {
		fmt.Fprintf(stderr, "[declined] %s asked: %s; rerun with --yes to accept with the defaults\n", oneLine(req.Server), oneLine(req.Question))
		return api.ApprovalAnswer{Decision: api.Deny, Reason: "this is a non-interactive run"}
	}
	if req.URL != "" {
		fmt.Fprintf(stderr, "[accepted by --yes] %s asks you to open %s (%s)\n", oneLine(req.Server), oneLine(req.URL), oneLine(req.Question))
		return api.ApprovalAnswer{Decision: api.AllowOnce}
	}
	fmt.Fprintf(stderr, "[accepted by --yes with the defaults] %s asked: %s\n", oneLine(req.Server), oneLine(req.Question))
	return api.ApprovalAnswer{Decision: api.AllowOnce, Content: map[string]any{}}
}

// runPrinter renders the service's events for the terminal. It reads the
// events' JSON payloads as the browser does, taking only the fields it
// prints.
type runPrinter struct {
	w, errw io.Writer
	format  string
	midLine bool
}

func (p *runPrinter) event(ev api.Event) {
	switch p.format {
	case "stream-json":
		_ = jsonLine(p.w, ev)
		return
	case "json":
		return
	}
	switch ev.Type {
	case api.LiveMessageDelta:
		var d struct{ Text string }
		_ = json.Unmarshal(ev.Data, &d)
		fmt.Fprint(p.w, text(d.Text))
		p.midLine = !strings.HasSuffix(d.Text, "\n")
	case api.EventToolIntent:
		var ti struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		}
		_ = json.Unmarshal(ev.Data, &ti)
		p.newline()
		fmt.Fprintf(p.errw, "→ %s %s\n", oneLine(ti.Name), oneLine(cutArgs(ti.Arguments)))
	case api.EventToolResult:
		var tr struct {
			Name    string `json:"name"`
			Content string `json:"content"`
			IsError bool   `json:"isError"`
		}
		_ = json.Unmarshal(ev.Data, &tr)
		if tr.IsError {
			first, _, _ := strings.Cut(tr.Content, "\n")
			fmt.Fprintf(p.errw, "  ✗ %s: %s\n", oneLine(tr.Name), oneLine(first))
		}
	case api.EventError:
		var e struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(ev.Data, &e)
		p.newline()
		fmt.Fprintf(p.errw, "error: %s\n", text(e.Message))
	case api.LiveRetry:
		var r struct {
			DelayMs int64  `json:"delayMs"`
			Error   string `json:"error"`
		}
		_ = json.Unmarshal(ev.Data, &r)
		fmt.Fprintf(p.errw, "(retrying in %dms: %s)\n", r.DelayMs, oneLine(r.Error))
	}
}

func (p *runPrinter) newline() {
	if p.midLine {
		fmt.Fprintln(p.w)
		p.midLine = false
	}
}

func (p *runPrinter) finish(id string, res api.TurnResult) {
	switch p.format {
	case "json", "stream-json":
		_ = jsonLine(p.w, map[string]any{"type": "result", "sessionId": id, "reason": res.Reason, "text": res.Text,
			"iterations": res.Iterations, "usage": res.Usage, "error": res.Err})
	default:
		p.newline()
		if res.Reason == api.EndYield && res.Text != "" {
			fmt.Fprintln(p.w, text(res.Text))
		}
		if res.Reason != api.EndDone && res.Reason != api.EndYield {
			fmt.Fprintf(p.errw, "stopped: %s %s\n", oneLine(res.Reason), text(res.Err))
		}
		fmt.Fprintf(p.errw, "session %s (resume with: tinyelf run --resume %s -p ...)\n", id, id)
	}
}

// cutArgs puts a call's arguments on one short line.
func cutArgs(s string) string {
	return cut(strings.Join(strings.Fields(s), " "), 160)
}

// lockedWriter serializes writes from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
