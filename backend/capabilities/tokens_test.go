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

func TestTokenReport(t *testing.T) {
	v := fixtureCatalog(t).Snapshot().View("")
	all := Compute(v, Inputs{Mode: "default", Settings: Settings{Defer: DeferNever}}, NewDiscovery())
	def := Compute(v, Inputs{Mode: "default"}, NewDiscovery())
	at, ai := definitionTokens(t, all)
	dt, di := definitionTokens(t, def)
	t.Logf("everything: %d tools, %d tokens (estimate %d); deferred: %d tools %d tokens + index %d (estimate %d + %d)",
		len(all.Tools), at+ai, all.ToolTokens, len(def.Tools), dt, di, def.ToolTokens, def.IndexTokens)
	for _, d := range def.Definitions() {
		b, _ := json.Marshal(d)
		t.Logf("  %-14s %d", d.Name, realTokens(t, string(b)))
	}
}
