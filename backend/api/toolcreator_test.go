package api

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"tinyelf/backend/config"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
)

var (
	personalFolder = regexp.MustCompile(`File tools also reach (\S+) by absolute path \(this agent's personal tools folder`)
	pythonBlock    = regexp.MustCompile("(?s)```python\n(.*?)```")
)

// followToolCreator is what a model that read the tool-creator skill
// writes: the skill's Python example, with its network call replaced by a
// local answer (the test has no network), still reading its key with
// get_credential as the skill shows.
func followToolCreator(skill string) (string, error) {
	m := pythonBlock.FindStringSubmatch(skill)
	if m == nil {
		return "", fmt.Errorf("the skill has no Python example")
	}
	code := m[1]
	start := strings.Index(code, "def _forecast(")
	end := strings.Index(code, "\n\n\ndef cli_main(")
	if start < 0 || end < start {
		return "", fmt.Errorf("the skill's example no longer has _forecast before cli_main:\n%s", code)
	}
	local := `def _forecast(city: str, days: int) -> dict[str, Any]:
    from tinyelf_tool import get_credential

    key = get_credential("weather", "weather", env_var="WEATHER_API_KEY")
    return {"city": city, "days": days, "forecast": ["sunny"] * days, "key_length": len(key)}`
	return code[:start] + local + code[end:], nil
}

// A scripted model reads the tool-creator skill (shipped in the binary,
// not only in tests), writes a tool into the personal tools folder the
// system prompt names by following it, loads it with refresh_tools, and on
// the next turn the tool works: called by its schema name and through
// use_tool, with the credential the skill's code asks for by name.
func TestModelWritesAToolFromTheToolCreatorSkill(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	h := newSvc(t)
	h.srv.SetDefault(llmtest.Turn{Dynamic: func(req llmtest.Request) llmtest.Turn {
		results := sentToolResults(req)
		switch {
		case strings.Contains(req.LastUserText(), "make me a weather tool") && len(results) == 0:
			return llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "skill", Name: "read_skill", Arguments: `{"name":"tool-creator"}`}}}
		case results["skill"] != "" && results["write"] == "":
			folder := personalFolder.FindStringSubmatch(req.System())
			if folder == nil {
				return llmtest.Turn{Text: "SCRIPT-ERROR: the system prompt names no personal tools folder"}
			}
			code, err := followToolCreator(results["skill"])
			if err != nil {
				return llmtest.Turn{Text: "SCRIPT-ERROR: " + err.Error()}
			}
			args, _ := json.Marshal(map[string]string{"path": folder[1] + "/weather.py", "content": code})
			return llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "write", Name: "Write", Arguments: string(args)}}}
		case results["write"] != "" && results["refresh"] == "":
			return llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "refresh", Name: "refresh_tools", Arguments: `{}`}}}
		case results["refresh"] != "" && !strings.Contains(req.LastUserText(), "forecast"):
			return llmtest.Turn{Text: "The weather tool is ready."}
		case strings.Contains(req.LastUserText(), "Tokyo") && results["direct"] == "":
			return llmtest.Turn{ToolCalls: []llmtest.ToolCall{
				{ID: "direct", Name: "weather_forecast", Arguments: `{"city":"Tokyo"}`},
				{ID: "via", Name: "use_tool", Arguments: `{"tool_name":"weather","action":"forecast","args":{"city":"Osaka","days":2}}`},
			}}
		}
		return llmtest.Turn{Text: "Sunny in Tokyo and Osaka."}
	}})
	h.addProvider()
	ctx := context.Background()
	if err := h.svc.settings.Update(func(s *config.Settings) error {
		s.Credentials = map[string]config.Credential{"weather": {APIKey: "wk-1234567890"}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	sess, err := h.svc.CreateSession(ctx, CreateSessionArgs{Workspace: h.workspace, Mode: "auto"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.SendMessage(ctx, SendArgs{SessionID: sess.ID, Text: "make me a weather tool"}); err != nil {
		t.Fatal(err)
	}
	end := h.waitFor(sess.ID, string(sessions.EventTurnEnd))
	if strings.Contains(string(end.Data), "SCRIPT-ERROR") {
		t.Fatalf("the scripted model could not follow the skill: %s", end.Data)
	}
	results := map[string]sessions.ToolResult{}
	readResults := func() {
		for ev, err := range h.svc.store.Events(ctx, sess.ID, 1, 0) {
			var r sessions.ToolResult
			if err == nil && ev.Type == sessions.EventToolResult && json.Unmarshal(ev.Data, &r) == nil {
				results[r.CallID] = r
			}
		}
	}
	readResults()
	for _, id := range []string{"skill", "write", "refresh"} {
		if r, ok := results[id]; !ok || r.IsError {
			t.Fatalf("%s: %+v", id, r)
		}
	}
	if !strings.Contains(results["skill"].Content, "get_tool_schemas()") || !strings.Contains(results["refresh"].Content, "weather") {
		t.Fatalf("the skill or the refresh said something else:\nskill: %.300s\nrefresh: %s", results["skill"].Content, results["refresh"].Content)
	}

	if _, err := h.svc.SendMessage(ctx, SendArgs{SessionID: sess.ID, Text: "what is the forecast for Tokyo?"}); err != nil {
		t.Fatal(err)
	}
	h.waitFor(sess.ID, string(sessions.EventTurnEnd))
	readResults()
	want := map[string]string{
		"direct": `{"city":"Tokyo","days":3,"forecast":["sunny","sunny","sunny"],"key_length":13}`,
		"via":    `{"city":"Osaka","days":2,"forecast":["sunny","sunny"],"key_length":13}`,
	}
	for id, w := range want {
		if r := results[id]; r.IsError || r.Content != w {
			t.Errorf("%s on the next turn: %+v, want %s", id, r, w)
		}
	}
}
