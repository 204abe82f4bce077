package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"tinyelf/backend/api"
)

const sessionsUsage = `Usage:
  tinyelf sessions list [--limit N] [--trash]
  tinyelf sessions show ID                  the conversation as Markdown
  tinyelf sessions export ID [--format markdown|json] [-o FILE]
  tinyelf sessions import FILE              a JSON export
  tinyelf sessions search QUERY
  tinyelf sessions replay ID [--upto SEQ]   rebuild the session's state from its log
  tinyelf sessions replay ID --capabilities rebuild each model call's visible tool set from
                                            the log and check it against what was sent

What is printed to the terminal has its control characters escaped; an
export written with -o FILE is exact. replay --capabilities prints a table per
turn (each model call's visible and deferred tools, what changed, the tool
definitions' tokens, whether it matches what was sent) and exits 1 when any
call does not match.
`

// runSessions implements `tinyelf sessions`.
func runSessions(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || isHelp(args[0]) {
		fmt.Fprint(stdout, sessionsUsage)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	sub := args[0]
	switch sub {
	case "list", "show", "export", "import", "search", "replay":
	default:
		return usageError(stderr, "sessions", fmt.Sprintf("unknown subcommand %q", sub))
	}
	flags := flag.NewFlagSet("tinyelf sessions "+sub, flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	limit := flags.Int("limit", 30, "")
	trash := flags.Bool("trash", false, "")
	format := flags.String("format", "markdown", "")
	outFile := flags.String("o", "", "")
	upto := flags.Int64("upto", 0, "")
	caps := flags.Bool("capabilities", false, "")
	rest := args[1:]
	// Allow flags after the positional argument (tinyelf sessions export ID --format json).
	var positional []string
	for len(rest) > 0 {
		if err := flags.Parse(rest); err != nil {
			return usageError(stderr, "sessions", err.Error())
		}
		if flags.NArg() == 0 {
			break
		}
		positional = append(positional, flags.Arg(0))
		rest = flags.Args()[1:]
	}
	need := func(n int) bool { return len(positional) == n }
	switch {
	case (sub == "show" || sub == "export" || sub == "replay") && !need(1):
		return usageError(stderr, "sessions", sub+" needs a session ID")
	case sub == "import" && !need(1):
		return usageError(stderr, "sessions", "import needs a file")
	case sub == "search" && len(positional) == 0:
		return usageError(stderr, "sessions", "search needs a query")
	case *caps && sub != "replay":
		return usageError(stderr, "sessions", "--capabilities goes with replay")
	case *caps && *upto != 0:
		return usageError(stderr, "sessions", "--capabilities replays the whole log; leave out --upto")
	case sub == "export" && *format != "markdown" && *format != "md" && *format != "json":
		return usageError(stderr, "sessions", fmt.Sprintf("unknown format %q (want markdown or json)", *format))
	}

	h, err := api.OpenHistory(ctx, "")
	if err != nil {
		return fail(stderr, "sessions", err)
	}
	defer h.Close()

	switch sub {
	case "list":
		list, err := h.List(ctx, api.HistoryListArgs{Limit: *limit, Trash: *trash})
		if err != nil {
			return fail(stderr, "sessions", err)
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tUPDATED\tMESSAGES\tTOKENS\tTITLE\tWORKSPACE")
		for _, s := range list {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", oneLine(s.ID), s.UpdatedAt.Local().Format(time.DateTime), s.MessageCount,
				s.Usage.InputTokens+s.Usage.OutputTokens, oneLine(s.Title), oneLine(s.Workspace))
		}
		tw.Flush()
	case "show", "export":
		asJSON := sub == "export" && *format == "json"
		// A file gets the export as it is; the terminal gets it escaped.
		var buf bytes.Buffer
		var w io.Writer = &buf
		var f *os.File
		if *outFile != "" {
			if f, err = os.Create(*outFile); err != nil {
				return fail(stderr, "sessions", err)
			}
			w = f
		}
		if asJSON {
			err = h.ExportJSON(ctx, positional[0], w)
		} else {
			err = h.ExportMarkdown(ctx, positional[0], w)
		}
		if f != nil {
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			return fail(stderr, "sessions", err)
		}
		switch {
		case f != nil:
		case asJSON:
			stdout.Write(jsonSafe(buf.Bytes()))
		default:
			fmt.Fprint(stdout, text(buf.String()))
		}
	case "import":
		f, err := os.Open(positional[0])
		if err != nil {
			return fail(stderr, "sessions", err)
		}
		defer f.Close()
		s, err := h.Import(ctx, f)
		if err != nil {
			return fail(stderr, "sessions", err)
		}
		fmt.Fprintf(stdout, "imported %s (%s)\n", oneLine(s.ID), oneLine(s.Title))
	case "search":
		hits, err := h.Search(ctx, strings.Join(positional, " "), *limit)
		if err != nil {
			return fail(stderr, "sessions", err)
		}
		unmark := strings.NewReplacer("<mark>", "[", "</mark>", "]", "&lt;", "<", "&gt;", ">", "&amp;", "&", "&#34;", `"`, "&#39;", "'")
		for _, hit := range hits {
			fmt.Fprintf(stdout, "%s #%d %s: %s\n", oneLine(hit.SessionID), hit.Seq, oneLine(hit.SessionTitle), oneLine(unmark.Replace(hit.Snippet)))
		}
	case "replay":
		if *caps {
			rep, err := h.ReplayCapabilities(ctx, positional[0])
			if err != nil {
				return fail(stderr, "sessions", err)
			}
			return printCapabilityReplay(stdout, stderr, rep)
		}
		st, err := h.Replay(ctx, positional[0], *upto)
		if err != nil {
			return fail(stderr, "sessions", err)
		}
		if err := writeJSON(stdout, st); err != nil {
			return fail(stderr, "sessions", err)
		}
	}
	return exitOK
}

// printCapabilityReplay prints a table per turn of the model calls' rebuilt
// visible sets, the changes and mismatches under it, and returns exitError
// when any call does not match what was sent.
func printCapabilityReplay(stdout, stderr io.Writer, rep *api.CapabilityReplay) int {
	if len(rep.Calls) == 0 {
		fmt.Fprintln(stdout, "No model call is logged in this session.")
		return exitOK
	}
	var notes []string
	var tw *tabwriter.Writer
	turn := -1
	end := func() {
		if tw == nil {
			return
		}
		tw.Flush()
		for _, n := range notes {
			fmt.Fprintln(stdout, n)
		}
		notes = nil
	}
	for _, c := range rep.Calls {
		if c.Turn != turn {
			end()
			if turn != -1 {
				fmt.Fprintln(stdout)
			}
			turn = c.Turn
			fmt.Fprintf(stdout, "Turn %d\n", c.Turn)
			tw = tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "CALL\tVISIBLE\tDEFERRED\tADDED\tREMOVED\tTOOL TOKENS\tMATCH")
		}
		match := "ok"
		if c.Mismatch != "" {
			match = "MISMATCH"
			notes = append(notes, fmt.Sprintf("  call %d (event %d) does not match: %s", c.Iteration, c.Seq, oneLine(c.Mismatch)))
		}
		fmt.Fprintf(tw, "%d\t%d\t%d\t+%d\t-%d\t%d\t%s\n", c.Iteration, len(c.Visible), len(c.Deferred), len(c.Added), len(c.Removed), c.ToolTokens, match)
		if len(c.Added)+len(c.Removed) > 0 && (c.Turn > 1 || c.Iteration > 1) {
			var change []string
			for _, n := range c.Added {
				change = append(change, "+"+n)
			}
			for _, n := range c.Removed {
				change = append(change, "-"+n)
			}
			note := fmt.Sprintf("  call %d: %s", c.Iteration, oneLine(cut(strings.Join(change, " "), 160)))
			if len(c.Reasons) > 0 {
				note += " (" + oneLine(cut(strings.Join(c.Reasons, "; "), 160)) + ")"
			}
			notes = append(notes, note)
		}
	}
	end()
	fmt.Fprintf(stdout, "\n%d model calls, %d mismatches\n", len(rep.Calls), rep.Mismatches)
	if rep.Mismatches > 0 {
		fmt.Fprintf(stderr, "tinyelf sessions: the log's capability diffs do not match what was sent in %d calls\n", rep.Mismatches)
		return exitError
	}
	return exitOK
}
