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
	"tinyelf/backend/mcp"
	"tinyelf/backend/notify"
	"tinyelf/backend/sessions"
)

const mcpUsage = `Usage:
  tinyelf mcp list [--check] [--output text|json]
  tinyelf mcp add NAME [--env KEY=VALUE]... [--cwd DIR] [--timeout SECONDS] [--disabled] -- COMMAND [ARGS...]
  tinyelf mcp add NAME --url URL [--type http|sse] [--header "Name: value"]... [--timeout SECONDS]
  tinyelf mcp remove NAME
  tinyelf mcp import FILE
  tinyelf mcp test NAME [--output text|json]
  tinyelf mcp bridge [--addr 127.0.0.1:0] [--workspace DIR] [--token TOKEN]

Manages the MCP servers in the settings (the same list as Settings → MCP).

  list     the configured servers; --check also starts them all (in
           parallel) and shows whether each one connects
  add      a stdio server (the command after --) or an http/sse server
           (--url). Values may refer to the environment as ${VAR} or
           ${VAR:-default}; they are expanded each time the server starts,
           so a token can stay out of the settings file:
             tinyelf mcp add gh --url https://api.githubcopilot.com/mcp/ \
               --header "Authorization: Bearer ${GITHUB_TOKEN}"
  remove   deletes a server
  import   adds the servers of a claude_desktop_config.json or .mcp.json
           file and reports what was skipped and why
  test     starts one server, lists its tools, prompts and resources, and
           stops it; shows its error and stderr when it does not connect
  bridge   serves TinyElf's builtin tools (sessions, notify, workspace) to
           other CLI agents over MCP on loopback, with a bearer token, and
           prints a client config to paste; runs until interrupted

Exit status: 0 success, 1 failure, 2 usage error.
`

// mcpDeps are what `tinyelf mcp bridge` serves beyond the workspace.
type mcpDeps struct {
	// Sessions backs the sessions provider; nil leaves it out.
	Sessions mcp.SessionReader
	// Notifier backs the notify provider; nil leaves it out.
	Notifier mcp.Notifier
}

// runMCP implements `tinyelf mcp`. The bridge also exposes the session
// history, so only it opens the session database.
func runMCP(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	deps := mcpDeps{Notifier: mcpDesktopNotifier{notify.New()}}
	if len(args) > 0 && args[0] == "bridge" {
		if dir, err := config.DataDir(); err == nil {
			if store, err := sessions.Open(ctx, filepath.Join(dir, api.SessionsFile)); err == nil {
				defer store.Close()
				deps.Sessions = api.NewSessionReader(store)
			} else {
				fmt.Fprintf(stderr, "warning: the session history is not available to bridge clients: %v\n", err)
			}
		}
	}
	return runMCPWith(ctx, args, stdout, stderr, deps)
}

// mcpDesktopNotifier adapts the notify package to mcp.Notifier.
type mcpDesktopNotifier struct{ n notify.Notifier }

func (d mcpDesktopNotifier) Notify(ctx context.Context, title, body string) error {
	return d.n.Notify(ctx, notify.Notification{Title: title, Body: body, Kind: notify.KindDone})
}

func runMCPWith(ctx context.Context, args []string, stdout, stderr io.Writer, deps mcpDeps) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, mcpUsage)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	cmd, rest := args[0], args[1:]
	if cmd == "bridge" {
		return mcpBridge(ctx, rest, stdout, stderr, deps)
	}
	store, err := mcpOpenSettings()
	if err != nil {
		fmt.Fprintf(stderr, "tinyelf mcp: %v\n", err)
		return exitError
	}
	switch cmd {
	case "list", "ls":
		return mcpList(ctx, store, rest, stdout, stderr)
	case "add":
		return mcpAdd(store, rest, stdout, stderr)
	case "remove", "rm":
		if len(rest) != 1 {
			return mcpUsageError(stderr, "remove takes one server name")
		}
		if err := mcp.RemoveServer(store, rest[0]); err != nil {
			return mcpFail(stderr, err)
		}
		fmt.Fprintf(stdout, "Removed MCP server %s.\n", rest[0])
		return exitOK
	case "import":
		return mcpImport(store, rest, stdout, stderr)
	case "test":
		return mcpTest(ctx, store, rest, stdout, stderr)
	}
	return mcpUsageError(stderr, fmt.Sprintf("unknown command %q", cmd))
}

func mcpOpenSettings() (*config.Store, error) {
	dir, err := config.DataDir()
	if err != nil {
		return nil, err
	}
	return config.OpenStore(filepath.Join(dir, config.SettingsFile))
}

func mcpUsageError(stderr io.Writer, msg string) int {
	fmt.Fprintf(stderr, "tinyelf mcp: %s\nRun 'tinyelf mcp --help' for usage.\n", msg)
	return exitUsage
}

func mcpFail(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "tinyelf mcp: %v\n", err)
	return exitError
}

// mcpNewFlags returns a flag set whose errors the caller prints.
func mcpNewFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("tinyelf mcp "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

func mcpList(ctx context.Context, store *config.Store, args []string, stdout, stderr io.Writer) int {
	fs := mcpNewFlags("list")
	check := fs.Bool("check", false, "")
	output := fs.String("output", "text", "")
	if err := fs.Parse(args); err != nil {
		return mcpUsageError(stderr, err.Error())
	}
	servers := store.Get().MCPServers
	var states []mcp.ServerState
	if *check {
		svc := mcp.NewService(servers, mcp.Options{})
		svc.Start(ctx)
		_ = svc.WaitReady(ctx)
		states = svc.States()
		svc.Close()
	}
	if *output == "json" {
		return mcpWriteJSON(stdout, stderr, map[string]any{"servers": servers, "states": states})
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
		if states != nil {
			status = string(states[i].Status)
			if n := len(states[i].Tools); n > 0 {
				status += fmt.Sprintf(" (%d tools)", n)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Name, mcpOrDefault(s.Type, "stdio"), status, mcpTarget(s))
	}
	tw.Flush()
	for _, st := range states {
		if st.Status == mcp.StatusFailed {
			fmt.Fprintf(stdout, "\n%s: %s\n", st.Name, st.Error)
		}
	}
	return exitOK
}

func mcpTarget(s config.MCPServer) string {
	if s.URL != "" {
		return s.URL
	}
	return strings.TrimSpace(s.Command + " " + strings.Join(s.Args, " "))
}

func mcpOrDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// mcpListFlag collects a repeated flag.
type mcpListFlag []string

func (l *mcpListFlag) String() string     { return strings.Join(*l, ",") }
func (l *mcpListFlag) Set(v string) error { *l = append(*l, v); return nil }

func mcpAdd(store *config.Store, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return mcpUsageError(stderr, "add takes the server name first: tinyelf mcp add NAME ...")
	}
	s := config.MCPServer{Name: args[0]}
	fs := mcpNewFlags("add")
	var envs, headers mcpListFlag
	fs.Var(&envs, "env", "")
	fs.Var(&headers, "header", "")
	fs.StringVar(&s.Type, "type", "", "")
	fs.StringVar(&s.URL, "url", "", "")
	fs.StringVar(&s.Cwd, "cwd", "", "")
	fs.IntVar(&s.TimeoutSeconds, "timeout", 0, "")
	fs.BoolVar(&s.Disabled, "disabled", false, "")
	if err := fs.Parse(args[1:]); err != nil {
		return mcpUsageError(stderr, err.Error())
	}
	rest := fs.Args()
	if s.URL == "" && len(rest) == 1 && (strings.HasPrefix(rest[0], "http://") || strings.HasPrefix(rest[0], "https://")) {
		s.URL, rest = rest[0], nil
	}
	switch {
	case s.URL != "" && len(rest) > 0:
		return mcpUsageError(stderr, "give either --url or a command after --, not both")
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
			return mcpUsageError(stderr, fmt.Sprintf("--env %q: want KEY=VALUE", e))
		}
		if s.Env == nil {
			s.Env = map[string]string{}
		}
		s.Env[k] = v
	}
	for _, h := range headers {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return mcpUsageError(stderr, fmt.Sprintf("--header %q: want \"Name: value\"", h))
		}
		if s.Headers == nil {
			s.Headers = map[string]string{}
		}
		s.Headers[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	if err := mcp.AddServer(store, s); err != nil {
		return mcpFail(stderr, err)
	}
	fmt.Fprintf(stdout, "Added MCP server %s (%s). Check it with 'tinyelf mcp test %s'.\n", s.Name, mcpOrDefault(s.Type, "stdio"), s.Name)
	return exitOK
}

func mcpImport(store *config.Store, args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		return mcpUsageError(stderr, "import takes one file: a claude_desktop_config.json or .mcp.json")
	}
	rep, err := mcp.ImportFile(store, args[0], os.LookupEnv)
	if err != nil {
		return mcpFail(stderr, err)
	}
	for _, s := range rep.Imported {
		fmt.Fprintf(stdout, "imported  %s (%s)\n", s.Name, s.Type)
		for _, w := range s.Warnings {
			fmt.Fprintf(stdout, "          warning: %s\n", w)
		}
	}
	for _, s := range rep.Skipped {
		fmt.Fprintf(stdout, "skipped   %s: %s\n", s.Name, s.Reason)
	}
	fmt.Fprintf(stdout, "%d imported, %d skipped.\n", len(rep.Imported), len(rep.Skipped))
	return exitOK
}

func mcpTest(ctx context.Context, store *config.Store, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return mcpUsageError(stderr, "test takes a server name: tinyelf mcp test NAME")
	}
	name := args[0]
	fs := mcpNewFlags("test")
	output := fs.String("output", "text", "")
	if err := fs.Parse(args[1:]); err != nil {
		return mcpUsageError(stderr, err.Error())
	}
	var srv *config.MCPServer
	for _, s := range store.Get().MCPServers {
		if s.Name == name {
			srv = &s
			break
		}
	}
	if srv == nil {
		return mcpFail(stderr, fmt.Errorf("no MCP server named %q (see 'tinyelf mcp list')", name))
	}
	rep, err := mcp.TestServer(ctx, *srv, mcp.Options{})
	if *output == "json" {
		if code := mcpWriteJSON(stdout, stderr, rep); code != exitOK || err == nil {
			return code
		}
		return exitError
	}
	if err != nil {
		fmt.Fprintf(stderr, "tinyelf mcp: %s did not connect: %s\n", name, mcpOrDefault(rep.State.Error, err.Error()))
		if len(rep.State.Stderr) > 0 {
			fmt.Fprintf(stderr, "Last lines of its output:\n  %s\n", strings.Join(rep.State.Stderr, "\n  "))
		}
		return exitError
	}
	st := rep.State
	fmt.Fprintf(stdout, "%s: connected in %s (%s %s, protocol %s)\n", name, rep.Duration.Round(time.Millisecond), st.ServerName, st.ServerVersion, st.ProtocolVersion)
	fmt.Fprintf(stdout, "%d tools, %d prompts, %d resources\n", len(rep.Tools), len(rep.Prompts), rep.Resources)
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	for _, t := range rep.Tools {
		mode := "writes"
		if t.ReadOnly {
			mode = "read-only"
		}
		desc, _, _ := strings.Cut(t.Description, "\n")
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", t.Name, mode, desc)
	}
	for _, p := range rep.Prompts {
		fmt.Fprintf(tw, "  /%s\tprompt\t%s\n", p.Name, p.Description)
	}
	tw.Flush()
	return exitOK
}

func mcpBridge(ctx context.Context, args []string, stdout, stderr io.Writer, deps mcpDeps) int {
	fs := mcpNewFlags("bridge")
	addr := fs.String("addr", "127.0.0.1:0", "")
	workspace := fs.String("workspace", ".", "")
	token := fs.String("token", "", "")
	if err := fs.Parse(args); err != nil {
		return mcpUsageError(stderr, err.Error())
	}
	ws, err := filepath.Abs(*workspace)
	if err != nil {
		return mcpUsageError(stderr, err.Error())
	}
	reg := mcp.NewProviderRegistry(mcp.NewWorkspaceProvider(ws))
	if deps.Sessions != nil {
		_ = reg.Register(mcp.NewSessionsProvider(deps.Sessions))
	}
	if deps.Notifier != nil {
		_ = reg.Register(mcp.NewNotifyProvider(deps.Notifier))
	}
	b, err := mcp.StartBridge(ctx, reg, mcp.BridgeOptions{Addr: *addr, Token: *token, Caller: mcp.Caller{Workspace: ws}})
	if err != nil {
		return mcpFail(stderr, err)
	}
	fmt.Fprintf(stdout, "TinyElf MCP bridge on %s\nToken: %s\nTools: %s\n\n", b.URL(), b.Token(), strings.Join(b.Tools(), ", "))
	fmt.Fprintf(stdout, "Add this to your client's MCP config (.mcp.json, Claude Code):\n%s\n\n", b.ClientConfig("tinyelf"))
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
		return mcpFail(stderr, serveErr)
	}
	return exitOK
}

func mcpWriteJSON(stdout, stderr io.Writer, v any) int {
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return mcpFail(stderr, err)
	}
	return exitOK
}
