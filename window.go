package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"sync"
	"time"

	"tinyelf/backend/api"
)

// CloseRequestedEvent is the Wails event that asks the window's page to
// confirm closing while tasks run; its data lists their titles.
const CloseRequestedEvent = "tinyelf:close-requested"

// Default and smallest window sizes.
const (
	defaultWidth, defaultHeight = 1200, 800
	minWidth, minHeight         = 720, 480
)

// closeGuard decides whether closing the window waits for the user: it
// does while a task runs and the page has said it can ask (GuardClose), so a
// page that never loaded cannot keep the window open. It is safe for
// concurrent use.
type closeGuard struct {
	mu     sync.Mutex
	ready  bool // the page listens for CloseRequestedEvent
	forced bool // the user confirmed, or TinyElf is quitting (SIGTERM)
}

// setReady records that the page can ask.
func (g *closeGuard) setReady() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.ready = true
}

// force lets the next close through.
func (g *closeGuard) force() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.forced = true
}

// ask reports whether a close with these running tasks must first be
// confirmed by the user.
func (g *closeGuard) ask(running []string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return !g.forced && g.ready && len(running) > 0
}

// closeNote is the log line for a close of the window while n tasks run,
// whether the page asks first or they stop (the user confirmed, TinyElf is
// quitting, or the page cannot ask); "" when nothing runs.
func closeNote(n int, asking bool) string {
	if n == 0 {
		return ""
	}
	tasks, stop := "1 task runs", "it stops"
	if n > 1 {
		tasks, stop = fmt.Sprintf("%d tasks run", n), "they stop"
	}
	if asking {
		return "tinyelf: closing the window while " + tasks + ": asking first"
	}
	return "tinyelf: closing the window while " + tasks + ": " + stop
}

// instanceID names the single-instance lock of a data folder: one window
// per data folder, so a second launch with the same data focuses the first,
// while a test's TINYELF_HOME never meets the user's own TinyElf.
func instanceID(dataDir string) string {
	sum := sha256.Sum256([]byte(dataDir))
	return "tinyelf-" + hex.EncodeToString(sum[:6])
}

// screen is a monitor's size, for placing a remembered window.
type screen struct{ width, height int }

// placeable reports whether a remembered window would show on one of the
// screens: at least 100 pixels of it on screen, its title bar reachable.
// A window saved on a monitor that is gone opens centred instead.
func placeable(w api.WindowState, screens []screen) bool {
	if len(screens) == 0 {
		return true // nothing known: trust the saved place
	}
	for _, s := range screens {
		if w.X > -w.Width+100 && w.X < s.width-100 && w.Y >= 0 && w.Y < s.height-50 {
			return true
		}
	}
	return false
}

// windowSize is the size to open at: the remembered one, else the default,
// never below the minimum.
func windowSize(w *api.WindowState) (int, int) {
	if w == nil {
		return defaultWidth, defaultHeight
	}
	return max(w.Width, minWidth), max(w.Height, minHeight)
}

// startupTimer reports, when TINYELF_TIMING is set, how long the window
// took from launch to its page being interactive (the smoke run reads it
// for the benchmark figures).
type startupTimer struct {
	start time.Time
	out   io.Writer // nil: silent
	once  sync.Once
}

// ready logs the time to an interactive page once.
func (s *startupTimer) ready() {
	if s == nil || s.out == nil {
		return
	}
	s.once.Do(func() {
		fmt.Fprintf(s.out, "tinyelf: timing: interactive after %d ms\n", time.Since(s.start).Milliseconds())
	})
}

// windowSaver remembers the window's place in the settings.
type windowSaver interface {
	SaveWindowState(api.WindowState) error
	WindowState() *api.WindowState
	RunningTasks(context.Context, struct{}) ([]string, error)
}
