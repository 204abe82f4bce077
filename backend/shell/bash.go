package shell

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
	"tinyelf/backend/proc"
	"tinyelf/backend/shell/guard"
	"tinyelf/backend/tools"
	"tinyelf/backend/tools/fs"
	"unicode/utf8"
)

//go:embed bash.md
var bashDescription string

// Defaults of BashOptions.
const (
	DefaultBashTimeout        = 2 * time.Minute
	DefaultBashMaxTimeout     = 10 * time.Minute
	DefaultBashMaxOutputBytes = 100 * 1024
)

const (
	// bashKillGrace is how long a process group gets between SIGTERM and
	// SIGKILL.
	bashKillGrace = 2 * time.Second
	// bashPipeGrace is how long the output is still read after the shell has
	// exited while background processes keep it open.
	bashPipeGrace = time.Second
	// bashProgressEvery is how often a long run reports progress.
	bashProgressEvery = 10 * time.Second
)

// BashOptions configures the Bash tool. Zero fields take their defaults.
type BashOptions struct {
	// Timeout is the seed's execTimeout: how long a command may run when the
	// call gives no timeout (default 2 minutes).
	Timeout time.Duration
	// MaxTimeout caps the timeout a call may ask for (default 10 minutes).
	MaxTimeout time.Duration
	// MaxOutputBytes caps the output kept of one run, head and tail together
	// (default 100 KB).
	MaxOutputBytes int
	// Env holds extra NAME=value entries added to the environment after the
	// agent's own (they win over it, and are kept as given).
	Env []string
	// Environ returns the environment commands start from, at each call
	// (engine.BuildRegistry passes the user's without TinyElf's secrets).
	// Nil means os.Environ(); either way Children removes the secrets its
	// owner names (the settings' keys) before the command sees it.
	Environ func() []string
	// Children starts the commands and keeps them from outliving TinyElf;
	// nil still runs each in a process group of its own.
	Children *proc.Children
}

// bashTool is the seed's ShellTool.
type bashTool struct {
	ws        *fs.Workspace
	opts      BashOptions
	killGrace time.Duration
	pipeGrace time.Duration
}

// NewBash returns the Bash tool: it runs `bash -c command` in the workspace
// folder, in a process group of its own with standard input at /dev/null,
// after guard.Check has let it through. Stdout and stderr are returned
// together, in order, capped at opts.MaxOutputBytes (the head and the tail
// are kept), with the exit code. On timeout or cancellation the whole group is
// killed and the output so far returned. The tool is safe for concurrent use
// and implements Inspector.
func NewBash(ws *fs.Workspace, opts BashOptions) tools.Tool {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultBashTimeout
	}
	if opts.MaxTimeout <= 0 {
		opts.MaxTimeout = DefaultBashMaxTimeout
	}
	opts.Timeout = min(opts.Timeout, opts.MaxTimeout)
	if opts.MaxOutputBytes <= 0 {
		opts.MaxOutputBytes = DefaultBashMaxOutputBytes
	}
	return &bashTool{ws: ws, opts: opts, killGrace: bashKillGrace, pipeGrace: bashPipeGrace}
}

func (t *bashTool) Info() tools.Info {
	params, _ := json.Marshal(map[string]any{
		"type": "object",
		"properties": map[string]any{
			"command": map[string]any{
				"type":        "string",
				"description": "The command to run with bash -c in the workspace folder.",
			},
			"timeout": map[string]any{
				"type":    "integer",
				"minimum": 1000,
				"description": fmt.Sprintf("Optional timeout in milliseconds (default %d = %s, at most %d = %s).",
					t.opts.Timeout.Milliseconds(), t.opts.Timeout, t.opts.MaxTimeout.Milliseconds(), t.opts.MaxTimeout),
			},
			"description": map[string]any{
				"type":        "string",
				"description": "What it does in a few words, shown to the user.",
			},
		},
		"required": []string{"command"},
	})
	return tools.Info{
		Name:        "Bash",
		Description: strings.TrimSpace(bashDescription),
		Parameters:  params,
		// Any command can destroy data: the capability catalog rates it so.
		Destructive: true,
		// Replacement characters for invalid UTF-8 can double the kept
		// output; the registry must not cut what the tool already bounded.
		MaxOutputBytes: 2*t.opts.MaxOutputBytes + 8*1024,
	}
}

// CallTimeout implements Timeouter: the call's own timeout, and the time
// the process group gets to die and its output to drain after it.
func (t *bashTool) CallTimeout(params map[string]any) time.Duration {
	return t.timeoutFor(params) + t.killGrace + t.pipeGrace
}

// timeoutFor is the timeout a call asks for, within the tool's bounds.
func (t *bashTool) timeoutFor(params map[string]any) time.Duration {
	if ms := tools.Int(params, "timeout", 0); ms > 0 {
		return min(time.Duration(ms)*time.Millisecond, t.opts.MaxTimeout)
	}
	return t.opts.Timeout
}

// wsDir is the folder the guard judges paths against ("" without a
// workspace).
func (t *bashTool) wsDir() string {
	if t.ws == nil {
		return ""
	}
	return t.ws.Dir()
}

// Warnings implements Inspector: what guard.Check found, the refusal
// first, then why the command is held.
func (t *bashTool) Warnings(params map[string]any) []string {
	v := guard.Check(tools.String(params, "command", ""), t.wsDir())
	var out []string
	if v.Denied {
		out = append(out, v.Reason)
	}
	out = append(out, v.Holds...)
	return append(out, v.Warnings...)
}

// Assess implements Assessor: the shell guard's verdict for the permission
// gate. A held command is approved by a person even in auto mode.
func (t *bashTool) Assess(params map[string]any) tools.Assessment {
	v := guard.Check(tools.String(params, "command", ""), t.wsDir())
	a := tools.Assessment{Warnings: v.Warnings}
	if v.Denied {
		a.Deny = v.Reason
	}
	if v.Held {
		a.Hold = strings.Join(v.Holds, " ")
		a.Warnings = append(slices.Clone(v.Holds), v.Warnings...)
	}
	return a
}

func (t *bashTool) Execute(ctx context.Context, params map[string]any) (tools.Result, error) {
	command := tools.String(params, "command", "")
	if strings.TrimSpace(command) == "" {
		return tools.Errorf("The command is empty. Pass the shell command to run in \"command\"."), nil
	}
	verdict := guard.Check(command, t.wsDir())
	if verdict.Denied {
		return tools.Result{Content: verdict.Reason, IsError: true, Meta: map[string]any{"denied": true}}, nil
	}
	timeout := t.timeoutFor(params)
	run, err := t.run(ctx, command, timeout)
	if err != nil {
		return tools.Result{}, err
	}
	meta := map[string]any{
		"exitCode":    run.exitCode,
		"timedOut":    run.timedOut,
		"cancelled":   run.cancelled,
		"durationMs":  run.duration.Milliseconds(),
		"outputBytes": run.total,
		"truncated":   run.truncated,
	}
	if d := tools.String(params, "description", ""); d != "" {
		meta["description"] = d
	}
	if len(verdict.Warnings) > 0 {
		meta["warnings"] = verdict.Warnings
	}
	return tools.Result{Content: run.report(timeout), IsError: run.failed(), Meta: meta}, nil
}

// bashRun is the outcome of one command.
type bashRun struct {
	output    string
	total     int64
	truncated bool
	exitCode  int
	signal    string
	timedOut  bool
	cancelled bool
	lingering bool // background processes kept the output open
	duration  time.Duration
}

func (r *bashRun) failed() bool { return r.timedOut || r.cancelled || r.exitCode != 0 }

// report is what the model reads.
func (r *bashRun) report(timeout time.Duration) string {
	var b strings.Builder
	out := r.output
	switch {
	case r.timedOut:
		fmt.Fprintf(&b, "Command timed out after %s; the process group was killed. Output so far:\n", timeout)
	case r.cancelled:
		b.WriteString("Command was cancelled; the process group was killed. Output so far:\n")
	}
	if out == "" {
		out = "(no output)"
	}
	b.WriteString(out)
	if !strings.HasSuffix(out, "\n") {
		b.WriteByte('\n')
	}
	if r.lingering {
		b.WriteString("(Background processes still held the output open after the command finished; what they print later is not shown. Redirect their output to a file to keep it.)\n")
	}
	if r.timedOut || r.cancelled {
		return strings.TrimSuffix(b.String(), "\n")
	}
	if r.signal != "" {
		fmt.Fprintf(&b, "Exit code: %d (terminated by signal: %s)", r.exitCode, r.signal)
	} else {
		fmt.Fprintf(&b, "Exit code: %d", r.exitCode)
	}
	return b.String()
}

// run executes command and collects its bounded output. A Go error means the
// shell could not be started at all.
func (t *bashTool) run(ctx context.Context, command string, timeout time.Duration) (*bashRun, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("create output pipe: %w", err)
	}
	cmd := t.opts.Children.Command("bash", "-c", command)
	if t.ws != nil {
		cmd.Dir = t.ws.Dir()
	}
	var base []string // nil: TinyElf's own, without the owner's secrets
	if t.opts.Environ != nil {
		base = t.opts.Environ()
	}
	if base == nil {
		base = os.Environ()
	}
	cmd.Environ = append([]string{"GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "PAGER=cat"}, base...)
	cmd.Named = t.opts.Env
	cmd.Stdout, cmd.Stderr = pw, pw // one pipe keeps stdout and stderr in order

	start := time.Now()
	child, err := cmd.Start()
	pw.Close()
	if err != nil {
		pr.Close()
		return nil, fmt.Errorf("start bash: %w", err)
	}

	buf := newOutputBuffer(t.opts.MaxOutputBytes)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		_, _ = io.Copy(buf, pr)
	}()
	waitDone := make(chan error, 1)
	go func() { waitDone <- cmd.Wait() }()

	run := &bashRun{}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	ticker := time.NewTicker(bashProgressEvery)
	defer ticker.Stop()
	exited := false
	for !exited && !run.timedOut && !run.cancelled {
		select {
		case <-waitDone:
			exited = true
		case <-timer.C:
			run.timedOut = true
		case <-ctx.Done():
			run.cancelled = true
		case <-ticker.C:
			tools.ReportProgress(ctx, fmt.Sprintf("Running for %s; %d bytes of output so far.", time.Since(start).Round(time.Second), buf.Total()))
		}
	}

	readDoneCh := readDone
	if !exited {
		// SIGTERM the group, give it a moment to exit and close the pipe,
		// then SIGKILL whatever is left (grandchildren that ignore TERM).
		child.Signal(false)
		grace := time.NewTimer(t.killGrace)
	wait:
		for !exited || readDoneCh != nil {
			select {
			case <-waitDone:
				exited = true
			case <-readDoneCh:
				readDoneCh = nil
			case <-grace.C:
				break wait
			}
		}
		grace.Stop()
		child.Signal(true)
		if !exited {
			<-waitDone
		}
	}
	child.Exited()
	if readDoneCh != nil {
		var ctxDone <-chan struct{}
		if !run.cancelled {
			ctxDone = ctx.Done() // a cancelled run still collects what was written
		}
		select {
		case <-readDone:
		case <-time.After(t.pipeGrace):
			run.lingering = !run.timedOut && !run.cancelled
		case <-ctxDone:
		}
	}
	pr.Close() // unblocks the reader if something still holds the pipe
	<-readDone

	run.duration = time.Since(start)
	run.exitCode = cmd.ProcessState.ExitCode()
	run.signal = proc.ExitSignal(cmd.ProcessState)
	run.output, run.truncated = buf.Render()
	run.total = buf.Total()
	return run, nil
}

// outputBuffer keeps the first and the last bytes of a stream within fixed
// memory, however long the stream: a head buffer and a ring for the tail. It
// is safe for one writer and concurrent readers.
type outputBuffer struct {
	mu      sync.Mutex
	headCap int
	tailCap int
	head    []byte // up to headCap+UTFMax bytes, so a cut can see the next rune start
	ring    []byte // the last bytes after the head, len tailCap+UTFMax
	ringPos int    // next write position in ring
	ringLen int
	total   int64
}

func newOutputBuffer(max int) *outputBuffer {
	headCap := max / 2
	return &outputBuffer{headCap: headCap, tailCap: max - headCap}
}

func (b *outputBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	b.total += int64(n)
	if room := b.headCap + utf8.UTFMax - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 {
		return n, nil
	}
	if b.ring == nil {
		b.ring = make([]byte, b.tailCap+utf8.UTFMax)
	}
	size := len(b.ring)
	if len(p) >= size {
		p = p[len(p)-size:]
	}
	for len(p) > 0 {
		k := copy(b.ring[b.ringPos:], p)
		p = p[k:]
		b.ringPos = (b.ringPos + k) % size
		b.ringLen = min(b.ringLen+k, size)
	}
	return n, nil
}

// Total returns how many bytes were written.
func (b *outputBuffer) Total() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total
}

// Render returns the output as valid UTF-8: all of it when it fits, or the
// head and the tail around a note of how many bytes were left out, never
// splitting a rune. It reports whether anything was left out.
func (b *outputBuffer) Render() (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	tail := make([]byte, 0, b.ringLen)
	if b.ringLen == len(b.ring) {
		tail = append(append(tail, b.ring[b.ringPos:]...), b.ring[:b.ringPos]...)
	} else {
		tail = append(tail, b.ring[:b.ringLen]...)
	}
	if b.total <= int64(b.headCap+b.tailCap) {
		return strings.ToValidUTF8(string(b.head)+string(tail), "\uFFFD"), false
	}
	h := tools.CutUTF8(string(b.head), b.headCap)
	t := cutUTF8Tail(string(tail), b.tailCap)
	omitted := b.total - int64(len(h)) - int64(len(t))
	return strings.ToValidUTF8(h, "\uFFFD") +
		fmt.Sprintf("\n\n... [%d bytes omitted] ...\n\n", omitted) +
		strings.ToValidUTF8(t, "\uFFFD"), true
}

// cutUTF8Tail returns the longest suffix of s that is at most max bytes and
// does not start inside a UTF-8 encoded rune; the mirror of CutUTF8.
func cutUTF8Tail(s string, max int) string {
	if len(s) <= max {
		return s
	}
	if max <= 0 {
		return ""
	}
	start := len(s) - max
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	return s[start:]
}
