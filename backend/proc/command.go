package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync/atomic"
)

// This file is the one place TinyElf makes a child process: every Bash
// command, ripgrep run, MCP server, user tool, git clone and file-manager
// opener is an *exec.Cmd built here (TestEveryChildGoesThroughCommand
// fails on any other exec.Command, os.StartProcess or syscall.ForkExec in
// the tree). What it gives every child:
//
//   - the clean environment: the base (TinyElf's own, unless the caller
//     builds one) without TinyElf's secrets — the caller's, and always the
//     owner's, which the api fills from the settings (engine.ChildSecrets:
//     the provider and search key variables by name, every key the
//     settings hold by value) — then the entries the caller names
//     explicitly;
//   - a process group (a session) of its own, so the whole group can be
//     signalled and no terminal reaches it;
//   - on Linux, SIGKILL when TinyElf dies (Pdeathsig), started from the
//     owner's spawner thread (see spawner in children.go);
//   - on Windows, a job object that ends with TinyElf;
//   - a record under the data dir, so that what a TinyElf killed with -9
//     left running is reaped at the next start.
//
// The one kind of child that may outlive TinyElf is one started with
// Command.Detach: a file manager opened on a folder belongs to the user's
// desktop, not to the agent (closing TinyElf must not close the user's
// window), so it gets the clean environment and a session of its own but
// no parent-death signal, no job, no record and no TINYELF_CHILD_OF tag.

// Command is one child process about to be started, made by
// Children.Command. The embedded Cmd's Path, Args, Dir, Stdin, Stdout,
// Stderr, ExtraFiles and WaitDelay are the caller's to set; its Env,
// SysProcAttr and Cancel belong to Start (Start refuses a Command whose Env
// or SysProcAttr was set by hand). After Start the caller Waits for the
// Cmd as usual and then calls Exited on the returned Child.
type Command struct {
	*exec.Cmd
	// Environ is the environment the child starts from, before the secrets
	// are removed; nil means TinyElf's own (os.Environ()).
	Environ []string
	// NoInherit starts the child from nothing but Named, for callers that
	// build the whole environment from an allowlist (user tools).
	NoInherit bool
	// Named are NAME=value entries the caller gives the child on purpose
	// (an MCP server's configured env, a user tool's declared credentials,
	// git's settings): added after the secrets are removed, winning over
	// the base, and kept even when they look like secrets.
	Named []string
	// Secrets are removed besides the owner's.
	Secrets Secrets

	owner *Children
	child atomic.Pointer[Child]
}

// Command returns a child process of c that runs name with args (looked up
// on PATH as exec.Command does). A nil c still gives the child its own
// group and the clean environment of what the caller names, but no
// secrets from the settings and no records: only tests start children
// without an owner.
func (c *Children) Command(name string, args ...string) *Command {
	return &Command{Cmd: exec.Command(name, args...), owner: c}
}

// CommandContext is Command with a context: when ctx ends before the child
// exits, its whole group is killed (not only the child, as exec's default
// does).
func (c *Children) CommandContext(ctx context.Context, name string, args ...string) *Command {
	cmd := &Command{Cmd: exec.CommandContext(ctx, name, args...), owner: c}
	cmd.Cmd.Cancel = func() error {
		SignalGroup(cmd.Cmd.Process, true)
		if ch := cmd.child.Load(); ch != nil {
			ch.Signal(true) // the job object on Windows
		}
		return nil
	}
	return cmd
}

// errHandMade is returned by Start for a Command whose environment or
// process attributes were set by hand.
var errHandMade = errors.New("a child's Env and SysProcAttr are set by proc.Command: give Environ, Named or Secrets instead")

// env computes the child's environment.
func (c *Command) env() []string {
	base := c.Environ
	switch {
	case c.NoInherit:
		base = nil
	case base == nil:
		base = os.Environ()
	}
	return CleanEnv(base, c.Secrets.Merge(c.owner.secretsNow()), c.Named...)
}

// Start starts the child in a process group of its own, with the clean
// environment (and the owner's TINYELF_CHILD_OF tag), from the owner's
// spawner thread, and records it. The caller Waits for the Cmd, then calls
// Exited on the Child.
func (c *Command) Start() (*Child, error) {
	if c.Cmd.Env != nil || c.Cmd.SysProcAttr != nil {
		return nil, errHandMade
	}
	c.Cmd.Env = c.env()
	StartInOwnGroup(c.Cmd)
	ch, err := c.owner.start(c.Cmd)
	if err != nil {
		return nil, err
	}
	c.child.Store(ch)
	return ch, nil
}

// Run starts the child, waits for it to exit and for its group to be
// released, as exec.Cmd.Run does.
func (c *Command) Run() error {
	ch, err := c.Start()
	if err != nil {
		return err
	}
	err = c.Cmd.Wait()
	ch.Exited()
	return err
}

// Output runs the child and returns its standard output (the error's
// ExitError carries no stderr: set Stderr to keep it).
func (c *Command) Output() ([]byte, error) {
	if c.Cmd.Stdout != nil {
		return nil, errors.New("proc.Command: Stdout already set")
	}
	var out bytes.Buffer
	c.Cmd.Stdout = &out
	err := c.Run()
	return out.Bytes(), err
}

// CombinedOutput runs the child and returns its standard output and
// standard error together.
func (c *Command) CombinedOutput() ([]byte, error) {
	if c.Cmd.Stdout != nil || c.Cmd.Stderr != nil {
		return nil, errors.New("proc.Command: Stdout or Stderr already set")
	}
	var out bytes.Buffer
	c.Cmd.Stdout, c.Cmd.Stderr = &out, &out
	err := c.Run()
	return out.Bytes(), err
}

// Detach starts the child as one that may outlive TinyElf (the file
// manager opened on a folder): the clean environment and a session of its
// own, but no parent-death signal, no job object, no record and no tag, so
// neither TinyElf's exit nor the next start's cleanup touches it. It is
// reaped in the background; Detach returns once it has started.
func (c *Command) Detach() error {
	if c.Cmd.Env != nil || c.Cmd.SysProcAttr != nil {
		return errHandMade
	}
	c.Cmd.Env = c.env()
	startDetached(c.Cmd)
	if err := c.Cmd.Start(); err != nil {
		return err
	}
	go func() { _ = c.Cmd.Wait() }()
	return nil
}

// StartSelf starts TinyElf's own executable with args as a process that
// outlives this one and is not waited for (the runner of a background
// task). It is TinyElf, not a foreign program, so it keeps TinyElf's
// environment whole (it reads its own credentials as this process does);
// it leads a session of its own, out of the terminal's reach. Only this
// binary can be started this way.
func StartSelf(args ...string) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find TinyElf's executable: %w", err)
	}
	cmd := exec.Command(exe, args...)
	startDetached(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}
