//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	appconfig "tinyelf/backend/config"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/internal/smoke"
)

// The chat part of the smoke run: the window, set up with a fake model on
// loopback, is driven as a person would drive it (the keyboard, through
// xdotool, and the close button's WM_DELETE_WINDOW message). A message
// typed into it names the session, so the window's title must become the
// session's; the fake model holds its answer, so the turn still runs when
// the window is asked to close, and closing must ask first.

// chatMessage is the message the smoke types; the session is named after
// it until the background model names it (after the first answer, which
// the fake model holds back).
const chatMessage = "Fix the tests"

// The light theme's colours (frontend/src/app.css), which the chat part's
// settings choose: the app background, the dialog backdrop and its
// opacity, the dialog's panel and its danger button ("Stop and close").
var (
	lightPage     = color.RGBA{R: 0xf6, G: 0xf7, B: 0xf9, A: 255}
	lightBackdrop = color.RGBA{R: 20, G: 24, B: 28, A: 255}
	lightPanel    = color.RGBA{R: 0xff, G: 0xff, B: 0xff, A: 255}
	lightDanger   = color.RGBA{R: 0xb4, G: 0x23, B: 0x18, A: 255}
)

// closeDialog is the "Close TinyElf?" dialog (CloseConfirm.svelte) as the
// screen shows it: a small panel over the dimmed window, with the red
// "Stop and close" button.
var closeDialog = smoke.Dialog{
	Page: lightPage, Backdrop: lightBackdrop, Alpha: 0.38, Panel: lightPanel, Button: lightDanger,
	MinPanel: 0.03, MinButton: 1000,
}

// The app's log lines when the window is asked to close while the turn
// runs (window.go closeNote).
const (
	logAsking = "tinyelf: closing the window while 1 task runs: asking first"
	logStops  = "tinyelf: closing the window while 1 task runs: it stops"
)

// chatTarget is TinyElf's window with a model set up: the chat, not the
// first-run setup.
func chatTarget(cfg config) target {
	return target{
		name: "tinyelf-chat", launch: cfg.launch, title: cfg.title, rendered: cfg.rendered,
		settled: func(s smoke.Stats) (string, error) {
			if !near(s.Dominant, lightPage, 2) {
				return "", fmt.Errorf("the window's main colour is %s, not the light theme's background %s", smoke.Hex(s.Dominant), smoke.Hex(lightPage))
			}
			share := float64(s.Count(lightPanel)) / float64(max(s.Pixels, 1))
			if share >= cfg.setupShare {
				return "", fmt.Errorf("the window shows the first-run setup (panel colour %.1f%%), not the chat: the fake model's settings were not read", 100*share)
			}
			return "a new chat", nil
		},
	}
}

// checkChat runs the chat part in its own data folder, screen and bus
// under tmp.
func checkChat(cfg config, tmp string) error {
	began := time.Now()
	llm := llmtest.Start() // on loopback; Close ends the held stream too
	defer llm.Close()
	llm.SetModels("test-model")
	// Two words, then the answer waits until the smoke lets it go on
	// (it never does): the turn runs for as long as the smoke needs.
	llm.SetDefault(llmtest.Turn{Text: "Looking at the tests now, one moment please.", PauseAfter: 2})
	llm.AddRoute(llmtest.Route{System: "You name chat sessions", Turn: llmtest.Turn{Text: " "}})
	defer writeModelLog(filepath.Join(cfg.out, "fake-model.log"), llm)

	workspace := filepath.Join(tmp, "workspace")
	if err := os.MkdirAll(workspace, 0o755); err != nil {
		return err
	}
	settings := appconfig.Settings{
		Version:         appconfig.SettingsVersion,
		Providers:       []appconfig.Provider{{Name: "Fake model", Kind: "openai", Preset: "custom", BaseURL: llm.URL, Model: "test-model", StallTimeoutSeconds: 3600}},
		DefaultProvider: "Fake model",
		Theme:           "light",
		Language:        "en",
		LastWorkspace:   workspace,
	}
	if err := appconfig.WriteJSONAtomic(filepath.Join(cfg.launch.dataDir(tmp), "settings.json"), settings); err != nil {
		return err
	}
	logf("fake model on %s; the app's settings point at it", llm.URL)

	s, err := openWindow(chatTarget(cfg), tmp, filepath.Join(cfg.out, "app-chat.log"),
		filepath.Join(cfg.out, "desktop-chat.png"), cfg.timeout)
	if err != nil {
		return err
	}
	defer s.close()
	wait := 30 * time.Second

	// Type the message as a person at the keyboard: Ctrl+N (a new chat,
	// which puts the cursor in the message box wherever it was), the text,
	// Enter to send.
	if err := s.xdotool("windowfocus", "--sync", s.win.ID); err != nil {
		return s.fail("give the window the keyboard focus: %v", err)
	}
	for _, keys := range [][]string{{"key", "ctrl+n"}, {"type", "--delay", "40", chatMessage}, {"key", "Return"}} {
		if err := s.xdotool(keys...); err != nil {
			return s.fail("xdotool %s: %v", strings.Join(keys, " "), err)
		}
	}
	err = s.waitFor("the fake model to be asked "+fmt.Sprintf("%q", chatMessage)+" and to hold its answer", wait, func() error {
		var asked []string
		for _, r := range llm.ChatRequests() {
			if !strings.Contains(r.System(), "You name chat sessions") {
				asked = append(asked, r.LastUserText())
			}
		}
		switch {
		case len(asked) == 0:
			return errors.New("no chat request yet (did the typing reach the message box?)")
		case asked[0] != chatMessage:
			return fmt.Errorf("the model was asked %q", asked)
		case llm.Paused() != 1:
			return fmt.Errorf("%d answers held, want 1", llm.Paused())
		}
		return nil
	})
	if err != nil {
		return err
	}
	logf("ok: the message typed into the window went to the fake model, which holds its answer (the turn runs)")

	wantTitle := chatMessage + " — " + cfg.title
	if err := s.waitFor(fmt.Sprintf("the window title %q", wantTitle), wait, func() error {
		return s.checkTitle(wantTitle)
	}); err != nil {
		return err
	}
	logf("ok: the window title names the session: %q", wantTitle)

	// The close button while the turn runs: the window stays and asks.
	dialog, err := s.requestClose("the first", wantTitle, wait)
	if err != nil {
		return err
	}
	shot := filepath.Join(cfg.out, "desktop-close-dialog.png")
	if err := s.saveScreen(shot); err != nil {
		return err
	}
	logf("ok: closing while the turn runs asks first: the dialog at %v over the dimmed window (screenshot %s)", dialog, shot)

	// Enter answers the focused button, the safe one: keep working. Asked
	// again, Esc answers the same.
	for i, answer := range []struct{ key, what string }{{"Return", "Keep working (Enter, the dialog's default)"}, {"Escape", "Esc"}} {
		if i > 0 {
			if _, err := s.requestClose("a second", wantTitle, wait); err != nil {
				return err
			}
		}
		if err := s.keepWorking(answer.key, answer.what, wantTitle, llm, wait); err != nil {
			return err
		}
		logf("ok: %s keeps the window, its title and the running turn", answer.what)
	}

	// Asked a third time, the other button: Tab to "Stop and close", Enter.
	if _, err := s.requestClose("a third", wantTitle, wait); err != nil {
		return err
	}
	for _, key := range []string{"Tab", "Return"} {
		if err := s.xdotool("key", key); err != nil {
			return s.fail("xdotool key %s: %v", key, err)
		}
	}
	select {
	case <-s.app.done:
	case <-time.After(wait):
		_ = s.saveScreen(s.failedShot)
		return s.fail("the app did not exit within %s of Stop and close (screenshot %s)", wait, s.failedShot)
	}
	s.app.stop(syscall.SIGKILL, time.Second) // WebKit helpers, if they linger
	if s.app.err != nil {
		return s.fail("after Stop and close the app exited with %v, want exit 0", s.app.err)
	}
	if !s.logged(logStops) {
		return s.fail("the app exited but did not log %q: it did not close through the window's close path", logStops)
	}
	// The turn ended with the app: the fake model's held stream lost its
	// client.
	deadline := time.Now().Add(10 * time.Second)
	for llm.Paused() != 0 {
		if time.Now().After(deadline) {
			return s.fail("the fake model still holds an answer 10 s after the app exited")
		}
		time.Sleep(50 * time.Millisecond)
	}
	logf("ok: Stop and close ends the turn and the app, exit 0 (the chat part took %s)", time.Since(began).Round(100*time.Millisecond))
	return nil
}

// keepWorking answers the close dialog with key and requires that the
// dialog goes and the window, its title and the turn stay; what names the
// answer in errors.
func (s *session) keepWorking(key, what, title string, llm *llmtest.Server, wait time.Duration) error {
	if err := s.xdotool("key", key); err != nil {
		return s.fail("xdotool key %s: %v", key, err)
	}
	if err := s.waitFor("the close dialog to go after "+what, wait, func() error {
		img, err := readScreen(s.screen)
		if err != nil {
			return err
		}
		if st := smoke.Analyze(img, s.win.Bounds); !near(st.Dominant, lightPage, 2) {
			return fmt.Errorf("the window's main colour is %s, not the undimmed background %s", smoke.Hex(st.Dominant), smoke.Hex(lightPage))
		}
		return nil
	}); err != nil {
		return err
	}
	if _, err := findWindow(s.display, title); err != nil {
		return s.fail("after %s: %v", what, err)
	}
	if err := s.checkTitle(title); err != nil {
		return s.fail("after %s: %v", what, err)
	}
	if n := llm.Paused(); n != 1 {
		return s.fail("after %s the fake model holds %d answers, want 1: the turn ended", what, n)
	}
	return nil
}

// requestClose sends the window the close button's message and waits
// until the close dialog shows, the app still running and its log saying
// it asks; it returns where the dialog is. nth names the request in
// errors; title is the window's.
func (s *session) requestClose(nth, title string, wait time.Duration) (image.Rectangle, error) {
	asked := strings.Count(s.output(), logAsking)
	if err := smoke.RequestClose(s.display, s.win.ID, 10*time.Second); err != nil {
		return image.Rectangle{}, s.fail("ask the window to close (WM_DELETE_WINDOW): %v", err)
	}
	var dialog image.Rectangle
	err := s.waitFor(fmt.Sprintf("the close dialog after %s close request", nth), wait, func() error {
		if n := strings.Count(s.output(), logAsking); n <= asked {
			return fmt.Errorf("the app has not logged %q", logAsking)
		}
		img, err := readScreen(s.screen)
		if err != nil {
			return err
		}
		dialog, err = closeDialog.Find(img, s.win.Bounds)
		return err
	})
	if err != nil {
		return dialog, err
	}
	if _, err := findWindow(s.display, title); err != nil {
		return dialog, s.fail("while the close dialog shows: %v", err)
	}
	return dialog, nil
}

// waitFor polls cond until it returns nil. It fails, saving the screen to
// s.failedShot, when timeout passes (naming what it awaited and cond's last
// complaint) or the app exits first.
func (s *session) waitFor(what string, timeout time.Duration, cond func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return nil
		}
		if s.app.exited() {
			return s.fail("the app exited (%v) while the smoke waited for %s: %v", s.app.err, what, err)
		}
		if time.Now().After(deadline) {
			_ = s.saveScreen(s.failedShot)
			return s.fail("waited %s for %s: %v (screenshot %s)", timeout, what, err, s.failedShot)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// xdotool runs xdotool on the session's screen.
func (s *session) xdotool(args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "xdotool", args...)
	cmd.Env = s.env
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// checkTitle requires the window's _NET_WM_NAME to be want.
func (s *session) checkTitle(want string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "xprop", "-display", s.display, "-id", s.win.ID, "_NET_WM_NAME").CombinedOutput()
	if err != nil {
		return fmt.Errorf("xprop _NET_WM_NAME: %v: %s", err, out)
	}
	if name, _ := smoke.PropertyText(string(out), "_NET_WM_NAME"); name != want {
		return fmt.Errorf("the window title is %q", name)
	}
	return nil
}

// output is the app's output so far.
func (s *session) output() string {
	s.logFile.Sync()
	b, _ := os.ReadFile(s.logPath)
	return string(b)
}

// logged reports whether the app's output has the line.
func (s *session) logged(line string) bool {
	return strings.Contains(s.output(), line)
}

// saveScreen saves the whole screen as a PNG.
func (s *session) saveScreen(path string) error {
	img, err := readScreen(s.screen)
	if err != nil {
		return err
	}
	return savePNG(path, img)
}

// writeModelLog lists what the fake model was asked, for the artifacts.
func writeModelLog(path string, llm *llmtest.Server) {
	var b strings.Builder
	for _, r := range llm.Requests() {
		fmt.Fprintf(&b, "%s %s", r.Method, r.Path)
		if r.Format() != "" {
			if strings.Contains(r.System(), "You name chat sessions") {
				b.WriteString(" (the session title)")
			}
			fmt.Fprintf(&b, " last user message %q", r.LastUserText())
		}
		b.WriteByte('\n')
	}
	_ = os.WriteFile(path, []byte(b.String()), 0o644)
}
