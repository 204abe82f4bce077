package usertools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"

	"tinyelf/backend/tools"
)

// ErrNoCLI is returned by RunCLI for a tool without a command-line entry.
var ErrNoCLI = errors.New("the tool has no command-line entry")

// RunCLI runs a user tool's command-line entry, the seed's
// `animaworks-tool <tool> …`: a Python tool's cli_main(argv), or an
// executable tool's manifest "cli" command with argv appended. The process
// has the terminal's streams, the tool environment and every credential
// the tool declares; credential values are masked in what it prints (line
// by line). It runs until it exits or ctx ends (its process group is then
// killed) and returns its exit status. Errors are for a tool that is
// unknown, failed to load, has no CLI, or cannot start.
func (s *Service) RunCLI(ctx context.Context, agent, tool string, argv []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	set := s.set(ctx, agent)
	d, ok := set.byName[tool]
	if !ok {
		return 0, fmt.Errorf("there is no user tool %q for agent %s", tool, set.agent)
	}
	if len(d.Errors) > 0 && !d.Loaded() {
		return 0, fmt.Errorf("the user tool %s failed to load: %v", tool, d.Errors)
	}
	if !d.HasCLI {
		return 0, fmt.Errorf("%w: %s needs a cli_main(argv) (Python) or a \"cli\" command in its manifest", ErrNoCLI, tool)
	}
	agentDir, err := s.AgentDir(set.agent)
	if err != nil {
		return 0, err
	}
	found, _ := s.creds.resolveAll(set.agent, d.allCredentials())
	env := s.toolEnv(agentDir, found, d.Name)
	var cmdArgv []string
	switch d.Kind {
	case KindPython:
		python, err := s.py.interpreter(env)
		if err != nil {
			return 0, err
		}
		cmdArgv = s.py.argv(python, "cli", append([]string{d.Path, d.Name}, argv...)...)
	default:
		prog, err := s.resolveProgram(d.Dir, d.CLI[0])
		if err != nil {
			return 0, err
		}
		cmdArgv = append(append([]string{prog}, d.CLI[1:]...), argv...)
	}
	m := masker(found)
	out, errOut := &maskWriter{w: stdout, m: m}, &maskWriter{w: stderr, m: m}
	cmd := exec.Command(cmdArgv[0], cmdArgv[1:]...)
	cmd.Dir, cmd.Env = d.Dir, env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, out, errOut
	cmd.WaitDelay = 2 * time.Second
	child, err := s.opts.Children.Start(cmd)
	if err != nil {
		return 0, fmt.Errorf("start %s: %w", tool, err)
	}
	stop := context.AfterFunc(ctx, func() { child.Signal(true) })
	err = cmd.Wait()
	stop()
	child.Exited()
	out.Flush()
	errOut.Flush()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) && !errors.Is(err, exec.ErrWaitDelay) {
		return 0, fmt.Errorf("run %s: %w", tool, err)
	}
	return cmd.ProcessState.ExitCode(), nil
}

// maskWriter masks credential values in complete lines before passing
// them on; Flush writes what is left.
type maskWriter struct {
	mu  sync.Mutex
	w   io.Writer
	m   masker
	buf []byte
}

func (w *maskWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if i := bytes.LastIndexByte(w.buf, '\n'); i >= 0 {
		if _, err := io.WriteString(w.w, w.m.mask(string(w.buf[:i+1]))); err != nil {
			return 0, err
		}
		w.buf = append(w.buf[:0], w.buf[i+1:]...)
	}
	// A line that never ends is passed on in pieces rather than held.
	if len(w.buf) > 64<<10 {
		if _, err := io.WriteString(w.w, w.m.mask(string(w.buf))); err != nil {
			return 0, err
		}
		w.buf = w.buf[:0]
	}
	return len(p), nil
}

// Flush writes out an unfinished last line.
func (w *maskWriter) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 {
		_, _ = io.WriteString(w.w, w.m.mask(string(w.buf)))
		w.buf = w.buf[:0]
	}
}

// Call runs one action for a person (Settings, `tinyelf tool`), through
// the same coercion, validation, gate and truncation as the agent's calls;
// invoking it is the approval. With submit it starts a background task
// (the action must be background-eligible).
func (s *Service) Call(ctx context.Context, agent, tool, action string, args map[string]any, submit bool) tools.CallResult {
	set := s.set(ctx, agent)
	use := &useTool{svc: s, set: set}
	params := map[string]any{"tool_name": tool, "action": action, "args": args, "submit": submit}
	if args == nil {
		delete(params, "args")
	}
	raw, _ := json.Marshal(params)
	reg := tools.NewRegistry()
	use.info = tools.Info{Name: UseToolName, Parameters: useToolParams, Source: tools.SourceLocal}
	if err := reg.Register(use); err != nil {
		return tools.CallResult{Name: tool, Content: err.Error(), IsError: true}
	}
	res := reg.Execute(ctx, "cli", UseToolName, raw)
	res.Name = tool + "_" + action
	if schema, ok := res.Meta["schema"].(string); ok {
		res.Name = schema
	}
	return res
}
