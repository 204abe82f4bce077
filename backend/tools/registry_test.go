package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// fakeTool is a hand-written fake that records what it was asked.
type fakeTool struct {
	info Info
	run  func(ctx context.Context, params map[string]any) (Result, error)

	mu    sync.Mutex
	calls []map[string]any
}

func (f *fakeTool) Info() Info { return f.info }

func (f *fakeTool) Execute(ctx context.Context, params map[string]any) (Result, error) {
	f.mu.Lock()
	f.calls = append(f.calls, params)
	f.mu.Unlock()
	if f.run != nil {
		return f.run(ctx, params)
	}
	b, _ := json.Marshal(params)
	return Text(string(b)), nil
}

func newFake(name, schema string) *fakeTool {
	return &fakeTool{info: Info{Name: name, Description: name + " tool", Parameters: json.RawMessage(schema)}}
}

const echoSchema = `{
  "type": "object",
  "properties": {
    "text": {"type": "string"},
    "count": {"type": "integer", "minimum": 0},
    "ratio": {"type": "number"},
    "flag": {"type": "boolean"},
    "tags": {"type": "array", "items": {"type": "string"}},
    "nums": {"type": "array", "items": {"type": "integer"}},
    "opts": {"type": "object", "properties": {"depth": {"type": "integer"}}},
    "mode": {"type": "string", "enum": ["fast", "slow"]}
  },
  "required": ["text"]
}`

func mustRegistry(t *testing.T, opts []RegistryOption, ts ...Tool) *Registry {
	t.Helper()
	r := NewRegistry(opts...)
	if err := r.RegisterAll(ts...); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestExecuteFlow(t *testing.T) {
	t.Parallel()
	echo := newFake("echo", echoSchema)
	failing := newFake("failing", `{"type":"object"}`)
	failing.run = func(context.Context, map[string]any) (Result, error) { return Errorf("the file is locked"), nil }
	broken := newFake("broken", `{"type":"object"}`)
	broken.run = func(context.Context, map[string]any) (Result, error) { return Result{}, errors.New("disk on fire") }
	panicky := newFake("panicky", `{"type":"object"}`)
	panicky.run = func(context.Context, map[string]any) (Result, error) { panic("nil map write") }
	r := mustRegistry(t, nil, echo, failing, broken, panicky)

	tests := []struct {
		name      string
		tool      string
		args      string
		wantError bool
		contains  []string
	}{
		{"unknown tool lists the available ones", "nope", `{}`, true, []string{`Unknown tool "nope"`, "echo, failing, broken, panicky"}},
		{"valid call", "echo", `{"text":"hi"}`, false, []string{`"text":"hi"`}},
		{"empty arguments mean none", "failing", ``, true, []string{"the file is locked"}},
		{"malformed JSON", "echo", `{"text":`, true, []string{"Invalid arguments for echo", "not valid JSON"}},
		{"array instead of object", "echo", `[1,2]`, true, []string{"expected a JSON object, got array"}},
		{"double-encoded object", "echo", `"{\"text\":\"hi\"}"`, false, []string{`"text":"hi"`}},
		{"missing required names the parameter", "echo", `{"count":1}`, true, []string{`missing required parameter "text" (string)`}},
		{"wrong type names the parameter", "echo", `{"text":"a","count":"many"}`, true, []string{`parameter "count" must be integer, got string "many"`}},
		{"enum", "echo", `{"text":"a","mode":"medium"}`, true, []string{`parameter "mode" must be one of ["fast","slow"]`}},
		{"minimum", "echo", `{"text":"a","count":-1}`, true, []string{`parameter "count" must be at least 0, got -1`}},
		{"schema rules beyond the basics via the validator", "echo", `{"text":"a","nums":[1.5]}`, true, []string{"nums"}},
		{"tool error result", "failing", `{}`, true, []string{"the file is locked"}},
		{"go error becomes error result", "broken", `{}`, true, []string{"broken failed: disk on fire"}},
		{"panic becomes error result", "panicky", `{}`, true, []string{"Tool panicky crashed: nil map write"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := r.Execute(context.Background(), "call-1", tc.tool, json.RawMessage(tc.args))
			if res.IsError != tc.wantError {
				t.Fatalf("IsError = %v, want %v; content:\n%s", res.IsError, tc.wantError, res.Content)
			}
			for _, s := range tc.contains {
				if !strings.Contains(res.Content, s) {
					t.Errorf("content does not contain %q:\n%s", s, res.Content)
				}
			}
			if tc.wantError && !strings.HasSuffix(res.Content, ErrorHint) {
				t.Errorf("error result does not end with the hint:\n%s", res.Content)
			}
			if !tc.wantError && strings.Contains(res.Content, ErrorHint) {
				t.Errorf("success carries the error hint:\n%s", res.Content)
			}
			if res.CallID != "call-1" || res.Name != tc.tool {
				t.Errorf("CallID/Name = %q/%q", res.CallID, res.Name)
			}
		})
	}
}

func TestCoercion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args string
		want string // JSON of the params the tool received
	}{
		{"string to integer", `{"text":"a","count":"5"}`, `{"count":5,"text":"a"}`},
		{"string to integer with spaces", `{"text":"a","count":" 7 "}`, `{"count":7,"text":"a"}`},
		{"float string to integer when integral", `{"text":"a","count":"3.0"}`, `{"count":3,"text":"a"}`},
		{"string to number", `{"text":"a","ratio":"0.25"}`, `{"ratio":0.25,"text":"a"}`},
		{"string to boolean", `{"text":"a","flag":"true"}`, `{"flag":true,"text":"a"}`},
		{"string False to boolean", `{"text":"a","flag":"False"}`, `{"flag":false,"text":"a"}`},
		{"number to boolean", `{"text":"a","flag":1}`, `{"flag":true,"text":"a"}`},
		{"number to string", `{"text":42}`, `{"text":"42"}`},
		{"bool to string", `{"text":true}`, `{"text":"true"}`},
		{"JSON string to array", `{"text":"a","tags":"[\"x\",\"y\"]"}`, `{"tags":["x","y"],"text":"a"}`},
		{"JSON string to object", `{"text":"a","opts":"{\"depth\":\"2\"}"}`, `{"opts":{"depth":2},"text":"a"}`},
		{"single value to array", `{"text":"a","tags":"x"}`, `{"tags":["x"],"text":"a"}`},
		{"single number to array of integers", `{"text":"a","nums":"4"}`, `{"nums":[4],"text":"a"}`},
		{"array items coerced", `{"text":"a","nums":["1","2"]}`, `{"nums":[1,2],"text":"a"}`},
		{"nested object coerced", `{"text":"a","opts":{"depth":"3"}}`, `{"opts":{"depth":3},"text":"a"}`},
		{"null optional dropped", `{"text":"a","count":null}`, `{"text":"a"}`},
		{"unknown property kept", `{"text":"a","extra":1}`, `{"extra":1,"text":"a"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			echo := newFake("echo", echoSchema)
			r := mustRegistry(t, nil, echo)
			res := r.Execute(context.Background(), "c", "echo", json.RawMessage(tc.args))
			if res.IsError {
				t.Fatalf("unexpected error: %s", res.Content)
			}
			if res.Content != tc.want {
				t.Errorf("tool got %s, want %s", res.Content, tc.want)
			}
		})
	}
	t.Run("not coercible stays an error", func(t *testing.T) {
		t.Parallel()
		r := mustRegistry(t, nil, newFake("echo", echoSchema))
		for _, args := range []string{`{"text":"a","count":"2.5"}`, `{"text":"a","flag":"maybe"}`, `{"text":"a","count":"1e999"}`} {
			if res := r.Execute(context.Background(), "c", "echo", json.RawMessage(args)); !res.IsError {
				t.Errorf("%s: expected an error, got %s", args, res.Content)
			}
		}
	})
}

func TestTruncation(t *testing.T) {
	t.Parallel()
	const max = 64
	tests := []struct {
		name   string
		output string
		cut    bool
	}{
		{"under the limit", strings.Repeat("a", max-1), false},
		{"exactly at the limit", strings.Repeat("a", max), false},
		{"one byte over", strings.Repeat("a", max+1), true},
		{"Japanese straddling the limit", strings.Repeat("日本語", 10), true}, // 3-byte runes: 64 is not a boundary
		{"emoji straddling the limit", strings.Repeat("👍🏽", 10), true},     // 4-byte runes
		{"mixed", "ab" + strings.Repeat("漢字🎉", 20), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tool := newFake("big", `{"type":"object"}`)
			tool.run = func(context.Context, map[string]any) (Result, error) { return Text(tc.output), nil }
			r := mustRegistry(t, []RegistryOption{WithMaxOutputBytes(max)}, tool)
			res := r.Execute(context.Background(), "c", "big", nil)
			if res.Truncated != tc.cut {
				t.Fatalf("Truncated = %v, want %v", res.Truncated, tc.cut)
			}
			if !utf8.ValidString(res.Content) {
				t.Fatalf("truncation split a rune: %q", res.Content)
			}
			if !tc.cut {
				if res.Content != tc.output {
					t.Fatalf("content changed")
				}
				return
			}
			if !strings.Contains(res.Content, TruncatedMark) {
				t.Errorf("no %s mark in %q", TruncatedMark, res.Content)
			}
			kept := res.Content[:strings.Index(res.Content, "\n\n... ")]
			if len(kept) > max || !strings.HasPrefix(tc.output, kept) || len(kept) < max-3 {
				t.Errorf("kept %d bytes %q; want the longest rune-aligned prefix of at most %d", len(kept), kept, max)
			}
		})
	}
	t.Run("error results are cut and still end with the hint", func(t *testing.T) {
		t.Parallel()
		tool := newFake("big", `{"type":"object"}`)
		tool.run = func(context.Context, map[string]any) (Result, error) {
			return Errorf("%s", strings.Repeat("x", 500)), nil
		}
		r := mustRegistry(t, []RegistryOption{WithMaxOutputBytes(100)}, tool)
		res := r.Execute(context.Background(), "c", "big", nil)
		if !res.Truncated || !strings.HasSuffix(res.Content, ErrorHint) {
			t.Errorf("got %q", res.Content)
		}
	})
	t.Run("per-tool limit overrides the default", func(t *testing.T) {
		t.Parallel()
		tool := newFake("roomy", `{"type":"object"}`)
		tool.info.MaxOutputBytes = 1000
		tool.run = func(context.Context, map[string]any) (Result, error) { return Text(strings.Repeat("y", 900)), nil }
		r := mustRegistry(t, []RegistryOption{WithMaxOutputBytes(100)}, tool)
		if res := r.Execute(context.Background(), "c", "roomy", nil); res.Truncated {
			t.Errorf("a tool allowed 1000 bytes was cut at the default 100")
		}
	})
	t.Run("default is 50 KB", func(t *testing.T) {
		t.Parallel()
		tool := newFake("big", `{"type":"object"}`)
		tool.run = func(context.Context, map[string]any) (Result, error) { return Text(strings.Repeat("z", 60*1024)), nil }
		res := mustRegistry(t, nil, tool).Execute(context.Background(), "c", "big", nil)
		if !res.Truncated || !strings.HasPrefix(res.Content, strings.Repeat("z", 50*1024)+"\n") {
			t.Errorf("expected a cut at exactly 51200 bytes")
		}
	})
}

func TestRegistryManagement(t *testing.T) {
	t.Parallel()
	a, b, c := newFake("a", `{"type":"object"}`), newFake("b", `{"type":"object"}`), newFake("c", `{"type":"object"}`)
	a.info.ReadOnly = true
	r := mustRegistry(t, nil, a, b, c)

	if got := strings.Join(r.Names(), ","); got != "a,b,c" {
		t.Errorf("Names = %s", got)
	}
	if !r.Has("b") || r.Has("z") {
		t.Error("Has is wrong")
	}
	if tool, ok := r.Get("c"); !ok || tool != c {
		t.Error("Get did not return the registered tool")
	}
	if len(r.All()) != 3 {
		t.Error("All")
	}
	defs := r.Definitions()
	raw, _ := json.Marshal(defs[0])
	if want := `{"type":"function","function":{"name":"a","description":"a tool","parameters":{"type":"object"}}}`; string(raw) != want {
		t.Errorf("Definition = %s\nwant %s", raw, want)
	}

	f := r.Filtered([]string{"c", "a", "missing"})
	if got := strings.Join(f.Names(), ","); got != "a,c" {
		t.Errorf("Filtered names = %s", got)
	}
	if res := f.Execute(context.Background(), "x", "b", nil); !res.IsError || !strings.Contains(res.Content, "Available tools: a, c.") {
		t.Errorf("filtered registry ran a tool outside the filter: %s", res.Content)
	}
	if r.Len() != 3 {
		t.Error("filtering changed the original")
	}
	ro := r.FilteredFunc(func(i Info) bool { return i.ReadOnly })
	if got := strings.Join(ro.Names(), ","); got != "a" {
		t.Errorf("read-only filter = %s", got)
	}

	if !r.Unregister("b") || r.Unregister("b") {
		t.Error("Unregister should succeed once")
	}
	if got := strings.Join(r.Names(), ","); got != "a,c" {
		t.Errorf("after Unregister: %s", got)
	}
	// A second tool of a taken name is refused, not swapped in silently.
	if err := r.Register(newFake("a", `{"type":"object"}`)); !errors.Is(err, ErrDuplicateTool) {
		t.Fatalf("registering a taken name: %v, want ErrDuplicateTool", err)
	}
	if got := strings.Join(r.Names(), ","); got != "a,c" {
		t.Errorf("after the refused duplicate: %s", got)
	}
	info, _ := r.Info("c")
	if info.Source != SourceLocal {
		t.Errorf("default source = %q", info.Source)
	}
}

func TestRegisterRejectsBadTools(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, schema string }{
		{"has space", `{"type":"object"}`},
		{"", `{"type":"object"}`},
		{strings.Repeat("x", 65), `{"type":"object"}`},
		{"ok", `{"type":"string"}`},
		{"ok", `not json`},
	} {
		if err := NewRegistry().Register(newFake(tc.name, tc.schema)); err == nil {
			t.Errorf("Register(%q, %s) succeeded", tc.name, tc.schema)
		}
	}
	// Schemas from other drafts still register and validate the basics.
	r := mustRegistry(t, nil, newFake("draft4", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`))
	if res := r.Execute(context.Background(), "c", "draft4", json.RawMessage(`{}`)); !res.IsError || !strings.Contains(res.Content, `"n"`) {
		t.Errorf("draft-04 schema not validated: %s", res.Content)
	}
	if res := r.Execute(context.Background(), "c", "draft4", json.RawMessage(`{"n":"3"}`)); res.IsError {
		t.Errorf("draft-04 schema: %s", res.Content)
	}
}

func TestMiddlewareWrapsValidatedCalls(t *testing.T) {
	t.Parallel()
	var seen []string
	deny := func(next Handler) Handler {
		return func(ctx context.Context, c *Call) (Result, error) {
			seen = append(seen, fmt.Sprintf("%s:%v", c.Name, c.Params["text"]))
			if c.Params["text"] == "forbidden" {
				return Errorf("denied by the user: not today"), nil
			}
			return next(ctx, c)
		}
	}
	echo := newFake("echo", echoSchema)
	r := mustRegistry(t, []RegistryOption{WithMiddleware(deny)}, echo)
	r.Execute(context.Background(), "1", "echo", json.RawMessage(`{}`)) // invalid: never reaches middleware
	ok := r.Execute(context.Background(), "2", "echo", json.RawMessage(`{"text":"fine"}`))
	no := r.Execute(context.Background(), "3", "echo", json.RawMessage(`{"text":"forbidden"}`))
	if ok.IsError || !no.IsError || !strings.Contains(no.Content, "not today") {
		t.Fatalf("ok=%+v no=%+v", ok, no)
	}
	if strings.Join(seen, ",") != "echo:fine,echo:forbidden" {
		t.Errorf("middleware saw %v", seen)
	}
	if len(echo.calls) != 1 {
		t.Errorf("tool ran %d times, want 1", len(echo.calls))
	}
}

func TestCallIDReachesTool(t *testing.T) {
	t.Parallel()
	tool := newFake("id", `{"type":"object"}`)
	tool.run = func(ctx context.Context, _ map[string]any) (Result, error) { return Text(CallIDFromContext(ctx)), nil }
	if res := mustRegistry(t, nil, tool).Execute(context.Background(), "call_42", "id", nil); res.Content != "call_42" {
		t.Errorf("got %q", res.Content)
	}
}

func TestRegistryConcurrentUse(t *testing.T) {
	t.Parallel()
	r := mustRegistry(t, nil, newFake("echo", echoSchema))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for j := range 50 {
				res := r.Execute(context.Background(), "c", "echo", json.RawMessage(fmt.Sprintf(`{"text":"%d-%d"}`, i, j)))
				if res.IsError {
					t.Errorf("%s", res.Content)
				}
				_ = r.Definitions()
			}
		}()
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("t%d", i)
			for range 50 {
				_ = r.Register(newFake(name, `{"type":"object"}`))
				r.Unregister(name)
				_ = r.Filtered([]string{"echo"})
			}
		}()
	}
	wg.Wait()
}

func TestCancelledToolReportsCancellation(t *testing.T) {
	t.Parallel()
	tool := newFake("slow", `{"type":"object"}`)
	tool.run = func(ctx context.Context, _ map[string]any) (Result, error) {
		<-ctx.Done()
		return Result{}, ctx.Err()
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := mustRegistry(t, nil, tool).Execute(ctx, "c", "slow", nil)
	if !res.IsError || !strings.Contains(res.Content, "cancelled") {
		t.Errorf("got %q", res.Content)
	}
}
