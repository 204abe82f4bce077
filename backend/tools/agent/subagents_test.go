package agent

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
	"tinyelf/backend/tools"
)

// fakeSpawner records what spawn_agent asked for and answers as set.
type fakeSpawner struct {
	got  []SpawnRequest
	run  SubagentRun
	runs []SubagentRun
	err  error
}

func (f *fakeSpawner) Spawn(_ context.Context, req SpawnRequest) (SubagentRun, error) {
	f.got = append(f.got, req)
	return f.run, f.err
}
func (f *fakeSpawner) Runs(context.Context) ([]SubagentRun, error) { return f.runs, f.err }
func (f *fakeSpawner) Run(_ context.Context, id string) (SubagentRun, error) {
	for _, r := range f.runs {
		if r.RunID == id {
			return r, nil
		}
	}
	return SubagentRun{}, Refusef("there is no subagent run %q", id)
}

func TestSpawnAgentTool(t *testing.T) {
	done := SubagentRun{RunID: "r1", SessionID: "r1", Agent: "default", Mode: "plan", State: RunDone, Iterations: 3,
		Text: "Found it in main.go.", Usage: SubagentUsage{InputTokens: 120, OutputTokens: 30}, NotGiven: []string{"Write (you do not have it)"}}
	cases := []struct {
		name    string
		args    string
		spawner *fakeSpawner
		isError bool
		want    []string
	}{
		{"foreground answer", `{"prompt":"find it","tools":["Read"],"maxIterations":5,"permissionMode":"plan"}`, &fakeSpawner{run: done}, false,
			[]string{"Found it in main.go.", "finished after 3 model calls", "mode plan", "tokens in 120, out 30", "Not given to it: Write"}},
		{"background", `{"prompt":"go","background":true}`, &fakeSpawner{run: SubagentRun{RunID: "r2", Agent: "default", Mode: "default", State: RunRunning}}, false,
			[]string{"Started subagent run r2", "subagent_status(runId: \"r2\")"}},
		{"max iterations", `{"prompt":"go"}`, &fakeSpawner{run: SubagentRun{RunID: "r3", State: RunMaxIterations, Iterations: 2, Text: "half"}}, true,
			[]string{"stopped after 2 model calls (its maxIterations)", "half"}},
		{"failed", `{"prompt":"go"}`, &fakeSpawner{run: SubagentRun{RunID: "r4", State: RunFailed, Error: "provider down"}}, true,
			[]string{"The subagent failed: provider down"}},
		{"refused", `{"prompt":"go","permissionMode":"auto"}`, &fakeSpawner{err: Refusef("permissionMode auto is looser than yours")}, true,
			[]string{"permissionMode auto is looser than yours", tools.ErrorHint}},
		{"broken underneath", `{"prompt":"go"}`, &fakeSpawner{err: errors.New("disk full")}, true,
			[]string{"spawn_agent failed: disk full"}},
		{"empty prompt", `{"prompt":"  "}`, &fakeSpawner{}, true, []string{"prompt is empty"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reg := tools.NewRegistry()
			if err := reg.Register(NewSpawnAgent(c.spawner)); err != nil {
				t.Fatal(err)
			}
			res := reg.Execute(context.Background(), "c1", "spawn_agent", []byte(c.args))
			if res.IsError != c.isError {
				t.Errorf("isError = %v: %s", res.IsError, res.Content)
			}
			for _, w := range c.want {
				if !strings.Contains(res.Content, w) {
					t.Errorf("result lacks %q:\n%s", w, res.Content)
				}
			}
		})
	}
	t.Run("request", func(t *testing.T) {
		f := &fakeSpawner{run: done}
		if _, err := NewSpawnAgent(f).Execute(context.Background(), map[string]any{
			"prompt": " p ", "agent": "r", "model": "m", "background": false, "maxIterations": float64(7), "permissionMode": "plan", "tools": []any{"Read", "Grep"},
		}); err != nil {
			t.Fatal(err)
		}
		got := f.got[0]
		if got.Prompt != "p" || got.Agent != "r" || got.Model != "m" || got.MaxIterations != 7 || got.PermissionMode != "plan" || strings.Join(got.Tools, ",") != "Read,Grep" {
			t.Errorf("request %+v", got)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		tool := NewSpawnAgent(&fakeSpawner{}).(tools.Timeouter)
		if d := tool.CallTimeout(map[string]any{}); d != SubagentCallTimeout {
			t.Errorf("foreground timeout %s", d)
		}
		if d := tool.CallTimeout(map[string]any{"background": true}); d != 0 {
			t.Errorf("background timeout %s", d)
		}
	})
}

func TestSubagentListAndStatus(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	f := &fakeSpawner{runs: []SubagentRun{
		{RunID: "r2", Agent: "researcher", State: RunWaiting, Background: true, Iterations: 1, Progress: "waiting for your approval of Bash", Prompt: "check\nthe build", Started: now},
		{RunID: "r1", Agent: "default", State: RunDone, Iterations: 4, Text: "All good.", Prompt: "look", Started: now.Add(-time.Minute)},
	}}
	list, err := NewSubagentList(f).Execute(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"2 subagents, 1 still working", "r2  waiting_approval  agent researcher (background), 1 model calls, now: waiting for your approval of Bash — check the build", "r1  done"} {
		if !strings.Contains(list.Content, w) {
			t.Errorf("list lacks %q:\n%s", w, list.Content)
		}
	}
	st, _ := NewSubagentStatus(f).Execute(context.Background(), map[string]any{"runId": "r1"})
	if !strings.Contains(st.Content, "All good.") || st.Meta[SubagentMetaKey] == nil {
		t.Errorf("status %+v", st)
	}
	wait, _ := NewSubagentStatus(f).Execute(context.Background(), map[string]any{"runId": "r2"})
	if !strings.Contains(wait.Content, "The subagent is waiting approval (1 model calls so far); now: waiting for your approval of Bash") {
		t.Errorf("status of a waiting run: %s", wait.Content)
	}
	unknown, _ := NewSubagentStatus(f).Execute(context.Background(), map[string]any{"runId": "r9"})
	if !unknown.IsError || !strings.Contains(unknown.Content, `no subagent run "r9"`) {
		t.Errorf("status of an unknown run: %+v", unknown)
	}
	empty, _ := NewSubagentList(&fakeSpawner{}).Execute(context.Background(), nil)
	if !strings.Contains(empty.Content, "no subagents") {
		t.Errorf("empty list: %s", empty.Content)
	}
}

// fakeSessions answers the Sessions* tools.
type fakeSessions struct {
	sent  []string
	err   error
	list  []SessionSummary
	msgs  []HistoryMessage
	limit int
}

func (f *fakeSessions) ListSessions(_ context.Context, limit, offset int) ([]SessionSummary, error) {
	f.limit = limit
	return f.list, f.err
}
func (f *fakeSessions) SessionHistory(_ context.Context, id string, limit int) (SessionSummary, []HistoryMessage, int, error) {
	f.limit = limit
	return SessionSummary{ID: id, Title: "T", Agent: "default"}, f.msgs, 10, f.err
}
func (f *fakeSessions) SendToSession(_ context.Context, id, msg string) error {
	f.sent = append(f.sent, id+":"+msg)
	return f.err
}
func (f *fakeSessions) SpawnSession(_ context.Context, prompt, agent, title string) (SessionSummary, error) {
	return SessionSummary{ID: "new1", Agent: "default"}, f.err
}

func TestSessionsTools(t *testing.T) {
	ctx := context.Background()
	f := &fakeSessions{
		list: []SessionSummary{{ID: "a", Title: "Fix the build", Agent: "default", Running: true, Messages: 4, UpdatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
			{ID: "b", Agent: "researcher", Parent: "a"}},
		msgs: []HistoryMessage{{Role: "user", Content: "hello"}, {Role: "assistant", Content: "calling", ToolCalls: []string{`Read({"path":"a"})`}},
			{Role: "tool", ToolName: "Read", Content: strings.Repeat("x", 5000), IsError: true}},
	}
	list, _ := NewSessionsList(f).Execute(ctx, map[string]any{"limit": float64(500)})
	for _, w := range []string{`a  "Fix the build"  agent default, 4 messages, updated 2026-01-02T03:04:05Z, running`, `b  "(untitled)"`, "subagent of a"} {
		if !strings.Contains(list.Content, w) {
			t.Errorf("list lacks %q:\n%s", w, list.Content)
		}
	}
	if f.limit != 100 {
		t.Errorf("limit %d, want it capped at 100", f.limit)
	}
	hist, _ := NewSessionsHistory(f).Execute(ctx, map[string]any{"sessionId": "a"})
	for _, w := range []string{"the last 3 of 10 messages", "[user]\nhello", `→ Read({"path":"a"})`, "[tool Read, error]", "[...cut]"} {
		if !strings.Contains(hist.Content, w) {
			t.Errorf("history lacks %q:\n%s", w, hist.Content)
		}
	}
	if len(hist.Content) > 6000 {
		t.Errorf("a long message was not cut: %d bytes", len(hist.Content))
	}
	sent, _ := NewSessionsSend(f).Execute(ctx, map[string]any{"sessionId": "b", "message": " go "})
	if sent.IsError || f.sent[0] != "b:go" {
		t.Errorf("send %+v %v", sent, f.sent)
	}
	for _, args := range []map[string]any{{"sessionId": "", "message": "x"}, {"sessionId": "b", "message": ""}} {
		if r, _ := NewSessionsSend(f).Execute(ctx, args); !r.IsError {
			t.Errorf("send %v is not refused", args)
		}
	}
	f.err = Refusef("session b is still working")
	if r, _ := NewSessionsSend(f).Execute(ctx, map[string]any{"sessionId": "b", "message": "x"}); !r.IsError || !strings.Contains(r.Content, "still working") {
		t.Errorf("busy send %+v", r)
	}
	f.err = nil
	spawned, _ := NewSessionsSpawn(f).Execute(ctx, map[string]any{"prompt": "do it"})
	if !strings.Contains(spawned.Content, "Started session new1") {
		t.Errorf("spawn %s", spawned.Content)
	}
	// Sensitivity as in SAFE_TOOLS: only SessionsHistory runs unasked.
	for _, tool := range []tools.Tool{NewSessionsSpawn(f), NewSessionsList(f), NewSessionsSend(f), NewSessionsHistory(f)} {
		info := tool.Info()
		if info.Safe != (info.Name == "SessionsHistory") {
			t.Errorf("%s safe = %v", info.Name, info.Safe)
		}
	}
}
