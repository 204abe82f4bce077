// Command tinyelf is the TinyElf desktop AI agent. With no arguments it opens
// the desktop window; subcommands (backend/cli) run the same engine headless.
package main

import (
	"io/fs"
	"os"

	"tinyelf/backend/cli"
	"tinyelf/backend/version"
)

// uiAssets is the built frontend; the desktop build embeds it (ui_embed.go)
// and other builds serve a page saying it is missing.
var uiAssets fs.FS

// Exit codes of the desktop entry.
const (
	exitOK    = 0
	exitError = 1
)

func main() {
	os.Exit(cli.Main(os.Args[1:], cli.Options{Version: version.Version(), Assets: uiAssets, Desktop: runDesktop}))
}
