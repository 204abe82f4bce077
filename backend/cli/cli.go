// Package cli is TinyElf's command line: the subcommands (serve, run, tool,
// mcp, skills, hooks, sessions) that run the same engine as the window, headless. Like the
// window and the browser, it talks to backend/api only.
package cli

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"

	"tinyelf/backend/version"
)

// Exit codes shared by every subcommand.
const (
	exitOK        = 0
	exitError     = 1   // the work failed (a tool returned an error result, a run ended in error or was cancelled)
	exitUsage     = 2   // the command line was wrong
	exitInterrupt = 130 // a second Ctrl+C: quit at once
)

const usageText = `TinyElf — a desktop AI agent.

Usage:
  tinyelf                         open the desktop window
  tinyelf serve [--addr ADDR] [--allow-remote]
                                  serve the same UI to a browser on loopback
  tinyelf run -p PROMPT [flags]   run one task headless
  tinyelf tool list               list the tools the agent has (built-in, MCP, user tools)
  tinyelf tool NAME [--args JSON] [--workspace DIR] [--mode MODE]
                                  run one tool through the tool pipeline
  tinyelf tool TOOL ACTION [ARG...]
                                  run a user tool's command line (cli_main)
  tinyelf tool submit|tasks       background tasks of user tools
  tinyelf mcp list|add|remove|import|test|bridge
  tinyelf capabilities list|search
                                  the catalog with each capability's state, and the model's ToolSearch
  tinyelf skills list|show|search|install|remove|validate|trust
  tinyelf hooks list|test EVENT|trust
                                  your hooks (Claude Code's format): list them, run one event's, trust a project's
  tinyelf sessions list|show|export|import|search|replay
  tinyelf version, --version      print the version of this build
  tinyelf help                    show this help

Each command has its own help: tinyelf COMMAND --help.

Environment:
  TINYELF_HOME    data folder (default: the user config folder + /tinyelf)
`

// Options are what the binary gives the command line beyond its arguments.
type Options struct {
	// Version is the release the binary reports (version.Version() in the
	// real binary); empty or version.Development is a development build.
	Version string
	// Assets is the built frontend that serve offers; nil serves a page
	// saying it is missing.
	Assets fs.FS
	// Desktop opens the window (no arguments, or "desktop") and returns the
	// exit code; nil says this binary has none.
	Desktop func(ctx context.Context, stderr io.Writer) int
	// Stdin is what "-p -", "--args -" and "--token-stdin" read (default:
	// os.Stdin).
	Stdin io.Reader
	// Detach starts `tinyelf ARGS...` as a process that outlives this one
	// (the runner of a submitted background task); nil re-executes this
	// binary in a session of its own.
	Detach func(args []string) error
}

// Main runs the command line of the process: it handles SIGINT and SIGTERM
// (the first cancels the work under way, a second SIGINT exits at once with
// status 130) and returns the exit code.
func Main(args []string, o Options) int {
	ctx, stop := watchSignals(context.Background(), os.Stderr, os.Exit)
	defer stop()
	return Run(ctx, args, os.Stdout, os.Stderr, o)
}

// Run dispatches one command line and returns its exit code. ctx ending
// (an interrupt) cancels the work under way.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer, o Options) int {
	if o.Stdin == nil {
		o.Stdin = os.Stdin
	}
	if len(args) == 0 {
		return desktop(ctx, stderr, o)
	}
	switch args[0] {
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usageText)
		return exitOK
	case "version", "--version", "-V":
		if len(args) > 1 {
			return usageError(stderr, "", fmt.Sprintf("%s takes no arguments", args[0]))
		}
		fmt.Fprintln(stdout, version.LineOf(o.Version))
		return exitOK
	case "desktop":
		return desktop(ctx, stderr, o)
	case "tool":
		return runTool(ctx, args[1:], stdout, stderr, o)
	case "serve":
		return runServe(ctx, args[1:], stdout, stderr, o)
	case "run":
		return runRun(ctx, args[1:], stdout, stderr, o)
	case "sessions":
		return runSessions(ctx, args[1:], stdout, stderr)
	case "mcp":
		return runMCP(ctx, args[1:], stdout, stderr, o)
	case "capabilities":
		return runCapabilities(ctx, args[1:], stdout, stderr, o)
	case "skills":
		return runSkills(ctx, args[1:], stdout, stderr, o)
	case "hooks":
		return runHooks(ctx, args[1:], stdout, stderr, o)
	}
	return usageError(stderr, "", fmt.Sprintf("unknown command %q", args[0]))
}

func desktop(ctx context.Context, stderr io.Writer, o Options) int {
	if o.Desktop == nil {
		fmt.Fprintln(stderr, "This tinyelf has no desktop window; use tinyelf serve.")
		return exitError
	}
	return o.Desktop(ctx, stderr)
}

// usageError reports a wrong command line for a subcommand ("" for tinyelf
// itself), points at its help, and returns exitUsage. Every subcommand
// reports usage errors through it.
func usageError(stderr io.Writer, cmd, msg string) int {
	name, help := "tinyelf", "tinyelf help"
	if cmd != "" {
		name, help = "tinyelf "+cmd, "tinyelf "+cmd+" --help"
	}
	fmt.Fprintf(stderr, "%s: %s\nRun '%s' for usage.\n", name, text(msg), help)
	return exitUsage
}

// fail reports an error of a subcommand and returns exitError.
func fail(stderr io.Writer, cmd string, err error) int {
	fmt.Fprintf(stderr, "tinyelf %s: %s\n", cmd, text(err.Error()))
	return exitError
}

// warn prints each warning once, as "warning: ...".
func warn(stderr io.Writer, warnings []string) {
	for _, w := range warnings {
		fmt.Fprintf(stderr, "warning: %s\n", text(w))
	}
}

// isHelp reports whether a subcommand was asked for its help.
func isHelp(arg string) bool { return arg == "-h" || arg == "--help" || arg == "help" }
