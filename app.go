package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"

	wailsruntime "github.com/wailsapp/wails/v2/pkg/runtime"

	"tinyelf/backend/api"
	"tinyelf/backend/version"
)

// EventName is the Wails event that carries engine events to the window.
const EventName = "tinyelf:event"

// App is the object the desktop window binds: each exported method is callable
// from the frontend as window.go.main.App.Method and stays a thin delegate
// to backend/api (Call), so the window and `tinyelf serve` offer the same
// operations. Only what needs the window itself (native dialogs, events)
// lives here. It is safe for concurrent use.
type App struct {
	svc *api.Service

	mu   sync.Mutex
	ctx  context.Context // the Wails runtime context, set by startup
	stop func()          // ends the event forwarding

	// guard holds closing the window while tasks run (window.go).
	guard closeGuard
	// timer reports the time to an interactive page (TINYELF_TIMING).
	timer *startupTimer
	// quitWindow closes the window without asking (a signal, "Stop and
	// close"); nil means wailsruntime.Quit.
	quitWindow func(context.Context)
}

// NewApp returns an App over svc that is not yet attached to a window; svc
// may be nil in tests that only check the window's plumbing.
func NewApp(svc *api.Service) *App {
	return &App{svc: svc}
}

// startup is the window's OnStartup hook: it keeps the runtime context and
// forwards the service's events to the window. It is unexported so that
// Wails does not bind it as a frontend method.
func (a *App) startup(ctx context.Context) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ctx = ctx
	if a.svc == nil {
		return
	}
	events, unsubscribe := a.svc.Subscribe()
	a.stop = unsubscribe
	go func() {
		for ev := range events {
			wailsruntime.EventsEmit(ctx, EventName, ev)
		}
	}()
}

// shutdown is the window's OnShutdown hook.
func (a *App) shutdown(context.Context) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.stop != nil {
		a.stop()
		a.stop = nil
	}
}

// runtimeContext returns the Wails runtime context, or nil before startup.
func (a *App) runtimeContext() context.Context {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.ctx
}

// Version returns the TinyElf version string shown in the window's header.
func (a *App) Version() string {
	return version.Version()
}

// Call runs a service method with JSON arguments and returns its JSON
// result. An error's message is JSON too ({"code","message"}), so the
// frontend can tell error kinds apart.
func (a *App) Call(method, args string) (string, error) {
	if a.svc == nil {
		return "", fmt.Errorf(`{"code":"internal","message":"the service is not running"}`)
	}
	ctx := a.runtimeContext()
	if ctx == nil {
		ctx = context.Background()
	}
	res, err := a.svc.Call(ctx, method, json.RawMessage(args))
	if err != nil {
		e, ok := err.(*api.Error)
		if !ok {
			e = &api.Error{Code: api.CodeInternal, Message: err.Error()}
		}
		b, _ := json.Marshal(e)
		return "", fmt.Errorf("%s", b)
	}
	return string(res), nil
}

// GuardClose is called by the page once it can ask the user to confirm
// closing the window while tasks run (it listens for CloseRequestedEvent);
// until then, closing never waits.
func (a *App) GuardClose() {
	a.guard.setReady()
}

// ConfirmClose closes the window although tasks run: the user said so.
func (a *App) ConfirmClose() {
	a.guard.force()
	if ctx := a.runtimeContext(); ctx != nil {
		a.quit(ctx)
	}
}

// quit closes the window without asking: through quitWindow when the
// desktop set one, else through Wails.
func (a *App) quit(ctx context.Context) {
	if a.quitWindow != nil {
		a.quitWindow(ctx)
		return
	}
	wailsruntime.Quit(ctx)
}

// Ready is called by the page once it shows the app (or the first-run
// setup) and takes input; it marks the launch-to-interactive time.
func (a *App) Ready() {
	a.timer.ready()
}

// PickFolder shows the native folder dialog and returns the chosen folder,
// or "" when the user cancels.
func (a *App) PickFolder(title, start string) (string, error) {
	ctx := a.runtimeContext()
	if ctx == nil {
		return "", fmt.Errorf("no window")
	}
	return wailsruntime.OpenDirectoryDialog(ctx, wailsruntime.OpenDialogOptions{Title: title, DefaultDirectory: start})
}

// SaveFile asks where to save a file with the native dialog and writes
// content there; it returns the path, or "" when the user cancels.
func (a *App) SaveFile(filename, content string) (string, error) {
	ctx := a.runtimeContext()
	if ctx == nil {
		return "", fmt.Errorf("no window")
	}
	path, err := wailsruntime.SaveFileDialog(ctx, wailsruntime.SaveDialogOptions{DefaultFilename: filename})
	if err != nil || path == "" {
		return "", err
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		return "", fmt.Errorf("save %s: %w", path, err)
	}
	return path, nil
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
