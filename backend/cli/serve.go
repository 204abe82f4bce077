package cli

import (
	"context"
	"flag"
	"fmt"
	"io"

	"tinyelf/backend/api"
)

const serveUsage = `Usage: tinyelf serve [--addr ADDR] [--allow-remote]

Serves the TinyElf UI to a browser: open the URL it prints (it carries the
access token). Runs until interrupted (Ctrl+C).

  --addr ADDR       the address to listen on (default 127.0.0.1:0, a free
                    port on loopback); only loopback addresses are accepted
                    unless --allow-remote is given
  --allow-remote    also accept an address other machines can reach
                    (0.0.0.0:PORT, [::]:PORT, :PORT, a LAN address); every
                    request, pages included, then needs the token. The
                    traffic is plain HTTP: use it on a network you trust.

Exit status: 0 when stopped, 1 on failure, 2 on a usage error.
`

// runServe implements `tinyelf serve`.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer, o Options) int {
	flags := flag.NewFlagSet("tinyelf serve", flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	addr := flags.String("addr", "127.0.0.1:0", "")
	allowRemote := flags.Bool("allow-remote", false, "")
	help := flags.Bool("help", false, "")
	flags.BoolVar(help, "h", false, "")
	if err := flags.Parse(args); err != nil {
		return usageError(stderr, "serve", err.Error())
	}
	if *help {
		fmt.Fprint(stdout, serveUsage)
		return exitOK
	}
	if flags.NArg() > 0 {
		return usageError(stderr, "serve", fmt.Sprintf("unexpected argument %q", flags.Arg(0)))
	}
	if !*allowRemote && !api.LoopbackAddr(*addr) {
		return usageError(stderr, "serve", fmt.Sprintf("refusing to listen on %s: other machines could reach it there. "+
			"TinyElf serves on loopback only (for example 127.0.0.1:8080); pass --allow-remote to serve other machines, "+
			"with the access token required on every request", *addr))
	}
	svc, err := api.New(ctx, api.Options{Version: o.Version, Titles: true})
	if err != nil {
		return fail(stderr, "serve", err)
	}
	defer svc.Close()
	srv := svc.NewHTTPServer(api.HTTPOptions{Assets: o.Assets, AllowRemote: *allowRemote})
	ln, err := srv.Listen(*addr)
	if err != nil {
		return fail(stderr, "serve", err)
	}
	warn(stderr, svc.Warnings())
	if *allowRemote && !api.LoopbackAddr(ln.Addr().String()) {
		fmt.Fprintf(stderr, "warning: --allow-remote: TinyElf is reachable from other machines on %s. Anyone who has the URL's token "+
			"can read and change files and run commands on this computer as you, and the traffic is not encrypted (plain HTTP): "+
			"use it only on a network you trust, or behind an SSH tunnel or a TLS proxy. Every request needs the token.\n", ln.Addr())
	}
	fmt.Fprintf(stdout, "TinyElf is serving on %s\nOpen this URL in your browser (it carries the access token):\n%s\n", ln.Addr(), srv.URL())
	if err := srv.Serve(ctx, ln); err != nil {
		return fail(stderr, "serve", err)
	}
	return exitOK
}
