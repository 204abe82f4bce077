package usertools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tinyelf/backend/config"
	"tinyelf/backend/engine"
	"tinyelf/backend/llm"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
	"tinyelf/backend/tools"
	"tinyelf/backend/tools/fs"
	"tinyelf/backend/usertools"
	"tinyelf/internal/testdeps"
)

// source offers the service's tools and folders to the engine, as the api
// does.
type source struct{ svc *usertools.Service }

func (s source) Tools(ctx context.Context, info engine.SessionInfo) []tools.Tool {
	return s.svc.Tools(ctx, info.Agent)
}

func (s source) Roots(info engine.SessionInfo) []fs.Root { return s.svc.Roots(info.Agent) }

func testPython(t *testing.T) string {
	return testdeps.Python(t)
}

// The agent writes a tool into its personal folder in the middle of a
// session, refreshes, and calls it — all in one turn of the real engine,
// with the model scripted by llmtest.
func TestAgentWritesAToolMidSession(t *testing.T) {
	for _, kind := range []string{llm.KindOpenAI, llm.KindAnthropic} {
		t.Run(kind, func(t *testing.T) { agentWritesATool(t, kind) })
	}
}

func agentWritesATool(t *testing.T, kind string) {
	data := t.TempDir()
	workspace := filepath.Join(data, "ws")
	if err := os.MkdirAll(workspace, 0o755); err != nil {
		t.Fatal(err)
	}
	const secret = "tok-5d41402abc4b2a76"
	svc, err := usertools.New(usertools.Options{DataDir: data, Python: testPython(t), CoreNames: []string{"Read", "Write", "Edit", "Bash"},
		Getenv: func(k string) string {
			if k == "STATS_TOKEN" {
				return secret
			}
			return os.Getenv(k)
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	toolPath := filepath.Join(data, "agents", "default", "tools", "word_count.py")
	module := `from __future__ import annotations
from typing import Any

import os, sys

CREDENTIALS = ["STATS_TOKEN"]
EXECUTION_PROFILE = {"count": {"expected_seconds": 10, "read_only": True}}

def get_tool_schemas() -> list[dict]:
    return [{
        "name": "word_count_count",
        "description": "Counts the words of a text.",
        "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    }]

def dispatch(name: str, args: dict[str, Any]) -> Any:
    args.pop("anima_dir", None)
    token = os.environ["STATS_TOKEN"]
    print("using token " + token, file=sys.stderr)
    return {"words": len(args["text"].split()), "token": token}
`
	writeArgs, _ := json.Marshal(map[string]string{"path": toolPath, "content": module})
	srv := llmtest.NewServer(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "w1", Name: "Write", Arguments: string(writeArgs)}}},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "r1", Name: "refresh_tools", Arguments: `{}`}}},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "word_count_count", Arguments: `{"text": "one two three"}`}}},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "u1", Name: "use_tool", Arguments: `{"tool_name": "word_count", "action": "count", "args": {"text": "a b"}}`}}},
		llmtest.Turn{Text: "The text has three words."},
	)
	settings, err := config.OpenStore(filepath.Join(data, config.SettingsFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := settings.Update(func(s *config.Settings) error {
		s.Providers = []config.Provider{{Name: "fake", Kind: kind, BaseURL: srv.URL, APIKey: "test-key", Model: "test-model"}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	store, err := sessions.Open(context.Background(), filepath.Join(data, "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var mu sync.Mutex
	var asked []string
	eng := engine.New(engine.Options{
		Settings: settings,
		Log:      engine.StoreLog{Store: store},
		Providers: func(p config.Provider) (llm.Provider, error) {
			return llm.New(engine.ProviderConfig(p), llm.WithRetryPolicy(llm.RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}))
		},
		Approver: engine.ApproverFunc(func(_ context.Context, req engine.ApprovalRequest) (engine.ApprovalAnswer, error) {
			mu.Lock()
			asked = append(asked, req.Tool)
			mu.Unlock()
			return engine.ApprovalAnswer{Decision: engine.AllowOnce}, nil
		}),
		Getenv:      func(string) string { return "" },
		ToolSources: []engine.ToolSource{source{svc}},
	})
	id, err := eng.NewSession(context.Background(), workspace, engine.ModeDefault, "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := eng.Run(ctx, id, "count the words of 'one two three' with a tool you write")
	if err != nil || res.Reason != engine.EndDone {
		t.Fatalf("turn: %+v %v", res, err)
	}

	var results []sessions.ToolResult
	var diffs []sessions.CapabilityDiff
	for ev, err := range store.Events(context.Background(), id, 1, 0) {
		if err != nil {
			t.Fatal(err)
		}
		switch ev.Type {
		case sessions.EventToolResult:
			var r sessions.ToolResult
			_ = json.Unmarshal(ev.Data, &r)
			results = append(results, r)
		case sessions.EventCapabilityDiff:
			var d sessions.CapabilityDiff
			_ = json.Unmarshal(ev.Data, &d)
			diffs = append(diffs, d)
		}
	}
	if len(results) != 4 {
		t.Fatalf("results %+v", results)
	}
	for i, want := range []string{"Created " + toolPath, "New actions, callable from your next step (directly or through use_tool): word_count_count.",
		`{"words":3,"token":"[redacted STATS_TOKEN]"}`, `{"words":2,"token":"[redacted STATS_TOKEN]"}`} {
		if results[i].IsError || !strings.Contains(results[i].Content, want) {
			t.Errorf("result %d (%s): %q, want %q", i, results[i].Name, results[i].Content, want)
		}
	}
	// The capability diff records the new tool, at the model call after the
	// refresh.
	if len(diffs) != 2 || !slices.Contains(diffs[1].Added, "word_count_count") {
		t.Errorf("diffs %+v", diffs)
	}
	reqs := srv.ChatRequests()
	if len(reqs) != 5 || !strings.Contains(string(reqs[0].Raw), filepath.Join(data, "agents", "default", "tools")) {
		t.Errorf("the system prompt should name the personal tools folder")
	}
	// The credential reached the tool (it printed it) but nothing kept: not
	// the log, not an export, not what the model was sent.
	var exported, markdown bytes.Buffer
	if err := store.ExportJSON(context.Background(), id, &exported); err != nil {
		t.Fatal(err)
	}
	if err := store.ExportMarkdown(context.Background(), id, &markdown); err != nil {
		t.Fatal(err)
	}
	var logged []byte
	for ev, err := range store.Events(context.Background(), id, 1, 0) {
		if err == nil {
			logged = append(logged, ev.Data...)
		}
	}
	var sent []byte
	for _, r := range reqs {
		sent = append(sent, r.Raw...)
	}
	for what, b := range map[string][]byte{"log": logged, "JSON export": exported.Bytes(), "Markdown export": markdown.Bytes(), "model requests": sent} {
		if strings.Contains(string(b), secret) {
			t.Errorf("the credential is in the %s", what)
		}
	}
	if !strings.Contains(string(logged), "using token [redacted STATS_TOKEN]") {
		t.Errorf("the tool's stderr is not in the log, masked")
	}
	// refresh_tools does not ask. The read-only action does: the agent may
	// write its personal folder, so it could declare anything read-only.
	if !slices.Equal(asked, []string{"Write", "word_count_count", "use_tool"}) {
		t.Errorf("asked for %v", asked)
	}
}
