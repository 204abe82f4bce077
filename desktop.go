//go:build desktop

package main

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	wailsruntime "github.com/wailsapp/wails/v2/pkg/runtime"

	"tinyelf/backend/api"
	"tinyelf/backend/version"
)

//go:embed build/appicon.png
var appIcon []byte

// windowBackground matches --bg-app in frontend/src/app.css (light theme), so
// the window shows no flash of another colour before the page paints.
var windowBackground = &options.RGBA{R: 246, G: 247, B: 249, A: 255}

// runDesktop opens the TinyElf window and blocks until it is closed or ctx is
// cancelled (Ctrl+C, SIGTERM). It returns the process exit code. A second
// launch on the same data folder brings the first one's window to the
// front and exits 0.
func runDesktop(ctx context.Context, stderr io.Writer) int {
	launched := time.Now()
	if !hasDisplay(os.Getenv) {
		fmt.Fprint(stderr, noDisplayMessage)
		return exitError
	}
	dataDir, err := api.DataDir()
	if err != nil {
		fmt.Fprintf(stderr, "tinyelf: %v\n", err)
		return exitError
	}
	lockID := instanceID(dataDir)
	// Before anything starts (the session store, MCP servers): a window that
	// is already open is shown instead.
	if focusRunning(lockID) {
		fmt.Fprintln(stderr, "TinyElf is already running; its window was brought to the front.")
		return exitOK
	}
	assets := uiAssets

	svc, err := api.New(ctx, api.Options{Version: version.Version(), DataDir: dataDir, Surface: api.SurfaceDesktop, Titles: true})
	if err != nil {
		fmt.Fprintf(stderr, "tinyelf: %v\n", err)
		return exitError
	}
	defer svc.Close()
	for _, w := range svc.Warnings() { // the window shows them too
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	app := NewApp(svc)
	if os.Getenv("TINYELF_TIMING") != "" {
		app.timer = &startupTimer{start: launched, out: stderr}
	}
	saved := svc.WindowState()
	width, height := windowSize(saved)
	// beforeClose is the window's OnBeforeClose: it remembers the window and,
	// while tasks run, has the page ask first (true keeps the window open).
	beforeClose := func(wctx context.Context) bool {
		rememberWindow(wctx, svc, stderr)
		running, _ := svc.RunningTasks(context.Background(), struct{}{})
		asking := app.guard.ask(running)
		if note := closeNote(len(running), asking); note != "" {
			fmt.Fprintln(stderr, note)
		}
		if asking {
			wailsruntime.EventsEmit(wctx, CloseRequestedEvent, running)
			return true // the page asks; ConfirmClose closes
		}
		return false
	}
	// A close that is not asked about (a signal, "Stop and close") goes
	// through beforeClose too, then quits on GTK's thread.
	app.quitWindow = func(wctx context.Context) { quitWindow(wctx, beforeClose) }
	// Closing the window ends runDesktop; so does ctx ending (Ctrl+C, SIGTERM),
	// which quits the window from a watcher that stops when the window closes first.
	windowDone := make(chan struct{})
	onStartup := func(wctx context.Context) {
		app.startup(wctx)
		go func() {
			select {
			case <-ctx.Done():
				app.guard.force() // a signal is not asked about
				app.quit(wctx)
			case <-windowDone:
			}
		}()
	}

	err = wails.Run(&options.App{
		Title:            "TinyElf",
		Width:            width,
		Height:           height,
		MinWidth:         minWidth,
		MinHeight:        minHeight,
		BackgroundColour: windowBackground,
		AssetServer:      &assetserver.Options{Assets: assets},
		OnStartup:        onStartup,
		OnDomReady:       func(wctx context.Context) { restoreWindow(wctx, saved) },
		OnBeforeClose:    beforeClose,
		OnShutdown: func(c context.Context) {
			app.shutdown(c)
			close(windowDone)
		},
		Bind: []any{app},
		SingleInstanceLock: &options.SingleInstanceLock{
			UniqueId: lockID,
			OnSecondInstanceLaunch: func(options.SecondInstanceData) {
				wctx := app.runtimeContext()
				if wctx == nil {
					return
				}
				fmt.Fprintln(stderr, "tinyelf: a second launch: showing this window")
				wailsruntime.WindowUnminimise(wctx)
				wailsruntime.WindowShow(wctx)
				// Raise it above the other windows: GTK's show does not.
				wailsruntime.WindowSetAlwaysOnTop(wctx, true)
				wailsruntime.WindowSetAlwaysOnTop(wctx, false)
			},
		},
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

// restoreWindow puts the window where it was when it last closed, when
// that place is still on a screen.
func restoreWindow(wctx context.Context, saved *api.WindowState) {
	if saved == nil {
		return
	}
	if saved.Maximised {
		wailsruntime.WindowMaximise(wctx)
		return
	}
	var screens []screen
	if all, err := wailsruntime.ScreenGetAll(wctx); err == nil {
		for _, s := range all {
			screens = append(screens, screen{width: s.Size.Width, height: s.Size.Height})
		}
	}
	if placeable(*saved, screens) {
		wailsruntime.WindowSetPosition(wctx, saved.X, saved.Y)
	}
}

// rememberWindow saves the window's size and place; a maximised window
// keeps the size it had before.
func rememberWindow(wctx context.Context, svc windowSaver, stderr io.Writer) {
	st := api.WindowState{}
	if prev := svc.WindowState(); prev != nil {
		st = *prev
	}
	st.Maximised = wailsruntime.WindowIsMaximised(wctx)
	if !st.Maximised && !wailsruntime.WindowIsMinimised(wctx) {
		st.Width, st.Height = wailsruntime.WindowGetSize(wctx)
		st.X, st.Y = wailsruntime.WindowGetPosition(wctx)
	}
	if st.Width == 0 {
		st.Width, st.Height = defaultWidth, defaultHeight
	}
	if err := svc.SaveWindowState(st); err != nil {
		fmt.Fprintf(stderr, "tinyelf: remember the window's place: %v\n", err)
	}
}
