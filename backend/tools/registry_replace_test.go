package tools

import (
	"context"
	"strings"
	"testing"
)

// TestReplaceRevalidates: a middleware that changes a call's parameters
// (a hook's updatedInput) gets them checked against the tool's schema, so
// the tool never runs with arguments it would have refused from the model.
func TestReplaceRevalidates(t *testing.T) {
	t.Parallel()
	tool := newFake("Echo", `{"type":"object","properties":{"text":{"type":"string"},"count":{"type":"integer"}},"required":["text"],"additionalProperties":false}`)
	var replaceErr error
	replacement := map[string]any{}
	r := NewRegistry(WithMiddleware(func(next Handler) Handler {
		return func(ctx context.Context, call *Call) (Result, error) {
			if replaceErr = call.Replace(replacement); replaceErr != nil {
				return Errorf("refused: %v", replaceErr), nil
			}
			return next(ctx, call)
		}
	}))
	if err := r.Register(tool); err != nil {
		t.Fatal(err)
	}
	replacement = map[string]any{"text": "changed", "count": "3"}
	res := r.Execute(context.Background(), "c1", "Echo", []byte(`{"text":"original"}`))
	if res.IsError || !strings.Contains(res.Content, `"text":"changed"`) || !strings.Contains(res.Content, `"count":3`) {
		t.Errorf("valid replacement: %+v", res)
	}
	for _, bad := range []map[string]any{{"count": 1}, {"text": "x", "extra": true}, {"text": 5}} {
		replacement = bad
		res = r.Execute(context.Background(), "c2", "Echo", []byte(`{"text":"original"}`))
		if !res.IsError || replaceErr == nil {
			t.Errorf("replacement %v ran: %+v", bad, res)
		}
	}
	if n := len(tool.calls); n != 1 {
		t.Errorf("the tool ran %d times, want once", n)
	}
}
