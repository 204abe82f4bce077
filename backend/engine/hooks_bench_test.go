package engine

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"tinyelf/backend/config"
	"tinyelf/backend/hooks"
	"tinyelf/backend/llm"
	"tinyelf/backend/proc"
	"tinyelf/backend/sessions"
	"tinyelf/backend/tools"
	"tinyelf/backend/tools/agent"
)

// discardLog is a SessionLog that keeps nothing, so a benchmark of the
// hook steps measures them and not the database.
type discardLog struct{}

func (discardLog) CreateSession(context.Context, sessions.SessionCreated) (string, error) {
	return "s", nil
}
func (discardLog) Append(_ context.Context, _ string, evs ...sessions.Event) ([]sessions.Event, error) {
	return evs, nil
}
func (discardLog) Info(context.Context, string) (SessionInfo, error)            { return SessionInfo{}, nil }
func (discardLog) ModelMessages(context.Context, string) ([]llm.Message, error) { return nil, nil }
func (discardLog) LastSeq(context.Context, string) (int64, error)               { return 1, nil }
func (discardLog) LastCapabilities(context.Context, string) (sessions.CapabilityState, error) {
	return sessions.CapabilityState{}, nil
}
func (discardLog) ListSessions(context.Context, int, int) ([]agent.SessionSummary, error) {
	return nil, nil
}

// hookPipeline is the tool pipeline's hook steps (and, with gate, the
// permission gate between them) around a tool that does nothing, for a turn
// whose hooks are set.
func hookPipeline(b *testing.B, set *hooks.Set, ho *HookOptions, gate bool) (tools.Handler, context.Context, *tools.Call) {
	b.Helper()
	ch := proc.NewChildren(b.TempDir(), nil)
	b.Cleanup(ch.KillAll)
	settings, err := config.OpenStore(filepath.Join(b.TempDir(), config.SettingsFile))
	if err != nil {
		b.Fatal(err)
	}
	e := New(Options{Log: discardLog{}, Settings: settings, Getenv: func(string) string { return "" }, Children: ch, Hooks: ho})
	s := &sessionState{id: "s", pending: map[string]chan ApprovalAnswer{}}
	ws := b.TempDir()
	t := &turn{e: e, s: s, reg: tools.NewRegistry(), info: SessionInfo{ID: "s", Workspace: ws, Mode: ModeAuto}}
	t.hooks.set = set
	run := func(context.Context, *tools.Call) (tools.Result, error) { return tools.Text("ok"), nil }
	h := tools.Handler(run)
	steps := []tools.Middleware{e.postToolHooks(), e.preToolHooks(s)}
	if gate {
		steps = []tools.Middleware{e.postToolHooks(), e.permissionMiddleware(s), e.preToolHooks(s)}
	}
	for _, mw := range steps {
		h = mw(h)
	}
	call := &tools.Call{ID: "c1", Name: "Bash", Info: tools.Info{Name: "Bash"}, Params: map[string]any{"command": "go test ./..."}}
	return h, withTurn(context.Background(), t), call
}

func settingsHooks(groups ...hooks.Group) *hooks.Set {
	return hooks.NewSet(hooks.Source{Name: hooks.SourceSettings, Config: hooks.Config{hooks.PreToolUse: groups, hooks.PostToolUse: groups}})
}

// BenchmarkPreToolUseNoMatchingHook is a Bash call through the PreToolUse
// and PostToolUse steps when the hooks set are for other tools ("none": no
// hooks at all), around a tool that does nothing: what having hooks costs a
// call none of them is for. Goal: under 5 µs.
func BenchmarkPreToolUseNoMatchingHook(b *testing.B) {
	for _, c := range []struct {
		name string
		set  *hooks.Set
	}{
		{"none", nil},
		{"other-tools", settingsHooks(
			hooks.Group{Matcher: "Write|Edit|MultiEdit", Hooks: []hooks.Command{{Type: hooks.TypeCommand, Command: "fmt.sh"}}},
			hooks.Group{Matcher: "mcp__github__.*", Hooks: []hooks.Command{{Type: hooks.TypeCommand, Command: "gh.sh"}}},
			hooks.Group{Matcher: "Read", Hooks: []hooks.Command{{Type: hooks.TypeCommand, Command: "protect.py"}}},
		)},
	} {
		b.Run(c.name, func(b *testing.B) {
			h, ctx, call := hookPipeline(b, c.set, &HookOptions{}, false)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := h(ctx, call); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPreToolUseTrueHook is the same call with one PreToolUse hook
// that runs `true`, beside starting `bash -c true` the way the runner
// does (in its own process group, recorded): the difference is what the
// hook step adds to the process. Goal: process start plus under 2 ms.
func BenchmarkPreToolUseTrueHook(b *testing.B) {
	b.Run("process", func(b *testing.B) {
		ch := proc.NewChildren(b.TempDir(), nil)
		b.Cleanup(ch.KillAll)
		bash, err := exec.LookPath("bash")
		if err != nil {
			b.Skip("no bash")
		}
		for b.Loop() {
			cmd := ch.Command(bash, "-c", "true")
			child, err := cmd.Start()
			if err != nil {
				b.Fatal(err)
			}
			if err := cmd.Wait(); err != nil {
				b.Fatal(err)
			}
			child.Exited()
		}
	})
	b.Run("hook", func(b *testing.B) {
		set := hooks.NewSet(hooks.Source{Name: hooks.SourceSettings, Config: hooks.Config{hooks.PreToolUse: {
			{Matcher: "Bash", Hooks: []hooks.Command{{Type: hooks.TypeCommand, Command: "true"}}},
		}}})
		h, ctx, call := hookPipeline(b, set, &HookOptions{TranscriptDir: filepath.Join(b.TempDir(), "transcripts")}, true)
		for b.Loop() {
			if _, err := h(ctx, call); err != nil {
				b.Fatal(err)
			}
		}
	})
}
