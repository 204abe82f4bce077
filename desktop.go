//go:build desktop

package main

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"os"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	wailsruntime "github.com/wailsapp/wails/v2/pkg/runtime"

	"tinyelf/backend/api"
)

//go:embed build/appicon.png
var appIcon []byte

// windowBackground matches --bg-app in frontend/src/app.css (light theme), so
// the window shows no flash of another colour before the page paints.
var windowBackground = &options.RGBA{R: 246, G: 247, B: 249, A: 255}

// runDesktop opens the TinyElf window and blocks until it is closed or ctx is
// cancelled (Ctrl+C, SIGTERM). It returns the process exit code.
func runDesktop(ctx context.Context, stderr io.Writer) int {
	if !hasDisplay(os.Getenv) {
		fmt.Fprint(stderr, noDisplayMessage)
		return exitError
	}
	assets := uiAssets

	svc, err := api.New(ctx, api.Options{Version: version, Titles: true})
	if err != nil {
		fmt.Fprintf(stderr, "tinyelf: %v\n", err)
		return exitError
	}
	defer svc.Close()
	for _, w := range svc.Warnings() { // the window shows them too
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	app := NewApp(svc)
	// Closing the window ends runDesktop; so does ctx ending (Ctrl+C, SIGTERM),
	// which quits the window from a watcher that stops when the window closes first.
	windowDone := make(chan struct{})
	onStartup := func(wctx context.Context) {
		app.startup(wctx)
		go func() {
			select {
			case <-ctx.Done():
				wailsruntime.Quit(wctx)
			case <-windowDone:
			}
		}()
	}

	err = wails.Run(&options.App{
		Title:            "TinyElf",
		Width:            1200,
		Height:           800,
		MinWidth:         720,
		MinHeight:        480,
		BackgroundColour: windowBackground,
		AssetServer:      &assetserver.Options{Assets: assets},
		OnStartup:        onStartup,
		OnShutdown: func(c context.Context) {
			app.shutdown(c)
			close(windowDone)
		},
		Bind: []any{app},
		Linux: &linux.Options{
			Icon:        appIcon,
			ProgramName: "tinyelf",
			// An agent's chat needs no GPU, and software rendering is what
			// works on every machine (remote desktops, VMs, Xvfb).
			WebviewGpuPolicy: linux.WebviewGpuPolicyNever,
		},
	})
	if err != nil {
		fmt.Fprintf(stderr, "tinyelf: desktop window: %v\n", err)
		return exitError
	}
	return exitOK
}
