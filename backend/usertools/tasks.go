package usertools

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"tinyelf/backend/tools"
)

// TaskState is where a background task is.
type TaskState string

// The states of a background task.
const (
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
	ID       string         `json:"id"`
	Agent    string         `json:"agent"`
	Tool     string         `json:"tool"`
	Action   string         `json:"action"`
	Schema   string         `json:"schema"`
	Args     map[string]any `json:"args,omitempty"`
	CallID   string         `json:"callId,omitempty"`
	State    TaskState      `json:"state"`
	Result   string         `json:"result,omitempty"`
	IsError  bool           `json:"isError,omitempty"`
	Created  time.Time      `json:"created"`
	Finished time.Time      `json:"finished,omitzero"`
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

// newTaskList loads the records in dir; tasks a previous run left running
// are marked interrupted.
func newTaskList(dir string, n Notifier, onChange func(Task)) (*taskList, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create the task folder: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	l := &taskList{dir: dir, notifier: n, onChange: onChange, ctx: ctx, cancel: cancel, tasks: map[string]*Task{}}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read the task folder: %w", err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		var t Task
		if json.Unmarshal(b, &t) != nil || t.ID == "" || t.ID+".json" != e.Name() {
			continue // a damaged record is left alone, not loaded
		}
		if t.State == TaskRunning {
			t.State, t.IsError, t.Finished = TaskInterrupted, true, time.Now()
			t.Result = "TinyElf stopped before this task finished; run it again if it is still needed."
			_ = l.save(&t)
		}
		l.tasks[t.ID] = &t
	}
	return l, nil
}

// submit starts run as a background task and returns its record.
func (l *taskList) submit(t Task, run func(ctx context.Context) tools.Result) Task {
	t.ID = newTaskID()
	t.State = TaskRunning
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

// list returns an agent's tasks ("" for all), newest first.
func (l *taskList) list(agent string) []Task {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := []Task{}
	for _, t := range l.tasks {
		if agent == "" || t.Agent == agent {
			out = append(out, *t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID > out[j].ID })
	return out
}

func (l *taskList) get(id string) (Task, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t, ok := l.tasks[id]
	if !ok {
		return Task{}, false
	}
	return *t, true
}

// prune removes the oldest finished records beyond maxTasks.
func (l *taskList) prune() {
	l.mu.Lock()
	var done []string
	for id, t := range l.tasks {
		if t.State != TaskRunning {
			done = append(done, id)
		}
	}
	sort.Strings(done)
	excess := len(l.tasks) - maxTasks
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
	return writeFileAtomic(filepath.Join(l.dir, t.ID+".json"), b, 0o600)
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
