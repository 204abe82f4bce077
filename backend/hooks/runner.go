package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"runtime"
	"sync"
	"time"

	"tinyelf/backend/proc"
)

// MaxOutputBytes bounds what is kept of a hook's stdout and of its stderr;
// the rest is read and dropped.
const MaxOutputBytes = 1 << 20

// waitDelay is how long a hook that exited is waited for to close its
// output (a background process it left holding it) before TinyElf stops
// reading.
const waitDelay = 500 * time.Millisecond

// Run is one hook run: the hook, how it ended and what it said.
type Run struct {
	Hook     *Hook
	Duration time.Duration
	// ExitCode is the hook's exit status; -1 when it did not exit by
	// itself (killed after its timeout, stopped with the turn, or never
	// started).
	ExitCode int
	Stdout   string
	Stderr   string
	// Truncated is set when stdout or stderr was longer than
	// MaxOutputBytes.
	Truncated bool
	// TimedOut is set when the hook outlived its timeout and was killed
	// with its process group; Cancelled when the turn stopped under it.
	TimedOut  bool
	Cancelled bool
	Verdict   Verdict
}

// failed reports whether the run ended without a usable answer.
func (r Run) failed() bool { return r.Verdict.Problem != "" && r.Verdict.Decision == "" }

// Summary is the first lines of what the run printed (stderr first when it
// failed or blocked), for the session log and the chat.
func (r Run) Summary() string {
	first, second := r.Stdout, r.Stderr
	if r.ExitCode != 0 {
		first, second = r.Stderr, r.Stdout
	}
	s := firstLines(first, 5, 500)
	if s == "" {
		s = firstLines(second, 5, 500)
	}
	return s
}

// Runner runs hook commands. Each runs with `bash -c` (sh where there is
// no bash) in the workspace, reads its Input on stdin, gets the
// environment Environ returns (the same clean one as Bash: no provider
// keys or tokens) with CLAUDE_PROJECT_DIR and TINYELF_PROJECT_DIR set, and
// leads a process group of its own that Children kills with TinyElf. A
// Runner is safe for concurrent use.
type Runner struct {
	// Children starts the hooks and keeps them from outliving TinyElf
	// (nil: each still gets its own group, without a record).
	Children *proc.Children
	// Environ returns the environment hooks start from; nil means
	// TinyElf's own without ChildOfEnv (tests).
	Environ func() []string
}

// shell returns the shell that runs hook commands and its flag.
func shell() (string, string) {
	if p, err := exec.LookPath("bash"); err == nil {
		return p, "-c"
	}
	if runtime.GOOS == "windows" {
		return "cmd.exe", "/C"
	}
	return "/bin/sh", "-c"
}

// Run runs hooks in parallel with in on their stdin and dir as their
// working directory, and returns their runs in the order given. A hook
// past its timeout is killed with its whole process group; when ctx ends
// every hook still running is. Run never panics because of a hook and
// returns once every hook has ended.
func (r *Runner) Run(ctx context.Context, hooks []*Hook, in Input, dir string) []Run {
	runs := make([]Run, len(hooks))
	if len(hooks) == 0 {
		return runs
	}
	payload, err := json.Marshal(in)
	if err != nil {
		for i, h := range hooks {
			runs[i] = Run{Hook: h, ExitCode: -1, Verdict: Verdict{Problem: "its input could not be encoded: " + err.Error()}}
		}
		return runs
	}
	env := r.environ(dir)
	if len(hooks) == 1 {
		runs[0] = r.runOne(ctx, hooks[0], in.Event, payload, dir, env)
		return runs
	}
	var wg sync.WaitGroup
	for i, h := range hooks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runs[i] = r.runOne(ctx, h, in.Event, payload, dir, env)
		}()
	}
	wg.Wait()
	return runs
}

// environ is the hooks' environment for a workspace.
func (r *Runner) environ(dir string) []string {
	base := os.Environ() // Children removes the secrets its owner names
	if r.Environ != nil {
		base = r.Environ()
	}
	return proc.CleanEnv(base, proc.Secrets{}, "CLAUDE_PROJECT_DIR="+dir, "TINYELF_PROJECT_DIR="+dir)
}

// runOne runs one hook to its end.
func (r *Runner) runOne(ctx context.Context, h *Hook, ev Event, payload []byte, dir string, env []string) (run Run) {
	run = Run{Hook: h, ExitCode: -1}
	start := time.Now()
	defer func() {
		if p := recover(); p != nil {
			run.Verdict = Verdict{Problem: fmt.Sprintf("running it failed inside TinyElf: %v", p)}
		}
		run.Duration = time.Since(start)
	}()
	sh, flag := shell()
	cmd := r.Children.Command(sh, flag, h.Command)
	cmd.Dir = dir
	cmd.Environ = env
	cmd.Stdin = bytes.NewReader(payload)
	stdout, stderr := &capped{max: MaxOutputBytes}, &capped{max: MaxOutputBytes}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = waitDelay
	child, err := cmd.Start()
	if err != nil {
		run.Verdict = Verdict{Problem: "it could not be started: " + err.Error()}
		return run
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(h.Timeout)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		run.TimedOut = true
	case <-ctx.Done():
		run.Cancelled = true
	}
	if run.TimedOut || run.Cancelled {
		// The whole group: whatever the hook started dies with it.
		child.Signal(true)
		<-done
	}
	child.Exited()
	run.Stdout, run.Stderr = stdout.String(), stderr.String()
	run.Truncated = stdout.dropped || stderr.dropped
	switch {
	case run.TimedOut:
		run.Verdict = Verdict{Problem: fmt.Sprintf("it did not finish within its timeout of %s and was killed, with every process it started", h.Timeout.Round(time.Millisecond))}
	case run.Cancelled:
		run.Verdict = Verdict{Problem: "it was stopped because the turn was stopped"}
	default:
		run.ExitCode = cmd.ProcessState.ExitCode()
		if run.ExitCode < 0 {
			run.Verdict = Verdict{Problem: "it was killed by a signal (" + proc.ExitSignal(cmd.ProcessState) + ")"}
			break
		}
		run.Verdict = Judge(ev, run.ExitCode, run.Stdout, run.Stderr)
	}
	return run
}

// capped is a writer that keeps the first max bytes.
type capped struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	max     int
	dropped bool
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - c.buf.Len(); room < len(p) {
		c.dropped = true
		if room > 0 {
			c.buf.Write(p[:room])
		}
		return len(p), nil
	}
	c.buf.Write(p)
	return len(p), nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}

// sameJSON reports whether two decoded JSON values are equal.
func sameJSON(a, b any) bool { return reflect.DeepEqual(a, b) }
