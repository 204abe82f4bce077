package mcp

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"tinyelf/backend/tools"
)

// TestFakeServerOverStdio drives a real mcp-go server (2026-07-28) through
// the whole mapping: tools, results, progress, resources, prompts and
// tools/list_changed.
func TestFakeServerOverStdio(t *testing.T) {
	t.Parallel()
	svc, rec := startService(t, testOptions(), fakeServer(t, "fake"))

	st, _ := svc.State("fake")
	if st.Status != StatusConnected || st.ProtocolVersion != "2026-07-28" || st.ServerName != "fake" {
		t.Fatalf("state = %+v, want connected on 2026-07-28", st)
	}
	if st.Prompts != 1 || st.Resources != 3 {
		t.Errorf("prompts, resources = %d, %d; want 1, 3", st.Prompts, st.Resources)
	}
	names := toolNames(allTools(svc))
	for _, want := range []string{"mcp__fake__echo", "mcp__fake__add", "mcp__fake__slow", ListResourcesToolName, ReadResourceToolName} {
		if !slices.Contains(names, want) {
			t.Errorf("tools %v lack %s", names, want)
		}
	}
	if !slices.Contains(st.Tools, "mcp__fake__echo") {
		t.Errorf("state tools %v lack mcp__fake__echo", st.Tools)
	}
	reg := registryOf(t, svc.Tools())
	echo, _ := reg.Info("mcp__fake__echo")
	if !echo.ReadOnly || echo.Safe || echo.Source != tools.SourceMCP || !strings.HasPrefix(echo.Description, "[MCP server fake] Echoes") {
		t.Errorf("echo info = %+v", echo)
	}
	if crash, _ := reg.Info("mcp__fake__crash"); crash.ReadOnly || crash.Safe {
		t.Errorf("crash info = %+v, want neither read-only nor safe", crash)
	}

	tests := []struct {
		name     string
		tool     string
		args     any
		isError  bool
		want     []string
		progress []string
		check    func(t *testing.T, res tools.CallResult)
	}{
		{name: "echo", tool: "mcp__fake__echo", args: map[string]any{"message": "hi"}, want: []string{"Echo: hi"}},
		{name: "numbers coerced by the registry", tool: "mcp__fake__add", args: map[string]any{"a": "2", "b": 3}, want: []string{"5"}},
		{name: "missing argument caught before the call", tool: "mcp__fake__echo", args: map[string]any{}, isError: true, want: []string{"message"}},
		{name: "tool error", tool: "mcp__fake__fail", args: map[string]any{}, isError: true, want: []string{"the widget is broken", tools.ErrorHint}},
		{name: "image described, data kept for the UI", tool: "mcp__fake__image", args: map[string]any{},
			want: []string{"Here is the image:", "[image: image/png, 68 bytes"},
			check: func(t *testing.T, res tools.CallResult) {
				imgs, _ := res.Meta[MetaImages].([]Media)
				if len(imgs) != 1 || imgs[0].MIMEType != "image/png" || imgs[0].Size != 68 || imgs[0].Data == "" {
					t.Errorf("meta images = %+v", res.Meta[MetaImages])
				}
				if strings.Contains(res.Content, "iVBOR") {
					t.Errorf("base64 leaked into the model's text: %s", res.Content)
				}
			}},
		{name: "progress reaches ReportProgress", tool: "mcp__fake__slow", args: map[string]any{"steps": 3, "stepMs": 20},
			want: []string{"done after 3 steps"}, progress: []string{"step 1 of 3 (1/3)", "step 2 of 3 (2/3)", "step 3 of 3 (3/3)"}},
		{name: "resource text", tool: ReadResourceToolName, args: map[string]any{"server": "fake", "uri": "fake://hello"},
			want: []string{"[resource fake://hello (text/plain)]", "Hello from the fake server."}},
		{name: "large resource cut with a note", tool: ReadResourceToolName, args: map[string]any{"server": "fake", "uri": "fake://big"},
			want: []string{"[truncated: showing the first"},
			check: func(t *testing.T, res tools.CallResult) {
				if len(res.Content) > 41000 {
					t.Errorf("content is %d bytes, want about 40000", len(res.Content))
				}
			}},
		{name: "binary resource described", tool: ReadResourceToolName, args: map[string]any{"server": "fake", "uri": "fake://blob"},
			want: []string{"binary application/octet-stream, 5 bytes"}},
		{name: "unknown resource server", tool: ReadResourceToolName, args: map[string]any{"server": "nope", "uri": "x://y"},
			isError: true, want: []string{`no MCP server named "nope"`}},
		{name: "resource list", tool: ListResourcesToolName, args: map[string]any{},
			want: []string{"fake:", "fake://hello — hello (text/plain): A greeting.", "fake://blob"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, progress := call(t, svc, tc.tool, tc.args)
			if res.IsError != tc.isError {
				t.Fatalf("isError = %v, want %v: %s", res.IsError, tc.isError, res.Content)
			}
			mustContain(t, res.Content, tc.want...)
			if tc.progress != nil && !slices.Equal(progress, tc.progress) {
				t.Errorf("progress = %q, want %q", progress, tc.progress)
			}
			if tc.check != nil {
				tc.check(t, res)
			}
		})
	}

	t.Run("prompt as a slash command", func(t *testing.T) {
		cmds := svc.Prompts()
		if len(cmds) != 1 || cmds[0].Name != "mcp__fake__greet" || len(cmds[0].Arguments) != 2 || !cmds[0].Arguments[0].Required {
			t.Fatalf("prompts = %+v", cmds)
		}
		ctx := context.Background()
		got, err := svc.RunPromptLine(ctx, `/mcp__fake__greet name="Ann Lee" style=formal`)
		if err != nil || unmarked(t, got) != "Please greet Ann Lee in a formal way." {
			t.Errorf("RunPromptLine = %q, %v", got, err)
		}
		got, err = svc.RunPromptLine(ctx, `/mcp__fake__greet Bob`)
		if err != nil || unmarked(t, got) != "Please greet Bob in a casual way." {
			t.Errorf("positional: %q, %v", got, err)
		}
		if _, err := svc.RunPromptLine(ctx, `/mcp__fake__greet style=formal`); err == nil || !strings.Contains(err.Error(), "needs the argument name") {
			t.Errorf("missing argument: %v", err)
		}
		if _, err := svc.RunPrompt(ctx, "/mcp__fake__nope", nil); err == nil {
			t.Error("unknown prompt ran")
		}
	})

	t.Run("tools/list_changed refreshes the tools", func(t *testing.T) {
		if res, _ := call(t, svc, "mcp__fake__add_tool", map[string]any{}); res.IsError {
			t.Fatal(res.Content)
		}
		waitChange(t, rec, func(c Change) bool { return slices.Contains(c.Added, "mcp__fake__extra") })
		if res, _ := call(t, svc, "mcp__fake__extra", map[string]any{}); unmarked(t, res.Content) != "extra!" {
			t.Errorf("extra = %+v", res)
		}
		if res, _ := call(t, svc, "mcp__fake__remove_tool", map[string]any{}); res.IsError {
			t.Fatal(res.Content)
		}
		c := waitChange(t, rec, func(c Change) bool { return slices.Contains(c.Removed, "mcp__fake__extra") })
		if c.Reason != "list_changed" || c.Server != "fake" {
			t.Errorf("change = %+v", c)
		}
		if slices.Contains(toolNames(svc.Tools()), "mcp__fake__extra") {
			t.Error("removed tool is still offered")
		}
	})
}

// waitChange waits for a recorded change matching ok.
func waitChange(t testing.TB, rec *recorder, ok func(Change) bool) Change {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, c := range rec.all() {
			if ok(c) {
				return c
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no matching change; got %+v", rec.all())
	return Change{}
}
