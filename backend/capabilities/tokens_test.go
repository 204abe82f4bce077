package capabilities

import (
	"encoding/json"
	"sync"
	"testing"

	tiktoken "github.com/pkoukk/tiktoken-go"
	loader "github.com/pkoukk/tiktoken-go-loader"
)

var (
	tokOnce sync.Once
	tokEnc  *tiktoken.Tiktoken
)

// realTokens counts text with the o200k_base tokenizer (OpenAI's current
// one, offline from the embedded BPE file), for the figures benchmarks
// report; the product itself uses EstimateTokens.
func realTokens(t testing.TB, s string) int {
	tokOnce.Do(func() {
		tiktoken.SetBpeLoader(loader.NewOfflineLoader())
		enc, err := tiktoken.GetEncoding("o200k_base")
		if err != nil {
			t.Fatalf("tokenizer: %v", err)
		}
		tokEnc = enc
	})
	return len(tokEnc.Encode(s, nil, nil))
}

// definitionTokens counts what a request's tool list costs: each tool as
// the wire carries it (name, description, schema) plus the index text.
func definitionTokens(t testing.TB, vs *VisibleSet) (tools, index int) {
	for _, d := range vs.Definitions() {
		b, _ := json.Marshal(d)
		tools += realTokens(t, string(b))
	}
	return tools, realTokens(t, vs.IndexText())
}

// TestDefinitionTokens holds the README's goal for the tool definitions of
// one model call over the 191-tool catalog, counted with the o200k_base
// tokenizer as BenchmarkDefinitionTokens reports them: with deferral, at
// most 2,500 tokens of definitions and index, and at least 90% fewer than
// sending everything.
func TestDefinitionTokens(t *testing.T) {
	const ceiling, fewer = 2500, 0.90
	v := fixtureCatalog(t).Snapshot().View("")
	all := Compute(v, Inputs{Mode: "default", Settings: Settings{Defer: DeferNever}}, NewDiscovery())
	def := Compute(v, Inputs{Mode: "default", ContextWindow: 200_000}, NewDiscovery())
	at, ai := definitionTokens(t, all)
	dt, di := definitionTokens(t, def)
	if dt+di > ceiling || float64(dt+di) > (1-fewer)*float64(at+ai) {
		t.Errorf("deferred: %d tools, %d tokens + index %d = %d; everything: %d tools, %d tokens; want at most %d and at least %.0f%% fewer",
			len(def.Tools), dt, di, dt+di, len(all.Tools), at+ai, ceiling, 100*fewer)
		for _, d := range def.Definitions() {
			b, _ := json.Marshal(d)
			t.Logf("  %-14s %d", d.Name, realTokens(t, string(b)))
		}
	}
}
