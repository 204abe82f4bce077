package cli

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"tinyelf/backend/llm/llmtest"
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
	tests := []struct {
		name   string
		signal syscall.Signal
		tool   llmtest.ToolCall
		setup  func(t *testing.T, ws string)
	}{
		{"SIGINT during a shell command", syscall.SIGINT,
			llmtest.ToolCall{Name: "Bash", Arguments: `{"command":"sleep 30"}`}, nil},
		{"SIGTERM during a shell command", syscall.SIGTERM,
			llmtest.ToolCall{Name: "Bash", Arguments: `{"command":"sleep 30"}`}, nil},
		// Opening a FIFO blocks until someone opens the other end, and no
		// context reaches into open(2): a tool that ignores cancellation.
		{"SIGINT during a tool that ignores cancellation", syscall.SIGINT,
			llmtest.ToolCall{Name: "Write", Arguments: `{"path":"pipe","content":"x"}`},
			func(t *testing.T, ws string) {
				if err := syscall.Mkfifo(filepath.Join(ws, "pipe"), 0o600); err != nil {
					t.Skip("no FIFOs here:", err)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home, ws := t.TempDir(), t.TempDir()
			if tc.setup != nil {
				tc.setup(t, ws)
			}
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
		})
	}
}
