package cli

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"tinyelf/backend/api"
)

const mcpUsage = `Usage:
  tinyelf mcp list [--check] [--output text|json]
  tinyelf mcp add NAME [--env KEY=VALUE]... [--cwd DIR] [--timeout SECONDS] [--disabled] -- COMMAND [ARGS...]
  tinyelf mcp add NAME --url URL [--type http|sse] [--header "Name: value"]... [--timeout SECONDS]
                  [--client-id ID [--client-secret SECRET] [--grant client_credentials]] [--scope SCOPE]...
  tinyelf mcp remove NAME
  tinyelf mcp import FILE
  tinyelf mcp test NAME [--output text|json]
  tinyelf mcp login NAME
  tinyelf mcp logout NAME
  tinyelf mcp bridge [--addr 127.0.0.1:0] [--workspace DIR] [--token-stdin]

Manages the MCP servers in the settings (the same list as Settings → MCP).

  list     the configured servers; --check also starts them all (in
           parallel) and shows whether each one connects
  add      a stdio server (the command after --) or an http/sse server
           (--url). Values may refer to the environment as ${VAR} or
           ${VAR:-default}; they are expanded each time the server starts,
           so a token can stay out of the settings file:
             tinyelf mcp add gh --url https://api.githubcopilot.com/mcp/ \
               --header "Authorization: Bearer ${GITHUB_TOKEN}"
           A server that asks for OAuth needs no header: sign in with
           'tinyelf mcp login NAME' (or the card's Sign in). --client-id
           and --client-secret name a client registered for TinyElf when
           the server offers no dynamic registration; --grant
           client_credentials makes the client's own credentials get the
           tokens (a machine-to-machine server); --scope asks for scopes
           other than the server's
  remove   deletes a server
  import   adds the servers of a claude_desktop_config.json or .mcp.json
           file and reports what was skipped and why
  test     starts one server, lists its tools, prompts and resources, and
           stops it; shows its error and stderr when it does not connect
  login    signs in to an http or sse server that asks for OAuth: prints
           the address to open in a browser and waits until the browser
           comes back to TinyElf; the token is kept in the OS keyring (or
           TinyElf's encrypted secrets file) and renewed on its own
  logout   forgets a server's sign-in
  bridge   serves TinyElf's builtin tools (sessions, notify, workspace) to
           other CLI agents over MCP on loopback, with a bearer token, and
           prints a client config to paste; runs until interrupted. The
           token is random unless TINYELF_BRIDGE_TOKEN is set, or
           --token-stdin reads it from the first line of stdin (a token on
           the command line, --token, is visible to every user in ps)

Exit status: 0 success, 1 failure, 2 usage error.
`

// runMCP implements `tinyelf mcp`.
func runMCP(ctx context.Context, args []string, stdout, stderr io.Writer, o Options) int {
	if len(args) == 0 || isHelp(args[0]) {
		fmt.Fprint(stdout, mcpUsage)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	cmd, rest := args[0], args[1:]
	if cmd == "bridge" {
		return mcpBridge(ctx, rest, o, stdout, stderr)
	}
	switch cmd {
	case "list", "ls", "add", "remove", "rm", "import", "test", "login", "logout":
	default:
		return usageError(stderr, "mcp", fmt.Sprintf("unknown command %q", cmd))
	}
	cfg, err := api.OpenMCPConfig("", o.Version)
	if err != nil {
		return fail(stderr, "mcp", err)
	}
	warn(stderr, cfg.Warnings())
	switch cmd {
	case "list", "ls":
		return mcpList(ctx, cfg, rest, stdout, stderr)
	case "add":
		return mcpAdd(cfg, rest, stdout, stderr)
	case "remove", "rm":
		if len(rest) != 1 {
			return usageError(stderr, "mcp", "remove takes one server name")
		}
		if err := cfg.Remove(rest[0]); err != nil {
			return fail(stderr, "mcp", err)
		}
		fmt.Fprintf(stdout, "Removed MCP server %s.\n", oneLine(rest[0]))
		return exitOK
	case "import":
		return mcpImport(cfg, rest, stdout, stderr)
	case "login":
		return mcpLogin(ctx, cfg, rest, stdout, stderr)
	case "logout":
		if len(rest) != 1 {
			return usageError(stderr, "mcp", "logout takes one server name")
		}
		if err := cfg.Logout(rest[0]); err != nil {
			return fail(stderr, "mcp", err)
		}
		fmt.Fprintf(stdout, "Signed out of %s.\n", oneLine(rest[0]))
		return exitOK
	default: // test
		return mcpTest(ctx, cfg, rest, stdout, stderr)
	}
}

// mcpNewFlags returns a flag set whose errors the caller prints.
func mcpNewFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("tinyelf mcp "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

func mcpList(ctx context.Context, cfg *api.MCPConfig, args []string, stdout, stderr io.Writer) int {
	fs := mcpNewFlags("list")
	check := fs.Bool("check", false, "")
	output := fs.String("output", "text", "")
	if err := fs.Parse(args); err != nil {
		return usageError(stderr, "mcp", err.Error())
	}
	servers := cfg.Servers()
	var states []api.MCPServerState
	if *check {
		states = cfg.Check(ctx)
	}
	if *output == "json" {
		if err := writeJSON(stdout, map[string]any{"servers": servers, "states": states}); err != nil {
			return fail(stderr, "mcp", err)
		}
		return exitOK
	}
	if len(servers) == 0 {
		fmt.Fprintln(stdout, "No MCP servers. Add one with 'tinyelf mcp add' or 'tinyelf mcp import FILE'.")
		return exitOK
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTYPE\tSTATUS\tTARGET")
	for i, s := range servers {
		status := "enabled"
		if s.Disabled {
			status = "disabled"
		}
		if i < len(states) {
			status = string(states[i].Status)
			if n := len(states[i].Tools); n > 0 {
				status += fmt.Sprintf(" (%d tools)", n)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", oneLine(s.Name), oneLine(orDefault(s.Type, "stdio")), oneLine(status), oneLine(mcpTarget(s)))
	}
	tw.Flush()
	for _, st := range states {
		if st.Status == api.MCPFailed {
			fmt.Fprintf(stdout, "\n%s: %s\n", oneLine(st.Name), oneLine(st.Error))
		}
	}
	return exitOK
}

func mcpTarget(s api.MCPServer) string {
	if s.URL != "" {
		return s.URL
	}
	return strings.TrimSpace(s.Command + " " + strings.Join(s.Args, " "))
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// listFlag collects a repeated flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func mcpAdd(cfg *api.MCPConfig, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return usageError(stderr, "mcp", "add takes the server name first: tinyelf mcp add NAME ...")
	}
	s := api.MCPServer{Name: args[0]}
	fs := mcpNewFlags("add")
	var envs, headers, scopes listFlag
	var oa api.MCPOAuth
	fs.Var(&envs, "env", "")
	fs.Var(&headers, "header", "")
	fs.Var(&scopes, "scope", "")
	fs.StringVar(&oa.ClientID, "client-id", "", "")
	fs.StringVar(&oa.ClientSecret, "client-secret", "", "")
	fs.StringVar(&oa.Grant, "grant", "", "")
	fs.StringVar(&s.Type, "type", "", "")
	fs.StringVar(&s.URL, "url", "", "")
	fs.StringVar(&s.Cwd, "cwd", "", "")
	fs.IntVar(&s.TimeoutSeconds, "timeout", 0, "")
	fs.BoolVar(&s.Disabled, "disabled", false, "")
	if err := fs.Parse(args[1:]); err != nil {
		return usageError(stderr, "mcp", err.Error())
	}
	rest := fs.Args()
	if s.URL == "" && len(rest) == 1 && (strings.HasPrefix(rest[0], "http://") || strings.HasPrefix(rest[0], "https://")) {
		s.URL, rest = rest[0], nil
	}
	switch {
	case s.URL != "" && len(rest) > 0:
		return usageError(stderr, "mcp", "give either --url or a command after --, not both")
	case s.URL != "":
		if s.Type == "" {
			s.Type = "http"
		}
	case len(rest) > 0:
		s.Command, s.Args = rest[0], rest[1:]
	}
	for _, e := range envs {
		k, v, ok := strings.Cut(e, "=")
		if !ok || k == "" {
			return usageError(stderr, "mcp", fmt.Sprintf("--env %q: want KEY=VALUE", e))
		}
		if s.Env == nil {
			s.Env = map[string]string{}
		}
		s.Env[k] = v
	}
	for _, h := range headers {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return usageError(stderr, "mcp", fmt.Sprintf("--header %q: want \"Name: value\"", h))
		}
		if s.Headers == nil {
			s.Headers = map[string]string{}
		}
		s.Headers[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	oa.Scopes = scopes
	if oa.ClientID != "" || oa.ClientSecret != "" || oa.Grant != "" || len(oa.Scopes) > 0 {
		if s.URL == "" {
			return usageError(stderr, "mcp", "--client-id, --client-secret, --grant and --scope are for an http or sse server (--url)")
		}
		if oa.Grant != "" && oa.Grant != "client_credentials" && oa.Grant != "authorization_code" {
			return usageError(stderr, "mcp", fmt.Sprintf("--grant %q: want client_credentials or authorization_code", oa.Grant))
		}
		s.OAuth = &oa
	}
	if err := cfg.Add(s); err != nil {
		return fail(stderr, "mcp", err)
	}
	fmt.Fprintf(stdout, "Added MCP server %s (%s). Check it with 'tinyelf mcp test %s'.\n", oneLine(s.Name), oneLine(orDefault(s.Type, "stdio")), oneLine(s.Name))
	return exitOK
}

func mcpImport(cfg *api.MCPConfig, args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		return usageError(stderr, "mcp", "import takes one file: a claude_desktop_config.json or .mcp.json")
	}
	rep, err := cfg.ImportFile(args[0])
	if err != nil {
		return fail(stderr, "mcp", err)
	}
	for _, s := range rep.Imported {
		fmt.Fprintf(stdout, "imported  %s (%s)\n", oneLine(s.Name), oneLine(s.Type))
		for _, w := range s.Warnings {
			fmt.Fprintf(stdout, "          warning: %s\n", oneLine(w))
		}
	}
	for _, s := range rep.Skipped {
		fmt.Fprintf(stdout, "skipped   %s: %s\n", oneLine(s.Name), oneLine(s.Reason))
	}
	fmt.Fprintf(stdout, "%d imported, %d skipped.\n", len(rep.Imported), len(rep.Skipped))
	return exitOK
}

func mcpTest(ctx context.Context, cfg *api.MCPConfig, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return usageError(stderr, "mcp", "test takes a server name: tinyelf mcp test NAME")
	}
	name := args[0]
	fs := mcpNewFlags("test")
	output := fs.String("output", "text", "")
	if err := fs.Parse(args[1:]); err != nil {
		return usageError(stderr, "mcp", err.Error())
	}
	if _, ok := cfg.Server(name); !ok {
		return fail(stderr, "mcp", fmt.Errorf("no MCP server named %q (see 'tinyelf mcp list')", name))
	}
	rep, err := cfg.Test(ctx, name)
	if *output == "json" {
		if werr := writeJSON(stdout, rep); werr != nil {
			return fail(stderr, "mcp", werr)
		}
		if err != nil {
			return exitError
		}
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "tinyelf mcp: %s did not connect: %s\n", oneLine(name), oneLine(orDefault(rep.State.Error, err.Error())))
		if len(rep.State.Stderr) > 0 {
			fmt.Fprintln(stderr, "Last lines of its output:")
			for _, l := range rep.State.Stderr {
				fmt.Fprintf(stderr, "  %s\n", oneLine(l))
			}
		}
		return exitError
	}
	st := rep.State
	fmt.Fprintf(stdout, "%s: connected in %s (%s %s, protocol %s)\n", oneLine(name), rep.Duration.Round(time.Millisecond),
		oneLine(st.ServerName), oneLine(st.ServerVersion), oneLine(st.ProtocolVersion))
	fmt.Fprintf(stdout, "%d tools, %d prompts, %d resources\n", len(rep.Tools), len(rep.Prompts), rep.Resources)
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	for _, t := range rep.Tools {
		mode := "writes"
		if t.ReadOnly {
			mode = "read-only"
		}
		desc, _, _ := strings.Cut(t.Description, "\n")
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", oneLine(t.Name), mode, oneLine(desc))
	}
	for _, p := range rep.Prompts {
		desc, _, _ := strings.Cut(p.Description, "\n")
		fmt.Fprintf(tw, "  /%s\tprompt\t%s\n", oneLine(p.Name), oneLine(desc))
	}
	tw.Flush()
	return exitOK
}

func mcpLogin(ctx context.Context, cfg *api.MCPConfig, args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		return usageError(stderr, "mcp", "login takes a server name: tinyelf mcp login NAME")
	}
	name := args[0]
	st, err := cfg.Login(ctx, name, func(u string) {
		fmt.Fprintf(stdout, "Open this address in a browser to sign in to %s:\n\n  %s\n\nWaiting for the browser to come back to TinyElf (Ctrl+C to give up)...\n", oneLine(name), oneLine(u))
	})
	if err != nil {
		return fail(stderr, "mcp", err)
	}
	who := ""
	if st != nil && st.Account != "" {
		who = " as " + oneLine(st.Account)
	}
	fmt.Fprintf(stdout, "Signed in to %s%s.", oneLine(name), who)
	if st != nil && !st.ExpiresAt.IsZero() {
		fmt.Fprintf(stdout, " The token expires at %s", st.ExpiresAt.Local().Format("2006-01-02 15:04"))
		if st.Refreshable {
			fmt.Fprint(stdout, " and is renewed on its own")
		}
		fmt.Fprint(stdout, ".")
	}
	fmt.Fprintln(stdout)
	return exitOK
}

func mcpBridge(ctx context.Context, args []string, o Options, stdout, stderr io.Writer) int {
	stdin := o.Stdin
	fs := mcpNewFlags("bridge")
	addr := fs.String("addr", "127.0.0.1:0", "")
	workspace := fs.String("workspace", ".", "")
	token := fs.String("token", "", "")
	tokenStdin := fs.Bool("token-stdin", false, "")
	if err := fs.Parse(args); err != nil {
		return usageError(stderr, "mcp", err.Error())
	}
	switch {
	case *token != "" && *tokenStdin:
		return usageError(stderr, "mcp", "give the token with --token-stdin or --token, not both")
	case *token != "":
		fmt.Fprintf(stderr, "warning: a token on the command line (--token) is visible to every user of this machine (ps); "+
			"set %s or use --token-stdin instead\n", api.EnvBridgeToken)
	case *tokenStdin:
		line, err := bufio.NewReader(stdin).ReadString('\n')
		if err != nil && err != io.EOF {
			return usageError(stderr, "mcp", "read the token from stdin: "+err.Error())
		}
		if *token = strings.TrimSpace(line); *token == "" {
			return usageError(stderr, "mcp", "--token-stdin: stdin gave no token")
		}
	default:
		*token = os.Getenv(api.EnvBridgeToken)
	}
	ws, err := filepath.Abs(*workspace)
	if err != nil {
		return usageError(stderr, "mcp", err.Error())
	}
	b, err := api.StartBridge(ctx, api.BridgeOptions{Addr: *addr, Workspace: ws, Token: *token, Version: o.Version})
	if err != nil {
		return fail(stderr, "mcp", err)
	}
	warn(stderr, b.Warnings())
	fmt.Fprintf(stdout, "TinyElf MCP bridge on %s\nToken: %s\nTools: %s\n\n", b.URL(), oneLine(b.Token()), strings.Join(b.Tools(), ", "))
	fmt.Fprintf(stdout, "Add this to your client's MCP config (.mcp.json, Claude Code):\n%s\n\n", jsonSafe(b.ClientConfig("tinyelf")))
	fmt.Fprintf(stdout, "Serving until interrupted (Ctrl+C).\n")
	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-b.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = b.Close(sctx)
	if serveErr != nil {
		return fail(stderr, "mcp", serveErr)
	}
	return exitOK
}
