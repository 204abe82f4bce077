//go:build linux

// Command smoke checks that the desktop binary opens a real, rendered window.
//
// It runs the binary three times. First with no DISPLAY, where it must print
// the no-display message and exit non-zero. Then on a private Xvfb screen
// with a private D-Bus session bus, where a window named TinyElf must appear
// and show the app, not a blank or black area; the screenshot is saved as a
// PNG for people to look at. The data folder is new, so the first screen
// must be the first-run setup (the card that connects a model), as in the
// browser tests' first screenshot. The window must carry TinyElf's icon and
// title (xprop). A second launch on the same bus and data folder must exit
// at once, leaving one window, which the first instance brings to the
// front. Then SIGTERM must close the window. It prints the time from launch
// to an interactive window and the idle window's memory (the app and its
// WebKit processes, RSS).
//
// Last (chat.go), the window opens once more, on a new screen, bus and data
// folder whose settings name a fake model it starts on loopback; the fake
// model holds its answer back. The smoke types a message into the window
// (xdotool: Ctrl+N, the text, Enter), and the window's title must become
// "<message> — TinyElf". Asked to close as a close button asks (the ICCCM
// WM_DELETE_WINDOW message), the window must stay and show its "Close
// TinyElf?" dialog (screenshot desktop-close-dialog.png); Enter (Keep
// working, the default) and, asked again, Esc must keep the window, its
// title and the turn; asked a third time, Tab and Enter (Stop and close)
// must end the turn and the app, exit 0. Every wait has a deadline; the
// app's output (app.log, app-chat.log) and what the fake model was asked
// (fake-model.log) are kept beside the screenshots.
//
// With -desktop-entry FILE every launch is the one a click in the
// application menu makes: FILE's Exec line, resolved on a desktop session's
// PATH (it must be the -bin binary), in the environment a desktop session
// gives and nothing else: no TINYELF_HOME, so the data folder must be the
// XDG default, ~/.config/tinyelf of the smoke's own home. scripts/
// package-test.sh runs it so against the installed package.
//
// With -memory N it checks nothing else: it measures the idle memory of
// TinyElf's window and of the Wails hello-world window (-hello, built from
// scripts/smoke/hello) N times each, taking turns, each on a new screen and
// bus and, for TinyElf, a new data folder, and prints the ranges.
//
// Usage: go run ./scripts/smoke -bin build/bin/tinyelf -out artifacts/smoke
//
//	go run ./scripts/smoke -bin /usr/bin/tinyelf -desktop-entry /usr/share/applications/tinyelf.desktop -out artifacts/package-smoke
//
//	go run ./scripts/smoke -memory 3 -bin build/bin/tinyelf -hello build/bin/wails-hello -out artifacts/smoke-memory
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"tinyelf/internal/smoke"
)

func main() {
	var cfg config
	flag.StringVar(&cfg.bin, "bin", "build/bin/tinyelf", "the desktop binary to check")
	flag.StringVar(&cfg.out, "out", "artifacts/smoke", "folder for the screenshot and the app's log")
	flag.DurationVar(&cfg.timeout, "timeout", 60*time.Second, "how long to wait for the window to render")
	flag.StringVar(&cfg.title, "title", "TinyElf", "the window title to wait for")
	accents := flag.String("accent", "1f8a66,2fa67e", "colours of which at least one must cover -accent-pixels pixels (the app's accent, light and dark)")
	flag.IntVar(&cfg.rendered.MinCount, "accent-pixels", 400, "see -accent")
	flag.IntVar(&cfg.rendered.MinDistinctColors, "min-colours", 32, "a rendered window shows at least this many distinct colours")
	panels := flag.String("panel", "ffffff,1f2226", "the panel colours (app.css --bg-panel, light and dark) of the first-run setup card")
	flag.Float64Var(&cfg.setupShare, "setup-share", 0.25, "the first-run setup card covers at least this share of the window in a panel colour (the chat shell shows far less)")
	flag.IntVar(&cfg.memoryRuns, "memory", 0, "measure the idle windows' memory this many times each instead of running the checks")
	flag.StringVar(&cfg.hello, "hello", "build/bin/wails-hello", "with -memory: the Wails hello-world binary (scripts/smoke/hello)")
	flag.DurationVar(&cfg.idle, "idle", 5*time.Second, "with -memory: how long a settled window idles before its memory is read")
	flag.StringVar(&cfg.desktopEntry, "desktop-entry", "", "launch as this desktop entry's Exec line does, in a desktop session's bare environment (no TINYELF_HOME)")
	flag.Parse()
	cfg.rendered.MaxBlackShare = 0.05
	for _, s := range strings.Split(*accents, ",") {
		c, err := smoke.ParseHex(strings.TrimSpace(s))
		if err != nil {
			fatalf("-accent: %v", err)
		}
		cfg.rendered.AnyOf = append(cfg.rendered.AnyOf, c)
	}
	for _, s := range strings.Split(*panels, ",") {
		c, err := smoke.ParseHex(strings.TrimSpace(s))
		if err != nil {
			fatalf("-panel: %v", err)
		}
		cfg.panels = append(cfg.panels, c)
	}
	if err := run(cfg); err != nil {
		fatalf("%v", err)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "smoke: FAIL: "+format+"\n", args...)
	os.Exit(1)
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "smoke: "+format+"\n", args...)
}

type config struct {
	bin, out, title string
	timeout         time.Duration
	rendered        smoke.Rendered
	panels          []color.RGBA
	setupShare      float64
	memoryRuns      int
	hello           string
	idle            time.Duration
	desktopEntry    string
	// launch is how the app is started (-bin, or -desktop-entry).
	launch launcher
}

func run(cfg config) error {
	bin, err := filepath.Abs(cfg.bin)
	if err != nil {
		return err
	}
	if _, err := os.Stat(bin); err != nil {
		return fmt.Errorf("desktop binary: %w (build it with bash scripts/run.sh or task build)", err)
	}
	cfg.launch = binaryLauncher(bin)
	if cfg.desktopEntry != "" {
		if cfg.launch, err = entryLauncher(cfg.desktopEntry); err != nil {
			return err
		}
		if err := sameFile(cfg.launch.argv[0], bin); err != nil {
			return fmt.Errorf("%s: %w", cfg.desktopEntry, err)
		}
	}
	logf("launching %s", cfg.launch.how)
	for _, tool := range []string{"Xvfb", "dbus-daemon", "xwininfo", "xprop", "xdotool"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%s not found: install xvfb, dbus, x11-utils and xdotool (bash scripts/smoke.sh and scripts/test.sh do)", tool)
		}
	}
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		return err
	}
	if cfg.memoryRuns > 0 {
		hello, err := filepath.Abs(cfg.hello)
		if err != nil {
			return err
		}
		if _, err := os.Stat(hello); err != nil {
			return fmt.Errorf("hello-world binary: %w (bash scripts/smoke.sh memory builds it)", err)
		}
		return measureMemory(cfg, []target{tinyelfTarget(cfg), helloTarget(hello)})
	}
	tmp, err := os.MkdirTemp("", "tinyelf-smoke-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	if err := checkNoDisplay(cfg.launch, tmp); err != nil {
		return err
	}
	logf("ok: without a display the binary explains itself and exits non-zero")
	if err := checkWindow(cfg, tmp); err != nil {
		return err
	}
	chat := filepath.Join(tmp, "chat")
	if err := os.MkdirAll(chat, 0o755); err != nil {
		return err
	}
	return checkChat(cfg, chat)
}

// sameFile fails unless a and b are the same file.
func sameFile(a, b string) error {
	fa, err := os.Stat(a)
	if err != nil {
		return err
	}
	fb, err := os.Stat(b)
	if err != nil {
		return err
	}
	if !os.SameFile(fa, fb) {
		return fmt.Errorf("it starts %s, not %s", a, b)
	}
	return nil
}

// baseEnv is the environment without any display, so the checks never touch
// the developer's own screen.
func baseEnv(tmp string) []string {
	var env []string
	for _, kv := range os.Environ() {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "DISPLAY", "WAYLAND_DISPLAY", "TINYELF_HOME", "XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS", "XAUTHORITY",
			"HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME":
			continue
		}
		env = append(env, kv)
	}
	runtimeDir := filepath.Join(tmp, "runtime")
	_ = os.MkdirAll(runtimeDir, 0o700)
	// A home of its own too: WebKit keeps the page's storage there, and
	// the user's own TinyElf must neither shape the smoke's window nor be
	// touched by it.
	userHome := filepath.Join(tmp, "user")
	_ = os.MkdirAll(userHome, 0o700)
	return append(env, "TINYELF_HOME="+filepath.Join(tmp, "home"), "XDG_RUNTIME_DIR="+runtimeDir, "HOME="+userHome)
}

func checkNoDisplay(l launcher, tmp string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := l.commandContext(ctx)
	cmd.Env = l.env(tmp)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("no-display run did not exit within 30 s; stderr:\n%s", stderr.String())
	case err == nil:
		return fmt.Errorf("no-display run exited 0, want non-zero; stderr:\n%s", stderr.String())
	case !errors.As(err, &exitErr):
		return fmt.Errorf("no-display run: %w", err)
	}
	for _, want := range []string{"needs a graphical display", "No DISPLAY or WAYLAND_DISPLAY is set", "tinyelf serve"} {
		if !strings.Contains(stderr.String(), want) {
			return fmt.Errorf("no-display run (exit %d) did not say %q; stderr:\n%s", exitErr.ExitCode(), want, stderr.String())
		}
	}
	return nil
}

// process is a started command in its own process group.
type process struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

func start(cmd *exec.Cmd) (*process, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop sends sig to the whole process group and waits up to grace for the
// leader to exit, then kills the group. It reports whether the leader exited
// within grace.
func (p *process) stop(sig syscall.Signal, grace time.Duration) bool {
	pgid := p.cmd.Process.Pid
	_ = syscall.Kill(-pgid, sig)
	select {
	case <-p.done:
		_ = syscall.Kill(-pgid, syscall.SIGKILL) // stragglers (dbus-daemon, WebKit helpers)
		return true
	case <-time.After(grace):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-p.done
		return false
	}
}

func startXvfb(tmp string) (*process, string, string, error) {
	fbdir := filepath.Join(tmp, "fb")
	if err := os.MkdirAll(fbdir, 0o755); err != nil {
		return nil, "", "", err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, "", "", err
	}
	defer r.Close()
	// -ardelay: a key xdotool presses never repeats, however long a busy
	// machine holds it down.
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x800x24", "-fbdir", fbdir,
		"-nolisten", "tcp", "-noreset", "-ardelay", "30000")
	cmd.ExtraFiles = []*os.File{w} // fd 3
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	xvfb, err := start(cmd)
	w.Close()
	if err != nil {
		return nil, "", "", fmt.Errorf("start Xvfb: %w", err)
	}
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		lines <- strings.TrimSpace(line)
	}()
	select {
	case n := <-lines:
		if _, err := strconv.Atoi(n); err != nil {
			xvfb.stop(syscall.SIGTERM, 5*time.Second)
			return nil, "", "", fmt.Errorf("Xvfb did not report a display number (%q); stderr:\n%s", n, stderr.String())
		}
		return xvfb, ":" + n, filepath.Join(fbdir, "Xvfb_screen0"), nil
	case <-time.After(20 * time.Second):
		xvfb.stop(syscall.SIGTERM, 5*time.Second)
		return nil, "", "", fmt.Errorf("Xvfb did not start within 20 s; stderr:\n%s", stderr.String())
	}
}

// target is a desktop binary the smoke opens and what its settled window
// must show.
type target struct {
	name     string // for the log lines and file names
	launch   launcher
	title    string // the window title to wait for
	rendered smoke.Rendered
	// settled checks the settled frame beyond rendered and returns a note
	// for the log.
	settled func(smoke.Stats) (string, error)
}

// tinyelfTarget is TinyElf's window on a new data folder: the first-run
// setup.
func tinyelfTarget(cfg config) target {
	return target{
		name: "tinyelf", launch: cfg.launch, title: cfg.title, rendered: cfg.rendered,
		settled: func(s smoke.Stats) (string, error) {
			share, err := settledFirstRun(cfg, s)
			return fmt.Sprintf("the first-run setup (panel colour %.1f%%)", 100*share), err
		},
	}
}

// helloBackground is the page colour of scripts/smoke/hello/index.html.
var helloBackground = color.RGBA{R: 0x1b, G: 0x26, B: 0x36, A: 255}

// helloTarget is the Wails hello-world window (scripts/smoke/hello): its
// page, not WebKit's white or Xvfb's black, must fill the window, with text
// on it.
func helloTarget(bin string) target {
	return target{
		name: "wails-hello", launch: binaryLauncher(bin), title: "Wails hello",
		rendered: smoke.Rendered{MinDistinctColors: 8, MaxBlackShare: 0.05, AnyOf: []color.RGBA{helloBackground}, MinCount: 100_000},
		settled: func(s smoke.Stats) (string, error) {
			if !near(s.Dominant, helloBackground, 2) {
				return "", fmt.Errorf("the window's main colour is %s, not the page's %s", smoke.Hex(s.Dominant), smoke.Hex(helloBackground))
			}
			return fmt.Sprintf("the hello page (background %.1f%%)", 100*s.DominantShare), nil
		},
	}
}

// session is a started app whose window has rendered and settled, on a
// private Xvfb screen with a private D-Bus session bus.
type session struct {
	xvfb, bus, app *process
	display        string
	env            []string
	win            smoke.Window
	rendered       time.Duration // from launch to the first rendered frame
	img            *image.RGBA   // the settled frame
	stats          smoke.Stats
	logPath        string
	logFile        *os.File
	screen         string // the Xvfb framebuffer file
	failedShot     string // where a failed wait saves the screen
}

// fail returns an error with the app's output so far.
func (s *session) fail(format string, args ...any) error {
	s.logFile.Sync()
	appLog, _ := os.ReadFile(s.logPath)
	return fmt.Errorf(format+"\n--- app output (%s) ---\n%s--- end of app output ---",
		append(args, s.logPath, appLog)...)
}

// close kills the app's process group (if it still runs), the bus and the
// screen.
func (s *session) close() {
	if s.app != nil {
		s.app.stop(syscall.SIGKILL, 5*time.Second)
	}
	if s.bus != nil {
		s.bus.stop(syscall.SIGTERM, 5*time.Second)
	}
	if s.xvfb != nil {
		s.xvfb.stop(syscall.SIGTERM, 5*time.Second)
	}
	if s.logFile != nil {
		s.logFile.Close()
	}
}

// openWindow starts t on a new screen and bus, with its output in logPath,
// and waits until its window has rendered and settled: the first frame that
// passes every check and equals the frame one poll before it. Failing, it
// saves the screen to shot and cleans up after itself; otherwise the
// caller closes the session.
func openWindow(t target, tmp, logPath, shot string, timeout time.Duration) (_ *session, err error) {
	s := &session{logPath: logPath, failedShot: strings.TrimSuffix(shot, ".png") + "-failed.png"}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	if s.xvfb, s.display, s.screen, err = startXvfb(tmp); err != nil {
		return nil, err
	}
	screenFile := s.screen
	logf("Xvfb is up on display %s", s.display)
	if s.logFile, err = os.Create(logPath); err != nil {
		return nil, err
	}
	var busAddr string
	if s.bus, busAddr, err = startBus(tmp); err != nil {
		return nil, err
	}
	s.env = append(t.launch.env(tmp), "DISPLAY="+s.display, "DBUS_SESSION_BUS_ADDRESS="+busAddr)
	cmd := t.launch.command()
	cmd.Env = s.env
	cmd.Stdout, cmd.Stderr = s.logFile, s.logFile
	started := time.Now()
	if s.app, err = start(cmd); err != nil {
		return nil, fmt.Errorf("start %s: %w", t.launch.how, err)
	}

	// Poll until a window with the title is viewable and its contents look rendered.
	var lastErr error = errors.New("no window yet")
	deadline := started.Add(timeout)
	for {
		if s.app.exited() {
			return nil, s.fail("the app exited before its window rendered (%v)", s.app.err)
		}
		if time.Now().After(deadline) {
			if img, err := readScreen(screenFile); err == nil {
				_ = savePNG(strings.TrimSuffix(shot, ".png")+"-failed.png", img)
			}
			return nil, s.fail("no rendered window within %s: %v", timeout, lastErr)
		}
		time.Sleep(500 * time.Millisecond)
		s.win, lastErr = findWindow(s.display, t.title)
		if lastErr != nil {
			continue
		}
		img, err := readScreen(screenFile)
		if err != nil {
			lastErr = err
			continue
		}
		lastErr = t.rendered.Check(smoke.Analyze(img, s.win.Bounds))
		if lastErr == nil {
			break
		}
	}
	s.rendered = time.Since(started)
	logf("window %q at %v rendered after %s", t.title, s.win.Bounds, s.rendered.Round(100*time.Millisecond))

	// Wait for the page to settle (fonts, version text, the look for a local
	// model server).
	var (
		prev *image.RGBA
		note string
	)
	settleBy := time.Now().Add(timeout)
	for {
		time.Sleep(250 * time.Millisecond)
		if s.img, err = readScreen(screenFile); err != nil {
			return nil, s.fail("read the screen: %v", err)
		}
		s.stats = smoke.Analyze(s.img, s.win.Bounds)
		if lastErr = t.rendered.Check(s.stats); lastErr != nil {
			lastErr = fmt.Errorf("after settling: %w", lastErr)
		} else {
			note, lastErr = t.settled(s.stats)
		}
		if lastErr == nil && prev != nil && sameArea(prev, s.img, s.win.Bounds) {
			break
		}
		if time.Now().After(settleBy) {
			_ = savePNG(shot, s.img)
			if lastErr == nil {
				lastErr = errors.New("the window kept changing")
			}
			return nil, s.fail("the window did not settle within %s: %v (screenshot %s)", timeout, lastErr, shot)
		}
		prev = s.img
	}
	if err := savePNG(shot, s.img); err != nil {
		return nil, err
	}
	logf("ok: window shows %s: %s", note, s.stats)
	logf("screenshot: %s", shot)
	return s, nil
}

func checkWindow(cfg config, tmp string) error {
	s, err := openWindow(tinyelfTarget(cfg), tmp, filepath.Join(cfg.out, "app.log"),
		filepath.Join(cfg.out, "desktop-smoke.png"), cfg.timeout)
	if err != nil {
		return err
	}
	defer s.close()
	// The session store opens before the window does.
	data := cfg.launch.dataDir(tmp)
	if _, err := os.Stat(filepath.Join(data, "sessions.db")); err != nil {
		return s.fail("the app keeps no sessions in %s, the data folder it should use: %v", data, err)
	}
	logf("ok: the app keeps its data in %s", data)
	if err := checkProperties(s.display, s.win, cfg.title); err != nil {
		return s.fail("%v", err)
	}
	logf("ok: the window has TinyElf's icon and title")
	pid := s.app.cmd.Process.Pid
	if ms, ok := interactiveAfter(s.logPath); ok {
		logf("figure: launch to interactive window %d ms (the page reported ready; the smoke saw the rendered window after %s)", ms, s.rendered.Round(10*time.Millisecond))
	}
	mem, err := smoke.TreeMemory("/proc", pid)
	if err != nil {
		return s.fail("idle window memory: %v", err)
	}
	logf("figure: idle window memory %s", mem)
	if err := checkSecondLaunch(cfg.launch, s.env, s.display, cfg.title, s.logPath); err != nil {
		return s.fail("%v", err)
	}
	logf("ok: a second launch exited at once and the first instance showed its window")

	// SIGTERM to the app itself (what a session manager sends) must close the
	// window and exit 0.
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return s.fail("signal the app: %v", err)
	}
	select {
	case <-s.app.done:
	case <-time.After(15 * time.Second):
		return s.fail("the app did not exit within 15 s of SIGTERM")
	}
	s.app.stop(syscall.SIGKILL, time.Second) // WebKit helpers, if they linger
	if s.app.err != nil {
		return s.fail("after SIGTERM the app exited with %v, want exit 0", s.app.err)
	}
	logf("ok: the app closed its window on SIGTERM and exited 0")
	return nil
}

// checkBackground requires the window's dominant colour to be one of the
// app's backgrounds (app.css --bg-app, light or dark), not Xvfb black or
// WebKit's default white.
// settledFirstRun runs the checks the settled window must pass besides
// looking rendered: on the app's background, showing the first-run setup.
// It returns the setup panel's share of the window.
func settledFirstRun(cfg config, stats smoke.Stats) (float64, error) {
	if err := checkBackground(stats); err != nil {
		return 0, err
	}
	return checkFirstRun(stats, cfg.panels, cfg.setupShare)
}

// sameArea reports whether two screens show the same pixels within r.
func sameArea(a, b *image.RGBA, r image.Rectangle) bool {
	r = r.Intersect(a.Bounds()).Intersect(b.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		i, j := a.PixOffset(r.Min.X, y), b.PixOffset(r.Min.X, y)
		n := 4 * r.Dx()
		if !bytes.Equal(a.Pix[i:i+n], b.Pix[j:j+n]) {
			return false
		}
	}
	return true
}

func checkBackground(s smoke.Stats) error {
	for _, hex := range []string{"f6f7f9", "17191c"} {
		c, _ := smoke.ParseHex(hex)
		if near(s.Dominant, c, 2) {
			return nil
		}
	}
	return fmt.Errorf("the window's main colour is %s, not the app background (#f6f7f9 or #17191c)", smoke.Hex(s.Dominant))
}

// checkFirstRun requires the first-run setup card: with a new data folder
// and no provider in the environment the app opens on it, and the card is a
// large block of the panel colour in the middle of the app background. The
// chat shell, by contrast, shows the panel colour only in its header and
// message box.
func checkFirstRun(s smoke.Stats, panels []color.RGBA, minShare float64) (float64, error) {
	best := 0
	for _, c := range panels {
		best = max(best, s.Count(c))
	}
	share := float64(best) / float64(max(s.Pixels, 1))
	if share < minShare {
		return share, fmt.Errorf("the first-run setup card is not showing: the panel colour covers %.1f%% of the window (want at least %.0f%%)", 100*share, 100*minShare)
	}
	return share, nil
}

func near(a, b color.RGBA, tol int) bool {
	d := func(x, y uint8) bool { return int(x)-int(y) <= tol && int(y)-int(x) <= tol }
	return d(a.R, b.R) && d(a.G, b.G) && d(a.B, b.B)
}

func findWindow(display, title string) (smoke.Window, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "xwininfo", "-display", display, "-name", title).CombinedOutput()
	if err != nil {
		return smoke.Window{}, fmt.Errorf("no window named %q yet: %s", title, strings.TrimSpace(string(out)))
	}
	w, err := smoke.ParseXwininfo(string(out))
	if err != nil {
		return w, err
	}
	if !w.Viewable {
		return w, fmt.Errorf("window %q is not mapped yet", title)
	}
	return w, nil
}

func readScreen(path string) (*image.RGBA, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open Xvfb framebuffer: %w", err)
	}
	defer f.Close()
	return smoke.DecodeXWD(bufio.NewReaderSize(f, 1<<20))
}

func savePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

// startBus starts a private D-Bus session bus for the app and its second
// launch, and returns its address.
func startBus(tmp string) (*process, string, error) {
	sock := filepath.Join(tmp, "bus")
	addr := "unix:path=" + sock
	cmd := exec.Command("dbus-daemon", "--session", "--nofork", "--nopidfile", "--address="+addr)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	p, err := start(cmd)
	if err != nil {
		return nil, "", fmt.Errorf("start dbus-daemon: %w", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(sock); err == nil {
			return p, addr, nil
		}
		if p.exited() || time.Now().After(deadline) {
			p.stop(syscall.SIGTERM, time.Second)
			return nil, "", fmt.Errorf("dbus-daemon did not open %s: %s", sock, stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkProperties requires the window's icon (build/appicon.png, as
// _NET_WM_ICON or, with no window manager, the WM_HINTS icon pixmap) and
// its title (_NET_WM_NAME).
func checkProperties(display string, win smoke.Window, title string) error {
	if win.ID == "" {
		return errors.New("xwininfo gave no window id")
	}
	xprop := func(args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, "xprop", append([]string{"-display", display, "-id", win.ID}, args...)...).CombinedOutput()
		return string(out), err
	}
	out, err := xprop("-len", "8", "_NET_WM_ICON")
	if err != nil {
		return fmt.Errorf("xprop _NET_WM_ICON: %v: %s", err, out)
	}
	hints, err := xprop("WM_HINTS") // whole: -len would cut its fields
	if err != nil {
		return fmt.Errorf("xprop WM_HINTS: %v: %s", err, hints)
	}
	out += hints
	if w, h, ok := smoke.IconSize(out); ok && w >= 16 && h >= 16 {
		logf("window icon: _NET_WM_ICON %dx%d", w, h)
	} else if pix, ok := smoke.IconPixmap(out); ok {
		// No window manager runs on the Xvfb screen, and GTK sets
		// _NET_WM_ICON only for one that announces it; the ICCCM icon
		// pixmap is set from the same icon (a window without one has none).
		logf("window icon: WM_HINTS icon pixmap %s (no window manager, so no _NET_WM_ICON)", pix)
	} else {
		return fmt.Errorf("the window has no icon (neither _NET_WM_ICON nor a WM_HINTS icon pixmap): %s", strings.TrimSpace(out))
	}
	out, err = xprop("_NET_WM_NAME", "WM_CLASS")
	if err != nil {
		return fmt.Errorf("xprop _NET_WM_NAME: %v: %s", err, out)
	}
	name, ok := smoke.PropertyText(out, "_NET_WM_NAME")
	if !ok || name != title {
		return fmt.Errorf("the window title is %q, want %q (%s)", name, title, strings.TrimSpace(out))
	}
	logf("window title: %q; %s", name, strings.TrimSpace(strings.SplitN(out, "\n", 3)[min(1, strings.Count(out, "\n"))]))
	return nil
}

// checkSecondLaunch starts the binary again with the same data folder and
// bus: it must exit 0 within 20 s saying TinyElf already runs, the first
// instance must log that it showed its window, and there must still be one
// window.
func checkSecondLaunch(l launcher, env []string, display, title, firstLog string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := l.commandContext(ctx)
	cmd.Env = env
	began := time.Now()
	out, err := cmd.CombinedOutput()
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("a second launch did not exit within 20 s (it opened a second window?): %s", out)
	case err != nil:
		return fmt.Errorf("a second launch exited with %v, want 0: %s", err, out)
	case !strings.Contains(string(out), "already running"):
		return fmt.Errorf("a second launch did not say TinyElf already runs: %s", out)
	}
	logf("second launch: %q after %s", strings.TrimSpace(string(out)), time.Since(began).Round(10*time.Millisecond))
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(firstLog)
		if strings.Contains(string(b), "a second launch: showing this window") {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the first instance did not react to the second launch within 10 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	tree, err := exec.Command("xwininfo", "-display", display, "-root", "-tree").CombinedOutput()
	if err != nil {
		return fmt.Errorf("xwininfo -tree: %v", err)
	}
	if n := strings.Count(string(tree), `"`+title+`"`); n != 1 {
		return fmt.Errorf("%d windows named %q after the second launch, want 1", n, title)
	}
	return nil
}

// interactiveAfter reads the app's own launch-to-interactive figure
// (TINYELF_TIMING) from its log.
func interactiveAfter(logPath string) (int, bool) {
	b, _ := os.ReadFile(logPath)
	const marker = "tinyelf: timing: interactive after "
	i := bytes.Index(b, []byte(marker))
	if i < 0 {
		return 0, false
	}
	rest := string(b[i+len(marker):])
	n, err := strconv.Atoi(strings.Fields(rest)[0])
	return n, err == nil
}

// measureMemory opens each target's window cfg.memoryRuns times, taking
// turns so that both see the same load, and prints each run's idle memory
// and then the ranges.
func measureMemory(cfg config, targets []target) error {
	runs := make(map[string][]smoke.Memory)
	for run := 1; run <= cfg.memoryRuns; run++ {
		for _, t := range targets {
			m, err := idleMemory(cfg, t, run)
			if err != nil {
				return fmt.Errorf("%s, run %d: %w", t.name, run, err)
			}
			logf("figure: %s run %d: idle window memory %s", t.name, run, m)
			runs[t.name] = append(runs[t.name], m)
		}
	}
	for _, t := range targets {
		logf("figure: %s idle window memory over %d runs: %s", t.name, cfg.memoryRuns, memoryRange(runs[t.name]))
	}
	return nil
}

// idleMemory opens t's window, lets it idle for cfg.idle and reads the
// memory of its process tree.
func idleMemory(cfg config, t target, run int) (smoke.Memory, error) {
	tmp, err := os.MkdirTemp("", "tinyelf-smoke-")
	if err != nil {
		return smoke.Memory{}, err
	}
	defer os.RemoveAll(tmp)
	base := filepath.Join(cfg.out, fmt.Sprintf("%s-%d", t.name, run))
	s, err := openWindow(t, tmp, base+".log", base+".png", cfg.timeout)
	if err != nil {
		return smoke.Memory{}, err
	}
	defer s.close()
	time.Sleep(cfg.idle)
	if s.app.exited() {
		return smoke.Memory{}, s.fail("the app exited while idle (%v)", s.app.err)
	}
	m, err := smoke.TreeMemory("/proc", s.app.cmd.Process.Pid)
	if err != nil {
		return m, s.fail("read its memory: %v", err)
	}
	return m, nil
}

// memoryRange formats the totals' range over the runs, then each process
// name's, then the PSS totals' range:
// "462–468 MB RSS (tinyelf 214–218 MB, WebKitWebProcess 188–190 MB); 250–260 MB PSS".
func memoryRange(runs []smoke.Memory) string {
	span := func(kBs []int) string {
		lo, hi := slices.Min(kBs), slices.Max(kBs)
		if smoke.MB(lo) == smoke.MB(hi) {
			return smoke.MB(lo)
		}
		return strings.TrimSuffix(smoke.MB(lo), " MB") + "–" + smoke.MB(hi)
	}
	var totals, pss []int
	byName := make(map[string][]int)
	var names []string
	for _, m := range runs {
		totals = append(totals, m.TotalkB())
		pss = append(pss, m.TotalPSSkB())
		sums := m.ByName()
		for _, p := range m.Processes { // the root first
			if kB, ok := sums[p.Name]; ok {
				if byName[p.Name] == nil {
					names = append(names, p.Name)
				}
				byName[p.Name] = append(byName[p.Name], kB)
				delete(sums, p.Name)
			}
		}
	}
	if len(totals) == 0 {
		return "no runs"
	}
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = name + " " + span(byName[name])
		if n := len(byName[name]); n < len(runs) {
			parts[i] += fmt.Sprintf(" (in %d of %d runs)", n, len(runs))
		}
	}
	out := span(totals) + " RSS (" + strings.Join(parts, ", ") + ")"
	if slices.Min(pss) > 0 {
		out += "; " + span(pss) + " PSS"
	}
	return out
}
