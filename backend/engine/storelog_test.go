package engine

import (
	"reflect"
	"testing"

	"tinyelf/backend/llm"
	"tinyelf/backend/sessions"
)

// TestConversationMessageCarriesEveryField checks the one conversion from
// the log's model history to the conversation's message: every field of
// llm.Message but Parts (the attachments, loaded by ModelMessages) comes
// from the logged message, so a field added to one type and not mapped
// fails here.
func TestConversationMessageCarriesEveryField(t *testing.T) {
	t.Parallel()
	m := sessions.Message{
		Seq: 7, Role: sessions.RoleAssistant, Content: "text",
		ToolCalls:  []sessions.ToolCallRecord{{ID: "c1", Name: "Read", Arguments: `{"path":"a"}`}},
		ToolCallID: "c0", ToolName: "Bash", IsError: true,
		Attachments: []sessions.Attachment{{Name: "a.txt"}}, Summary: true,
	}
	got := conversationMessage(m)
	want := llm.Message{
		Role: llm.RoleAssistant, Content: "text",
		ToolCalls:  []llm.ToolCall{{ID: "c1", Name: "Read", Arguments: `{"path":"a"}`}},
		ToolCallID: "c0", ToolName: "Bash", IsError: true,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("conversationMessage = %+v, want %+v", got, want)
	}
	v := reflect.ValueOf(got)
	for i := range v.NumField() {
		if name := v.Type().Field(i).Name; name != "Parts" && v.Field(i).IsZero() {
			t.Errorf("llm.Message.%s is not carried over from the log", name)
		}
	}
	if calls := conversationMessage(sessions.Message{Role: sessions.RoleUser}).ToolCalls; calls == nil || len(calls) != 0 {
		t.Errorf("a message without calls has ToolCalls %#v, want an empty list", calls)
	}
}
