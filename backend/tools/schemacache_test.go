package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// Registries sharing a SchemaCache compile a schema once and still
// validate each call, and a broken schema is refused every time.
func TestSchemaCacheIsShared(t *testing.T) {
	c := NewSchemaCache()
	a, b := NewRegistry(WithSchemaCache(c)), NewRegistry(WithSchemaCache(c))
	for _, r := range []*Registry{a, b} {
		if err := r.Register(titledTool{}); err != nil {
			t.Fatal(err)
		}
	}
	ea, eb := a.entries["Notify"], b.entries["Notify"]
	if ea.schema != eb.schema {
		t.Error("two registries compiled the same schema twice")
	}
	if f := a.Filtered([]string{"Notify"}); f.schemas != c {
		t.Error("a filtered registry lost the cache")
	}
	res := b.Execute(context.Background(), "c1", "Notify", json.RawMessage(`{"body":"no title"}`))
	if !res.IsError || !strings.Contains(res.Content, "title") {
		t.Errorf("validation through a cached schema: %+v", res)
	}
	bad := badSchemaTool{}
	for range 2 {
		if err := a.Register(bad); err == nil || !strings.Contains(err.Error(), "type object") {
			t.Errorf("a broken schema was accepted: %v", err)
		}
	}
}

// titledTool takes a required title, as Notify does.
type titledTool struct{}

func (titledTool) Info() Info {
	return Info{Name: "Notify", Parameters: json.RawMessage(`{
  "type": "object",
  "properties": {
    "title": {"type": "string", "description": "Short title of the notification."},
    "body": {"type": "string", "description": "Optional text under the title."}
  },
  "required": ["title"],
  "additionalProperties": false
}`)}
}
func (titledTool) Execute(context.Context, map[string]any) (Result, error) { return Text("shown"), nil }

type badSchemaTool struct{}

func (badSchemaTool) Info() Info {
	return Info{Name: "bad", Parameters: json.RawMessage(`{"type":"string"}`)}
}
func (badSchemaTool) Execute(context.Context, map[string]any) (Result, error) { return Text(""), nil }
