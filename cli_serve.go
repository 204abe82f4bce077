package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"

	"tinyelf/backend/api"
	"tinyelf/backend/config"
)

// uiAssets is the built frontend; the desktop build embeds it (desktop.go)
// and other builds serve a page saying it is missing.
var uiAssets fs.FS

// openService opens the data folder and starts the service every surface
// shares.
func openService(ctx context.Context, opts api.Options) (*api.Service, error) {
	dir, err := config.DataDir()
	if err != nil {
		return nil, err
	}
	opts.DataDir = dir
	opts.Version = version
	return api.New(ctx, opts)
}

// runServe implements `tinyelf serve`: the UI for a browser on loopback.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("tinyelf serve", flag.ContinueOnError)
	flags.SetOutput(stderr)
	addr := flags.String("addr", "127.0.0.1:0", "address to listen on (loopback only)")
	if err := flags.Parse(args); err != nil {
		return exitUsage
	}
	svc, err := openService(ctx, api.Options{})
	if err != nil {
		fmt.Fprintf(stderr, "tinyelf serve: %v\n", err)
		return exitError
	}
	defer svc.Close()
	srv := &api.HTTPServer{Methods: svc.Methods(), Bus: svc.Bus, Assets: uiAssets, Token: api.NewToken(), Version: version}
	ln, err := srv.Listen(*addr)
	if err != nil {
		fmt.Fprintf(stderr, "tinyelf serve: %v\n", err)
		return exitError
	}
	if w := svc.Settings.Warning(); w != "" {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	fmt.Fprintf(stdout, "TinyElf is serving on %s\nOpen this URL in your browser (it carries the access token):\n%s\n", ln.Addr(), srv.URL())
	if err := srv.Serve(ctx, ln); err != nil {
		fmt.Fprintf(stderr, "tinyelf serve: %v\n", err)
		return exitError
	}
	return exitOK
}
