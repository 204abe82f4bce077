//go:build unix

package shell

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"tinyelf/backend/tools"
	"tinyelf/backend/tools/fs"
	"tinyelf/internal/testutil"
	"unicode/utf8"
)

// bashFixture is a workspace with a Bash tool in it.
type bashFixture struct {
	ws   *fs.Workspace
	tool *bashTool
}

// bashWorkspace opens a fresh restricted workspace for Bash tests.
func bashWorkspace(t *testing.T) *fs.Workspace {
	t.Helper()
	ws, err := fs.OpenWorkspace(t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

func newBashFixture(t *testing.T, opts BashOptions) *bashFixture {
	t.Helper()
	ws := bashWorkspace(t)
	tool := NewBash(ws, opts).(*bashTool)
	tool.killGrace = 300 * time.Millisecond
	tool.pipeGrace = 300 * time.Millisecond
	return &bashFixture{ws: ws, tool: tool}
}

func (f *bashFixture) run(t *testing.T, ctx context.Context, params map[string]any) tools.Result {
	t.Helper()
	res, err := f.tool.Execute(ctx, params)
	if err != nil {
		t.Fatalf("Execute(%v): %v", params, err)
	}
	return res
}

func (f *bashFixture) path(name string) string { return filepath.Join(f.ws.Dir(), name) }

func TestBashRunsCommands(t *testing.T) {
	t.Parallel()
	f := newBashFixture(t, BashOptions{Env: []string{"TINYELF_BASH_TEST=from-options"}})
	for _, tc := range []struct {
		name, command string
		isError       bool
		exitCode      int
		want          []string
	}{
		{"success", `echo hello`, false, 0, []string{"hello\n", "Exit code: 0"}},
		{"no output", `true`, false, 0, []string{"(no output)", "Exit code: 0"}},
		{"non-zero exit", `echo out; echo err >&2; exit 3`, true, 3, []string{"out\nerr\n", "Exit code: 3"}},
		{"stderr in order", `echo 1; echo 2 >&2; echo 3`, false, 0, []string{"1\n2\n3\n"}},
		{"command not found", `no-such-command-tinyelf`, true, 127, []string{"not found", "Exit code: 127"}},
		{"stdin is empty", `cat; echo done`, false, 0, []string{"done"}},
		{"extra env", `echo "$TINYELF_BASH_TEST"`, false, 0, []string{"from-options"}},
		{"no prompts", `echo "$GIT_TERMINAL_PROMPT"`, false, 0, []string{"0\n"}},
		{"killed by signal", `kill -KILL $$`, true, -1, []string{"terminated by signal: killed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := f.run(t, context.Background(), map[string]any{"command": tc.command})
			if res.IsError != tc.isError {
				t.Errorf("IsError = %v, want %v; content:\n%s", res.IsError, tc.isError, res.Content)
			}
			if got := res.Meta["exitCode"]; got != tc.exitCode {
				t.Errorf("meta exitCode = %v, want %d", got, tc.exitCode)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Content, w) {
					t.Errorf("content lacks %q:\n%s", w, res.Content)
				}
			}
			if _, ok := res.Meta["durationMs"].(int64); !ok {
				t.Errorf("meta durationMs missing: %v", res.Meta)
			}
		})
	}
}

func TestBashWorksInTheWorkspace(t *testing.T) {
	t.Parallel()
	f := newBashFixture(t, BashOptions{})
	res := f.run(t, context.Background(), map[string]any{"command": `pwd -P && echo made > made.txt`})
	want, err := filepath.EvalSymlinks(f.ws.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if first := strings.SplitN(res.Content, "\n", 2)[0]; first != want {
		t.Errorf("pwd = %q, want the workspace %q", first, want)
	}
	if b, err := os.ReadFile(f.path("made.txt")); err != nil || string(b) != "made\n" {
		t.Errorf("made.txt in the workspace = %q, %v", b, err)
	}
}

func TestBashRefusesDeniedCommandsWithoutRunningThem(t *testing.T) {
	t.Parallel()
	f := newBashFixture(t, BashOptions{})
	// Each command would create the marker before reaching the denied part;
	// the marker must never appear because nothing is run.
	for _, tail := range []string{
		`sudo rm -rf /`,
		`bash -c 'rm -rf /'`,
		`:(){ :|:& };:`,
		`dd if=/dev/zero of=/dev/sda`,
		`cat x > /dev/sda`,
		`eval "mkfs.ext4 /dev/sda1"`,
	} {
		t.Run(tail, func(t *testing.T) {
			t.Parallel()
			marker := "marker-" + strconv.Itoa(rand.IntN(1<<30))
			res := f.run(t, context.Background(), map[string]any{"command": "touch " + marker + "; " + tail})
			if !res.IsError || !strings.HasPrefix(res.Content, "Refused") || res.Meta["denied"] != true {
				t.Fatalf("want a refusal, got %+v", res)
			}
			if _, err := os.Stat(f.path(marker)); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the command ran: marker exists (%v)", err)
			}
		})
	}
}

func TestBashTimeoutKillsTheProcessGroup(t *testing.T) {
	t.Parallel()
	// The timeout leaves the shell ample time to start its background
	// processes and write their pids even on a loaded machine; what is
	// tested is what happens after it.
	f := newBashFixture(t, BashOptions{Timeout: 2 * time.Second})
	// Background grandchildren keep the output pipe open; one would write a
	// marker after the timeout; one ignores SIGTERM.
	cmd := `echo started
bash -c 'sleep 30; touch late-marker' & echo $! > pid0
sleep 300 & echo $! > pid1
(trap '' TERM; sleep 300) & echo $! > pid2
wait`
	start := time.Now()
	res := f.run(t, context.Background(), map[string]any{"command": cmd})
	// A call that waited for its background processes would take 300 s.
	if elapsed := time.Since(start); elapsed > 20*time.Second {
		t.Errorf("the call took %s after a 2s timeout", elapsed)
	}
	if !res.IsError || res.Meta["timedOut"] != true {
		t.Fatalf("want a timed-out error result, got %+v", res)
	}
	for _, w := range []string{"Command timed out after 2s; the process group was killed. Output so far:", "started"} {
		if !strings.Contains(res.Content, w) {
			t.Errorf("content lacks %q:\n%s", w, res.Content)
		}
	}
	for _, name := range []string{"pid0", "pid1", "pid2"} {
		pid := readPID(t, f.path(name))
		testutil.WaitGone(t, 10*time.Second, "the timed-out command's group", pid)
	}
	// The marker's writer is gone, so the marker can no longer appear.
	if _, err := os.Stat(f.path("late-marker")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a grandchild outlived the timeout and wrote its marker (%v)", err)
	}
}

// readPID reads a pid a test command wrote to a file.
func readPID(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid file %s: %v", path, err)
	}
	return pid
}

func TestBashPerCallTimeoutIsCapped(t *testing.T) {
	t.Parallel()
	f := newBashFixture(t, BashOptions{MaxTimeout: 1500 * time.Millisecond})
	start := time.Now()
	res := f.run(t, context.Background(), map[string]any{"command": "sleep 30", "timeout": float64(600000)})
	// Uncapped, the call would last the whole 30 s sleep.
	if !strings.Contains(res.Content, "timed out after 1.5s") || time.Since(start) > 20*time.Second {
		t.Fatalf("want the timeout capped at 1.5s, got after %s:\n%s", time.Since(start), res.Content)
	}
}

func TestBashCancellationKillsTheProcessGroup(t *testing.T) {
	t.Parallel()
	f := newBashFixture(t, BashOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Cancel once the command has started its background sleep, not after
	// a guess at how long that takes.
	go func() {
		defer cancel()
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) && ctx.Err() == nil {
			if b, err := os.ReadFile(f.path("pid")); err == nil && strings.HasSuffix(string(b), "\n") {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	start := time.Now()
	res := f.run(t, ctx, map[string]any{"command": `echo started; sleep 300 & echo $! > pid; wait`})
	// A call that ignored the cancel would wait out the 300 s sleep.
	if elapsed := time.Since(start); elapsed > 20*time.Second {
		t.Errorf("cancellation took %s", elapsed)
	}
	if !res.IsError || res.Meta["cancelled"] != true || !strings.Contains(res.Content, "cancelled") || !strings.Contains(res.Content, "started") {
		t.Fatalf("want a cancelled result with the output so far, got %+v", res)
	}
	testutil.WaitGone(t, 10*time.Second, "the cancelled command's child", readPID(t, f.path("pid")))
}

func TestBashDoesNotWaitForBackgroundProcesses(t *testing.T) {
	t.Parallel()
	f := newBashFixture(t, BashOptions{})
	start := time.Now()
	res := f.run(t, context.Background(), map[string]any{"command": `(sleep 10; echo late) & echo early`})
	// Waiting for the background process would take its 10 s.
	if elapsed := time.Since(start); elapsed > 8*time.Second {
		t.Errorf("waited %s for a background process", elapsed)
	}
	if res.IsError || !strings.Contains(res.Content, "early") || strings.Contains(res.Content, "late\n") ||
		!strings.Contains(res.Content, "Background processes still held the output open") {
		t.Fatalf("unexpected result %+v", res)
	}
}

func TestBashBoundsHugeOutput(t *testing.T) {
	// Not parallel: it measures the memory the run allocates.
	f := newBashFixture(t, BashOptions{})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res := f.run(t, context.Background(), map[string]any{"command": `yes | head -c 50000000; echo; echo THE-END`})
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("a 50 MB output allocated %d MB", alloc>>20)
	}
	if res.IsError {
		t.Fatalf("unexpected error: %.300s", res.Content)
	}
	if n := len(res.Content); n > DefaultBashMaxOutputBytes+200 {
		t.Errorf("content is %d bytes, want about %d", n, DefaultBashMaxOutputBytes)
	}
	if !strings.HasPrefix(res.Content, "y\ny\ny\n") || !strings.Contains(res.Content, "THE-END\nExit code: 0") {
		t.Errorf("head or tail missing: %.40q … %q", res.Content, res.Content[len(res.Content)-40:])
	}
	omitted := int64(50000000 + len("\nTHE-END\n") - DefaultBashMaxOutputBytes)
	if !strings.Contains(res.Content, fmt.Sprintf("... [%d bytes omitted] ...", omitted)) {
		t.Errorf("no note of the %d omitted bytes", omitted)
	}
	if res.Meta["outputBytes"] != int64(50000009) || res.Meta["truncated"] != true {
		t.Errorf("meta = %v", res.Meta)
	}
}

func TestBashKeepsRunesWhole(t *testing.T) {
	t.Parallel()
	f := newBashFixture(t, BashOptions{MaxOutputBytes: 1001})
	// Lines of 10 bytes (three 3-byte runes and a newline) never line up
	// with the 500/501-byte head and tail.
	res := f.run(t, context.Background(), map[string]any{"command": `yes 'あいう' | head -n 3000`})
	body := strings.TrimSuffix(res.Content, "Exit code: 0")
	if !utf8.ValidString(body) || strings.ContainsRune(body, utf8.RuneError) {
		t.Fatalf("output splits a rune:\n%q", body)
	}
	head, tail, ok := strings.Cut(body, "\n\n... [")
	if !ok || !strings.HasPrefix(head, "あいう\nあいう") || !strings.HasSuffix(tail, "あいう\n") {
		t.Fatalf("unexpected shape:\n%s", body)
	}
}

func TestOutputBufferKeepsHeadAndTail(t *testing.T) {
	t.Parallel()
	text := strings.Repeat("abcdé€😀\n", 2000) // 1-, 2-, 3- and 4-byte runes
	for _, max := range []int{1, 2, 7, 64, 1000, 4095, len(text), len(text) + 10} {
		t.Run(strconv.Itoa(max), func(t *testing.T) {
			t.Parallel()
			b := newOutputBuffer(max)
			for rest := text; rest != ""; {
				n := min(1+rand.IntN(700), len(rest))
				_, _ = b.Write([]byte(rest[:n]))
				rest = rest[n:]
			}
			got, truncated := b.Render()
			if !utf8.ValidString(got) || strings.ContainsRune(got, utf8.RuneError) {
				t.Fatalf("invalid UTF-8 in %q", got)
			}
			if len(text) <= max {
				if got != text || truncated {
					t.Fatalf("output that fits must be kept whole")
				}
				return
			}
			head, rest, ok := strings.Cut(got, "\n\n... [")
			note, tail, ok2 := strings.Cut(rest, "] ...\n\n")
			if !ok || !ok2 || !truncated {
				t.Fatalf("no omission note in %q", got)
			}
			if !strings.HasPrefix(text, head) || !strings.HasSuffix(text, tail) || len(head)+len(tail) > max {
				t.Fatalf("head %d + tail %d bytes are not the ends of the text within %d", len(head), len(tail), max)
			}
			if want := fmt.Sprintf("%d bytes omitted", len(text)-len(head)-len(tail)); note != want {
				t.Fatalf("note %q, want %q", note, want)
			}
			if max >= 8 && (len(head) < max/2-3 || len(tail) < max-max/2-3) {
				t.Fatalf("kept too little: head %d, tail %d of %d", len(head), len(tail), max)
			}
		})
	}
}

func TestBashThroughTheRegistry(t *testing.T) {
	t.Parallel()
	f := newBashFixture(t, BashOptions{})
	reg := tools.NewRegistry()
	if err := reg.Register(f.tool); err != nil {
		t.Fatal(err)
	}
	info, _ := reg.Info("Bash")
	if info.Safe || info.ReadOnly || info.MaxOutputBytes < DefaultBashMaxOutputBytes+1024 {
		t.Fatalf("Bash must be sensitive and bound its own output: %+v", info)
	}
	for _, tc := range []struct {
		name, args string
		isError    bool
		want       string
	}{
		{"runs", `{"command":"echo via-registry","description":"Print a word"}`, false, "via-registry"},
		{"failure gets the hint", `{"command":"exit 2"}`, true, tools.ErrorHint},
		{"refusal", `{"command":"rm -rf /"}`, true, "deny list"},
		{"missing command", `{}`, true, `missing required parameter "command"`},
		{"empty command", `{"command":"  "}`, true, "The command is empty"},
		{"timeout is milliseconds", `{"command":"true","timeout":5}`, true, "timeout"},
		{"timeout as a string", `{"command":"echo ok","timeout":"5000"}`, false, "ok"},
		{"big output is not cut again", `{"command":"head -c 300000 /dev/zero | tr '\\0' x"}`, false, "bytes omitted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := reg.Execute(context.Background(), "call-1", "Bash", json.RawMessage(tc.args))
			if res.IsError != tc.isError || !strings.Contains(res.Content, tc.want) {
				t.Fatalf("IsError = %v, want %v; content lacks %q?\n%.500s", res.IsError, tc.isError, tc.want, res.Content)
			}
			if res.Truncated {
				t.Errorf("the registry truncated Bash's already bounded output")
			}
		})
	}
}

func TestShellGuardInspector(t *testing.T) {
	t.Parallel()
	ws := bashWorkspace(t)
	tool := NewBash(ws, BashOptions{})
	insp, ok := tool.(tools.Inspector)
	if !ok {
		t.Fatal("the Bash tool does not implement Inspector")
	}
	got := insp.Warnings(map[string]any{"command": "sudo ls"})
	if len(got) != 1 || !strings.Contains(got[0], "sudo") {
		t.Fatalf("Warnings(sudo ls) = %q", got)
	}
	got = insp.Warnings(map[string]any{"command": "sudo rm -rf /"})
	if len(got) < 2 || !strings.HasPrefix(got[0], "Refused") {
		t.Fatalf("a denied command's warnings must lead with the refusal: %q", got)
	}
	as, ok := tool.(tools.Assessor)
	if !ok {
		t.Fatal("the Bash tool does not implement Assessor")
	}
	a := as.Assess(map[string]any{"command": "echo / | xargs rm -rf"})
	if a.Deny == "" {
		t.Errorf("Assess did not refuse: %+v", a)
	}
	a = as.Assess(map[string]any{"command": "find . -name x | xargs rm -rf"})
	if a.Deny != "" || !strings.Contains(a.Hold, "The folders `rm -rf` gets come from `xargs` and cannot be checked before it runs") {
		t.Errorf("Assess did not hold with the reason: %+v", a)
	}
	if a := as.Assess(map[string]any{"command": "go test ./..."}); a.Deny != "" || a.Hold != "" {
		t.Errorf("a harmless command was held: %+v", a)
	}
}
