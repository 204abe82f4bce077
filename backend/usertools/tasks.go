package usertools

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"tinyelf/backend/tools"
	"tinyelf/internal/atomicfile"
)

// TaskState is where a background task is.
type TaskState string

// The states of a background task.
const (
	// TaskQueued: submitted from the command line, waiting for the
	// process that runs it to start.
	TaskQueued  TaskState = "queued"
	TaskRunning TaskState = "running"
	TaskDone    TaskState = "done"
	TaskFailed  TaskState = "failed"
	// TaskInterrupted: TinyElf stopped (or crashed) before the task ended.
	TaskInterrupted TaskState = "interrupted"
)

// maxTaskResultBytes bounds the result a task record keeps.
const maxTaskResultBytes = 64 << 10

// maxTasks is how many task records are kept; the oldest finished ones go.
const maxTasks = 200

// Task is one background call of a user tool (submit: true), as the task
// list and the UI show it. Its record is a JSON file in
// <data dir>/state/tool_tasks, so a restart still shows it.
type Task struct {
	ID     string         `json:"id"`
	Agent  string         `json:"agent"`
	Tool   string         `json:"tool"`
	Action string         `json:"action"`
	Schema string         `json:"schema"`
	Args   map[string]any `json:"args,omitempty"`
	CallID string         `json:"callId,omitempty"`
	State  TaskState      `json:"state"`
	// Owner is the process that runs the task (0 while queued); a record
	// left running by a process that is gone shows as interrupted.
	Owner    int       `json:"owner,omitempty"`
	Result   string    `json:"result,omitempty"`
	IsError  bool      `json:"isError,omitempty"`
	Created  time.Time `json:"created"`
	Finished time.Time `json:"finished,omitzero"`
}

// taskList runs background tasks and keeps their records. It owns the
// tasks' goroutines: close cancels them and waits.
type taskList struct {
	dir      string
	notifier Notifier
	onChange func(Task)

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu    sync.Mutex
	tasks map[string]*Task
}

// queuedGrace is how long a queued task may wait for its runner before
// it counts as never started.
const queuedGrace = 2 * time.Minute

// newTaskList loads the records in dir; tasks whose process is gone (a
// previous run of TinyElf, a runner that died) are marked interrupted.
func newTaskList(dir string, n Notifier, onChange func(Task)) (*taskList, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create the task folder: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	l := &taskList{dir: dir, notifier: n, onChange: onChange, ctx: ctx, cancel: cancel, tasks: map[string]*Task{}}
	disk, err := l.load()
	if err != nil {
		return nil, err
	}
	for _, t := range disk {
		if l.orphaned(t) {
			t.State, t.IsError, t.Finished = TaskInterrupted, true, time.Now()
			t.Result = "TinyElf stopped before this task finished; run it again if it is still needed."
			_ = l.save(t)
		}
	}
	return l, nil
}

// orphaned reports whether an unfinished record has nobody to finish it.
func (l *taskList) orphaned(t *Task) bool {
	switch t.State {
	case TaskRunning:
		return t.Owner == 0 || t.Owner == os.Getpid() || !processRunning(t.Owner)
	case TaskQueued:
		return time.Since(t.Created) > queuedGrace
	}
	return false
}

// load reads every record in the folder; damaged ones are skipped.
func (l *taskList) load() (map[string]*Task, error) {
	entries, err := os.ReadDir(l.dir)
	if err != nil {
		return nil, fmt.Errorf("read the task folder: %w", err)
	}
	out := map[string]*Task{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(l.dir, e.Name()))
		if err != nil {
			continue
		}
		var t Task
		if json.Unmarshal(b, &t) != nil || t.ID == "" || t.ID+".json" != e.Name() {
			continue // a damaged record is left alone, not loaded
		}
		out[t.ID] = &t
	}
	return out, nil
}

// submit starts run as a background task and returns its record.
func (l *taskList) submit(t Task, run func(ctx context.Context) tools.Result) Task {
	t.ID = newTaskID()
	t.State = TaskRunning
	t.Owner = os.Getpid()
	t.Created = time.Now()
	l.mu.Lock()
	l.tasks[t.ID] = &t
	snapshot := t
	l.mu.Unlock()
	_ = l.save(&snapshot)
	l.changed(snapshot)
	l.prune()
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		res := run(l.ctx)
		l.finish(t.ID, res)
	}()
	return snapshot
}

// enqueue records a task for another process to run (runQueued).
func (l *taskList) enqueue(t Task) (Task, error) {
	t.ID = newTaskID()
	t.State = TaskQueued
	t.Created = time.Now()
	if err := l.save(&t); err != nil {
		return Task{}, fmt.Errorf("record the task: %w", err)
	}
	l.changed(t)
	l.prune()
	return t, nil
}

// runQueued runs a queued task in this process until it ends (or ctx
// does), and returns its final record.
func (l *taskList) runQueued(ctx context.Context, id string, run func(ctx context.Context, t Task) tools.Result) (Task, error) {
	disk, err := l.load()
	if err != nil {
		return Task{}, err
	}
	t, ok := disk[id]
	if !ok {
		return Task{}, fmt.Errorf("there is no task %s", id)
	}
	if t.State != TaskQueued {
		return *t, fmt.Errorf("task %s is %s, not queued", id, t.State)
	}
	t.State, t.Owner = TaskRunning, os.Getpid()
	l.mu.Lock()
	l.tasks[id] = t
	snapshot := *t
	l.mu.Unlock()
	_ = l.save(&snapshot)
	l.changed(snapshot)
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		select {
		case <-l.ctx.Done():
			stop()
		case <-ctx.Done():
		}
	}()
	l.finish(id, run(ctx, snapshot))
	final, _ := l.get(id)
	return final, nil
}

func (l *taskList) finish(id string, res tools.Result) {
	l.mu.Lock()
	t, ok := l.tasks[id]
	if !ok {
		l.mu.Unlock()
		return
	}
	t.Finished = time.Now()
	t.Result = res.Content
	if len(t.Result) > maxTaskResultBytes {
		t.Result = tools.CutUTF8(t.Result, maxTaskResultBytes) + "\n" + tools.TruncatedMark
	}
	t.IsError = res.IsError
	switch {
	case l.ctx.Err() != nil:
		t.State, t.IsError = TaskInterrupted, true
		t.Result = "TinyElf stopped before this task finished; run it again if it is still needed."
	case res.IsError:
		t.State = TaskFailed
	default:
		t.State = TaskDone
	}
	snapshot := *t
	l.mu.Unlock()
	_ = l.save(&snapshot)
	l.changed(snapshot)
	if l.notifier != nil && snapshot.State != TaskInterrupted {
		title := "Background tool task finished"
		if snapshot.State == TaskFailed {
			title = "Background tool task failed"
		}
		body := snapshot.Schema + ": " + tools.CutUTF8(strings.TrimSpace(firstLine(snapshot.Result)), 160)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = l.notifier.Notify(ctx, title, body)
		cancel()
	}
}

func (l *taskList) changed(t Task) {
	if l.onChange != nil {
		l.onChange(t)
	}
}

// all returns every task: the records on disk (other processes run tasks
// too: a `tinyelf tool submit` runner, the window) with this process's own
// tasks as it knows them.
func (l *taskList) all() map[string]Task {
	out := map[string]Task{}
	if disk, err := l.load(); err == nil {
		for id, t := range disk {
			if l.orphaned(t) && t.Owner != os.Getpid() {
				t.State, t.IsError = TaskInterrupted, true
				t.Result = "The process running this task stopped before it finished."
			}
			out[id] = *t
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for id, t := range l.tasks {
		out[id] = *t
	}
	return out
}

// list returns an agent's tasks ("" for all), newest first.
func (l *taskList) list(agent string) []Task {
	out := []Task{}
	for _, t := range l.all() {
		if agent == "" || t.Agent == agent {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID > out[j].ID })
	return out
}

func (l *taskList) get(id string) (Task, bool) {
	l.mu.Lock()
	t, ok := l.tasks[id]
	l.mu.Unlock()
	if ok {
		return *t, true
	}
	all := l.all()
	found, ok := all[id]
	return found, ok
}

// prune removes the oldest finished records beyond maxTasks.
func (l *taskList) prune() {
	all := l.all()
	var done []string
	for id, t := range all {
		if t.State != TaskRunning && t.State != TaskQueued {
			done = append(done, id)
		}
	}
	sort.Strings(done)
	excess := len(all) - maxTasks
	l.mu.Lock()
	var drop []string
	for i := 0; i < excess && i < len(done); i++ {
		drop = append(drop, done[i])
		delete(l.tasks, done[i])
	}
	l.mu.Unlock()
	for _, id := range drop {
		_ = os.Remove(filepath.Join(l.dir, id+".json"))
	}
}

// close cancels the running tasks and waits for them to be recorded.
func (l *taskList) close() {
	l.cancel()
	l.wg.Wait()
}

func (l *taskList) save(t *Task) error {
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(l.dir, t.ID+".json"), b, 0o600)
}

// newTaskID returns a sortable, unique task ID.
func newTaskID() string {
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	return "task_" + time.Now().UTC().Format("20060102T150405.000000") + "_" + hex.EncodeToString(rnd[:])
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// Tasks returns an agent's background tasks ("" for every agent), newest
// first.
func (s *Service) Tasks(agent string) []Task { return s.tasks.list(agent) }

// Task returns one background task.
func (s *Service) Task(id string) (Task, bool) { return s.tasks.get(id) }

// Enqueue records a background task for another process to run (RunTask),
// after the same checks a submit: true call gets: the tool and action
// exist, the arguments are coerced and validated against the schema, the
// action is background-eligible, and a gated one is allowed. It is how
// `tinyelf tool submit` hands a task to a runner that outlives the command.
// Refusals are errors the user can act on.
func (s *Service) Enqueue(ctx context.Context, agent, tool, action string, args map[string]any) (Task, error) {
	set := s.set(ctx, agent)
	d, ok := set.byName[tool]
	if !ok || !d.Loaded() {
		return Task{}, fmt.Errorf("there is no loaded user tool %q for agent %s", tool, set.agent)
	}
	a, ok := d.Action(action)
	if !ok {
		return Task{}, fmt.Errorf("the user tool %s has no action %q", tool, action)
	}
	if !a.Profile.BackgroundEligible {
		return Task{}, fmt.Errorf("%s cannot run in the background: its profile does not set background_eligible", a.Schema)
	}
	params, err := validated(set, a.Schema, args)
	if err != nil {
		return Task{}, err
	}
	if msg := s.gateRefusal(set.agent, a); msg != "" {
		return Task{}, errors.New(msg)
	}
	return s.tasks.enqueue(Task{Agent: set.agent, Tool: d.Name, Action: a.Name, Schema: a.Schema, Args: params})
}

// RunTask runs a queued task in this process until it ends or ctx does,
// with the desktop notification at the end, and returns its final record.
func (s *Service) RunTask(ctx context.Context, id string) (Task, error) {
	return s.tasks.runQueued(ctx, id, func(ctx context.Context, t Task) tools.Result {
		set := s.set(ctx, t.Agent)
		d, ok := set.byName[t.Tool]
		if !ok || !d.Loaded() {
			return tools.Errorf("The user tool %s is no longer loaded.", t.Tool)
		}
		a, ok := d.Action(t.Action)
		if !ok {
			return tools.Errorf("The user tool %s no longer has the action %s.", t.Tool, t.Action)
		}
		if msg := s.gateRefusal(set.agent, a); msg != "" {
			return tools.Errorf("%s", msg)
		}
		agentDir, err := s.AgentDir(t.Agent)
		if err != nil {
			return tools.Errorf("%v", err)
		}
		return s.run(ctx, agentDir, d, a, t.Args)
	})
}

// validated runs args through the registry's coercion and validation for
// the schema, without running the tool.
func validated(set *toolSet, schema string, args map[string]any) (map[string]any, error) {
	t, ok := set.inner.Get(schema)
	if !ok {
		return nil, fmt.Errorf("unknown action %s", schema)
	}
	var got map[string]any
	probe := tools.NewRegistry(tools.WithMiddleware(func(tools.Handler) tools.Handler {
		return func(_ context.Context, c *tools.Call) (tools.Result, error) {
			got = c.Params
			return tools.Text(""), nil
		}
	}))
	if err := probe.Register(t); err != nil {
		return nil, err
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	if res := probe.Execute(context.Background(), "validate", schema, raw); res.IsError {
		return nil, errors.New(strings.TrimSpace(strings.TrimSuffix(res.Content, tools.ErrorHint)))
	}
	delete(got, "submit")
	return got, nil
}
