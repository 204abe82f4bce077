package usertools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"tinyelf/backend/config"
	"tinyelf/backend/tools"
	"tinyelf/internal/testdeps"
)

// coreNames are the built-in tools of a session, as the api passes them.
var coreNames = []string{"Read", "Write", "Edit", "ListDir", "Glob", "Grep", "Bash", "Notify", "SessionsYield", "WebFetch"}

// needPython skips a test when no python3 is installed, and returns the
// interpreter to use: $TINYELF_TEST_PYTHON when set (a faster one than a
// version-manager shim), python3 otherwise.
func needPython(t testing.TB) string {
	t.Helper()
	return testdeps.Python(t) // in CI a missing python3 fails, never skips
}

// fakeNotifier records notifications.
type fakeNotifier struct {
	mu   sync.Mutex
	sent []string
	ch   chan string
}

func newFakeNotifier() *fakeNotifier { return &fakeNotifier{ch: make(chan string, 16)} }

func (f *fakeNotifier) Notify(_ context.Context, title, body string) error {
	f.mu.Lock()
	f.sent = append(f.sent, title+": "+body)
	f.mu.Unlock()
	f.ch <- title + ": " + body
	return nil
}

// testEnv is what a test service reads as TinyElf's environment.
type testEnv map[string]string

func (e testEnv) get(k string) string {
	if v, ok := e[k]; ok {
		return v
	}
	return os.Getenv(k)
}

type svcOption func(*Options)

func withEnv(e testEnv) svcOption          { return func(o *Options) { o.Getenv = e.get } }
func withNotifier(n Notifier) svcOption    { return func(o *Options) { o.Notifier = n } }
func withPython(p string) svcOption        { return func(o *Options) { o.Python = p } }
func withImport(d time.Duration) svcOption { return func(o *Options) { o.ImportTimeout = d } }
func withCredentials(m map[string]config.Credential) svcOption {
	return func(o *Options) { o.Credentials = func() map[string]config.Credential { return m } }
}

// newTestService returns a service over a fresh data folder.
func newTestService(t testing.TB, dataDir string, opts ...svcOption) *Service {
	t.Helper()
	o := Options{DataDir: dataDir, CoreNames: coreNames, Python: needPython(t), ImportTimeout: 5 * time.Second,
		Getenv: testEnv{}.get}
	for _, f := range opts {
		f(&o)
	}
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func commonDir(data string) string { return filepath.Join(data, CommonToolsDir) }
func personalDir(data, agent string) string {
	return filepath.Join(data, AgentsDir, agent, PersonalDir)
}

// pyTool is a Python user tool with one action that returns a value.
func pyTool(tool, action, body string, profile string) string {
	if profile == "" {
		profile = "{}"
	}
	return `from __future__ import annotations
import os, sys, json, time

EXECUTION_PROFILE = ` + profile + `

def get_tool_schemas():
    return [{
        "name": "` + tool + `_` + action + `",
        "description": "Does ` + action + `.",
        "input_schema": {"type": "object", "properties": {"text": {"type": "string"}, "n": {"type": "integer"}}},
    }]

def dispatch(name, args):
    args.pop("anima_dir", None)
` + indent(body, "    ") + "\n"
}

func indent(s, pre string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = pre + l
	}
	return strings.Join(lines, "\n")
}

// toolByName finds a tool in a list.
func toolByName(ts []tools.Tool, name string) tools.Tool {
	for _, t := range ts {
		if t.Info().Name == name {
			return t
		}
	}
	return nil
}

func toolNames(ts []tools.Tool) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Info().Name
	}
	return out
}

// call runs one tool of the agent's set through a registry, as the engine
// would (coercion, validation, truncation).
func call(t testing.TB, s *Service, agent, name string, args any) tools.CallResult {
	t.Helper()
	ts := s.Tools(context.Background(), agent)
	reg := tools.NewRegistry()
	for _, tool := range ts {
		if err := reg.Register(tool); err != nil {
			t.Fatal(err)
		}
	}
	raw, _ := json.Marshal(args)
	return reg.Execute(context.Background(), "call-1", name, raw)
}
