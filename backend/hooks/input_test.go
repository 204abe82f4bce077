package hooks

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestInputFieldsPerEvent checks, field by field, that each event's stdin
// carries the common fields and exactly its own, with Claude Code's names.
func TestInputFieldsPerEvent(t *testing.T) {
	t.Parallel()
	common := Input{SessionID: "s1", TranscriptPath: "/data/t.jsonl", Cwd: "/ws", PermissionMode: "default"}
	commonWant := map[string]any{"session_id": "s1", "transcript_path": "/data/t.jsonl", "cwd": "/ws", "permission_mode": "default"}
	cases := []struct {
		ev   Event
		in   func(Input) Input
		want map[string]any
	}{
		{PreToolUse, func(in Input) Input {
			in.ToolName, in.ToolInput, in.ToolUseID = "Bash", map[string]any{"command": "ls"}, "call_1"
			in.Prompt = "not sent" // another event's field never leaks
			return in
		}, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "ls"}, "tool_use_id": "call_1"}},
		{PermissionRequest, func(in Input) Input {
			in.ToolName, in.ToolInput, in.ToolUseID = "Bash", map[string]any{"command": "ls"}, "call_1"
			in.PermissionSuggestions = []Suggestion{{Type: "addRules", Rules: []SuggestionRule{{ToolName: "Bash", RuleContent: "ls"}}, Behavior: "allow", Destination: "userSettings"}}
			return in
		}, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "ls"}, "tool_use_id": "call_1",
			"permission_suggestions": []any{map[string]any{"type": "addRules", "rules": []any{map[string]any{"toolName": "Bash", "ruleContent": "ls"}}, "behavior": "allow", "destination": "userSettings"}}}},
		{PostToolUse, func(in Input) Input {
			in.ToolName, in.ToolInput, in.ToolUseID = "Write", map[string]any{"file_path": "/ws/a"}, "call_2"
			in.ToolResponse = ToolResponse("Write", "Wrote a", false, "/ws/a")
			return in
		}, map[string]any{"tool_name": "Write", "tool_input": map[string]any{"file_path": "/ws/a"}, "tool_use_id": "call_2",
			"tool_response": map[string]any{"content": "Wrote a", "success": true, "filePath": "/ws/a"}}},
		{PostToolUseFailure, func(in Input) Input {
			in.ToolName, in.ToolUseID, in.Error = "Bash", "call_3", "Exit code: 1"
			return in
		}, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{}, "tool_use_id": "call_3", "error": "Exit code: 1", "is_interrupt": false}},
		{UserPromptSubmit, func(in Input) Input { in.Prompt = "fix it"; return in }, map[string]any{"prompt": "fix it"}},
		{Stop, func(in Input) Input { return in }, map[string]any{"stop_hook_active": false}},
		{SubagentStop, func(in Input) Input {
			in.StopHookActive, in.AgentID, in.AgentType, in.AgentTranscriptPath = true, "s2", "reviewer", "/data/s2.jsonl"
			return in
		}, map[string]any{"stop_hook_active": true, "agent_id": "s2", "agent_type": "reviewer", "agent_transcript_path": "/data/s2.jsonl"}},
		{Notification, func(in Input) Input {
			in.Message, in.Title, in.NotificationType = "TinyElf needs your permission to use Bash", "TinyElf", NotifyPermission
			return in
		}, map[string]any{"message": "TinyElf needs your permission to use Bash", "title": "TinyElf", "notification_type": "permission_prompt"}},
		{SessionStart, func(in Input) Input { in.Source, in.Model = SourceResume, "gpt-x"; return in }, map[string]any{"source": "resume", "model": "gpt-x"}},
		{SessionEnd, func(in Input) Input { in.Reason = EndOther; return in }, map[string]any{"reason": "other"}},
		{PreCompact, func(in Input) Input { in.Trigger = TriggerAuto; return in }, map[string]any{"trigger": "auto", "custom_instructions": ""}},
	}
	for _, c := range cases {
		in := c.in(common)
		in.Event = c.ev
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%s: %s is not JSON: %v", c.ev, b, err)
		}
		want := map[string]any{"hook_event_name": string(c.ev)}
		for k, v := range commonWant {
			want[k] = v
		}
		for k, v := range c.want {
			want[k] = v
		}
		for k, v := range want {
			if !reflect.DeepEqual(got[k], v) {
				t.Errorf("%s: %s = %#v, want %#v", c.ev, k, got[k], v)
			}
		}
		for k := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("%s: unexpected field %s", c.ev, k)
			}
		}
	}
}

func TestMatchValue(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   Input
		want string
	}{
		{Input{Event: PreToolUse, ToolName: "Bash"}, "Bash"},
		{Input{Event: SessionStart, Source: "compact"}, "compact"},
		{Input{Event: Notification, NotificationType: "idle_prompt"}, "idle_prompt"},
		{Input{Event: PreCompact, Trigger: "auto"}, "auto"},
		{Input{Event: SessionEnd, Reason: "other"}, "other"},
		{Input{Event: SubagentStop, AgentType: "reviewer"}, "reviewer"},
		{Input{Event: Stop, ToolName: "x"}, ""},
	} {
		if got := c.in.MatchValue(); got != c.want {
			t.Errorf("%s: %q, want %q", c.in.Event, got, c.want)
		}
	}
}
