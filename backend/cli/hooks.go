package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"tinyelf/backend/api"
)

const hooksUsage = `Usage:
  tinyelf hooks list [--workspace DIR] [--output text|json]
  tinyelf hooks test EVENT [--workspace DIR] [--tool NAME] [--input JSON]
                     [--response TEXT] [--prompt TEXT] [--message TEXT]
                     [--match VALUE] [--output text|json]
  tinyelf hooks trust [--workspace DIR] [--deny | --forget]

Hooks are your own commands at the agent's steps, in Claude Code's format:
the "hooks" section of TinyElf's settings file (Settings → Hooks), and a
workspace's .tinyelf/settings.json and .claude/settings.json (project
hooks, which run only once you trust them in that folder). Each hook reads
the event as JSON on stdin; exit status 2 blocks (stderr says why), JSON on
stdout can allow, deny, ask, add context or stop the agent.

  list   the settings' hooks and the workspace's project hooks (default:
         the current folder) with their trust, and what cannot run
  test   runs EVENT's hooks once with a sample input and shows what each
         did and what TinyElf would do: PreToolUse --tool Bash --input
         '{"command":"rm -rf build"}'; UserPromptSubmit --prompt TEXT;
         SessionStart --match resume... (trusted project hooks only)
  trust  lets the workspace's project hooks run, as they are now (a change
         asks again); --deny refuses them, --forget asks again

The events: SessionStart, UserPromptSubmit, PreToolUse, PermissionRequest,
PostToolUse, PostToolUseFailure, Notification, Stop, SubagentStop,
PreCompact, SessionEnd.

Exit status: 0 success, 1 failure (test: a hook failed, timed out or
printed output that cannot be used), 2 usage error.
`

// runHooks implements `tinyelf hooks`.
func runHooks(ctx context.Context, args []string, stdout, stderr io.Writer, o Options) int {
	if len(args) == 0 || isHelp(args[0]) {
		fmt.Fprint(stdout, hooksUsage)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	cmd, rest := args[0], args[1:]
	fs := flag.NewFlagSet("tinyelf hooks "+cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	workspace := fs.String("workspace", ".", "")
	output := fs.String("output", "text", "")
	deny := fs.Bool("deny", false, "")
	forget := fs.Bool("forget", false, "")
	var t api.TestHookArgs
	fs.StringVar(&t.Tool, "tool", "", "")
	input := fs.String("input", "", "")
	fs.StringVar(&t.Response, "response", "", "")
	fs.StringVar(&t.Prompt, "prompt", "", "")
	fs.StringVar(&t.Message, "message", "", "")
	fs.StringVar(&t.Match, "match", "", "")
	var pos []string
	for len(rest) > 0 {
		if err := fs.Parse(rest); err != nil {
			return usageError(stderr, "hooks", err.Error())
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if *output != "text" && *output != "json" {
		return usageError(stderr, "hooks", fmt.Sprintf("unknown output format %q (want text or json)", *output))
	}
	want := map[string]int{"list": 0, "ls": 0, "test": 1, "trust": 0}
	n, known := want[cmd]
	switch {
	case !known:
		return usageError(stderr, "hooks", fmt.Sprintf("unknown command %q", cmd))
	case len(pos) != n:
		return usageError(stderr, "hooks", fmt.Sprintf("%s takes %d argument(s), got %d", cmd, n, len(pos)))
	case *deny && *forget:
		return usageError(stderr, "hooks", "--deny and --forget do not go together")
	}
	k, err := api.OpenHooks(api.HooksOptions{})
	if err != nil {
		return fail(stderr, "hooks", err)
	}
	defer k.Close()
	warn(stderr, k.Warnings())
	c := hooksCmd{k: k, stdout: stdout, stderr: stderr, json: *output == "json", workspace: *workspace}
	switch cmd {
	case "list", "ls":
		return c.list(ctx)
	case "test":
		t.Event, t.Workspace = pos[0], *workspace
		if *input != "" {
			raw := *input
			if raw == "-" {
				b, err := io.ReadAll(o.Stdin)
				if err != nil {
					return fail(stderr, "hooks", err)
				}
				raw = string(b)
			}
			t.Input = []byte(raw)
		}
		return c.test(ctx, t)
	default: // trust
		state := "trusted"
		switch {
		case *deny:
			state = "denied"
		case *forget:
			state = "untrusted"
		}
		return c.trust(ctx, state)
	}
}

type hooksCmd struct {
	k              *api.Hooks
	stdout, stderr io.Writer
	json           bool
	workspace      string
}

func (c hooksCmd) writeJSON(v any) int {
	if err := writeJSON(c.stdout, v); err != nil {
		return fail(c.stderr, "hooks", err)
	}
	return exitOK
}

func (c hooksCmd) list(ctx context.Context) int {
	l, err := c.k.ListHooks(ctx, api.HooksArgs{Workspace: c.workspace})
	if err != nil {
		return fail(c.stderr, "hooks", err)
	}
	if c.json {
		return c.writeJSON(l)
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	rows := 0
	header := func() {
		if rows == 0 {
			fmt.Fprintln(tw, "EVENT\tMATCHER\tCOMMAND\tTIMEOUT\tFROM")
		}
		rows++
	}
	for _, ev := range l.Events {
		for _, g := range l.Hooks[ev.Name] {
			for _, h := range g.Hooks {
				header()
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", ev.Name, matcherText(g.Matcher), oneLine(cutRunes(commandText(h.Type, h.Command), 70)), h.Timeout.Duration(), "settings")
			}
		}
		if l.Project == nil {
			continue
		}
		for _, f := range l.Project.Files {
			for _, g := range f.Config[ev.Name] {
				for _, h := range g.Hooks {
					header()
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s (%s)\n", ev.Name, matcherText(g.Matcher), oneLine(cutRunes(commandText(h.Type, h.Command), 70)), h.Timeout.Duration(), oneLine(f.Path), l.Project.Trust)
				}
			}
		}
	}
	tw.Flush()
	if rows == 0 {
		fmt.Fprintf(c.stdout, "No hooks. Add them in Settings → Hooks or in the \"hooks\" section of %s.\n", oneLine(l.SettingsPath))
	}
	for _, p := range l.Problems {
		fmt.Fprintf(c.stdout, "Not run: settings %s\n", oneLine(p.String()))
	}
	if l.Project != nil {
		for _, f := range l.Project.Files {
			if f.Err != "" {
				fmt.Fprintf(c.stdout, "Not read: %s %s\n", oneLine(f.Path), oneLine(f.Err))
			}
			for _, p := range f.Problems {
				fmt.Fprintf(c.stdout, "Not run: %s %s\n", oneLine(f.Path), oneLine(p.String()))
			}
		}
		if l.Project.Hash != "" && l.Project.Trust != "trusted" {
			fmt.Fprintf(c.stdout, "\nThe project hooks of %s are %s, so they do not run. Trust them with:\n  tinyelf hooks trust --workspace %s\n",
				oneLine(l.Project.Workspace), l.Project.Trust, oneLine(l.Project.Workspace))
		}
	}
	return exitOK
}

func matcherText(m string) string {
	if strings.TrimSpace(m) == "" {
		return "*"
	}
	return oneLine(m)
}

func commandText(typ, command string) string {
	if typ != "command" {
		return fmt.Sprintf("(%s hook: not run)", typ)
	}
	return command
}

func (c hooksCmd) test(ctx context.Context, a api.TestHookArgs) int {
	res, err := c.k.TestHook(ctx, a)
	if err != nil {
		return fail(c.stderr, "hooks", err)
	}
	failed := false
	for _, r := range res.Runs {
		failed = failed || r.Verdict.Problem != "" && r.Verdict.Decision == ""
	}
	code := exitOK
	if failed {
		code = exitError
	}
	if c.json {
		if c.writeJSON(res) != exitOK {
			return exitError
		}
		return code
	}
	if res.Skipped != "" {
		fmt.Fprintf(c.stderr, "note: %s\n", text(res.Skipped))
	}
	if len(res.Runs) == 0 {
		fmt.Fprintf(c.stdout, "No %s hook matches this input.\n", res.Event)
		return exitOK
	}
	fmt.Fprintf(c.stdout, "Input on stdin: %s\n", oneLine(string(res.Input)))
	for _, r := range res.Runs {
		fmt.Fprintf(c.stdout, "\n%s (%s)\n", oneLine(r.Command), oneLine(r.Source))
		status := fmt.Sprintf("exit status %d", r.ExitCode)
		if r.TimedOut {
			status = "killed after its timeout"
		}
		fmt.Fprintf(c.stdout, "  %s in %d ms\n", status, r.DurationMs)
		if s := strings.TrimSpace(r.Stdout); s != "" {
			fmt.Fprintf(c.stdout, "  stdout: %s\n", oneLine(cutRunes(s, 300)))
		}
		if s := strings.TrimSpace(r.Stderr); s != "" {
			fmt.Fprintf(c.stdout, "  stderr: %s\n", oneLine(cutRunes(s, 300)))
		}
		if r.Verdict.Problem != "" {
			fmt.Fprintf(c.stdout, "  problem: %s\n", oneLine(r.Verdict.Problem))
		}
	}
	fmt.Fprintln(c.stdout)
	switch {
	case res.Decision != "" && res.Reason != "":
		fmt.Fprintf(c.stdout, "Outcome: %s — %s\n", res.Decision, oneLine(res.Reason))
	case res.Decision != "":
		fmt.Fprintf(c.stdout, "Outcome: %s\n", res.Decision)
	default:
		fmt.Fprintln(c.stdout, "Outcome: no decision (TinyElf goes on as usual)")
	}
	for _, ctxText := range res.Context {
		fmt.Fprintf(c.stdout, "Context for the model: %s\n", oneLine(cutRunes(ctxText, 300)))
	}
	if res.UpdatedInput != nil {
		b, _ := json.Marshal(res.UpdatedInput)
		fmt.Fprintf(c.stdout, "New tool input: %s\n", oneLine(string(b)))
	}
	if res.Stop {
		fmt.Fprintf(c.stdout, "The agent would stop: %s\n", oneLine(res.StopReason))
	}
	return code
}

func (c hooksCmd) trust(ctx context.Context, state string) int {
	l, err := c.k.SetHooksTrust(ctx, api.HooksTrustArgs{Workspace: c.workspace, Trust: state})
	if err != nil {
		return fail(c.stderr, "hooks", err)
	}
	ws := c.workspace
	if l.Project != nil {
		ws = l.Project.Workspace
	}
	switch state {
	case "trusted":
		fmt.Fprintf(c.stdout, "The project hooks of %s will run (until they change).\n", oneLine(ws))
	case "denied":
		fmt.Fprintf(c.stdout, "The project hooks of %s will not run.\n", oneLine(ws))
	default:
		fmt.Fprintf(c.stdout, "TinyElf will ask again about the project hooks of %s.\n", oneLine(ws))
	}
	return exitOK
}
