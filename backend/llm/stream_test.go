package llm_test

import (
	"reflect"
	"strings"
	"testing"

	"tinyelf/backend/llm"
	"tinyelf/backend/llm/llmtest"
)

func TestStreamText(t *testing.T) {
	t.Parallel()
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, llmtest.Turn{Chunks: []string{"Hel", "lo, ", "wor", "ld!"}})
			resp, rec, err := stream(t, newProvider(t, w, srv), hello)
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			var deltas []string
			for _, ev := range rec.of(llm.EventText) {
				deltas = append(deltas, ev.Text)
			}
			if want := []string{"Hel", "lo, ", "wor", "ld!"}; !reflect.DeepEqual(deltas, want) {
				t.Errorf("text deltas = %q, want %q", deltas, want)
			}
			if resp.Text != "Hello, world!" {
				t.Errorf("Text = %q, want %q", resp.Text, "Hello, world!")
			}
			if resp.StopReason != llm.StopEndTurn {
				t.Errorf("StopReason = %q, want %q", resp.StopReason, llm.StopEndTurn)
			}
			if len(resp.ToolCalls) != 0 {
				t.Errorf("ToolCalls = %v, want none", resp.ToolCalls)
			}
			if got := rec.of(llm.EventRetry); len(got) != 0 {
				t.Errorf("retry events = %v, want none", got)
			}
		})
	}
}

func TestStreamToolCalls(t *testing.T) {
	t.Parallel()
	read := llmtest.ToolCall{ID: "call_read", Name: "read", Arguments: `{"path":"README.md","limit":10,"note":"日本語のメモ"}`}
	grep := llmtest.ToolCall{ID: "call_grep", Name: "grep", ArgChunks: []string{`{"pat`, `tern":"func`, ` main"}`}}
	glob := llmtest.ToolCall{ID: "call_glob", Name: "glob"} // no arguments at all
	tests := []struct {
		name string
		turn llmtest.Turn
		want []llm.ToolCall
		text string
	}{
		{
			name: "one call with arguments over many chunks",
			turn: llmtest.Turn{Text: "Let me look.", ToolCalls: []llmtest.ToolCall{read}},
			want: []llm.ToolCall{{ID: "call_read", Name: "read", Arguments: read.Arguments}},
			text: "Let me look.",
		},
		{
			name: "parallel calls keep their order",
			turn: llmtest.Turn{ToolCalls: []llmtest.ToolCall{grep, read, glob}},
			want: []llm.ToolCall{
				{ID: "call_grep", Name: "grep", Arguments: `{"pattern":"func main"}`},
				{ID: "call_read", Name: "read", Arguments: read.Arguments},
				{ID: "call_glob", Name: "glob", Arguments: "{}"},
			},
		},
	}
	for _, w := range wires {
		for _, tc := range tests {
			t.Run(w.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				srv := llmtest.NewServer(t, tc.turn)
				resp, rec, err := stream(t, newProvider(t, w, srv), hello)
				if err != nil {
					t.Fatalf("Stream: %v", err)
				}
				if !reflect.DeepEqual(resp.ToolCalls, tc.want) {
					t.Errorf("ToolCalls = %+v, want %+v", resp.ToolCalls, tc.want)
				}
				if resp.Text != tc.text {
					t.Errorf("Text = %q, want %q", resp.Text, tc.text)
				}
				if resp.StopReason != llm.StopToolUse {
					t.Errorf("StopReason = %q, want %q", resp.StopReason, llm.StopToolUse)
				}

				// The deltas rebuild each call: the first names it, the
				// rest carry argument fragments, several per call.
				args := make([]strings.Builder, len(tc.want))
				fragments := make([]int, len(tc.want))
				var order []string
				for _, ev := range rec.of(llm.EventToolCallDelta) {
					if ev.Index < 0 || ev.Index >= len(tc.want) {
						t.Fatalf("delta for call %d, want < %d", ev.Index, len(tc.want))
					}
					if ev.Name != "" {
						order = append(order, ev.Name)
						if ev.ID != tc.want[ev.Index].ID {
							t.Errorf("call %d announced with ID %q, want %q", ev.Index, ev.ID, tc.want[ev.Index].ID)
						}
					}
					if ev.Text != "" {
						args[ev.Index].WriteString(ev.Text)
						fragments[ev.Index]++
					}
				}
				for i, want := range tc.want {
					if i >= len(order) || order[i] != want.Name {
						t.Errorf("calls announced in order %v, want %s at %d", order, want.Name, i)
					}
					if got := args[i].String(); got != want.Arguments {
						t.Errorf("call %d argument deltas join to %q, want %q", i, got, want.Arguments)
					}
					if want.Arguments != "{}" && fragments[i] < 2 {
						t.Errorf("call %d arguments came in %d fragment(s), want several", i, fragments[i])
					}
				}
			})
		}
	}
}

func TestStreamUsageAndStop(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		turn  llmtest.Turn
		stop  llm.StopReason
		usage map[string]llm.Usage // by wire
	}{
		{
			name: "max tokens with cache figures",
			turn: llmtest.Turn{Text: "cut short", Stop: "max_tokens", Usage: &llmtest.Usage{Input: 100, Output: 20, CacheRead: 30, CacheWrite: 5}},
			stop: llm.StopMaxTokens,
			usage: map[string]llm.Usage{
				// OpenAI reports no cache writes.
				"openai":    {InputTokens: 100, OutputTokens: 20, CacheReadTokens: 30},
				"anthropic": {InputTokens: 100, OutputTokens: 20, CacheReadTokens: 30, CacheWriteTokens: 5},
			},
		},
		{
			name: "end turn",
			turn: llmtest.Turn{Text: "done", Usage: &llmtest.Usage{Input: 7, Output: 1}},
			stop: llm.StopEndTurn,
			usage: map[string]llm.Usage{
				"openai":    {InputTokens: 7, OutputTokens: 1},
				"anthropic": {InputTokens: 7, OutputTokens: 1},
			},
		},
		{
			name: "other stop reasons pass as other",
			turn: llmtest.Turn{Text: "hm", Stop: "content_filter", Usage: &llmtest.Usage{Input: 3, Output: 1}},
			stop: llm.StopOther,
			usage: map[string]llm.Usage{
				"openai":    {InputTokens: 3, OutputTokens: 1},
				"anthropic": {InputTokens: 3, OutputTokens: 1},
			},
		},
	}
	for _, w := range wires {
		for _, tc := range tests {
			t.Run(w.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				srv := llmtest.NewServer(t, tc.turn)
				resp, _, err := stream(t, newProvider(t, w, srv), hello)
				if err != nil {
					t.Fatalf("Stream: %v", err)
				}
				if resp.StopReason != tc.stop {
					t.Errorf("StopReason = %q, want %q", resp.StopReason, tc.stop)
				}
				if resp.Usage != tc.usage[w.name] {
					t.Errorf("Usage = %+v, want %+v", resp.Usage, tc.usage[w.name])
				}
				if resp.Model == "" {
					t.Errorf("Model is empty, want the model the response named")
				}
			})
		}
	}
}

func TestModels(t *testing.T) {
	t.Parallel()
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t)
			srv.SetModels("gpt-4o", "claude-sonnet-4-5", "my-local-model")
			models, err := newProvider(t, w, srv).Models(t.Context())
			if err != nil {
				t.Fatalf("Models: %v", err)
			}
			want := []llm.ModelInfo{
				{ID: "gpt-4o", ContextWindow: 128_000},
				{ID: "claude-sonnet-4-5", ContextWindow: 200_000},
				{ID: "my-local-model", ContextWindow: llm.DefaultContextWindow},
			}
			if !reflect.DeepEqual(models, want) {
				t.Errorf("Models = %+v, want %+v", models, want)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 || reqs[0].Method != "GET" || !strings.HasSuffix(reqs[0].Path, "/v1/models") {
				t.Errorf("requests = %+v, want one GET .../v1/models", reqs)
			}
		})
	}
}
