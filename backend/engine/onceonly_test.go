package engine

import (
	"strings"
	"testing"

	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
)

// A command no rule may allow (it writes to a file) is asked about with
// the reason it can only be allowed once; an "allow always" answer is
// recorded as what it is — allowed once, nothing saved — and the same
// command asks again next time. A command a rule can allow is not marked.
func TestOnceOnlyApproval(t *testing.T) {
	h := newHarness(t, "openai", []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{call("w1", "Bash", `{"command":"echo hi > out.txt"}`)}},
		{ToolCalls: []llmtest.ToolCall{call("w2", "Bash", `{"command":"echo hi > out.txt"}`)}},
		{ToolCalls: []llmtest.ToolCall{call("ls", "Bash", `{"command":"ls -la"}`)}},
		{Text: "ok"},
	}, withApprover(func(ApprovalRequest) ApprovalAnswer { return ApprovalAnswer{Decision: AllowAlways} }))
	id := h.session(ModeDefault)
	h.run(id, "write it twice")
	h.mu.Lock()
	asked := append([]ApprovalRequest(nil), h.asked...)
	h.mu.Unlock()
	if len(asked) != 3 {
		t.Fatalf("asked %d times, want 3 (the redirection twice, ls once): %+v", len(asked), asked)
	}
	for _, a := range asked[:2] {
		if !strings.Contains(a.OnceOnly, "it writes to the file out.txt") || a.Suggestion != "" {
			t.Errorf("the card does not say why the redirection can only be allowed once: %+v", a)
		}
	}
	if asked[2].OnceOnly != "" || asked[2].Suggestion == "" {
		t.Errorf("a command a rule can allow was marked once-only: %+v", asked[2])
	}
	answers := logged[sessions.ApprovalAnswered](h, id, sessions.EventApprovalAnswered)
	if len(answers) != 3 || answers[0].Decision != string(AllowOnce) || !strings.Contains(answers[0].Reason, "always") || answers[0].Rule != "" {
		t.Errorf("the always answer to a once-only call was recorded as %+v", answers)
	}
	if answers[2].Decision != string(AllowAlways) || answers[2].Rule == "" {
		t.Errorf("allow always on ls saved no rule: %+v", answers[2])
	}
	asks := logged[sessions.ApprovalAsked](h, id, sessions.EventApprovalAsked)
	if len(asks) != 3 || asks[0].OnceOnly == "" {
		t.Errorf("the log's approval.asked does not carry the reason: %+v", asks)
	}
	rules := h.settings.Rules()
	if len(rules) != 1 || !strings.Contains(rules[0].Pattern, "ls") {
		t.Errorf("rules saved: %+v", rules)
	}
}
