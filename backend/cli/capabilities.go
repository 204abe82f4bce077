package cli

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"tinyelf/backend/api"
)

const capabilitiesUsage = `Usage:
  tinyelf capabilities list [--kind KIND] [--mode MODE] [--output text|json]
  tinyelf capabilities search QUERY [--limit N] [--kind KIND] [--mode MODE] [--regex] [--output text|json]

The catalog of what the agent could use — TinyElf's own tools, the tools,
prompts and resources of the MCP servers in the settings, the surface's own
channels — with the state a new session's first model call would give each
(visible with its definition, deferred to the index, hidden, or available)
and the reason. The MCP servers are started first, and each is waited for
until it has connected or failed; a server that fails is named on stderr.

search runs the model's ToolSearch, with the same ranking and filters (the
mode, the default agent's tools, the deny rules), and prints the hits with
why each matched; nothing is loaded. QUERY "-" reads one query a line from
stdin (blank lines and lines starting with # are skipped; a tab ends the
query, so a labelled file of "query<TAB>expected" lines can be fed as it is)
and prints one line per query: "query<TAB>name,name,..." in rank order, or
with --output json one JSON object per line.

  --kind KIND       tool | skill | resource | prompt | channel (default: all)
  --mode MODE       plan | default | acceptEdits | auto (default: the settings')
  --limit N         the most hits per query (default 5, at most 25)
  --regex           QUERY is a regular expression (RE2, case-insensitive)
  --output FORMAT   text or json

Exit status: 0 success, 1 a search failed (an empty query, an invalid
regular expression; with "-", any of them), 2 usage error.
`

// runCapabilities implements `tinyelf capabilities`.
func runCapabilities(ctx context.Context, args []string, stdout, stderr io.Writer, o Options) int {
	if len(args) == 0 || isHelp(args[0]) {
		fmt.Fprint(stdout, capabilitiesUsage)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	sub := args[0]
	if sub != "list" && sub != "search" {
		return usageError(stderr, "capabilities", fmt.Sprintf("unknown subcommand %q (want list or search)", sub))
	}
	flags := flag.NewFlagSet("tinyelf capabilities "+sub, flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	kind := flags.String("kind", "", "")
	modeName := flags.String("mode", "", "")
	output := flags.String("output", "text", "")
	limit := flags.Int("limit", 0, "")
	regex := flags.Bool("regex", false, "")
	positional, err := parseInterspersed(flags, args[1:])
	if err != nil {
		return usageError(stderr, "capabilities", err.Error())
	}
	switch {
	case *output != "text" && *output != "json":
		return usageError(stderr, "capabilities", fmt.Sprintf("unknown output format %q (want text or json)", *output))
	case sub == "list" && len(positional) > 0:
		return usageError(stderr, "capabilities", fmt.Sprintf("unexpected argument %q", positional[0]))
	case sub == "search" && len(positional) == 0:
		return usageError(stderr, "capabilities", `search needs a query (or "-" to read queries from stdin)`)
	case *limit < 0 || *limit > 25:
		return usageError(stderr, "capabilities", "--limit must be between 1 and 25")
	}
	if *modeName != "" {
		if _, err := api.ParseMode(*modeName); err != nil {
			return usageError(stderr, "capabilities", err.Error())
		}
	}
	if err := api.CheckCapabilityKind(*kind); err != nil {
		return usageError(stderr, "capabilities", err.Error())
	}

	svc, err := api.New(ctx, api.Options{Approver: cliApprover(false, stderr), Background: true, Getenv: os.Getenv, Version: o.Version})
	if err != nil {
		return fail(stderr, "capabilities", err)
	}
	defer svc.Close()
	warn(stderr, svc.Warnings())
	reportMCP(stderr, svc.WaitMCPServers(ctx), "")

	if sub == "list" {
		list, err := svc.ListCapabilities(ctx, api.CapabilitiesArgs{Kind: *kind, Mode: *modeName})
		if err != nil {
			return fail(stderr, "capabilities", err)
		}
		if *output == "json" {
			if err := writeJSON(stdout, list); err != nil {
				return fail(stderr, "capabilities", err)
			}
			return exitOK
		}
		printCatalog(stdout, list)
		return exitOK
	}

	search := func(q string) (api.CapabilitySearchResult, error) {
		return svc.SearchCapabilities(ctx, api.SearchCapabilitiesArgs{Query: q, Kind: *kind, Limit: *limit, Regex: *regex, Mode: *modeName})
	}
	query := strings.Join(positional, " ")
	if query != "-" {
		res, err := search(query)
		if err != nil {
			return fail(stderr, "capabilities", err)
		}
		if *output == "json" {
			if err := writeJSON(stdout, res); err != nil {
				return fail(stderr, "capabilities", err)
			}
			return exitOK
		}
		printHits(stdout, res)
		return exitOK
	}
	return searchLines(ctx, o.Stdin, stdout, stderr, *output == "json", search)
}

// searchLines answers one query a line from in, one line each, and returns
// exitError when any failed.
func searchLines(ctx context.Context, in io.Reader, stdout, stderr io.Writer, asJSON bool, search func(string) (api.CapabilitySearchResult, error)) int {
	type line struct {
		api.CapabilitySearchResult
		Error string `json:"error,omitempty"`
	}
	failed := 0
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if ctx.Err() != nil {
			return exitError
		}
		q, _, _ := strings.Cut(sc.Text(), "\t")
		q = strings.TrimSpace(q)
		if q == "" || strings.HasPrefix(q, "#") {
			continue
		}
		res, err := search(q)
		out := line{CapabilitySearchResult: res}
		out.Query = q
		if err != nil {
			failed++
			out.Error = err.Error()
		}
		if asJSON {
			if out.Items == nil {
				out.Items = []api.CapabilitySearchItem{}
			}
			if err := jsonLine(stdout, out); err != nil {
				return fail(stderr, "capabilities", err)
			}
			continue
		}
		if err != nil {
			fmt.Fprintf(stdout, "%s\terror: %s\n", oneLine(q), oneLine(err.Error()))
			continue
		}
		names := make([]string, len(res.Items))
		for i, it := range res.Items {
			names[i] = oneLine(it.Name)
		}
		fmt.Fprintf(stdout, "%s\t%s\n", oneLine(q), strings.Join(names, ","))
	}
	if err := sc.Err(); err != nil {
		return fail(stderr, "capabilities", fmt.Errorf("read the queries from stdin: %w", err))
	}
	if failed > 0 {
		fmt.Fprintf(stderr, "tinyelf capabilities: %d of the queries failed\n", failed)
		return exitError
	}
	return exitOK
}

// printCatalog prints the deferral verdict and the catalog as a table.
func printCatalog(w io.Writer, list api.CapabilityList) {
	state := "off"
	if list.Deferring {
		state = "on"
	}
	visible, deferred := 0, 0
	for _, it := range list.Items {
		if it.Kind == "tool" {
			switch it.State {
			case "visible":
				visible++
			case "deferred":
				deferred++
			}
		}
	}
	fmt.Fprintf(w, "Deferral %s: %s\n", state, oneLine(list.DeferReason))
	fmt.Fprintf(w, "%d tools sent with their definitions (about %d tokens), %d in the index (about %d tokens)\n\n",
		visible, list.ToolTokens, deferred, list.IndexTokens)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tSOURCE\tRISK\tTOKENS\tSTATE\tREASON")
	for _, it := range list.Items {
		reason := it.Reason
		if it.Problem != "" {
			reason = it.Problem
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d/%d\t%s\t%s\n", oneLine(it.Name), it.Kind, oneLine(it.Source), it.Risk,
			it.IndexTokens, it.FullTokens, it.State, oneLine(cut(reason, 100)))
	}
	tw.Flush()
	for _, sh := range list.Shadowed {
		fmt.Fprintf(w, "left out: %s from %s (another source has a tool of that name)\n", oneLine(sh.Name), oneLine(sh.Source))
	}
}

// printHits prints a search's hits, best first, with why each matched.
func printHits(w io.Writer, res api.CapabilitySearchResult) {
	if len(res.Items) == 0 {
		fmt.Fprintln(w, "No capability matches.")
	}
	for i, it := range res.Items {
		fmt.Fprintf(w, "%d. %s  [%s, %s, %s, %s risk]\n", i+1, oneLine(it.Name), it.Kind, oneLine(it.Source), it.State, it.Risk)
		if it.Summary != "" {
			fmt.Fprintf(w, "   %s\n", oneLine(it.Summary))
		}
		if it.Why != "" {
			fmt.Fprintf(w, "   matched %s\n", oneLine(it.Why))
		}
	}
	if res.Note != "" {
		fmt.Fprintf(w, "Note: %s.\n", oneLine(res.Note))
	}
}

// parseInterspersed parses flags that may come before, between or after
// the positional arguments, and returns the positional ones.
func parseInterspersed(flags *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := flags.Parse(args); err != nil {
			return nil, err
		}
		if flags.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, flags.Arg(0))
		args = flags.Args()[1:]
	}
}
