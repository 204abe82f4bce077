package hooks

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestParseReadsClaudeCodeShape(t *testing.T) {
	t.Parallel()
	raw := json.RawMessage(`{
	  "PreToolUse": [
	    {"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh", "timeout": 5}]},
	    {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "./protect.py", "timeout": "30"}]}
	  ],
	  "Stop": [{"hooks": [{"type": "command", "command": "./stop.sh"}]}]
	}`)
	c, problems := Parse(raw)
	if len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
	if len(c[PreToolUse]) != 2 || c[PreToolUse][0].Hooks[0].Command != "./check.sh" || c[Stop][0].Matcher != "" {
		t.Fatalf("config: %+v", c)
	}
	if got := c[PreToolUse][0].Hooks[0].Timeout.Duration(); got != 5*time.Second {
		t.Errorf("timeout 5 = %s", got)
	}
	if got := c[PreToolUse][1].Hooks[0].Timeout.Duration(); got != 30*time.Second {
		t.Errorf(`timeout "30" = %s`, got)
	}
	if got := c[Stop][0].Hooks[0].Timeout.Duration(); got != DefaultTimeout {
		t.Errorf("no timeout = %s, want the default", got)
	}
}

func TestParseReportsWhatItCannotUse(t *testing.T) {
	t.Parallel()
	raw := json.RawMessage(`{
	  "pretooluse": [{"hooks": [{"type": "command", "command": "a"}]}],
	  "BeforeEverything": [],
	  "PostToolUse": [
	    {"matcher": "Bash(", "hooks": [{"type": "command", "command": "b"}]},
	    {"hooks": [{"type": "prompt", "prompt": "is it ok?"}, {"type": "command"}, {"command": "c"}]},
	    {"hooks": "not a list"},
	    {"matcher": "Edit", "hooks": [{"type": "command", "command": "d"}]}
	  ],
	  "Stop": {"not": "a list"}
	}`)
	c, problems := Parse(raw)
	text := ""
	for _, p := range problems {
		text += p.String() + "\n"
	}
	for _, want := range []string{
		`pretooluse: event names are case-sensitive: write "PreToolUse"`,
		"BeforeEverything: not an event",
		"PostToolUse[0].matcher: matcher \"Bash(\" is not a valid regular expression",
		`PostToolUse[1].hooks[0]: hooks of type "prompt" are not supported`,
		"PostToolUse[1].hooks[1]: has no command",
		"PostToolUse[1].hooks[2]: has no type",
		"PostToolUse[2]: does not decode",
		"Stop: must be a list",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("problems lack %q:\n%s", want, text)
		}
	}
	// What decodes is kept (so saving loses nothing), but only the good
	// hook runs.
	if len(c[PostToolUse]) != 3 {
		t.Errorf("kept %d PostToolUse groups, want 3", len(c[PostToolUse]))
	}
	set := NewSet(Source{Name: SourceSettings, Config: c})
	hooks := set.Hooks(PostToolUse)
	if len(hooks) != 1 || hooks[0].Command != "d" {
		t.Errorf("runnable hooks: %+v", hooks)
	}
	if set.Has(PreToolUse) {
		t.Error("a misspelt event's hook runs")
	}
}

func TestParseOfNothing(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{"", "null", "  "} {
		c, p := Parse(json.RawMessage(raw))
		if len(c) != 0 || len(p) != 0 {
			t.Errorf("%q: %v %v", raw, c, p)
		}
	}
	if _, p := Parse(json.RawMessage(`[1,2]`)); len(p) != 1 {
		t.Errorf("a list as the hooks section: %v", p)
	}
}

func TestValidateIsStrict(t *testing.T) {
	t.Parallel()
	good := Config{PreToolUse: {{Matcher: "Bash", Hooks: []Command{{Type: TypeCommand, Command: "true"}}}}}
	if err := Validate(good); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]Config{
		"unknown event":  {Event("Whenever"): {{Hooks: []Command{{Type: TypeCommand, Command: "x"}}}}},
		"bad matcher":    {PreToolUse: {{Matcher: "(", Hooks: []Command{{Type: TypeCommand, Command: "x"}}}}},
		"no command":     {PreToolUse: {{Hooks: []Command{{Type: TypeCommand}}}}},
		"http hook":      {PreToolUse: {{Hooks: []Command{{Type: "http", Command: "x"}}}}},
		"empty group":    {PreToolUse: {{Matcher: "Bash"}}},
		"negative limit": {Stop: {{Hooks: []Command{{Type: TypeCommand, Command: "x", Timeout: -1}}}}},
	} {
		if err := Validate(c); err == nil {
			t.Errorf("%s: saved", name)
		}
	}
}

func TestMarshalKeepsLifecycleOrder(t *testing.T) {
	t.Parallel()
	c := Config{
		Stop:         {{Hooks: []Command{{Type: TypeCommand, Command: "s"}}}},
		SessionStart: {{Matcher: "startup", Hooks: []Command{{Type: TypeCommand, Command: "a", Timeout: 10}}}},
		PreToolUse:   {},
	}
	b, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"SessionStart":[{"matcher":"startup","hooks":[{"type":"command","command":"a","timeout":10}]}],"Stop":[{"hooks":[{"type":"command","command":"s"}]}]}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	back, problems := Parse(b)
	if len(problems) != 0 || len(back) != 2 {
		t.Errorf("round trip: %v %v", back, problems)
	}
	if b, _ := (Config{}).Marshal(); b != nil {
		t.Errorf("empty config marshals to %s", b)
	}
}

func TestSetMatchesAndDeduplicates(t *testing.T) {
	t.Parallel()
	global := Config{PreToolUse: {
		{Matcher: "Bash", Hooks: []Command{{Type: TypeCommand, Command: "check", Timeout: 5}}},
		{Matcher: "*", Hooks: []Command{{Type: TypeCommand, Command: "audit"}}},
	}}
	project := Config{PreToolUse: {
		{Matcher: "Bash|Write", Hooks: []Command{{Type: TypeCommand, Command: "check", Timeout: 20}}},
	}, UserPromptSubmit: {{Matcher: "ignored", Hooks: []Command{{Type: TypeCommand, Command: "prompt"}}}}}
	set := NewSet(Source{Name: SourceSettings, Config: global}, Source{Name: ".claude/settings.json", Config: project})
	got := set.Match(PreToolUse, "Bash")
	if len(got) != 2 || got[0].Command != "check" || got[1].Command != "audit" {
		t.Fatalf("Bash runs %+v", got)
	}
	if got[0].Timeout != 20*time.Second || got[0].Source != SourceSettings {
		t.Errorf("a command written twice runs once, with the longer timeout: %+v", got[0])
	}
	if got := set.Match(PreToolUse, "Read"); len(got) != 1 || got[0].Command != "audit" {
		t.Errorf("Read runs %+v", got)
	}
	// UserPromptSubmit has no matcher in Claude Code: every group runs.
	if got := set.Match(UserPromptSubmit, ""); len(got) != 1 {
		t.Errorf("UserPromptSubmit runs %+v", got)
	}
	var nilSet *Set
	if nilSet.Match(PreToolUse, "Bash") != nil || nilSet.Has(Stop) || !nilSet.Empty() {
		t.Error("a nil set has hooks")
	}
}

func TestMatchWithoutMatchAllocatesNothing(t *testing.T) {
	set := NewSet(Source{Name: SourceSettings, Config: Config{PreToolUse: {
		{Matcher: "Write|Edit", Hooks: []Command{{Type: TypeCommand, Command: "fmt"}}},
		{Matcher: "mcp__github__.*", Hooks: []Command{{Type: TypeCommand, Command: "gh"}}},
	}}})
	if n := testing.AllocsPerRun(100, func() { _ = set.Match(PreToolUse, "Bash") }); n != 0 {
		t.Errorf("%v allocations for a miss", n)
	}
}
