package tokens

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// definition is a tool as the wire carries it.
type definition struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

func readSample(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestEstimateNearCount pins the fast estimate to the tokenizer on real
// text: the tool definitions of one model call (TinyElf's 12 local tools
// and the pinned server-everything and server-filesystem, as their
// tools/list answered), the README's prose, Go and TypeScript code from
// this repository, the Japanese UI strings and a Japanese request to the
// agent. Each kind must land within 15% of the exact count; budgets
// built on the estimate are then off by no more than that.
func TestEstimateNearCount(t *testing.T) {
	t.Parallel()
	var defs []definition
	if err := json.Unmarshal([]byte(readSample(t, "tools.json")), &defs); err != nil {
		t.Fatal(err)
	}
	if len(defs) < 30 {
		t.Fatalf("tools.json holds %d definitions", len(defs))
	}
	toolsEst, toolsExact := 0, 0
	for _, d := range defs {
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		toolsEst += EstimateTool(d.Name, d.Description, d.Parameters)
		toolsExact += Count(string(b))
	}
	cases := []struct {
		name       string
		est, exact int
	}{
		{"tool definitions", toolsEst, toolsExact},
	}
	for _, s := range []struct{ kind, file string }{
		{"English prose", "prose.md"},
		{"Go code", "code.go.txt"},
		{"TypeScript code", "code.ts.txt"},
		{"Japanese UI strings", "japanese.txt"},
		{"Japanese prose", "japanese-prose.md"},
	} {
		text := readSample(t, s.file)
		cases = append(cases, struct {
			name       string
			est, exact int
		}{s.kind, Estimate(text), Count(text)})
	}
	for _, c := range cases {
		ratio := float64(c.est) / float64(c.exact)
		t.Logf("%-20s estimate %6d, o200k_base %6d: %.2f", c.name, c.est, c.exact, ratio)
		if c.exact < 300 {
			t.Errorf("%s: only %d tokens of sample", c.name, c.exact)
		}
		if ratio < 0.85 || ratio > 1.15 {
			t.Errorf("%s: estimate %d vs %d tokens (%.2f), want within 15%%", c.name, c.est, c.exact, ratio)
		}
	}
}

func TestEstimate(t *testing.T) {
	t.Parallel()
	cases := map[string]int{"": 0, "abcd": 1, "abcde": 2, "日本語": 3, "日本語です": 4, "ab日本": 3, "\xff\xfe": 2}
	for s, want := range cases {
		if got := Estimate(s); got != want {
			t.Errorf("Estimate(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestEstimateSize(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "abcd", "abcde", "日本語", "日本語です", readSample(t, "prose.md"), readSample(t, "japanese.txt")} {
		est, size := Estimate(s), EstimateSize(int64(len(s)))
		if d := est - size; d < -len(s)/40-1 || d > len(s)/40+1 {
			t.Errorf("EstimateSize(%d bytes) = %d, Estimate = %d", len(s), size, est)
		}
	}
}

func TestEstimateTool(t *testing.T) {
	t.Parallel()
	compact := `{"type":"object","properties":{"q":{"type":"string","description":"say \"a b\"\\ then\tc"}}}`
	if !json.Valid([]byte(compact)) {
		t.Fatalf("not JSON: %s", compact)
	}
	if got, want := EstimateTool("Read", "Reads a file.", json.RawMessage(compact)), toolOverhead+Estimate("Read")+Estimate("Reads a file.")+Estimate(compact); got != want {
		t.Errorf("EstimateTool = %d, want %d", got, want)
	}
	if got := EstimateTool("X", "", nil); got != toolOverhead+1 {
		t.Errorf("no schema: %d", got)
	}
	// A provider sends schemas compacted: white space outside strings does
	// not count, inside them it does. Every schema of the fixture, indented
	// and compact, must estimate the same as its compacted text.
	var defs []definition
	if err := json.Unmarshal([]byte(readSample(t, "tools.json")), &defs); err != nil {
		t.Fatal(err)
	}
	schemas := []string{compact}
	for _, d := range defs {
		schemas = append(schemas, string(d.Parameters))
	}
	for _, s := range schemas {
		var small, wide bytes.Buffer
		if err := json.Compact(&small, []byte(s)); err != nil {
			t.Fatal(err)
		}
		if err := json.Indent(&wide, []byte(s), "", "    "); err != nil {
			t.Fatal(err)
		}
		want := Estimate(small.String())
		for _, b := range [][]byte{small.Bytes(), wide.Bytes()} {
			if got := estimateJSON(b); got != want {
				t.Errorf("estimateJSON = %d, want %d (the compacted text's) for %s", got, want, b)
			}
		}
	}
}

func TestCount(t *testing.T) {
	t.Parallel()
	// Known o200k_base counts.
	cases := map[string]int{"": 0, "hello world": 2, "<|endoftext|>": 7}
	var wg sync.WaitGroup
	for s, want := range cases {
		wg.Add(1)
		go func() { // the first calls race for the tables
			defer wg.Done()
			if got := Count(s); got != want {
				t.Errorf("Count(%q) = %d, want %d", s, got, want)
			}
		}()
	}
	wg.Wait()
}

func BenchmarkEstimate(b *testing.B) {
	text, err := os.ReadFile(filepath.Join("testdata", "prose.md"))
	if err != nil {
		b.Fatal(err)
	}
	s := string(text)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Estimate(s)
	}
}

func BenchmarkEstimateTool(b *testing.B) {
	text, err := os.ReadFile(filepath.Join("testdata", "tools.json"))
	if err != nil {
		b.Fatal(err)
	}
	var defs []definition
	if err := json.Unmarshal(text, &defs); err != nil {
		b.Fatal(err)
	}
	size := 0
	for _, d := range defs {
		size += len(d.Name) + len(d.Description) + len(d.Parameters)
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, d := range defs {
			EstimateTool(d.Name, d.Description, d.Parameters)
		}
	}
}
