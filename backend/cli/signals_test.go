package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"tinyelf/backend/api"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
)

// TestInterrupts checks the signal watcher: the first signal cancels, a
// second one exits at once with 130 (SIGINT) or 143 (SIGTERM).
func TestInterrupts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		signals  []os.Signal
		wantExit int // -1: none
	}{
		{"one SIGINT cancels", []os.Signal{os.Interrupt}, -1},
		{"one SIGTERM cancels", []os.Signal{syscall.SIGTERM}, -1},
		{"a second SIGINT exits", []os.Signal{os.Interrupt, os.Interrupt}, 130},
		{"SIGTERM then SIGINT exits", []os.Signal{syscall.SIGTERM, os.Interrupt}, 130},
		{"a second SIGTERM exits", []os.Signal{os.Interrupt, syscall.SIGTERM}, 143},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sigs := make(chan os.Signal)
			done := make(chan struct{})
			cancelled := make(chan struct{})
			exited := make(chan int, 1)
			var stderr syncBuffer
			finished := make(chan struct{})
			go func() {
				interrupts(sigs, done, func() { close(cancelled) }, &stderr, func(code int) { exited <- code })
				close(finished)
			}()
			for _, s := range tc.signals {
				sigs <- s // unbuffered: the watcher has taken it
			}
			select {
			case <-cancelled:
			case <-time.After(5 * time.Second):
				t.Fatal("the first signal did not cancel")
			}
			if tc.wantExit < 0 {
				close(done)
				<-finished
				select {
				case code := <-exited:
					t.Errorf("exited %d after one signal", code)
				default:
				}
				return
			}
			select {
			case code := <-exited:
				if code != tc.wantExit {
					t.Errorf("exit %d, want %d", code, tc.wantExit)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the second signal did not exit")
			}
			<-finished
			if !strings.Contains(stderr.String(), "quitting now") {
				t.Errorf("stderr %q", stderr.String())
			}
		})
	}
}

// childEnv is the environment of a tinyelf child process: this one's,
// without anything that would configure TinyElf, plus its own data folder.
func childEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "TINYELF_") || strings.HasPrefix(k, "OPENAI_") || strings.HasPrefix(k, "ANTHROPIC_") || k == "DBUS_SESSION_BUS_ADDRESS" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "TINYELF_HOME="+home, "DBUS_SESSION_BUS_ADDRESS=unix:path="+filepath.Join(home, "no-bus"))
}

// TestRunStopsOnSignal runs the real binary and signals it while a tool
// runs: the run ends within about a second, whatever the tool does, and
// says the turn was cancelled.
func TestRunStopsOnSignal(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT to send on Windows")
	}
	bin := build(t, "tinyelf")
	// ignoring is a command that really ignores the cancellation: it traps
	// SIGTERM and SIGINT (noting that they came), so the Bash tool's
	// SIGTERM to its process group leaves it running, and only the SIGKILL
	// after bashKillGrace (2 s) would end it. (A FIFO no longer does:
	// Write opens files without blocking and refuses special files at once,
	// and Read checks them the same way, so no file tool waits in open(2).)
	const ignoring = `trap 'echo term >> got-term' TERM INT; : > started; while :; do sleep 0.05; done`
	tests := []struct {
		name   string
		signal syscall.Signal
		tool   llmtest.ToolCall
		// ready, when set, says the tool is under way: the signal waits for it.
		ready func(ws string) bool
		// check, when set, looks at the session's log after the run.
		check func(t *testing.T, ws string, evs []sessions.Event)
	}{
		{"SIGINT during a shell command", syscall.SIGINT,
			llmtest.ToolCall{Name: "Bash", Arguments: `{"command":"sleep 30"}`}, nil, nil},
		{"SIGTERM during a shell command", syscall.SIGTERM,
			llmtest.ToolCall{Name: "Bash", Arguments: `{"command":"sleep 30"}`}, nil, nil},
		{"SIGINT during a tool that ignores cancellation", syscall.SIGINT,
			llmtest.ToolCall{Name: "Bash", Arguments: fmt.Sprintf(`{"command":%q}`, ignoring)},
			func(ws string) bool { _, err := os.Stat(filepath.Join(ws, "started")); return err == nil },
			func(t *testing.T, ws string, evs []sessions.Event) {
				if b, _ := os.ReadFile(filepath.Join(ws, "got-term")); !strings.Contains(string(b), "term") {
					t.Error("the command never got the cancellation: it was not ignoring one")
				}
				// The run did not wait for the tool: the pipeline gave up on
				// the call (its result says abandoned), or the engine gave up
				// on the turn (its end says a step was left behind).
				left := false
				for _, ev := range evs {
					switch ev.Type {
					case sessions.EventToolResult:
						var r sessions.ToolResult
						_ = ev.Decode(&r)
						left = left || r.Name == "Bash" && r.Meta["abandoned"] == true
					case sessions.EventTurnEnd:
						var e sessions.TurnEnd
						_ = ev.Decode(&e)
						left = left || strings.Contains(e.Message, "left behind")
					}
				}
				if !left {
					t.Errorf("the run waited for the tool that ignored the cancellation; the log: %v", eventTypes(evs))
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home, ws := t.TempDir(), t.TempDir()
			srv := llmtest.NewServer(t)
			// Should the tool give up by itself, the next model call hangs
			// until cancelled, so the run is still busy when signalled.
			srv.Push(llmtest.Turn{ToolCalls: []llmtest.ToolCall{tc.tool}}, llmtest.Turn{Text: "waiting", Hang: true})
			cmd := exec.Command(bin, "run", "--workspace", ws, "--base-url", srv.URL, "--model", "m", "--mode", "auto", "-p", "go")
			cmd.Env = childEnv(home)
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stdout = io.Discard
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			killed := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
			defer killed.Stop()
			var lines []string
			sc := bufio.NewScanner(stderr)
			for sc.Scan() {
				lines = append(lines, sc.Text())
				if strings.HasPrefix(sc.Text(), "→ "+tc.tool.Name) {
					break
				}
			}
			for deadline := time.Now().Add(20 * time.Second); tc.ready != nil && !tc.ready(ws); time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("the tool did not get under way (stderr so far: %q)", lines)
				}
			}
			start := time.Now()
			if err := cmd.Process.Signal(tc.signal); err != nil {
				t.Fatalf("signal: %v (stderr so far: %q)", err, lines)
			}
			rest, _ := io.ReadAll(stderr)
			err = cmd.Wait()
			took := time.Since(start)
			out := strings.Join(lines, "\n") + "\n" + string(rest)
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != exitError {
				t.Errorf("exit: %v, want status %d\n%s", err, exitError, out)
			}
			if !strings.Contains(out, "stopped: cancelled") {
				t.Errorf("stderr does not say the turn was cancelled:\n%s", out)
			}
			t.Logf("exited %s after %v", took.Round(time.Millisecond), tc.signal)
			// The run stops in tens of milliseconds (the log line above);
			// the bound only catches a run that ignores the signal, with
			// room for a loaded machine.
			if took > 10*time.Second {
				t.Errorf("the run took %s to stop after %v", took, tc.signal)
			}
			if tc.check != nil {
				tc.check(t, ws, sessionLog(t, home))
			}
		})
	}
}

// sessionLog reads the events of the only session in the data folder.
func sessionLog(t *testing.T, home string) []sessions.Event {
	t.Helper()
	ctx := context.Background()
	store, err := sessions.Open(ctx, filepath.Join(home, api.SessionsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	list, err := store.List(ctx, sessions.ListOptions{})
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions %v %v", list, err)
	}
	var evs []sessions.Event
	for ev, err := range store.Events(ctx, list[0].ID, 1, 0) {
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	return evs
}

func eventTypes(evs []sessions.Event) []sessions.EventType {
	out := make([]sessions.EventType, len(evs))
	for i, ev := range evs {
		out[i] = ev.Type
	}
	return out
}
