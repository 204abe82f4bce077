package main

import (
	"context"
	"sync"
)

// version is the TinyElf release this binary reports; release builds set it
// with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// App is the object the desktop window binds: each exported method is callable
// from the frontend as window.go.main.App.Method and must stay a thin delegate
// to backend/api, so the window and `tinyelf serve` behave the same. It is safe
// for concurrent use.
type App struct {
	mu  sync.Mutex
	ctx context.Context // the Wails runtime context, set by startup
}

// NewApp returns an App that is not yet attached to a window.
func NewApp() *App {
	return &App{}
}

// startup is the window's OnStartup hook. It is unexported so that Wails does
// not bind it as a frontend method.
func (a *App) startup(ctx context.Context) {
	a.mu.Lock()
	a.ctx = ctx
	a.mu.Unlock()
}

// runtimeContext returns the Wails runtime context, or nil before startup.
func (a *App) runtimeContext() context.Context {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.ctx
}

// Version returns the TinyElf version string shown in the window's header.
func (a *App) Version() string {
	return version
}

// noDisplayMessage is what `tinyelf` prints when there is no screen to open
// its window on.
const noDisplayMessage = `TinyElf needs a graphical display to open its window. No DISPLAY or WAYLAND_DISPLAY is set.
To use TinyElf in a browser instead, run: tinyelf serve
`

// hasDisplay reports whether the environment names an X11 or Wayland display.
func hasDisplay(getenv func(string) string) bool {
	return getenv("DISPLAY") != "" || getenv("WAYLAND_DISPLAY") != ""
}
