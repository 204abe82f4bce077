package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"tinyelf/backend/api"
)

const userToolUsage = `User tools (seed 002: common and personal tools, see the tool-creator skill):
  tinyelf tool [--agent A] TOOL ACTION [ARG...]
                 run a user tool's command-line entry (cli_main, or the
                 manifest's "cli"); a tool without one runs ACTION with
                 --args JSON through the tool pipeline instead
  tinyelf tool submit [--agent A] TOOL ACTION [--args JSON] [--output text|json]
                 queue a background task of a background-eligible action; a
                 runner started for it does the work after this command
                 returns, with a desktop notification when it ends
  tinyelf tool tasks [--agent A] [--all] [--output text|json]
                 the background tasks and their results
`

// splitAgent takes a leading "--agent A" (or --agent=A) off args.
func splitAgent(args []string) (agent string, rest []string, err error) {
	agent = "default"
	for len(args) > 0 {
		switch {
		case args[0] == "--agent" || args[0] == "-agent":
			if len(args) < 2 {
				return "", nil, errors.New("--agent needs an agent name")
			}
			agent, args = args[1], args[2:]
		case strings.HasPrefix(args[0], "--agent="):
			agent, args = strings.TrimPrefix(args[0], "--agent="), args[1:]
		default:
			return agent, args, nil
		}
	}
	return agent, args, nil
}

// openUserTools opens a toolbox with an agent's user tools loaded and
// prints what their discovery skipped or could not load.
func openUserTools(ctx context.Context, agent string, stderr io.Writer, o Options) (*api.Toolbox, error) {
	box, err := api.OpenToolbox(ctx, api.ToolboxOptions{Version: o.Version})
	if err != nil {
		return nil, err
	}
	warn(stderr, box.Warnings())
	reportUserTools(stderr, box.LoadUserTools(ctx, agent))
	return box, nil
}

// reportUserTools names, on stderr, the user tools discovery skipped or
// could not load.
func reportUserTools(stderr io.Writer, rep api.UserToolReport) {
	for _, p := range rep.Skipped {
		fmt.Fprintf(stderr, "warning: user tool %s (%s) skipped: %s\n", oneLine(p.Tool), p.Origin, oneLine(p.Message))
	}
	for _, p := range rep.Errors {
		fmt.Fprintf(stderr, "warning: user tool %s (%s) %s\n", oneLine(p.Tool), p.Origin, oneLine(cut(p.Message, 300)))
	}
}

// runUserToolCLI runs `tinyelf tool TOOL ACTION [ARG...]` for a user tool:
// its cli_main, or (without one) the action through the pipeline.
func runUserToolCLI(ctx context.Context, box *api.Toolbox, tool string, args []string, stdout, stderr io.Writer, o Options) int {
	code, err := box.RunUserToolCLI(ctx, tool, args, o.Stdin, textWriter{stdout}, textWriter{stderr})
	if err == nil {
		return code
	}
	if !errors.Is(err, api.ErrNoUserToolCLI) {
		return fail(stderr, "tool", err)
	}
	// No command-line entry: ACTION [--args JSON] [--output FORMAT].
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return usageError(stderr, "tool", fmt.Sprintf("%s has no cli_main; run one of its actions: tinyelf tool %s ACTION --args JSON", tool, tool))
	}
	action := args[0]
	fs := flag.NewFlagSet("tinyelf tool", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	argsJSON := fs.String("args", "{}", "")
	output := fs.String("output", "text", "")
	if err := fs.Parse(args[1:]); err != nil {
		return usageError(stderr, "tool", err.Error())
	}
	if fs.NArg() > 0 {
		return usageError(stderr, "tool", fmt.Sprintf("%s has no cli_main, so it takes its arguments as --args JSON, not %q", tool, fs.Arg(0)))
	}
	params, err := argsObject(*argsJSON, o.Stdin)
	if err != nil {
		return usageError(stderr, "tool", err.Error())
	}
	return printResult(box.RunUserToolAction(ctx, tool, action, params), *output, stdout, stderr)
}

// runSubmit implements `tinyelf tool submit`.
func runSubmit(ctx context.Context, agent string, args []string, stdout, stderr io.Writer, o Options) int {
	if len(args) < 2 || strings.HasPrefix(args[0], "-") || strings.HasPrefix(args[1], "-") {
		return usageError(stderr, "tool", "submit needs a tool and an action: tinyelf tool submit TOOL ACTION [--args JSON]")
	}
	tool, action := args[0], args[1]
	fs := flag.NewFlagSet("tinyelf tool submit", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	argsJSON := fs.String("args", "{}", "")
	output := fs.String("output", "text", "")
	if err := fs.Parse(args[2:]); err != nil {
		return usageError(stderr, "tool", err.Error())
	}
	if fs.NArg() > 0 {
		return usageError(stderr, "tool", fmt.Sprintf("unexpected argument %q (pass the action's arguments with --args JSON)", fs.Arg(0)))
	}
	params, err := argsObject(*argsJSON, o.Stdin)
	if err != nil {
		return usageError(stderr, "tool", err.Error())
	}
	box, err := openUserTools(ctx, agent, stderr, o)
	if err != nil {
		return usageError(stderr, "tool", err.Error())
	}
	defer box.Close()
	task, err := box.SubmitUserTool(ctx, tool, action, params)
	if err != nil {
		return fail(stderr, "tool", err)
	}
	detach := o.Detach
	if detach == nil {
		detach = detachSelf
	}
	if err := detach([]string{"tool", "run-task", task.ID}); err != nil {
		return fail(stderr, "tool", fmt.Errorf("start the runner of task %s: %w", task.ID, err))
	}
	if *output == "json" {
		if err := writeJSON(stdout, task); err != nil {
			return fail(stderr, "tool", err)
		}
		return exitOK
	}
	fmt.Fprintf(stdout, "Submitted %s as background task %s.\nSee it with: tinyelf tool tasks\n", oneLine(task.Schema), task.ID)
	return exitOK
}

// runTask implements the runner `tinyelf tool run-task ID` that submit
// starts: it runs the queued task to its end.
func runTask(ctx context.Context, args []string, stdout, stderr io.Writer, o Options) int {
	if len(args) != 1 {
		return usageError(stderr, "tool", "run-task needs one task ID")
	}
	box, err := api.OpenToolbox(ctx, api.ToolboxOptions{Version: o.Version})
	if err != nil {
		return fail(stderr, "tool", err)
	}
	defer box.Close()
	task, err := box.RunUserToolTask(ctx, args[0])
	if err != nil {
		return fail(stderr, "tool", err)
	}
	fmt.Fprintf(stdout, "%s %s: %s\n", task.ID, task.State, text(cut(task.Result, 2000)))
	if task.IsError {
		return exitError
	}
	return exitOK
}

// runTasks implements `tinyelf tool tasks`.
func runTasks(ctx context.Context, agent string, args []string, stdout, stderr io.Writer, o Options) int {
	fs := flag.NewFlagSet("tinyelf tool tasks", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	all := fs.Bool("all", false, "")
	output := fs.String("output", "text", "")
	if err := fs.Parse(args); err != nil {
		return usageError(stderr, "tool", err.Error())
	}
	box, err := api.OpenToolbox(ctx, api.ToolboxOptions{Version: o.Version})
	if err != nil {
		return usageError(stderr, "tool", err.Error())
	}
	defer box.Close()
	box.LoadUserTools(ctx, agent)
	tasks := box.UserToolTasks(*all)
	if *output == "json" {
		if err := writeJSON(stdout, tasks); err != nil {
			return fail(stderr, "tool", err)
		}
		return exitOK
	}
	if len(tasks) == 0 {
		fmt.Fprintln(stdout, "No background tasks.")
		return exitOK
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tAGENT\tACTION\tSTATE\tSTARTED\tRESULT")
	for _, t := range tasks {
		res, _, _ := strings.Cut(t.Result, "\n")
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, oneLine(t.Agent), oneLine(t.Schema), t.State,
			t.Created.Local().Format(time.DateTime), oneLine(cut(res, 60)))
	}
	tw.Flush()
	return exitOK
}

// printUserToolFolders ends `tinyelf tool list` with where user tools live.
func printUserToolFolders(ctx context.Context, box *api.Toolbox, stdout io.Writer) {
	l := box.UserTools(ctx)
	if l.CommonDir == "" {
		return
	}
	fmt.Fprintf(stdout, "\nUser tools of agent %s: personal %s, common %s\n", oneLine(l.Agent), oneLine(l.PersonalDir), oneLine(l.CommonDir))
}

// argsObject reads --args as a JSON object.
func argsObject(s string, stdin io.Reader) (map[string]any, error) {
	raw, err := readArgs(s, stdin)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// printResult prints a call result (its text, or JSON with --output json)
// and returns the exit code: 1 for an error result.
func printResult(res api.ToolCallResult, output string, stdout, stderr io.Writer) int {
	if output == "json" {
		if err := writeJSON(stdout, res); err != nil {
			return fail(stderr, "tool", err)
		}
	} else {
		fmt.Fprint(stdout, text(res.Content))
		if !strings.HasSuffix(res.Content, "\n") {
			fmt.Fprintln(stdout)
		}
	}
	if res.IsError {
		return exitError
	}
	return exitOK
}

// textWriter escapes control characters in what a user tool prints, as
// everything else the CLI prints is (the tool's lines arrive whole).
type textWriter struct{ w io.Writer }

func (t textWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(t.w, text(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// detachSelf starts this binary with args as a process of its own, not
// waited for, that outlives the command (the runner of a submitted task).
func detachSelf(args []string) error { return api.StartSelf(args...) }
