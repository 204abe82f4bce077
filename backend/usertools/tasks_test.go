package usertools

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"tinyelf/internal/testutil"
)

func TestBackgroundTask(t *testing.T) {
	data := t.TempDir()
	release := filepath.Join(t.TempDir(), "release")
	testutil.WriteFile(t, filepath.Join(personalDir(data, "default"), "report.py"), pyTool("report", "build", `
while not os.path.exists(`+strconv.Quote(release)+`):
    time.sleep(0.02)
return "report ready: " + str(args.get("n"))`, `{"build": {"expected_seconds": 30, "background_eligible": True}}`), 0)
	testutil.WriteFile(t, filepath.Join(personalDir(data, "default"), "quick.py"), pyTool("quick", "run", `return "now"`, ""), 0)
	n := newFakeNotifier()
	var changes []TaskState
	s := newTestService(t, data, withNotifier(n), func(o *Options) {
		o.OnTask = func(t Task) { changes = append(changes, t.State) }
	})
	info := toolByName(s.Tools(context.Background(), "default"), "report_build").Info()
	if !strings.Contains(string(info.Parameters), `"submit"`) {
		t.Fatalf("a background-eligible action offers submit: %s", info.Parameters)
	}
	if p := toolByName(s.Tools(context.Background(), "default"), "quick_run").Info().Parameters; strings.Contains(string(p), "submit") {
		t.Fatalf("an ordinary action offers submit: %s", p)
	}
	res := call(t, s, "default", "use_tool", map[string]any{"tool_name": "report", "action": "build", "args": map[string]any{"n": 7}, "submit": true})
	if res.IsError || !strings.Contains(res.Content, "Submitted report_build as background task task_") {
		t.Fatalf("submit: %+v", res)
	}
	id, _ := res.Meta["taskId"].(string)
	if task, ok := s.Task(id); !ok || task.State != TaskRunning || task.Args["n"] != float64(7) {
		t.Fatalf("task %+v", task)
	}
	listed := call(t, s, "default", "tool_tasks", map[string]any{})
	if !strings.Contains(listed.Content, id+"  report_build  running") {
		t.Fatalf("tool_tasks: %s", listed.Content)
	}
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-n.ch:
		if got != "Background tool task finished: report_build: report ready: 7" {
			t.Errorf("notification %q", got)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no notification")
	}
	task, _ := s.Task(id)
	if task.State != TaskDone || task.Result != "report ready: 7" || task.Finished.IsZero() {
		t.Fatalf("finished task %+v", task)
	}
	shown := call(t, s, "default", "tool_tasks", map[string]any{"task_id": id})
	if !strings.Contains(shown.Content, "report_build, done") || !strings.Contains(shown.Content, "Result:\nreport ready: 7") {
		t.Errorf("tool_tasks(id): %s", shown.Content)
	}
	if len(changes) != 2 || changes[0] != TaskRunning || changes[1] != TaskDone {
		t.Errorf("OnTask saw %v", changes)
	}
	// Submitting an action that is not background-eligible is refused.
	if res := call(t, s, "default", "use_tool", map[string]any{"tool_name": "quick", "action": "run", "submit": true}); !res.IsError || !strings.Contains(res.Content, "cannot run in the background") {
		t.Errorf("submit quick_run: %s", res.Content)
	}
	// Another agent does not see this agent's tasks.
	if res := call(t, s, "other", "tool_tasks", map[string]any{"task_id": id}); !res.IsError {
		t.Errorf("another agent read the task: %s", res.Content)
	}
}

// Tasks survive a restart; one still running when TinyElf stopped shows as
// interrupted.
func TestBackgroundTasksAfterRestart(t *testing.T) {
	data := t.TempDir()
	testutil.WriteFile(t, filepath.Join(personalDir(data, "default"), "long.py"), pyTool("long", "run", `time.sleep(300)`, `{"run": {"expected_seconds": 600, "background_eligible": True}}`), 0)
	testutil.WriteFile(t, filepath.Join(personalDir(data, "default"), "short.py"), pyTool("short", "run", `return "short done"`, `{"run": {"background_eligible": True}}`), 0)
	n := newFakeNotifier()
	s, err := New(Options{DataDir: data, Python: needPython(t), Notifier: n, Getenv: testEnv{}.get})
	if err != nil {
		t.Fatal(err)
	}
	done := call(t, s, "default", "short_run", map[string]any{"submit": true}).Meta["taskId"].(string)
	<-n.ch
	running := call(t, s, "default", "long_run", map[string]any{"submit": true}).Meta["taskId"].(string)
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(15 * time.Second):
		t.Fatal("Close did not stop the running task")
	}

	s2 := newTestService(t, data)
	if task, ok := s2.Task(done); !ok || task.State != TaskDone || task.Result != "short done" {
		t.Errorf("finished task after restart: %+v", task)
	}
	if task, ok := s2.Task(running); !ok || task.State != TaskInterrupted || !strings.Contains(task.Result, "TinyElf stopped") {
		t.Errorf("running task after restart: %+v", task)
	}
	if len(s2.Tasks("default")) != 2 {
		t.Errorf("tasks %+v", s2.Tasks("default"))
	}
}

// `tinyelf tool submit` queues a task that another process runs; every
// process sees its state.
func TestQueuedTaskRunByAnotherProcess(t *testing.T) {
	data := t.TempDir()
	testutil.WriteFile(t, filepath.Join(personalDir(data, "default"), "report.py"), pyTool("report", "build", `return "report " + str(args["n"])`,
		`{"build": {"background_eligible": True}, "send": {"background_eligible": True, "gated": True}}`), 0)
	testutil.WriteFile(t, filepath.Join(personalDir(data, "default"), "quick.py"), pyTool("quick", "run", `return 1`, ""), 0)
	submitter := newTestService(t, data)
	task, err := submitter.Enqueue(context.Background(), "default", "report", "build", map[string]any{"n": "7"})
	if err != nil {
		t.Fatal(err)
	}
	if task.State != TaskQueued || task.Args["n"] != float64(7) {
		t.Fatalf("queued %+v (the argument is coerced as for a call)", task)
	}
	for _, bad := range []struct{ tool, action, want string }{
		{"quick", "run", "cannot run in the background"},
		{"nope", "run", "no loaded user tool"},
		{"report", "nope", "no action"},
	} {
		if _, err := submitter.Enqueue(context.Background(), "default", bad.tool, bad.action, nil); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s %s: %v", bad.tool, bad.action, err)
		}
	}
	if _, err := submitter.Enqueue(context.Background(), "default", "report", "build", map[string]any{"n": "many"}); err == nil || !strings.Contains(err.Error(), "Invalid arguments") {
		t.Errorf("bad arguments: %v", err)
	}

	n := newFakeNotifier()
	runner := newTestService(t, data, withNotifier(n))
	final, err := runner.RunTask(context.Background(), task.ID)
	if err != nil || final.State != TaskDone || final.Result != "report 7" || final.Owner == 0 {
		t.Fatalf("run: %+v %v", final, err)
	}
	if got := <-n.ch; !strings.Contains(got, "report_build: report 7") {
		t.Errorf("notification %q", got)
	}
	if seen, ok := submitter.Task(task.ID); !ok || seen.State != TaskDone {
		t.Errorf("the submitter sees %+v", seen)
	}
	if _, err := runner.RunTask(context.Background(), task.ID); err == nil {
		t.Error("a finished task ran again")
	}
}
