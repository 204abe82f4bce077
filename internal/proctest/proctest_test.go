//go:build linux

package proctest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"tinyelf/backend/llm/llmtest"
	"tinyelf/internal/testutil"
)

// binary is the tinyelf built once for this package's tests.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "tinyelf-proctest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary, err = Build(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// runner is one `tinyelf run` against the scripted fake model.
type runner struct {
	t         *testing.T
	home      string // TINYELF_HOME
	workspace string
	srv       *llmtest.Server
	path      string   // a folder put first on TinyElf's PATH ("" none)
	extraEnv  []string // more NAME=value entries of TinyElf's environment
}

func newRunner(t *testing.T, turns ...llmtest.Turn) *runner {
	r := &runner{t: t, home: t.TempDir(), workspace: t.TempDir(), srv: llmtest.NewServer(t, turns...)}
	return r
}

// start starts `tinyelf run -p prompt` in auto mode with --yes.
func (r *runner) start(prompt string) (*exec.Cmd, *bytes.Buffer) {
	r.t.Helper()
	cmd := exec.Command(binary, "run", "--workspace", r.workspace, "--base-url", r.srv.URL, "--model", "test-model",
		"--mode", "auto", "--yes", "-p", prompt)
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "TINYELF_PROVIDER", "TINYELF_MODEL", "TINYELF_HOME", "DBUS_SESSION_BUS_ADDRESS":
			continue
		}
		env = append(env, kv)
	}
	cmd.Env = append(env, "TINYELF_HOME="+r.home, "DBUS_SESSION_BUS_ADDRESS=unix:path="+filepath.Join(r.home, "no-bus"))
	if r.path != "" {
		cmd.Env = append(cmd.Env, "PATH="+r.path+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	cmd.Env = append(cmd.Env, r.extraEnv...)
	out := &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_, _ = cmd.Process.Wait()
	})
	return cmd, out
}

// pidsIn waits for a file in the workspace holding n pids.
func (r *runner) pidsIn(name string, n int) []int {
	r.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, _ := os.ReadFile(filepath.Join(r.workspace, name))
		var pids []int
		for _, f := range strings.Fields(string(b)) {
			if p, err := strconv.Atoi(f); err == nil {
				pids = append(pids, p)
			}
		}
		if len(pids) >= n {
			return pids
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("the command never wrote %d pids to %s", n, name)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSIGINTDuringATurn: a Write to a FIFO answers at once with an error
// (it used to hang), and a SIGINT while the next tool runs ends `tinyelf
// run` within a second, its Bash child with it.
func TestSIGINTDuringATurn(t *testing.T) {
	t.Parallel()
	r := newRunner(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "w1", Name: "Write", Arguments: `{"path":"pipe","content":"x"}`}}},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "b1", Name: "Bash", Arguments: `{"command":"echo $$ > bash.pid; sleep 300"}`}}},
		llmtest.Turn{Text: "not reached"},
	)
	if err := syscall.Mkfifo(filepath.Join(r.workspace, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd, out := r.start("write to the pipe, then wait")
	bash := r.pidsIn("bash.pid", 1)[0]

	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	sent := time.Now()
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		took := time.Since(sent)
		t.Logf("tinyelf run exited %s after SIGINT (%v)", took.Round(time.Millisecond), err)
		if took > time.Second {
			t.Errorf("tinyelf run took %s to exit after SIGINT, want at most 1s", took)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("tinyelf run ignored SIGINT:\n%s", out)
	}
	testutil.WaitGone(t, 5*time.Second, "the Bash child after SIGINT", bash)
	reqs := r.srv.ChatRequests()
	if len(reqs) < 2 {
		t.Fatalf("the model was asked %d times:\n%s", len(reqs), out)
	}
	b, _ := json.Marshal(reqs[1].Body["messages"])
	if !bytes.Contains(b, []byte("named pipe (FIFO)")) {
		t.Errorf("the Write result the model saw does not explain the FIFO:\n%s", b)
	}
	if st, err := os.Lstat(filepath.Join(r.workspace, "pipe")); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v", err)
	}
}

// TestKill9LeavesNoChild: after kill -9 of `tinyelf run`, its Bash child
// dies with it (the parent-death signal), and what that child left in the
// background is killed when TinyElf next starts (the recorded groups).
func TestKill9LeavesNoChild(t *testing.T) {
	t.Parallel()
	r := newRunner(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "b1", Name: "Bash",
			Arguments: `{"command":"sleep 300 & echo $! > bg.pid; echo $$ > bash.pid; wait"}`}}},
		llmtest.Turn{Text: "not reached"},
		llmtest.Turn{Text: "second run"},
	)
	cmd, _ := r.start("start something long")
	bash := r.pidsIn("bash.pid", 1)[0]
	bg := r.pidsIn("bg.pid", 1)[0]
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no chance to clean up
		t.Fatal(err)
	}
	_, _ = cmd.Process.Wait()
	testutil.WaitGone(t, 5*time.Second, "the Bash child after kill -9", bash)

	// The next TinyElf to start kills what was left behind.
	next, out := r.start("hello again")
	if err := next.Wait(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatal(err)
		}
		t.Logf("second run: %v\n%s", err, out)
	}
	testutil.WaitGone(t, 5*time.Second, "the background child after the next start", bg)
}
