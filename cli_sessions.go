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
	"text/tabwriter"
	"time"

	"tinyelf/backend/api"
	"tinyelf/backend/config"
	"tinyelf/backend/sessions"
)

const sessionsUsage = `Usage:
  tinyelf sessions list [--limit N] [--trash]
  tinyelf sessions show ID                  the conversation as Markdown
  tinyelf sessions export ID [--format markdown|json] [-o FILE]
  tinyelf sessions import FILE              a JSON export
  tinyelf sessions search QUERY
  tinyelf sessions replay ID [--upto SEQ]   rebuild the session's state from its log
`

// runSessions implements `tinyelf sessions`.
func runSessions(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, sessionsUsage)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	sub := args[0]
	flags := flag.NewFlagSet("tinyelf sessions "+sub, flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	limit := flags.Int("limit", 30, "")
	trash := flags.Bool("trash", false, "")
	format := flags.String("format", "markdown", "")
	outFile := flags.String("o", "", "")
	upto := flags.Int64("upto", 0, "")
	rest := args[1:]
	// Allow flags after the positional argument (tinyelf sessions export ID --format json).
	var positional []string
	for len(rest) > 0 {
		if err := flags.Parse(rest); err != nil {
			return sessionsUsageError(stderr, err.Error())
		}
		if flags.NArg() == 0 {
			break
		}
		positional = append(positional, flags.Arg(0))
		rest = flags.Args()[1:]
	}
	dir, err := config.DataDir()
	if err != nil {
		fmt.Fprintf(stderr, "tinyelf sessions: %v\n", err)
		return exitError
	}
	store, err := sessions.Open(ctx, filepath.Join(dir, api.SessionsFile))
	if err != nil {
		fmt.Fprintf(stderr, "tinyelf sessions: %v\n", err)
		return exitError
	}
	defer store.Close()
	need := func(n int) bool { return len(positional) == n }

	switch sub {
	case "list":
		o := sessions.ListOptions{Limit: *limit}
		if *trash {
			o.Deleted = sessions.OnlyDeleted
		}
		list, err := store.List(ctx, o)
		if err != nil {
			return sessionsFail(stderr, err)
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tUPDATED\tMESSAGES\tTOKENS\tTITLE\tWORKSPACE")
		for _, s := range list {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", s.ID, s.UpdatedAt.Local().Format(time.DateTime), s.MessageCount,
				s.Usage.InputTokens+s.Usage.OutputTokens, s.Title, s.Workspace)
		}
		tw.Flush()
	case "show", "export":
		if !need(1) {
			return sessionsUsageError(stderr, sub+" needs a session ID")
		}
		w := stdout
		if *outFile != "" {
			f, err := os.Create(*outFile)
			if err != nil {
				return sessionsFail(stderr, err)
			}
			defer f.Close()
			w = f
		}
		if sub == "show" || *format == "markdown" || *format == "md" {
			err = store.ExportMarkdown(ctx, positional[0], w)
		} else if *format == "json" {
			err = store.ExportJSON(ctx, positional[0], w)
		} else {
			return sessionsUsageError(stderr, fmt.Sprintf("unknown format %q", *format))
		}
		if err != nil {
			return sessionsFail(stderr, err)
		}
	case "import":
		if !need(1) {
			return sessionsUsageError(stderr, "import needs a file")
		}
		f, err := os.Open(positional[0])
		if err != nil {
			return sessionsFail(stderr, err)
		}
		defer f.Close()
		s, err := store.Import(ctx, f)
		if err != nil {
			return sessionsFail(stderr, err)
		}
		fmt.Fprintf(stdout, "imported %s (%s)\n", s.ID, s.Title)
	case "search":
		if len(positional) == 0 {
			return sessionsUsageError(stderr, "search needs a query")
		}
		hits, err := store.Search(ctx, strings.Join(positional, " "), sessions.SearchOptions{Limit: *limit})
		if err != nil {
			return sessionsFail(stderr, err)
		}
		for _, h := range hits {
			snip := strings.NewReplacer("<mark>", "[", "</mark>", "]", "&lt;", "<", "&gt;", ">", "&amp;", "&", "&#34;", `"`, "&#39;", "'").Replace(h.Snippet)
			fmt.Fprintf(stdout, "%s #%d %s: %s\n", h.SessionID, h.Seq, h.SessionTitle, snip)
		}
	case "replay":
		if !need(1) {
			return sessionsUsageError(stderr, "replay needs a session ID")
		}
		st, err := store.Replay(ctx, positional[0], *upto)
		if err != nil {
			return sessionsFail(stderr, err)
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(st); err != nil {
			return sessionsFail(stderr, err)
		}
	default:
		return sessionsUsageError(stderr, fmt.Sprintf("unknown subcommand %q", sub))
	}
	return exitOK
}

func sessionsFail(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "tinyelf sessions: %v\n", err)
	return exitError
}

func sessionsUsageError(stderr io.Writer, msg string) int {
	fmt.Fprintf(stderr, "tinyelf sessions: %s\n%s", msg, sessionsUsage)
	return exitUsage
}
