package proc

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Children keeps the child processes TinyElf starts (Bash commands, MCP
// servers, hooks) from outliving it. Each child leads a process group of its
// own (a job object on Windows); on Linux the kernel kills it when TinyElf
// dies (Pdeathsig); KillAll kills every group still alive when TinyElf exits;
// and because kill -9 leaves no chance for that, every group is also recorded
// in a folder of the data dir, where the next TinyElf to start finds it
// (ReapOrphans) and kills what is left, after checking that each process is
// still the one recorded (its start time, or the TINYELF_CHILD_OF tag in its
// environment), so that a pid the system has reused is never touched.
//
// Every child is made with Command (command.go), which also gives it the
// clean environment, without the secrets the owner's source names. A nil
// *Children starts children in their own groups and records nothing.
// Children is safe for concurrent use.
type Children struct {
	dir     string         // this owner's records: root/<owner>; "" keeps none
	tag     string         // this owner's ChildOfEnv value
	secrets func() Secrets // what no child may inherit; nil names nothing

	mu      sync.Mutex
	live    map[*Child]struct{}
	started bool // a child was started since NewChildren
	closed  bool
	spawn   chan spawnRequest // to the spawner; nil until the first Start, closed by KillAll
}

// spawnRequest asks the spawner to start cmd.
type spawnRequest struct {
	cmd  *exec.Cmd
	done chan error
}

// spawner starts children from one OS thread that lives until KillAll. The
// kernel's parent-death signal fires when the thread that started a child
// ends, not the process, and the Go runtime ends a thread when a goroutine
// locked to it exits: a child started from a thread that some other code
// locked and let go would be killed out of the blue. When KillAll closes
// requests, the goroutine exits locked and its thread ends, which takes
// every child started from it along.
func spawner(requests <-chan spawnRequest) {
	runtime.LockOSThread()
	for r := range requests {
		r.done <- r.cmd.Start()
	}
}

// startCmd starts cmd from the spawner's thread (directly when c is nil or
// closed).
func (c *Children) startCmd(cmd *exec.Cmd) error {
	if c == nil {
		return cmd.Start()
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return cmd.Start()
	}
	if c.spawn == nil {
		c.spawn = make(chan spawnRequest)
		go spawner(c.spawn)
	}
	r := spawnRequest{cmd: cmd, done: make(chan error, 1)}
	c.spawn <- r // under mu, so KillAll cannot close the channel meanwhile
	c.mu.Unlock()
	return <-r.done
}

// ChildrenFolder is the folder of the data dir where Children records the
// process groups it started.
const ChildrenFolder = "children"

// NewChildren returns a tracker that records its groups under root (the data
// dir's ChildrenFolder; "" records nothing on disk) and keeps from every
// child it starts what secrets returns at that moment (TinyElf passes
// engine.ChildSecrets of the current settings, so a key added in Settings
// applies to the next child at once; nil names nothing beyond what each
// caller names).
func NewChildren(root string, secrets func() Secrets) *Children {
	// The random part keeps two trackers of one process (tests) apart.
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	c := &Children{tag: ownerID(os.Getpid()) + "-" + hex.EncodeToString(rnd[:]), live: map[*Child]struct{}{}, secrets: secrets}
	if root != "" && recordsOnDisk {
		c.dir = filepath.Join(root, c.tag)
	}
	return c
}

// recordsOnDisk is false where a job object already ends every child with
// TinyElf, whatever way it dies.
const recordsOnDisk = runtime.GOOS != "windows"

// ownerID names a process for good: its pid and, where known, its start
// time, so that a later process given the same pid is another owner
// ("t" and the clock where not known, which ownerAlive cannot check).
func ownerID(pid int) string {
	if start, ok := processStart(pid); ok {
		return fmt.Sprintf("%d-%d", pid, start)
	}
	return fmt.Sprintf("%d-t%d", pid, time.Now().UnixNano())
}

// Child is one started child process and its group.
type Child struct {
	owner  *Children
	pid    int
	start  uint64 // 0 when not known
	file   string // its record; "" when none
	reaped atomic.Bool
	sys    childSys
}

// secretsNow returns what the owner's source names now (nothing for a nil
// owner or source).
func (c *Children) secretsNow() Secrets {
	if c == nil || c.secrets == nil {
		return Secrets{}
	}
	return c.secrets()
}

// start starts cmd, whose environment (already clean) and process group
// Command.Start has set, with TINYELF_CHILD_OF added to the environment,
// and records the group.
func (c *Children) start(cmd *exec.Cmd) (*Child, error) {
	if c != nil {
		cmd.Env = append(cmd.Env, ChildOfEnv+"="+c.tag)
		c.sweep()
		if c.dir != "" {
			// The owner's folder exists before the child does: should
			// TinyElf be killed before the group's record is written, the
			// next start still finds the owner and kills by its tag.
			_ = os.MkdirAll(c.dir, 0o700)
		}
	}
	if err := c.startCmd(cmd); err != nil {
		return nil, err
	}
	ch := &Child{owner: c, pid: cmd.Process.Pid}
	ch.start, _ = processStart(ch.pid)
	if err := ch.attach(cmd.Process); err != nil {
		// Without its job the child could outlive TinyElf: do not run it.
		_ = cmd.Process.Kill()
		_, _ = cmd.Process.Wait()
		return nil, fmt.Errorf("contain child process: %w", err)
	}
	if c == nil {
		return ch, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		// TinyElf is shutting down: nothing new may outlive it.
		ch.kill()
		return ch, nil
	}
	c.started = true
	c.live[ch] = struct{}{}
	if c.dir != "" {
		ch.file = filepath.Join(c.dir, strconv.Itoa(ch.pid))
		if os.WriteFile(ch.file, []byte(strconv.FormatUint(ch.start, 10)+"\n"), 0o600) != nil {
			ch.file = ""
		}
	}
	return ch, nil
}

// Pid returns the child's process ID (and its group's).
func (ch *Child) Pid() int { return ch.pid }

// Signal sends SIGTERM, or SIGKILL when kill is set, to the child's whole
// group (on Windows, kill or not, it ends the job).
func (ch *Child) Signal(kill bool) { ch.signal(kill) }

// Exited tells that Wait has returned for the child. Its record goes once
// nothing is left in its group; processes it left running in the background
// stay recorded until they end or KillAll ends them.
func (ch *Child) Exited() {
	ch.reaped.Store(true)
	if ch.owner == nil {
		ch.release()
		return
	}
	if ch.empty() {
		ch.owner.forget(ch)
	}
}

// forget drops ch's record.
func (c *Children) forget(ch *Child) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.live[ch]; !ok {
		return
	}
	delete(c.live, ch)
	ch.release()
}

func (ch *Child) release() {
	if ch.file != "" {
		_ = os.Remove(ch.file)
	}
	ch.closeSys()
}

// sweep drops the records of groups that have ended since.
func (c *Children) sweep() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for ch := range c.live {
		if ch.reaped.Load() && ch.empty() {
			delete(c.live, ch)
			ch.release()
		}
	}
}

// Live returns how many child groups are recorded as possibly running.
func (c *Children) Live() int {
	if c == nil {
		return 0
	}
	c.sweep()
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.live)
}

// KillAll kills every child group still running, and every process that
// carries this TinyElf's tag, and removes the records. TinyElf calls it on
// exit; children started afterwards are killed at once.
func (c *Children) KillAll() {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.closed = true
	live := c.live
	c.live = map[*Child]struct{}{}
	started := c.started
	if c.spawn != nil {
		close(c.spawn)
		c.spawn = nil
	}
	c.mu.Unlock()
	for ch := range live {
		ch.kill()
		ch.release()
	}
	if started {
		for _, pid := range taggedProcesses(c.tag) {
			killProcess(pid)
		}
	}
	if c.dir != "" {
		_ = os.RemoveAll(c.dir)
	}
}

// ReapOrphans is the start-up cleanup: for every TinyElf recorded under root
// that is no longer running (it crashed or was killed), it kills the groups
// it left whose leaders are still the processes recorded, and every process
// still carrying its tag, then drops its records. Records of a TinyElf that
// still runs (a window next to a `tinyelf run`) are left alone. It returns
// how many groups and processes it killed.
func ReapOrphans(root string) (int, error) {
	entries, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read child records: %w", err)
	}
	killed := 0
	for _, e := range entries {
		owner := e.Name()
		if !e.IsDir() || ownerAlive(owner) {
			continue
		}
		dir := filepath.Join(root, owner)
		recs, _ := os.ReadDir(dir)
		for _, r := range recs {
			pid, err := strconv.Atoi(r.Name())
			if err != nil || pid <= 1 {
				continue
			}
			b, err := os.ReadFile(filepath.Join(dir, r.Name()))
			if err != nil {
				continue
			}
			start, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
			if err != nil || start == 0 {
				continue // nothing to tell a reused pid by
			}
			if now, ok := processStart(pid); ok && now == start {
				killGroup(pid)
				killed++
			}
		}
		for _, pid := range taggedProcesses(owner) {
			killProcess(pid)
			killed++
		}
		if err := os.RemoveAll(dir); err != nil {
			return killed, fmt.Errorf("remove child records: %w", err)
		}
	}
	return killed, nil
}

// ownerAlive reports whether the TinyElf named by an owner ID
// ("pid-start-random") still runs. Where start times are unknown, a live pid
// counts as alive: better to leave a record than to kill another program's
// processes.
func ownerAlive(owner string) bool {
	parts := strings.Split(owner, "-")
	pid, err := strconv.Atoi(parts[0])
	if len(parts) < 2 || err != nil || pid <= 0 {
		return false
	}
	if start, err := strconv.ParseUint(parts[1], 10, 64); err == nil {
		if now, known := processStart(pid); known {
			return now == start
		}
	}
	return processAlive(pid)
}
