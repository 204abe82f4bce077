//go:build linux

package proc

import (
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
	"tinyelf/internal/testutil"
)

// readPids waits for a file of pids, one a line, written by a child.
func readPids(t *testing.T, path string, n int) []int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		var pids []int
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
		if len(pids) >= n {
			return pids
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %d pids in %s: %q", n, path, b)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// startSleeper starts, through c, a shell that leaves a background sleep
// in its group and one that escaped it (setsid), writes the pids of itself
// and both, and waits.
func startSleeper(t *testing.T, c *Children) (*exec.Cmd, *Child, []int) {
	t.Helper()
	pidFile := filepath.Join(t.TempDir(), "pids")
	script := fmt.Sprintf(`sleep 300 & echo $! >> %[1]q; setsid sleep 301 & echo $! >> %[1]q; echo $$ >> %[1]q; wait`, pidFile)
	cmd := c.Command("sh", "-c", script)
	ch, err := cmd.Start()
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = cmd.Wait() }()
	return cmd.Cmd, ch, readPids(t, pidFile, 3)
}

func TestChildrenKillAll(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	c := NewChildren(root, nil)
	_, ch, pids := startSleeper(t, c)
	recs, _ := filepath.Glob(filepath.Join(root, "*", strconv.Itoa(ch.Pid())))
	if len(recs) != 1 {
		t.Fatalf("no record of the group: %v", recs)
	}
	if c.Live() != 1 {
		t.Errorf("Live = %d", c.Live())
	}
	c.KillAll()
	testutil.WaitGone(t, 5*time.Second, "the child processes", pids...) // the escaped one goes by its tag
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Errorf("records left after KillAll: %v", entries)
	}
	// Nothing started after KillAll outlives it.
	cmd := c.Command("sleep", "300")
	if _, err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = cmd.Wait() }()
	testutil.WaitGone(t, 5*time.Second, "the child processes", cmd.Process.Pid)
}

func TestChildrenForgetEndedGroups(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	c := NewChildren(root, nil)
	cmd := c.Command("true")
	ch, err := cmd.Start()
	if err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	ch.Exited()
	if c.Live() != 0 {
		t.Errorf("Live = %d after the group ended", c.Live())
	}
	if recs, _ := filepath.Glob(filepath.Join(root, "*", "*")); len(recs) != 0 {
		t.Errorf("records left: %v", recs)
	}
	if !strings.Contains(strings.Join(cmd.Env, "\n"), ChildOfEnv+"="+c.tag) {
		t.Error("the child carries no tag")
	}
}

// TestReapOrphans is the start-up cleanup: what a dead owner left running is
// killed, by its recorded start time or its tag; a record whose pid now
// names another process, and the records of a live owner, are left alone.
func TestReapOrphans(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	// A live owner: this test process's own tracker.
	live := NewChildren(root, nil)
	_, _, livePids := startSleeper(t, live)
	defer live.KillAll()

	// A dead owner, written as a crashed TinyElf would have left it: one
	// group recorded with its true start time, one with a wrong one (the
	// pid was reused since), and one process that only carries the tag.
	dead := "999999999-12345"
	dir := filepath.Join(root, dead)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	start := func(args ...string) *exec.Cmd {
		cmd := exec.Command(args[0], args[1:]...)
		StartInOwnGroup(cmd)
		cmd.Env = append(os.Environ(), ChildOfEnv+"=none")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { _ = cmd.Wait() }()
		t.Cleanup(func() { SignalGroup(cmd.Process, true) })
		return cmd
	}
	recorded := start("sleep", "300")
	reused := start("sleep", "301")
	tagged := exec.Command("sleep", "302")
	tagged.Env = append(os.Environ(), ChildOfEnv+"="+dead)
	if err := tagged.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = tagged.Wait() }()
	t.Cleanup(func() { _ = tagged.Process.Kill() })
	st, ok := processStart(recorded.Process.Pid)
	if !ok {
		t.Fatal("no start time")
	}
	write := func(pid int, start uint64) {
		if err := os.WriteFile(filepath.Join(dir, strconv.Itoa(pid)), []byte(strconv.FormatUint(start, 10)+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(recorded.Process.Pid, st)
	write(reused.Process.Pid, 1) // not its start time: another process now

	killed, err := ReapOrphans(root)
	if err != nil {
		t.Fatal(err)
	}
	if killed != 2 {
		t.Errorf("killed %d, want 2 (the recorded group and the tagged process)", killed)
	}
	testutil.WaitGone(t, 5*time.Second, "the child processes", recorded.Process.Pid, tagged.Process.Pid)
	if testutil.ProcessGone(reused.Process.Pid) {
		t.Error("a process whose pid only matched a record was killed")
	}
	for _, pid := range livePids {
		if testutil.ProcessGone(pid) {
			t.Errorf("a live owner's child %d was killed", pid)
		}
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the dead owner's records are still there: %v", err)
	}
	if _, err := os.Stat(live.dir); err != nil {
		t.Errorf("the live owner's records are gone: %v", err)
	}
}

// TestPdeathsig: a child started with Command dies with the process that
// started it, however that one dies; a detached one (the file manager)
// stays. The starter is this test binary run again as a helper, which
// starts both, prints their pids and exits without any cleanup.
func TestPdeathsig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestPdeathsigHelper$")
	cmd.Env = append(os.Environ(), "TINYELF_PDEATHSIG_HELPER="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	pids := readPids(t, filepath.Join(dir, "pids"), 2)
	child, detached := pids[0], pids[1]
	t.Cleanup(func() { _ = syscall.Kill(detached, syscall.SIGKILL) })
	testutil.WaitGone(t, 5*time.Second, "the child processes", child)
	// The child is gone, so the kernel has acted on the helper's death.
	if testutil.ProcessGone(detached) {
		t.Error("the detached child died with the process that started it")
	}
}

// TestPdeathsigHelper is TestPdeathsig's starter; it does nothing in a
// normal run.
func TestPdeathsigHelper(t *testing.T) {
	dir := os.Getenv("TINYELF_PDEATHSIG_HELPER")
	if dir == "" {
		t.Skip("only run by TestPdeathsig")
	}
	c := NewChildren("", nil)
	ch, err := c.Command("sleep", "300").Start()
	if err != nil {
		t.Fatal(err)
	}
	det := c.Command("sh", "-c", `echo $$ > "$0/detached"; exec sleep 300`, dir)
	if err := det.Detach(); err != nil {
		t.Fatal(err)
	}
	var detPid []byte
	for len(detPid) == 0 {
		detPid, _ = os.ReadFile(filepath.Join(dir, "detached"))
		time.Sleep(5 * time.Millisecond)
	}
	_ = os.WriteFile(filepath.Join(dir, "pids"), fmt.Appendf(nil, "%d\n%s", ch.Pid(), detPid), 0o644)
	os.Exit(0)
}
