package usertools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"tinyelf/backend/tools"
)

// stderrMetaBytes is how much of a tool's stderr the result's Meta keeps
// for the UI and the log.
const stderrMetaBytes = 4 << 10

// invoke runs one call of an action after the registry's pipeline let it
// through: the gate of a gated action (enforced here, so it holds in every
// permission mode), then either a background task or the call itself.
func (s *Service) invoke(ctx context.Context, agent string, d *Definition, a Action, args map[string]any, submit bool) tools.Result {
	agentDir, err := s.AgentDir(agent)
	if err != nil {
		return tools.Errorf("%v", err)
	}
	if msg := s.gateRefusal(agent, a); msg != "" {
		return tools.Errorf("%s", msg)
	}
	if submit {
		if !a.Profile.BackgroundEligible {
			return tools.Errorf("%s cannot run in the background: its profile does not set background_eligible. Call it without submit.", a.Schema)
		}
		task := s.tasks.submit(Task{Agent: agent, Tool: d.Name, Action: a.Name, Schema: a.Schema, Args: args, CallID: tools.CallIDFromContext(ctx)},
			func(ctx context.Context) tools.Result { return s.run(ctx, agentDir, d, a, args) })
		return tools.Result{
			Content: fmt.Sprintf("Submitted %s as background task %s. It runs on its own; the user gets a desktop notification when it ends. "+
				"Check it with tool_tasks(task_id=%q).", a.Schema, task.ID, task.ID),
			Meta: map[string]any{"taskId": task.ID, "tool": d.Name, "action": a.Name, "origin": string(d.Origin)},
		}
	}
	return s.run(ctx, agentDir, d, a, args)
}

// gateRefusal says why a gated action may not run for the agent, or ""
// when it may (or is not gated).
func (s *Service) gateRefusal(agent string, a Action) string {
	if !a.Profile.Gated {
		return ""
	}
	agentDir, err := s.AgentDir(agent)
	if err != nil {
		return err.Error()
	}
	p, err := LoadPermissions(agentDir)
	if err != nil {
		return fmt.Sprintf("%s is a gated action and this agent's permissions cannot be read, so it is refused: %v", a.Schema, err)
	}
	if p.Allows(a.Schema) {
		return ""
	}
	return fmt.Sprintf("%s is a gated action: it runs only when the user has allowed it explicitly, in every permission mode (auto mode included). "+
		"It is not allowed for agent %s. Do not retry; ask the user to allow %s in Settings → Tools → Permissions "+
		"(the \"external_tools\" list of %s/%s).", a.Schema, agent, a.Schema, agentDir, PermissionsFile)
}

// callRequest is what a tool process reads on stdin.
type callRequest struct {
	Tool     string         `json:"tool"`
	Action   string         `json:"action"`
	Schema   string         `json:"schema"`
	Args     map[string]any `json:"args"`
	AgentDir string         `json:"agent_dir"`
	// AnimaDir is the seed's name for the agent's folder; Python modules
	// receive it in args as the seed injects it.
	AnimaDir string `json:"anima_dir"`
	// Path is the Python module (the host reads it).
	Path string `json:"path,omitempty"`
}

// run starts the tool's process for one call and turns how it ended into
// a result. Every credential value the call was given is masked out of
// everything the result carries.
func (s *Service) run(ctx context.Context, agentDir string, d *Definition, a Action, args map[string]any) tools.Result {
	agent := ""
	if agentDir != "" {
		agent = filepath.Base(agentDir) // <data dir>/agents/<agent>
	}
	found, missing := s.creds.resolveAll(agent, d.credentialsFor(a))
	m := masker(found)
	env := s.toolEnv(agentDir, found, d.Name)
	req := callRequest{Tool: d.Name, Action: a.Name, Schema: a.Schema, Args: args, AgentDir: agentDir, AnimaDir: agentDir}
	spec := processSpec{dir: d.Dir, env: env, timeout: a.Profile.Timeout(), children: s.opts.Children}
	switch d.Kind {
	case KindPython:
		python, err := s.py.interpreter(env)
		if err != nil {
			return tools.Errorf("%s cannot run: %v", a.Schema, err)
		}
		req.Path = d.Path
		spec.argv = s.py.argv(python, "call")
	case KindExecutable:
		prog, err := s.resolveProgram(d.Dir, d.Command[0])
		if err != nil {
			return tools.Errorf("%s cannot run: %v", a.Schema, err)
		}
		spec.argv = append([]string{prog}, d.Command[1:]...)
	}
	stdin, err := json.Marshal(req)
	if err != nil {
		return tools.Errorf("The arguments of %s cannot be encoded: %v", a.Schema, err)
	}
	spec.stdin = stdin
	var res processResult
	err = errNotServed
	if d.Kind == KindPython && !s.opts.ProcessPerCall {
		res, err = s.forkServerFor(spec.argv[0]).run(ctx, spec)
	}
	if errors.Is(err, errNotServed) {
		res, err = runProcess(ctx, spec)
	}
	if err != nil {
		return tools.Errorf("%s could not start: %s", a.Schema, m.mask(err.Error()))
	}
	out := interpret(d, a, res)
	out.Content = m.mask(out.Content)
	if out.IsError && len(missing) > 0 {
		out.Content += fmt.Sprintf("\n(Credentials it declares but TinyElf did not find: %s. The user sets them in Settings → Tools, the vault, %s or the environment.)",
			strings.Join(missing, ", "), SharedCredentialDir+"/"+SharedCredentials)
	}
	meta := map[string]any{
		"tool": d.Name, "action": a.Name, "origin": string(d.Origin), "kind": string(d.Kind),
		"exitCode": res.exitCode, "durationMs": res.duration.Milliseconds(),
	}
	if st := strings.TrimSpace(res.stderr); st != "" {
		meta["stderr"] = m.mask(tail(st, stderrMetaBytes))
	}
	if res.signal != "" {
		meta["signal"] = res.signal
	}
	out.Meta = meta
	return out
}

// interpret reads a finished process's output.
func interpret(d *Definition, a Action, res processResult) tools.Result {
	name := a.Schema
	errTail := func() string {
		if st := strings.TrimSpace(lastLines(res.stderr, 12)); st != "" {
			return "\nIts stderr ended with:\n" + tail(st, 2000)
		}
		return ""
	}
	switch {
	case res.cancelled:
		return tools.Errorf("%s was stopped before it finished (the call was cancelled).", name)
	case res.hostLost && len(bytes.TrimSpace(res.stdout)) == 0:
		return tools.Errorf("%s was stopped: TinyElf's Python host went away during the call (TinyElf is closing, or the host crashed). Try again.", name)
	case res.timedOut:
		return tools.Errorf("%s did not finish within %s (its expected_seconds; the default is %ds) and was stopped, with every process it started. "+
			"If it needs longer, raise expected_seconds in its profile; if it waits for something that never comes, fix the tool.%s",
			name, a.Profile.Timeout(), DefaultExpectedSeconds, errTail())
	case res.overflow:
		return tools.Errorf("%s printed more than %d MB on stdout and was stopped. A tool's result must be one JSON value smaller than that; write large data to a file and return its path.",
			name, maxStdoutBytes>>20)
	}
	exit := exitDescription(res)
	body := bytes.TrimSpace(res.stdout)
	if d.Kind == KindPython {
		var env struct {
			OK        bool            `json:"ok"`
			Result    json.RawMessage `json:"result"`
			Error     string          `json:"error"`
			Type      string          `json:"type"`
			Traceback string          `json:"traceback"`
		}
		if len(body) == 0 || json.Unmarshal(body, &env) != nil {
			return tools.Errorf("%s crashed (%s) without returning a result.%s", name, exit, errTail())
		}
		if !env.OK {
			msg := fmt.Sprintf("%s failed: %s", name, env.Error)
			if tb := strings.TrimSpace(env.Traceback); tb != "" {
				msg += "\n" + tail(lastLines(tb, 10), 2000)
			}
			return tools.Result{Content: msg, IsError: true}
		}
		return tools.Result{Content: resultText(env.Result)}
	}
	if len(body) == 0 {
		if res.exitCode != 0 {
			return tools.Errorf("%s failed (%s) and printed no result.%s", name, exit, errTail())
		}
		return tools.Errorf("%s printed nothing on stdout; a tool must print its result as one JSON value.%s", name, errTail())
	}
	if !json.Valid(body) {
		return tools.Errorf("%s printed something that is not JSON (%s): %s\nA tool must print its result as one JSON value on stdout (logs go to stderr).%s",
			name, exit, preview(body, 300), errTail())
	}
	if res.exitCode != 0 {
		return tools.Errorf("%s failed (%s): %s%s", name, exit, preview(body, 2000), errTail())
	}
	var only map[string]json.RawMessage
	if json.Unmarshal(body, &only) == nil && len(only) == 1 {
		if e, ok := only["error"]; ok {
			return tools.Result{Content: fmt.Sprintf("%s failed: %s", name, resultText(e)), IsError: true}
		}
	}
	return tools.Result{Content: resultText(body)}
}

// resultText is what the model reads of a JSON result: a string as is,
// anything else as compact JSON.
func resultText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return string(raw)
	}
	return buf.String()
}

func exitDescription(res processResult) string {
	switch {
	case res.signal != "":
		return "killed by " + res.signal
	case res.exitCode == 0:
		return "exit status 0"
	}
	return fmt.Sprintf("exit status %d", res.exitCode)
}

func preview(b []byte, n int) string {
	s := strings.ToValidUTF8(string(b), "?")
	if len(s) <= n {
		return s
	}
	return tools.CutUTF8(s, n) + "…"
}

// tail returns the last n bytes of s, on a rune boundary.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	for len(s) > 0 && !utf8.RuneStart(s[0]) {
		s = s[1:]
	}
	return "…" + s
}

// warnings describe a call for the approval card: what runs, from where,
// and which credentials it gets.
func (s *Service) warnings(d *Definition, a Action) []string {
	w := []string{fmt.Sprintf("Runs the %s user tool %s (%s).", d.Origin, d.Name, d.Path)}
	if specs := d.credentialsFor(a); len(specs) > 0 {
		names := make([]string, len(specs))
		for i, c := range specs {
			names[i] = c.describe()
		}
		w = append(w, "It receives the credentials "+strings.Join(names, ", ")+".")
	}
	return w
}
