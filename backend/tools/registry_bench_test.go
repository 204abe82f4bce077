package tools

import (
	"context"
	"encoding/json"
	"testing"
)

type noopTool struct{}

func (noopTool) Info() Info {
	return Info{Name: "noop", Description: "does nothing", Safe: true, ReadOnly: true, Parameters: json.RawMessage(`{
	  "type":"object",
	  "properties":{"path":{"type":"string"},"limit":{"type":"integer","minimum":1},"all":{"type":"boolean"}},
	  "required":["path"]}`)}
}

func (noopTool) Execute(context.Context, map[string]any) (Result, error) { return Text("ok"), nil }

// BenchmarkRegistryExecute measures the execute flow's overhead (lookup,
// JSON decoding, coercion, validation, truncation check) around a tool that
// does nothing. Goal: under 20 µs/op.
func BenchmarkRegistryExecute(b *testing.B) {
	r := NewRegistry()
	if err := r.Register(noopTool{}); err != nil {
		b.Fatal(err)
	}
	// A registry the size of a real session's, so lookup is not flattered.
	for i := range 50 {
		t := newFake("tool_"+string(rune('a'+i%26))+string(rune('a'+i/26)), echoSchema)
		if err := r.Register(t); err != nil {
			b.Fatal(err)
		}
	}
	args := json.RawMessage(`{"path":"src/main.go","limit":"20","all":false}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if res := r.Execute(ctx, "call_1", "noop", args); res.IsError {
			b.Fatal(res.Content)
		}
	}
}
