package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"tinyelf/backend/proc"
	"tinyelf/internal/testutil"
)

// newRunner returns a Runner whose children die with the test.
func newRunner(t *testing.T, environ func() []string) *Runner {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("hook commands run with bash")
	}
	ch := proc.NewChildren(t.TempDir(), nil)
	t.Cleanup(ch.KillAll)
	return &Runner{Children: ch, Environ: environ}
}

func hook(ev Event, command string, timeout time.Duration) *Hook {
	return &Hook{Event: ev, Command: command, Timeout: timeout, Source: SourceSettings}
}

func TestRunnerGivesTheHookItsInputDirAndEnvironment(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	r := newRunner(t, func() []string { return []string{"PATH=" + os.Getenv("PATH"), "VISIBLE=yes"} })
	in := Input{SessionID: "s1", Cwd: ws, Event: PreToolUse, ToolName: "Bash", ToolInput: map[string]any{"command": "ls"}}
	runs := r.Run(context.Background(), []*Hook{hook(PreToolUse,
		`cat > stdin.json; pwd > pwd.txt; printf '%s|%s|%s|%s' "$CLAUDE_PROJECT_DIR" "$TINYELF_PROJECT_DIR" "$VISIBLE" "${OPENAI_API_KEY-unset}" > env.txt`, 5*time.Second)}, in, ws)
	if runs[0].ExitCode != 0 || runs[0].Verdict.Problem != "" {
		t.Fatalf("run: %+v", runs[0])
	}
	var got map[string]any
	b, _ := os.ReadFile(filepath.Join(ws, "stdin.json"))
	if err := json.Unmarshal(b, &got); err != nil || got["tool_name"] != "Bash" || got["session_id"] != "s1" {
		t.Errorf("stdin %s (%v)", b, err)
	}
	pwd, _ := os.ReadFile(filepath.Join(ws, "pwd.txt"))
	real, _ := filepath.EvalSymlinks(ws)
	if strings.TrimSpace(string(pwd)) != real && strings.TrimSpace(string(pwd)) != ws {
		t.Errorf("cwd %q, want %q", pwd, ws)
	}
	env, _ := os.ReadFile(filepath.Join(ws, "env.txt"))
	if string(env) != ws+"|"+ws+"|yes|unset" {
		t.Errorf("environment %q", env)
	}
}

func TestRunnerExitCodes(t *testing.T) {
	t.Parallel()
	r := newRunner(t, nil)
	ws := t.TempDir()
	runs := r.Run(context.Background(), []*Hook{
		hook(PreToolUse, `echo "blocked: rm -rf" >&2; exit 2`, 5*time.Second),
		hook(PreToolUse, `echo oops >&2; exit 3`, 5*time.Second),
		hook(PreToolUse, `echo '{"hookSpecificOutput":{"permissionDecision":"ask"}}'`, 5*time.Second),
	}, Input{Event: PreToolUse}, ws)
	if v := runs[0].Verdict; runs[0].ExitCode != 2 || v.Decision != Deny || v.Reason != "blocked: rm -rf" {
		t.Errorf("exit 2: %+v", runs[0])
	}
	if v := runs[1].Verdict; runs[1].ExitCode != 3 || v.Decision != "" || !strings.Contains(v.Problem, "oops") {
		t.Errorf("exit 3: %+v", runs[1])
	}
	if v := runs[2].Verdict; v.Decision != Ask {
		t.Errorf("JSON: %+v", runs[2])
	}
	if o := Combine(runs); o.Decision != Deny {
		t.Errorf("combined %+v", o)
	}
}

// TestRunnerKillsAHookPastItsTimeoutWithItsChildren: the hook starts a
// grandchild and sleeps; both are gone when Run returns.
func TestRunnerKillsAHookPastItsTimeoutWithItsChildren(t *testing.T) {
	t.Parallel()
	r := newRunner(t, nil)
	ws := t.TempDir()
	start := time.Now()
	runs := r.Run(context.Background(), []*Hook{hook(PreToolUse,
		`sleep 300 & echo $! > grandchild.pid; echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'; wait`, 300*time.Millisecond)},
		Input{Event: PreToolUse}, ws)
	run := runs[0]
	if !run.TimedOut || run.ExitCode != -1 || run.Verdict.Decision != "" || !strings.Contains(run.Verdict.Problem, "timeout") {
		t.Fatalf("run %+v", run)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("Run took %s for a 300ms timeout", took)
	}
	b, err := os.ReadFile(filepath.Join(ws, "grandchild.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	testutil.WaitGone(t, 10*time.Second, "the timed-out hook's grandchild", pid)
	// What it printed before it was killed is not obeyed.
	if o := Combine(runs); o.Decision != "" {
		t.Errorf("a timed-out hook decided %q", o.Decision)
	}
}

// TestRunnerRunsHooksInParallel: the first hook waits for a file only the
// second writes; run one after the other, the first would time out.
func TestRunnerRunsHooksInParallel(t *testing.T) {
	t.Parallel()
	r := newRunner(t, nil)
	ws := t.TempDir()
	runs := r.Run(context.Background(), []*Hook{
		hook(Stop, `while [ ! -f second ]; do sleep 0.01; done; echo first done`, 10*time.Second),
		hook(Stop, `touch second`, 10*time.Second),
	}, Input{Event: Stop}, ws)
	if runs[0].ExitCode != 0 || runs[0].Stdout != "first done\n" || runs[1].ExitCode != 0 {
		t.Fatalf("runs %+v", runs)
	}
}

func TestRunnerStopsHooksWithTheTurn(t *testing.T) {
	t.Parallel()
	r := newRunner(t, nil)
	ws := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan []Run, 1)
	go func() {
		done <- r.Run(ctx, []*Hook{hook(Stop, `touch started; exec sleep 300`, time.Minute)}, Input{Event: Stop}, ws)
	}()
	for {
		if _, err := os.Stat(filepath.Join(ws, "started")); err == nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	runs := <-done
	if !runs[0].Cancelled || runs[0].Verdict.Decision != "" {
		t.Errorf("run %+v", runs[0])
	}
}

func TestRunnerBoundsOutputAndSurvivesBadCommands(t *testing.T) {
	t.Parallel()
	r := newRunner(t, nil)
	ws := t.TempDir()
	runs := r.Run(context.Background(), []*Hook{
		hook(PostToolUse, `head -c 3000000 /dev/zero | tr '\0' x`, 10*time.Second),
		hook(PostToolUse, `this-command-does-not-exist-anywhere`, 10*time.Second),
		hook(PostToolUse, `exec 0<&-; echo ignoring stdin`, 10*time.Second),
	}, Input{Event: PostToolUse, ToolInput: map[string]any{"content": strings.Repeat("y", 1<<20)}}, ws)
	if len(runs[0].Stdout) != MaxOutputBytes || !runs[0].Truncated {
		t.Errorf("kept %d bytes (truncated %v)", len(runs[0].Stdout), runs[0].Truncated)
	}
	if runs[1].ExitCode != 127 || runs[1].Verdict.Problem == "" {
		t.Errorf("missing command: %+v", runs[1].Verdict)
	}
	if runs[2].ExitCode != 0 {
		t.Errorf("a hook that does not read its stdin: %+v", runs[2])
	}
}
