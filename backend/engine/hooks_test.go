package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"tinyelf/backend/config"
	"tinyelf/backend/hooks"
	"tinyelf/backend/llm"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/proc"
	"tinyelf/backend/sessions"
	"tinyelf/internal/testutil"
)

// withHooks turns the user's hooks on with raw as the settings' hooks
// section: transcripts and trust answers under the data folder, every hook
// in a process group the test kills at its end.
func withHooks(raw string, mod ...func(*HookOptions)) harnessOption {
	return func(h *harness, o *Options) {
		if runtime.GOOS == "windows" {
			h.t.Skip("the hook scripts are bash")
		}
		h.setHooks(raw)
		trust, err := hooks.OpenTrustStore(filepath.Join(h.dir, hooks.TrustFile))
		if err != nil {
			h.t.Fatal(err)
		}
		ho := &HookOptions{Trust: trust, TranscriptDir: filepath.Join(h.dir, "transcripts")}
		for _, m := range mod {
			m(ho)
		}
		o.Hooks = ho
		ch := proc.NewChildren(filepath.Join(h.dir, "children"), nil)
		h.t.Cleanup(ch.KillAll)
		o.Children = ch
	}
}

// setHooks replaces the settings' hooks section.
func (h *harness) setHooks(raw string) {
	h.t.Helper()
	if err := h.settings.Update(func(s *config.Settings) error { s.Hooks = json.RawMessage(raw); return nil }); err != nil {
		h.t.Fatal(err)
	}
}

// hooksJSON writes a hooks section: event → matcher → command.
type hookSpec struct {
	event   hooks.Event
	matcher string
	command string
	timeout float64
}

func hooksJSON(specs ...hookSpec) string {
	c := hooks.Config{}
	for _, s := range specs {
		c[s.event] = append(c[s.event], hooks.Group{Matcher: s.matcher, Hooks: []hooks.Command{{Type: hooks.TypeCommand, Command: s.command, Timeout: hooks.Seconds(s.timeout)}}})
	}
	b, err := c.Marshal()
	if err != nil {
		panic(err)
	}
	return string(b)
}

// capture is a hook command that saves its stdin as <dir>/<event>.<pid>.json.
func capture(dir string, ev hooks.Event) hookSpec {
	return hookSpec{event: ev, command: fmt.Sprintf("cat > '%s/%s.'$$'.json'", dir, ev)}
}

// captured returns the inputs the capture hooks of ev saved, oldest first.
func captured(t *testing.T, dir string, ev hooks.Event) []map[string]any {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, string(ev)+".*.json"))
	type file struct {
		mod time.Time
		in  map[string]any
	}
	var list []file
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var in map[string]any
		if err := json.Unmarshal(b, &in); err != nil {
			t.Fatalf("%s: %s is not JSON: %v", f, b, err)
		}
		st, _ := os.Stat(f)
		list = append(list, file{st.ModTime(), in})
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].mod.Before(list[j].mod) })
	out := make([]map[string]any, len(list))
	for i, f := range list {
		out[i] = f.in
	}
	return out
}

// fields checks an input field by field.
func fields(t *testing.T, what string, in map[string]any, want map[string]any) {
	t.Helper()
	for k, v := range want {
		got := in[k]
		if fmt.Sprint(got) != fmt.Sprint(v) {
			t.Errorf("%s: %s = %v, want %v", what, k, got, v)
		}
	}
}

// hookRuns returns a session's logged hook runs.
func hookRuns(h *harness, id string) []sessions.HookRun {
	return logged[sessions.HookRun](h, id, sessions.EventHookRun)
}

// hasRun reports whether a run of ev is logged (a background hook ended).
func hasRun(h *harness, id string, ev hooks.Event) bool {
	for _, r := range hookRuns(h, id) {
		if r.Event == string(ev) {
			return true
		}
	}
	return false
}

// script writes an executable script into the workspace's .claude/hooks.
func (h *harness) script(name, body string) string {
	h.t.Helper()
	p := filepath.Join(h.workspace, ".claude", "hooks", name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
		h.t.Fatal(err)
	}
	return `"$CLAUDE_PROJECT_DIR"/.claude/hooks/` + name
}

func (h *harness) askedTools() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, a := range h.asked {
		out = append(out, a.Tool)
	}
	return out
}

// TestHookInputsAtEveryPoint runs a turn with a capturing hook at every
// event and checks that each fired at its point with the documented input,
// field by field.
func TestHookInputsAtEveryPoint(t *testing.T) {
	t.Parallel()
	cap := t.TempDir()
	var specs []hookSpec
	for _, ev := range hooks.Events {
		specs = append(specs, capture(cap, ev))
	}
	h := newHarness(t, llm.KindOpenAI, []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{call("c1", "Bash", `{"command":"echo hi","description":"say hi"}`)}},
		{ToolCalls: []llmtest.ToolCall{call("c2", "Read", `{"path":"missing.txt"}`)}},
		{Text: "All done."},
	}, withHooks(hooksJSON(specs...)))
	id := h.session(ModeDefault)
	res := h.run(id, "say hi, then read missing.txt")
	if res.Reason != EndDone || res.Text != "All done." {
		t.Fatalf("result %+v", res)
	}
	transcript := filepath.Join(h.dir, "transcripts", id+".jsonl")
	common := map[string]any{"session_id": id, "cwd": h.workspace, "permission_mode": "default", "transcript_path": transcript}
	one := func(ev hooks.Event) map[string]any {
		t.Helper()
		got := captured(t, cap, ev)
		if len(got) != 1 {
			t.Fatalf("%s fired %d times", ev, len(got))
		}
		fields(t, string(ev), got[0], common)
		fields(t, string(ev), got[0], map[string]any{"hook_event_name": string(ev)})
		return got[0]
	}
	fields(t, "SessionStart", one(hooks.SessionStart), map[string]any{"source": "startup", "model": "test-model"})
	fields(t, "UserPromptSubmit", one(hooks.UserPromptSubmit), map[string]any{"prompt": "say hi, then read missing.txt"})
	pre := captured(t, cap, hooks.PreToolUse)
	if len(pre) != 2 {
		t.Fatalf("PreToolUse fired %d times", len(pre))
	}
	fields(t, "PreToolUse Bash", pre[0], map[string]any{"tool_name": "Bash", "tool_use_id": "c1",
		"tool_input": map[string]any{"command": "echo hi", "description": "say hi"}})
	fields(t, "PreToolUse Read", pre[1], map[string]any{"tool_name": "Read", "tool_use_id": "c2",
		"tool_input": map[string]any{"path": "missing.txt", "file_path": filepath.Join(h.workspace, "missing.txt")}})
	// Bash asks in default mode: the hook heard of it first. Read does not.
	perm := one(hooks.PermissionRequest)
	fields(t, "PermissionRequest", perm, map[string]any{"tool_name": "Bash", "tool_use_id": "c1"})
	if s, _ := perm["permission_suggestions"].([]any); len(s) != 1 || !strings.Contains(fmt.Sprint(s), "toolName:Bash") || !strings.Contains(fmt.Sprint(s), "ruleContent:echo") {
		t.Errorf("permission_suggestions %v", perm["permission_suggestions"])
	}
	post := one(hooks.PostToolUse)
	fields(t, "PostToolUse", post, map[string]any{"tool_name": "Bash", "tool_use_id": "c1"})
	resp, _ := post["tool_response"].(map[string]any)
	if !strings.Contains(fmt.Sprint(resp["content"]), "hi") || resp["success"] != true || !strings.Contains(fmt.Sprint(resp["stdout"]), "hi") {
		t.Errorf("tool_response %v", resp)
	}
	fail := one(hooks.PostToolUseFailure)
	fields(t, "PostToolUseFailure", fail, map[string]any{"tool_name": "Read", "tool_use_id": "c2", "is_interrupt": false})
	if !strings.Contains(fmt.Sprint(fail["error"]), "missing.txt") {
		t.Errorf("error %v", fail["error"])
	}
	fields(t, "Stop", one(hooks.Stop), map[string]any{"stop_hook_active": false})
	// Notification runs beside the turn: TinyElf told the user it finished.
	testutil.WaitFor(t, "the Notification hook", func() bool { return hasRun(h, id, hooks.Notification) })
	note := one(hooks.Notification)
	fields(t, "Notification", note, map[string]any{"notification_type": "idle_prompt", "title": "TinyElf finished"})
	if !strings.Contains(fmt.Sprint(note["message"]), "All done.") {
		t.Errorf("message %v", note["message"])
	}
	for _, ev := range []hooks.Event{hooks.PreCompact, hooks.SubagentStop, hooks.SessionEnd} {
		if got := captured(t, cap, ev); len(got) != 0 {
			t.Errorf("%s fired: %v", ev, got)
		}
	}
	// A session that ends with TinyElf runs SessionEnd.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	h.engine.Shutdown(ctx)
	fields(t, "SessionEnd", one(hooks.SessionEnd), map[string]any{"reason": "prompt_input_exit"})

	// Every run is in the log: the tool ones under their calls.
	byEvent := map[string]int{}
	for _, r := range hookRuns(h, id) {
		byEvent[r.Event]++
		if r.ExitCode != 0 || r.Problem != "" || r.Command == "" || r.Source != hooks.SourceSettings {
			t.Errorf("run %+v", r)
		}
		if hooks.Event(r.Event).ToolEvent() && r.CallID == "" {
			t.Errorf("a tool hook's run without its call: %+v", r)
		}
	}
	want := map[string]int{"SessionStart": 1, "UserPromptSubmit": 1, "PreToolUse": 2, "PermissionRequest": 1, "PostToolUse": 1,
		"PostToolUseFailure": 1, "Stop": 1, "Notification": 1, "SessionEnd": 1}
	if fmt.Sprint(byEvent) != fmt.Sprint(want) {
		t.Errorf("logged runs %v, want %v", byEvent, want)
	}
	ui, _ := h.store.UIMessages(context.Background(), id)
	for _, m := range ui {
		if m.Kind == sessions.UITool && m.Tool.CallID == "c1" && len(m.Tool.Hooks) != 3 {
			t.Errorf("the Bash card lists %d hook runs, want PreToolUse, PermissionRequest and PostToolUse: %+v", len(m.Tool.Hooks), m.Tool.Hooks)
		}
	}
}

// TestCompactionHooks: PreCompact runs before the history is compacted and
// SessionStart ("compact") after, its context following the summary.
func TestCompactionHooks(t *testing.T) {
	t.Parallel()
	cap := t.TempDir()
	h := newHarness(t, llm.KindAnthropic, []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{call("r", "Read", `{"path":"big.txt"}`)}},
		{Text: "SUMMARY: big.txt was read."},
		{Text: "Here is the answer."},
	}, withHooks(hooksJSON(capture(cap, hooks.PreCompact),
		hookSpec{event: hooks.SessionStart, matcher: "compact", command: `cat > '` + cap + `/SessionStart.'$$'.json'; echo "Remember: the build uses make."`})))
	h.writeFile("big.txt", strings.Repeat("lorem ipsum dolor sit amet\n", 800))
	if err := h.settings.Update(func(s *config.Settings) error { s.Providers[0].ContextWindow = 6000; return nil }); err != nil {
		t.Fatal(err)
	}
	id := h.session(ModeDefault)
	if res := h.run(id, "summarise big.txt"); res.Reason != EndDone {
		t.Fatalf("result %+v", res)
	}
	pre := captured(t, cap, hooks.PreCompact)
	if len(pre) != 1 {
		t.Fatalf("PreCompact fired %d times", len(pre))
	}
	fields(t, "PreCompact", pre[0], map[string]any{"hook_event_name": "PreCompact", "trigger": "auto", "custom_instructions": "", "session_id": id})
	// The startup SessionStart does not match "compact"; the compaction's does.
	starts := captured(t, cap, hooks.SessionStart)
	if len(starts) != 1 {
		t.Fatalf("SessionStart fired %d times", len(starts))
	}
	fields(t, "SessionStart", starts[0], map[string]any{"source": "compact"})
	reqs := h.srv.ChatRequests()
	last := requestText(reqs[len(reqs)-1])
	mustContain(t, "the request after compaction", last, "SUMMARY", "Remember: the build uses make.")
	if strings.Index(last, "SUMMARY") > strings.Index(last, "Remember: the build") {
		t.Error("the SessionStart context comes before the summary")
	}
}

// TestSubagentStopHook: a subagent's end runs SubagentStop (with its
// session, agent and transcripts), never Stop, SessionStart or
// UserPromptSubmit; its parent's end runs Stop.
func TestSubagentStopHook(t *testing.T) {
	t.Parallel()
	cap := t.TempDir()
	a := newActors([]llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{call("sp1", "spawn_agent", `{"prompt":"TASK-A: look around","tools":["Read"]}`)}},
		{Text: "The child looked."},
	}, "TASK-A", []llmtest.Turn{{Text: "Nothing here."}})
	h := newHarness(t, llm.KindOpenAI, nil, withHooks(hooksJSON(capture(cap, hooks.SubagentStop), capture(cap, hooks.Stop),
		capture(cap, hooks.SessionStart), capture(cap, hooks.UserPromptSubmit))))
	a.install(h)
	parent := h.session(ModeDefault)
	if res := h.run(parent, "Spawn a helper"); res.Reason != EndDone {
		t.Fatalf("result %+v", res)
	}
	child := h.children(parent)[0]
	subs := captured(t, cap, hooks.SubagentStop)
	if len(subs) != 1 {
		t.Fatalf("SubagentStop fired %d times", len(subs))
	}
	fields(t, "SubagentStop", subs[0], map[string]any{"session_id": child.ID, "agent_id": child.ID, "agent_type": "default", "stop_hook_active": false,
		"agent_transcript_path": filepath.Join(h.dir, "transcripts", child.ID+".jsonl"),
		"transcript_path":       filepath.Join(h.dir, "transcripts", parent+".jsonl")})
	stops := captured(t, cap, hooks.Stop)
	if len(stops) != 1 {
		t.Fatalf("Stop fired %d times", len(stops))
	}
	fields(t, "Stop", stops[0], map[string]any{"session_id": parent})
	for _, ev := range []hooks.Event{hooks.SessionStart, hooks.UserPromptSubmit} {
		if got := captured(t, cap, ev); len(got) != 1 || got[0]["session_id"] != parent {
			t.Errorf("%s: %v, want once, for the parent", ev, got)
		}
	}
}

// TestSessionStartResumeAndSessionEndOnRelease: a session coming back
// after it left memory starts again with source "resume"; leaving memory
// ends it with reason "other".
func TestSessionStartResumeAndSessionEndOnRelease(t *testing.T) {
	t.Parallel()
	cap := t.TempDir()
	h := newHarness(t, llm.KindOpenAI, []llmtest.Turn{{Text: "one"}, {Text: "two"}},
		withHooks(hooksJSON(capture(cap, hooks.SessionStart), capture(cap, hooks.SessionEnd))))
	id := h.session(ModeDefault)
	h.run(id, "first")
	h.engine.evictIf(h.engine.peek(id), -1)
	testutil.WaitFor(t, "SessionEnd", func() bool { return hasRun(h, id, hooks.SessionEnd) })
	fields(t, "SessionEnd", captured(t, cap, hooks.SessionEnd)[0], map[string]any{"reason": "other", "session_id": id})
	h.run(id, "second")
	starts := captured(t, cap, hooks.SessionStart)
	var sources []string
	for _, s := range starts {
		sources = append(sources, fmt.Sprint(s["source"]))
	}
	if !slices.Equal(sources, []string{"startup", "resume"}) {
		t.Errorf("sources %v", sources)
	}
}
