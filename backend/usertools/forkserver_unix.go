//go:build unix

package usertools

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"tinyelf/backend/proc"
)

// forkServer is a warm Python host ("host.py zygote") that forks a fresh
// child for each call. Every call still runs in a process of its own —
// its own environment with only its credentials, its own session and
// process group, its own pipes, the tool module imported anew — exactly
// as a per-call host would run it, but without paying the interpreter's
// start-up and the host's imports (BenchmarkCall has the figures). It is
// started on the first Python call and again after it dies. It is safe for
// concurrent use; close stops it.
type forkServer struct {
	argv     []string // the zygote's command line
	env      []string // its environment (the base one: no credentials)
	children *proc.Children

	mu      sync.Mutex
	cmd     *exec.Cmd
	conn    *net.UnixConn
	dead    chan struct{} // closed when the running zygote is gone
	nextID  int
	pending map[int]chan forkReply
	exits   map[int]chan forkExit
	closed  bool

	wmu sync.Mutex // one request on the socket at a time
}

type forkReply struct {
	pid  int
	exit chan forkExit
	err  error
}

type forkExit struct {
	code   int
	signal int
	lost   bool // the zygote died before it could say
}

func newForkServer(argv, env []string, children *proc.Children) *forkServer {
	return &forkServer{argv: argv, env: env, children: children}
}

// start launches the zygote if none is running. The caller holds mu.
func (z *forkServer) start() error {
	if z.closed {
		return errors.New("the fork server is closed")
	}
	if z.cmd != nil {
		select {
		case <-z.dead:
		default:
			return nil
		}
	}
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		return fmt.Errorf("fork server socket: %w", err)
	}
	syscall.CloseOnExec(fds[0])
	ours, theirs := os.NewFile(uintptr(fds[0]), "zygote"), os.NewFile(uintptr(fds[1]), "zygote-child")
	cmd := z.children.Command(z.argv[0], z.argv[1:]...)
	cmd.NoInherit, cmd.Named = true, z.env // built whole, as for a call
	cmd.ExtraFiles = []*os.File{theirs}
	child, err := cmd.Start()
	if err != nil {
		ours.Close()
		theirs.Close()
		return fmt.Errorf("start the fork server: %w", err)
	}
	theirs.Close()
	fc, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		proc.SignalGroup(cmd.Process, true)
		_ = cmd.Wait()
		child.Exited()
		return fmt.Errorf("fork server socket: %w", err)
	}
	conn := fc.(*net.UnixConn)
	z.cmd, z.conn, z.dead = cmd.Cmd, conn, make(chan struct{})
	z.pending, z.exits = map[int]chan forkReply{}, map[int]chan forkExit{}
	go z.read(conn, cmd.Cmd, child, z.dead)
	return nil
}

// read dispatches the zygote's messages until it goes away.
func (z *forkServer) read(conn *net.UnixConn, cmd *exec.Cmd, child *proc.Child, dead chan struct{}) {
	rd := bufio.NewReader(conn)
	for {
		line, err := rd.ReadBytes('\n')
		if err != nil {
			break
		}
		var m struct {
			ID     int    `json:"id"`
			PID    int    `json:"pid"`
			Error  string `json:"error"`
			Exit   int    `json:"exit"`
			Code   int    `json:"code"`
			Signal int    `json:"signal"`
		}
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		z.mu.Lock()
		switch {
		case m.Exit != 0:
			if ch, ok := z.exits[m.Exit]; ok {
				ch <- forkExit{code: m.Code, signal: m.Signal}
				delete(z.exits, m.Exit)
			}
		case m.ID != 0:
			if ch, ok := z.pending[m.ID]; ok {
				delete(z.pending, m.ID)
				if m.Error != "" {
					ch <- forkReply{err: errors.New(m.Error)}
				} else {
					exit := make(chan forkExit, 1)
					z.exits[m.PID] = exit
					ch <- forkReply{pid: m.PID, exit: exit}
				}
			}
		}
		z.mu.Unlock()
	}
	conn.Close()
	proc.SignalGroup(cmd.Process, true)
	_ = cmd.Wait()
	child.Exited()
	z.mu.Lock()
	for id, ch := range z.pending {
		ch <- forkReply{err: errors.New("the Python fork server stopped")}
		delete(z.pending, id)
	}
	for pid, ch := range z.exits {
		ch <- forkExit{lost: true}
		delete(z.exits, pid)
	}
	close(dead)
	z.mu.Unlock()
}

// errNotServed means the fork server could not take the call at all (it
// did not start, or the request never reached it); the caller runs the
// call in a process of its own instead. Once a request is sent, its
// outcome is the call's, so a tool never runs twice.
var errNotServed = errors.New("not served by the fork server")

// run runs one call like runProcess does, in a child of the zygote.
func (z *forkServer) run(ctx context.Context, spec processSpec) (processResult, error) {
	limit := spec.maxStdout
	if limit <= 0 {
		limit = maxStdoutBytes
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return processResult{}, errNotServed
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return processResult{}, errNotServed
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		for _, f := range []*os.File{inR, inW, outR, outW} {
			f.Close()
		}
		return processResult{}, errNotServed
	}
	closeChildEnds := func() { inR.Close(); outW.Close(); errW.Close() }

	env := map[string]string{}
	for _, kv := range spec.env {
		for i := 0; i < len(kv); i++ {
			if kv[i] == '=' {
				env[kv[:i]] = kv[i+1:]
				break
			}
		}
	}
	z.mu.Lock()
	if err := z.start(); err != nil {
		z.mu.Unlock()
		closeChildEnds()
		inW.Close()
		outR.Close()
		errR.Close()
		return processResult{}, errNotServed
	}
	z.nextID++
	id := z.nextID
	reply := make(chan forkReply, 1)
	z.pending[id] = reply
	conn, dead := z.conn, z.dead
	z.mu.Unlock()

	msg, _ := json.Marshal(map[string]any{"id": id, "env": env, "dir": spec.dir})
	msg = append(msg, '\n')
	rights := syscall.UnixRights(int(inR.Fd()), int(outW.Fd()), int(errW.Fd()))
	z.wmu.Lock()
	n, _, werr := conn.WriteMsgUnix(msg, rights, nil)
	if werr == nil && n < len(msg) {
		_, werr = conn.Write(msg[n:])
	}
	z.wmu.Unlock()
	closeChildEnds()
	if werr != nil && n == 0 {
		z.mu.Lock()
		delete(z.pending, id)
		z.mu.Unlock()
		inW.Close()
		outR.Close()
		errR.Close()
		return processResult{}, errNotServed
	}

	start := time.Now()
	stdout := &capWriter{limit: limit, full: make(chan struct{})}
	stderr := &tailWriter{limit: stderrTailBytes}
	var copies sync.WaitGroup
	copies.Add(3)
	go func() { defer copies.Done(); _, _ = inW.Write(spec.stdin); inW.Close() }()
	go func() { defer copies.Done(); _, _ = io.Copy(stdout, outR) }()
	go func() { defer copies.Done(); _, _ = io.Copy(stderr, errR) }()
	finish := func() {
		// A grandchild holding the pipes must not keep the call open.
		done := make(chan struct{})
		go func() { copies.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			outR.Close()
			errR.Close()
			inW.Close()
			<-done
		}
		outR.Close()
		errR.Close()
	}

	var r forkReply
	select {
	case r = <-reply:
	case <-dead:
		r = forkReply{err: errors.New("the Python fork server stopped")}
	case <-time.After(hostStartAllowance):
		// A fork server that does not answer is broken: stop it, so the
		// next call starts a new one.
		z.mu.Lock()
		delete(z.pending, id)
		z.mu.Unlock()
		conn.Close()
		r = forkReply{err: errors.New("the Python fork server did not answer")}
	}
	if r.err != nil {
		outR.Close()
		errR.Close()
		finish()
		return processResult{}, fmt.Errorf("the Python fork server could not start the call: %w", r.err)
	}
	kill := func() {
		_ = syscall.Kill(-r.pid, syscall.SIGKILL)
		_ = syscall.Kill(r.pid, syscall.SIGKILL) // before its setsid, the group is not there yet
	}
	// reaped waits for the zygote to report a killed child, within bounds.
	reaped := func() forkExit {
		select {
		case e := <-r.exit:
			return e
		case <-time.After(5 * time.Second):
			return forkExit{lost: true}
		}
	}
	runCtx, cancel := context.WithTimeout(ctx, spec.timeout)
	defer cancel()
	res := processResult{exitCode: -1}
	var exit forkExit
wait:
	for {
		select {
		case exit = <-r.exit:
			break wait
		case <-runCtx.Done():
			if ctx.Err() != nil {
				res.cancelled = true
			} else {
				res.timedOut = true
			}
			kill()
			exit = reaped()
			break wait
		case <-stdout.full:
			res.overflow = true
			kill()
			exit = reaped()
			break wait
		}
	}
	// Whatever the child left behind in its group goes with it.
	_ = syscall.Kill(-r.pid, syscall.SIGKILL)
	finish()
	res.duration = time.Since(start)
	res.stdout = stdout.buf.Bytes()
	res.stderr = stderr.String()
	switch {
	case exit.lost:
		res.hostLost = true
	case exit.signal != 0:
		res.signal = syscall.Signal(exit.signal).String()
	default:
		res.exitCode = exit.code
	}
	return res, nil
}

// close stops the zygote; calls in flight end as if it had died.
func (z *forkServer) close() {
	z.mu.Lock()
	z.closed = true
	conn, dead := z.conn, z.dead
	z.mu.Unlock()
	if conn != nil {
		conn.Close()
		<-dead
	}
}

// pid returns the running zygote's process ID, or 0.
func (z *forkServer) pid() int {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.cmd == nil || z.cmd.Process == nil {
		return 0
	}
	return z.cmd.Process.Pid
}
