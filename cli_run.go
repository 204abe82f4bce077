package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"tinyelf/backend/api"
	"tinyelf/backend/config"
	"tinyelf/backend/engine"
	"tinyelf/backend/llm"
	"tinyelf/backend/sessions"
	"tinyelf/backend/tools"
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
  --yes                  approve every call that would ask (the shell deny list and deny rules still apply)

In default mode a call that needs approval is denied unless --yes is given or
a rule allows it. Exit status: 0 when the agent finished, 1 when it stopped
with an error, was cancelled or hit its step limit, 2 on a usage error.
`

type runFlags struct {
	prompt, workspace, mode, agent, provider, model, baseURL, output, resume string
	yes                                                                      bool
}

// runRun implements `tinyelf run`.
func runRun(ctx context.Context, args []string, stdout, stderr io.Writer) int {
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
		return runUsageError(stderr, err.Error())
	}
	if *help {
		fmt.Fprint(stdout, runUsage)
		return exitOK
	}
	if flags.NArg() > 0 {
		return runUsageError(stderr, fmt.Sprintf("unexpected argument %q (quote the prompt and pass it with -p)", flags.Arg(0)))
	}
	if f.prompt == "-" {
		b, err := io.ReadAll(os.Stdin)
		if err != nil {
			return runUsageError(stderr, "read the prompt from stdin: "+err.Error())
		}
		f.prompt = string(b)
	}
	if strings.TrimSpace(f.prompt) == "" {
		return runUsageError(stderr, "no prompt: pass the task with -p")
	}
	if f.output != "text" && f.output != "json" && f.output != "stream-json" {
		return runUsageError(stderr, fmt.Sprintf("unknown output format %q (want text, json or stream-json)", f.output))
	}
	var mode engine.Mode
	if f.mode != "" {
		m, err := engine.ParseMode(f.mode)
		if err != nil {
			return runUsageError(stderr, err.Error())
		}
		mode = m
	}

	// The approver (engine goroutine) and the printer both write to stderr.
	stderr = &lockedWriter{w: stderr}
	svc, err := openService(ctx, api.Options{
		Approver:   cliApprover(f.yes, stderr),
		Background: true,
		Getenv:     f.getenv(os.Getenv),
	})
	if err != nil {
		fmt.Fprintf(stderr, "tinyelf run: %v\n", err)
		return exitError
	}
	defer svc.Close()
	if w := svc.Settings.Warning(); w != "" {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	if _, ok := svc.Settings.Get().WithEnvironment(f.getenv(os.Getenv)).Provider(""); !ok && f.resume == "" {
		// Nothing configured: a model server on this machine will do.
		for _, d := range llm.DetectLocal(ctx) {
			if len(d.Models) > 0 {
				f.baseURL = d.BaseURL
				if f.model == "" {
					f.model = d.Models[0].ID
				}
				fmt.Fprintf(stderr, "No provider is set up; using %s at %s with model %s.\n", d.Preset, d.BaseURL, f.model)
				break
			}
		}
	}

	id := f.resume
	if id == "" {
		ws, err := filepath.Abs(f.workspace)
		if err != nil {
			return runUsageError(stderr, err.Error())
		}
		if id, err = svc.Engine.NewSession(ctx, ws, mode, f.agent, "", ""); err != nil {
			fmt.Fprintf(stderr, "tinyelf run: %v\n", err)
			return exitUsage
		}
	} else {
		if _, err := svc.Store.Get(ctx, id); err != nil {
			return runUsageError(stderr, fmt.Sprintf("cannot resume %s: %v", id, err))
		}
		if mode != "" {
			if _, err := svc.SetMode(ctx, api.SetModeArgs{SessionID: id, Mode: string(mode)}); err != nil {
				fmt.Fprintf(stderr, "tinyelf run: %v\n", err)
				return exitError
			}
		}
	}

	events, unsubscribe := svc.Bus.Subscribe()
	printed := make(chan struct{})
	var out runPrinter
	out.w, out.errw, out.format = stdout, stderr, f.output
	go func() {
		defer close(printed)
		for ev := range events {
			out.event(ev)
		}
	}()
	res, err := svc.Engine.Run(ctx, id, f.prompt)
	unsubscribe()
	<-printed
	if err != nil {
		fmt.Fprintf(stderr, "tinyelf run: %v\n", err)
		return exitError
	}
	out.finish(id, res)
	if res.Reason == engine.EndDone || res.Reason == engine.EndYield {
		return exitOK
	}
	return exitError
}

// getenv layers the command line's provider choices over the environment,
// where the settings layer picks them up. It reads f when called, so a
// provider detected later (a local Ollama) is seen too.
func (f *runFlags) getenv(base func(string) string) func(string) string {
	return func(k string) string {
		switch {
		case k == config.EnvBaseURL && f.baseURL != "":
			return f.baseURL
		case k == config.EnvProvider && f.provider != "":
			return f.provider
		case k == config.EnvModel && f.model != "":
			return f.model
		}
		return base(k)
	}
}

// cliApprover answers approvals without a person: all allowed with --yes,
// all denied (with a message saying how to allow them) otherwise.
func cliApprover(yes bool, stderr io.Writer) engine.Approver {
	var mu sync.Mutex
	return engine.ApproverFunc(func(_ context.Context, req engine.ApprovalRequest) (engine.ApprovalAnswer, error) {
		mu.Lock()
		defer mu.Unlock()
		if yes {
			fmt.Fprintf(stderr, "[approved by --yes] %s %s\n", req.Tool, req.Arguments)
			return engine.ApprovalAnswer{Decision: engine.AllowOnce}, nil
		}
		fmt.Fprintf(stderr, "[denied] %s %s: needs approval; rerun with --yes, use --mode acceptEdits/auto, or add an allow rule\n", req.Tool, req.Arguments)
		return engine.ApprovalAnswer{Decision: engine.Deny, Reason: "this is a non-interactive run and the call was not pre-approved (no --yes flag or allow rule); do without it or explain what you would need"}, nil
	})
}

// runPrinter renders engine events for the terminal.
type runPrinter struct {
	w, errw   io.Writer
	format    string
	midLine   bool
	lastError string
}

func (p *runPrinter) event(ev engine.Event) {
	switch p.format {
	case "stream-json":
		b, _ := json.Marshal(ev)
		fmt.Fprintf(p.w, "%s\n", b)
		return
	case "json":
		if ev.Type == string(sessions.EventError) {
			var e sessions.Error
			_ = json.Unmarshal(ev.Data, &e)
			p.lastError = e.Message
		}
		return
	}
	switch ev.Type {
	case engine.LiveMessageDelta:
		var d struct{ Text string }
		_ = json.Unmarshal(ev.Data, &d)
		fmt.Fprint(p.w, d.Text)
		p.midLine = !strings.HasSuffix(d.Text, "\n")
	case string(sessions.EventToolIntent):
		var ti sessions.ToolIntent
		_ = json.Unmarshal(ev.Data, &ti)
		p.newline()
		fmt.Fprintf(p.errw, "→ %s %s\n", ti.Name, cutArgs(ti.Arguments))
	case string(sessions.EventToolResult):
		var tr sessions.ToolResult
		_ = json.Unmarshal(ev.Data, &tr)
		if tr.IsError {
			first, _, _ := strings.Cut(tr.Content, "\n")
			fmt.Fprintf(p.errw, "  ✗ %s: %s\n", tr.Name, first)
		}
	case string(sessions.EventError):
		var e sessions.Error
		_ = json.Unmarshal(ev.Data, &e)
		p.newline()
		fmt.Fprintf(p.errw, "error: %s\n", e.Message)
	case engine.LiveRetry:
		var r struct {
			DelayMs int64  `json:"delayMs"`
			Error   string `json:"error"`
		}
		_ = json.Unmarshal(ev.Data, &r)
		fmt.Fprintf(p.errw, "(retrying in %dms: %s)\n", r.DelayMs, r.Error)
	}
}

func (p *runPrinter) newline() {
	if p.midLine {
		fmt.Fprintln(p.w)
		p.midLine = false
	}
}

func (p *runPrinter) finish(id string, res engine.TurnResult) {
	switch p.format {
	case "json", "stream-json":
		b, _ := json.Marshal(map[string]any{"type": "result", "sessionId": id, "reason": res.Reason, "text": res.Text,
			"iterations": res.Iterations, "usage": res.Usage, "error": res.Err})
		fmt.Fprintf(p.w, "%s\n", b)
	default:
		p.newline()
		if res.Reason == engine.EndYield && res.Text != "" {
			fmt.Fprintln(p.w, res.Text)
		}
		if res.Reason != engine.EndDone && res.Reason != engine.EndYield {
			fmt.Fprintf(p.errw, "stopped: %s %s\n", res.Reason, res.Err)
		}
		fmt.Fprintf(p.errw, "session %s (resume with: tinyelf run --resume %s -p ...)\n", id, id)
	}
}

func cutArgs(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 160 {
		return tools.CutUTF8(s, 157) + "..."
	}
	return s
}

func runUsageError(stderr io.Writer, msg string) int {
	fmt.Fprintf(stderr, "tinyelf run: %s\nRun 'tinyelf run --help' for usage.\n", msg)
	return exitUsage
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
