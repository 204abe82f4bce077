// Command tinyelf is the TinyElf desktop AI agent. With no arguments it opens
// the desktop window; subcommands run the same engine headless.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Exit codes shared by every subcommand.
const (
	exitOK    = 0
	exitError = 1 // the work failed (a tool returned an error result, a run ended in error)
	exitUsage = 2 // the command line was wrong
)

const usageText = `TinyElf — a desktop AI agent.

Usage:
  tinyelf                         open the desktop window
  tinyelf serve [--addr ADDR]     serve the same UI to a browser on loopback
  tinyelf run -p PROMPT [flags]   run one task headless
  tinyelf tool list               list the tools the agent has
  tinyelf tool NAME [--args JSON] [--workspace DIR] [--mode MODE]
                                  run one tool through the tool pipeline
  tinyelf mcp list|add|remove|import|test|bridge
  tinyelf skills list|search|install|show
  tinyelf sessions list|show|export|replay
  tinyelf help                    show this help

Environment:
  TINYELF_HOME    data folder (default: the user config folder + /tinyelf)
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run dispatches a command line and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return runDesktop(ctx, stderr)
	}
	switch args[0] {
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usageText)
		return exitOK
	case "desktop":
		return runDesktop(ctx, stderr)
	case "tool":
		return runTool(ctx, args[1:], stdout, stderr)
	case "serve":
		return runServe(ctx, args[1:], stdout, stderr)
	case "run":
		return runRun(ctx, args[1:], stdout, stderr)
	case "sessions":
		return runSessions(ctx, args[1:], stdout, stderr)
	case "mcp":
		return runMCP(ctx, args[1:], stdout, stderr)
	case "skills":
		fmt.Fprintf(stderr, "tinyelf %s is not yet available in this build.\n", args[0])
		return exitError
	default:
		fmt.Fprintf(stderr, "tinyelf: unknown command %q\n\n%s", args[0], usageText)
		return exitUsage
	}
}
