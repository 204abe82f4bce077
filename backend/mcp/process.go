package mcp

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"sort"
	"sync"
	"time"

	"tinyelf/backend/config"
	"tinyelf/backend/proc"
)

// stderrDrainGrace is how long an exited server's stderr is still read
// before the exit is reported without the rest of it.
const stderrDrainGrace = time.Second

// process is a stdio MCP server's child process. TinyElf owns it directly
// rather than through mcp-go's stdio transport so that it can start the
// child in its own process group, notice at once when it exits (the
// transport only notices on the next request) and kill the whole group,
// grandchildren included, when the connection ends.
type process struct {
	cmd    *proc.Command
	child  *proc.Child
	stdin  io.WriteCloser // the child's stdin (our end)
	stdout *os.File       // the child's stdout (our end)
	// done is closed once the child has exited and been reaped, and its
	// stderr has been read to the end (or stderrDrainGrace has passed), so
	// that whoever reports the exit reports the server's last words too.
	done chan struct{}
	err  error // Wait's result, set before done closes
	// logged is closed once the child's stderr has been read to the end.
	logged chan struct{}

	stopOnce sync.Once
}

// startProcess starts cfg's command with its args, environment (added to
// environ's, or TinyElf's own when nil, either way without the secrets
// children's owner names) and working folder, through children. Its stderr
// goes to log line by line.
func startProcess(cfg config.MCPServer, log io.Writer, environ func() []string, children *proc.Children) (*process, error) {
	if cfg.Command == "" {
		return nil, errors.New("no command is configured")
	}
	if cfg.Cwd != "" {
		st, err := os.Stat(cfg.Cwd)
		if err != nil {
			return nil, fmt.Errorf("working folder: %w", err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("working folder %s is not a folder", cfg.Cwd)
		}
	}
	cmd := children.Command(cfg.Command, cfg.Args...)
	cmd.Dir = cfg.Cwd
	if environ != nil {
		cmd.Environ = environ()
	}
	keys := make([]string, 0, len(cfg.Env))
	for k := range cfg.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	named := make([]string, 0, len(keys))
	for _, k := range keys {
		named = append(named, k+"="+cfg.Env[k])
	}
	// What the server's config names explicitly is passed even when it
	// looks like a secret: the user gave it to this server.
	cmd.Named = named

	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	// Plain pipes for stdout and stderr: the child (and any grandchild) gets
	// the write ends, so our reads see EOF only when every holder is gone,
	// and no copying goroutine ties Wait to them.
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("stderr pipe: %w", err)
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	child, err := cmd.Start()
	if err != nil {
		for _, f := range []*os.File{outR, outW, errR, errW} {
			f.Close()
		}
		switch {
		case errors.Is(err, exec.ErrNotFound):
			return nil, fmt.Errorf("command %q was not found on PATH; install it or give its full path", cfg.Command)
		case errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("command %s does not exist", cfg.Command)
		}
		return nil, fmt.Errorf("start %s: %w", cfg.Command, err)
	}
	outW.Close()
	errW.Close()

	p := &process{cmd: cmd, child: child, stdin: stdin, stdout: outR, done: make(chan struct{}), logged: make(chan struct{})}
	go func() {
		defer close(p.logged)
		_, _ = io.Copy(log, errR)
		errR.Close()
		if f, ok := log.(interface{ Flush() }); ok {
			f.Flush()
		}
	}()
	go func() {
		p.err = cmd.Wait()
		// The server is gone; whatever it left running in its group goes too.
		child.Signal(true)
		child.Exited()
		// The group is gone, so the stderr pipe ends at once, unless a
		// grandchild that left the group still holds it.
		t := time.NewTimer(stderrDrainGrace)
		select {
		case <-p.logged:
		case <-t.C:
		}
		t.Stop()
		close(p.done)
	}()
	return p, nil
}

// exited reports whether the child has exited.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// exitError describes how the child ended, or "" while it runs.
func (p *process) exitError() string {
	if !p.exited() {
		return ""
	}
	if p.err == nil {
		return "exited with status 0"
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		if sig := proc.ExitSignal(ee.ProcessState); sig != "" {
			return "killed by " + sig
		}
		return fmt.Sprintf("exited with status %d", ee.ExitCode())
	}
	return p.err.Error()
}

// stop ends the child the way the MCP spec asks: close its stdin, give it a
// moment to exit, then SIGTERM its process group, then SIGKILL. It returns
// once the child is reaped (or after the kill, at worst ~grace*4).
func (p *process) stop(grace time.Duration) {
	p.stopOnce.Do(func() {
		_ = p.stdin.Close()
		if !p.waitFor(grace) {
			p.child.Signal(false)
			if !p.waitFor(grace * 2) {
				p.child.Signal(true)
				p.waitFor(grace)
			}
		}
		// Unblock the transport's reader should a grandchild still hold
		// the other end of stdout.
		_ = p.stdout.Close()
	})
}

func (p *process) waitFor(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.done:
		return true
	case <-t.C:
		return false
	}
}
