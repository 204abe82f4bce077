package engine

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
	"tinyelf/backend/tools"
)

// flakySource offers one MCP-like tool until it is "disconnected".
type flakySource struct {
	connected atomic.Bool
	tool      tools.Tool
}

func (f *flakySource) Tools(context.Context, SessionInfo) []tools.Tool {
	if f.connected.Load() {
		return []tools.Tool{f.tool}
	}
	return nil
}

type mcpLikeTool struct{ calls atomic.Int32 }

func (m *mcpLikeTool) Info() tools.Info {
	return tools.Info{Name: "mcp__issues__search", Description: "search issues", Source: tools.SourceMCP, ReadOnly: true,
		Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)}
}

func (m *mcpLikeTool) Execute(context.Context, map[string]any) (tools.Result, error) {
	m.calls.Add(1)
	return tools.Text("issue #128: snapshot mismatch"), nil
}

func TestToolSourcesAndCapabilityDiffs(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		src := &flakySource{tool: &mcpLikeTool{}}
		src.connected.Store(true)
		var h *harness
		h = newHarness(t, kind, []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("s", "mcp__issues__search", `{"q":"snapshot"}`)}},
			{Dynamic: func(llmtest.Request) llmtest.Turn {
				src.connected.Store(false) // the server goes away after this model call's tools were fixed
				return llmtest.Turn{ToolCalls: []llmtest.ToolCall{call("s2", "mcp__issues__search", `{"q":"again"}`)}}
			}},
			{Text: "The issue tracker went away."},
		}, func(h *harness, o *Options) { o.ToolSources = []ToolSource{src} })
		id := h.session(ModeDefault)
		res := h.run(id, "why do tests fail?")
		if res.Reason != EndDone {
			t.Fatalf("result %+v", res)
		}
		reqs := h.srv.ChatRequests()
		if !contains(toolNames(reqs[0]), "mcp__issues__search") || contains(toolNames(reqs[2]), "mcp__issues__search") {
			t.Errorf("tools offered: first %v, last %v", toolNames(reqs[0]), toolNames(reqs[2]))
		}
		// MCP tools ask outside auto mode, like any non-safe tool.
		if len(h.asked) != 2 || h.asked[0].Tool != "mcp__issues__search" {
			t.Errorf("asked %+v", h.asked)
		}
		diffs := logged[sessions.CapabilityDiff](h, id, sessions.EventCapabilityDiff)
		if len(diffs) != 2 || !contains(diffs[1].Removed, "mcp__issues__search") || !strings.Contains(strings.Join(diffs[1].Reasons, " "), "MCP server issues") {
			t.Fatalf("diffs %+v", diffs)
		}
		if results := logged[sessions.ToolResult](h, id, sessions.EventToolResult); len(results) != 2 || results[0].IsError {
			t.Errorf("results %+v", results)
		}
		// Replay rebuilds the visible set of each model call from the log.
		st, err := h.store.Replay(context.Background(), id, 0)
		if err != nil || contains(st.VisibleTools, "mcp__issues__search") || !contains(st.VisibleTools, "Read") {
			t.Errorf("replayed visible set %v (%v)", st.VisibleTools, err)
		}
	})
}

func TestModeChangeIsADiff(t *testing.T) {
	h := newHarness(t, "openai", []llmtest.Turn{{Text: "a"}, {Text: "b"}})
	id := h.session(ModeDefault)
	h.run(id, "one")
	if _, err := h.store.Append(context.Background(), id, sessions.NewEvent(sessions.EventModeChanged, sessions.ModeChanged{Mode: "plan"})); err != nil {
		t.Fatal(err)
	}
	h.run(id, "two")
	diffs := logged[sessions.CapabilityDiff](h, id, sessions.EventCapabilityDiff)
	if len(diffs) != 2 || !contains(diffs[1].Removed, "Write") || !contains(diffs[1].Removed, "Bash") || len(diffs[1].Added) != 0 {
		t.Fatalf("diffs %+v", diffs)
	}
	if !strings.Contains(strings.Join(diffs[1].Reasons, " "), "plan mode") {
		t.Errorf("reasons %v", diffs[1].Reasons)
	}
}

// mapTool cannot be compared with ==; offering it must not crash the engine.
type mapTool struct{ meta map[string]string }

func (m mapTool) Info() tools.Info {
	return tools.Info{Name: "mcp__odd__tool", Description: "odd", Source: tools.SourceMCP, Parameters: json.RawMessage(`{"type":"object"}`)}
}

func (m mapTool) Execute(context.Context, map[string]any) (tools.Result, error) {
	return tools.Text("ok"), nil
}

type valueSource struct{}

func (valueSource) Tools(context.Context, SessionInfo) []tools.Tool {
	return []tools.Tool{mapTool{meta: map[string]string{"a": "b"}}}
}

func TestUncomparableSourceTools(t *testing.T) {
	h := newHarness(t, "openai", []llmtest.Turn{{Text: "a"}, {Text: "b"}},
		func(h *harness, o *Options) { o.ToolSources = []ToolSource{valueSource{}} })
	id := h.session(ModeDefault)
	h.run(id, "one")
	h.run(id, "two")
	if !contains(toolNames(h.srv.ChatRequests()[1]), "mcp__odd__tool") {
		t.Error("the source's tool was not offered")
	}
}

// originTool is an MCP-like tool of a named server.
type originTool struct{ name, origin string }

func (o originTool) Info() tools.Info {
	return tools.Info{Name: o.name, Description: "from " + o.origin, Source: tools.SourceMCP, Origin: o.origin,
		Parameters: json.RawMessage(`{"type":"object"}`)}
}

func (o originTool) Execute(context.Context, map[string]any) (tools.Result, error) {
	return tools.Text("ran the one from " + o.origin), nil
}

// TestToolNameClashesAreReported: when two sources offer a tool of the same
// name, the first keeps it, and the user is told once which one was left
// out and what to do, instead of the last one silently winning.
func TestToolNameClashesAreReported(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "openai", []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{call("c", "mcp__fs__read", `{}`)}}, {Text: "a"}, {Text: "b"},
	}, func(h *harness, o *Options) {
		o.ToolSources = []ToolSource{
			staticSource{originTool{"mcp__fs__read", "fs"}},
			staticSource{originTool{"mcp__fs__read", "fs (agent)"}, originTool{"mcp__wiki__page", "wiki"}},
		}
	})
	id := h.session(ModeAuto)
	h.run(id, "one")
	h.run(id, "two")
	errs := logged[sessions.Error](h, id, sessions.EventError)
	if len(errs) != 1 || errs[0].Kind != "tool_clash" {
		t.Fatalf("error events %+v, want one tool_clash", errs)
	}
	mustContain(t, "the clash report", errs[0].Message, "mcp__fs__read", "MCP server fs and MCP server fs (agent)", "Rename")
	results := logged[sessions.ToolResult](h, id, sessions.EventToolResult)
	if len(results) != 1 || results[0].Content != "ran the one from fs" {
		t.Errorf("results %+v: the first source's tool should keep the name", results)
	}
	if names := toolNames(h.srv.ChatRequests()[0]); !contains(names, "mcp__wiki__page") {
		t.Errorf("the second source's other tools were lost: %v", names)
	}
}
