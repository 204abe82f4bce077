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

	"tinyelf/backend/api"
)

const toolUsage = `Usage:
  tinyelf tool list [--agent A] [--workspace DIR] [--mode MODE] [--output text|json]
  tinyelf tool [--agent A] NAME [--args JSON] [--agent A] [--workspace DIR] [--mode MODE] [--output text|json]

Runs one tool through the same pipeline the agent uses (coercion, validation,
the permission gate, the shell deny list, your hooks, truncation) and prints
its result. The tools are the
ones the agent's sessions have: the built-in ones, those of the MCP servers
in the settings (mcp__SERVER__TOOL) and the agent's direct MCP servers, and
the agent's user tools ({tool}_{action}, use_tool), limited by the agent's
allowedTools: list, and a name that is not built in, start the servers and
wait until each has connected or failed (bounded by its start timeout); a
server that fails is named on stderr with its error.

The tools only a session has (spawn_agent, subagent_list, subagent_status,
SessionsSpawn, SessionsList, SessionsSend, SessionsHistory, Notify; "session"
in the list) run in a one-off session of the agent, which stays in the
history (tinyelf sessions show ID): spawn_agent starts a real subagent with
the configured model, and SessionsSpawn and SessionsSend wait for the turn
they start to end.

  --args JSON       the tool's arguments as a JSON object ("-" reads stdin)
  --agent A         the agent profile (default: default): its allowedTools,
                    direct MCP servers and user tools
  --workspace DIR   the workspace folder (default: the current folder)
  --mode MODE       plan | default | acceptEdits | auto (default: default);
                    plan offers only read-only tools
  --unrestricted    let FileSystem tools reach outside the workspace
  --output FORMAT   text (the result) or json (the whole call result)

Running a tool here is your explicit approval of that one call, so the tool
runs without asking; deny rules, the shell deny list and a PreToolUse hook
still refuse, and warnings are printed to stderr. The settings' hooks run,
and the workspace's project hooks once trusted (tinyelf hooks trust). Exit status: 0 success, 1 the tool returned an
error result, 2 usage error.

` + userToolUsage

// runTool implements `tinyelf tool`.
func runTool(ctx context.Context, args []string, stdout, stderr io.Writer, o Options) int {
	if len(args) == 0 || isHelp(args[0]) {
		fmt.Fprint(stdout, toolUsage)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	agent, args, err := splitAgent(args)
	if err != nil {
		return usageError(stderr, "tool", err.Error())
	}
	if len(args) == 0 {
		return usageError(stderr, "tool", "no tool name")
	}
	name := args[0]
	switch name {
	case "submit":
		return runSubmit(ctx, agent, args[1:], stdout, stderr, o)
	case "tasks":
		return runTasks(ctx, agent, args[1:], stdout, stderr, o)
	case "run-task":
		return runTask(ctx, args[1:], stdout, stderr, o)
	}
	// TOOL ACTION [ARG...]: a user tool's command line. Its arguments are
	// its own, so they are not parsed here.
	if len(args) > 1 && !strings.HasPrefix(args[1], "-") && name != "list" {
		box, err := openUserTools(ctx, agent, stderr, o)
		if err != nil {
			return usageError(stderr, "tool", err.Error())
		}
		defer box.Close()
		if !box.HasUserTool(ctx, name) {
			return usageError(stderr, "tool", fmt.Sprintf("unexpected argument %q (pass tool arguments with --args JSON; %s is not a user tool)", args[1], name))
		}
		return runUserToolCLI(ctx, box, name, args[1:], stdout, stderr, o)
	}
	fs := flag.NewFlagSet("tinyelf tool", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	argsJSON := fs.String("args", "{}", "")
	workspace := fs.String("workspace", ".", "")
	modeName := fs.String("mode", string(api.ModeDefault), "")
	unrestricted := fs.Bool("unrestricted", false, "")
	output := fs.String("output", "text", "")
	fs.StringVar(&agent, "agent", agent, "")
	if err := fs.Parse(args[1:]); err != nil {
		return usageError(stderr, "tool", err.Error())
	}
	if fs.NArg() > 0 {
		return usageError(stderr, "tool", fmt.Sprintf("unexpected argument %q (pass tool arguments with --args JSON)", fs.Arg(0)))
	}
	mode, err := api.ParseMode(*modeName)
	if err != nil {
		return usageError(stderr, "tool", err.Error())
	}
	if *output != "text" && *output != "json" {
		return usageError(stderr, "tool", fmt.Sprintf("unknown output format %q (want text or json)", *output))
	}
	var raw json.RawMessage
	if name != "list" {
		if raw, err = readArgs(*argsJSON, o.Stdin); err != nil {
			return usageError(stderr, "tool", err.Error())
		}
	}
	if name != "list" && api.IsSessionTool(name) {
		if *unrestricted {
			return usageError(stderr, "tool", fmt.Sprintf("--unrestricted does not apply to %s, which runs in a session: the settings' workspace restriction applies", name))
		}
		return runSessionTool(ctx, sessionToolCall{name: name, agent: agent, workspace: *workspace, output: *output, mode: mode, args: raw}, stdout, stderr, o)
	}
	box, err := api.OpenToolbox(ctx, api.ToolboxOptions{Workspace: *workspace, Mode: mode, Unrestricted: *unrestricted, Agent: agent, Version: o.Version})
	if err != nil {
		return usageError(stderr, "tool", err.Error())
	}
	defer box.Close()
	warn(stderr, box.Warnings())

	// The MCP servers and the user tools load only when they can matter:
	// for the list, and for a name that is not a built-in tool.
	// A search looks at every tool there is, so it needs them all loaded.
	if name == "list" || name == api.ToolSearchName || !box.Has(name) {
		reportMCP(stderr, box.LoadMCP(ctx), "")
		reportUserTools(stderr, box.LoadUserTools(ctx, agent))
	}
	if name == "list" {
		code := listTools(box.Tools(), *output, stdout, stderr)
		if *output == "text" {
			printUserToolFolders(ctx, box, stdout)
		}
		return code
	}
	// A user tool named alone runs its command line without arguments.
	if !box.Has(name) && box.HasUserTool(ctx, name) {
		return runUserToolCLI(ctx, box, name, nil, stdout, stderr, o)
	}
	if !box.Has(name) {
		available := oneLine(strings.Join(box.Names(), ", "))
		msg := fmt.Sprintf("unknown tool %q; available: %s", name, available)
		if why, hidden := box.Hidden(name); hidden {
			switch {
			case mode == api.ModePlan && why != api.ProfileReason:
				msg = fmt.Sprintf("tool %q is not available in plan mode, which offers only read-only tools: %s", name, available)
			default:
				msg = fmt.Sprintf("tool %q is not available to agent %s: %s; available: %s", name, box.Agent(), why, available)
			}
		}
		return usageError(stderr, "tool", msg)
	}
	for _, w := range box.Inspect(name, raw) {
		fmt.Fprintf(stderr, "warning: %s\n", text(w))
	}

	return printResult(box.Run(ctx, name, raw), *output, stdout, stderr)
}

// reportMCP names, on stderr, each enabled MCP server that did not connect,
// with its error and the last line it printed; then adds suffix.
func reportMCP(stderr io.Writer, states []api.MCPServerState, suffix string) {
	for _, st := range states {
		var why string
		switch st.Status {
		case api.MCPConnected, api.MCPDisabled:
			continue
		case api.MCPFailed:
			why = "did not start: " + st.Error
		default:
			why = fmt.Sprintf("is not ready (%s)", st.Status)
		}
		if n := len(st.Stderr); n > 0 {
			why += " (it printed: " + st.Stderr[n-1] + ")"
		}
		fmt.Fprintf(stderr, "warning: MCP server %s %s%s\n", oneLine(st.Name), oneLine(why), suffix)
	}
}

// readArgs returns the --args JSON, reading stdin for "-", and checks that
// it is a JSON object.
func readArgs(s string, stdin io.Reader) (json.RawMessage, error) {
	if s == "-" {
		b, err := io.ReadAll(stdin)
		if err != nil {
			return nil, fmt.Errorf("read --args from stdin: %w", err)
		}
		s = string(b)
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(s), &obj); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return nil, fmt.Errorf("--args is not valid JSON: %v (at byte %d)", err, syn.Offset)
		}
		return nil, fmt.Errorf("--args must be a JSON object like '{\"path\":\"README.md\"}': %v", err)
	}
	return json.RawMessage(s), nil
}

func listTools(infos []api.ToolInfo, output string, stdout, stderr io.Writer) int {
	if output == "json" {
		if err := writeJSON(stdout, infos); err != nil {
			return fail(stderr, "tool", err)
		}
		return exitOK
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSENSITIVITY\tACCESS\tSOURCE\tDESCRIPTION")
	for _, in := range infos {
		sens, access := "asks", "writes"
		if in.Safe {
			sens = "safe"
		}
		if in.ReadOnly {
			access = "read-only"
		}
		source := string(in.Source)
		if in.Server != "" {
			source += ":" + in.Server
		}
		if in.Origin != "" {
			source += ":" + in.Origin // usertool:common, usertool:personal
		}
		if in.Kind != "" {
			source += " (" + in.Kind + ")"
		}
		if in.Session {
			source += " (session)"
		}
		desc, _, _ := strings.Cut(in.Description, "\n")
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", oneLine(in.Name), sens, access, oneLine(source), oneLine(cut(desc, 90)))
	}
	tw.Flush()
	return exitOK
}
