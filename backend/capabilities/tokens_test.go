package capabilities

import (
	"encoding/json"
	"testing"

	"tinyelf/backend/tokens"
)

// definitionTokens counts what a request's tool list costs: each tool as
// the wire carries it (name, description, schema) plus the index text.
func definitionTokens(vs *VisibleSet) (tools, index int) {
	for _, d := range vs.Definitions() {
		b, _ := json.Marshal(d)
		tools += tokens.Count(string(b))
	}
	return tools, tokens.Count(vs.IndexText())
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
	at, ai := definitionTokens(all)
	dt, di := definitionTokens(def)
	if dt+di > ceiling || float64(dt+di) > (1-fewer)*float64(at+ai) {
		t.Errorf("deferred: %d tools, %d tokens + index %d = %d; everything: %d tools, %d tokens; want at most %d and at least %.0f%% fewer",
			len(def.Tools), dt, di, dt+di, len(all.Tools), at+ai, ceiling, 100*fewer)
		for _, d := range def.Definitions() {
			b, _ := json.Marshal(d)
			t.Logf("  %-14s %d", d.Name, tokens.Count(string(b)))
		}
	}
}

// TestToolTokensAreTheDefinitionsEstimate: a visible set's ToolTokens is
// the estimate of exactly the definitions it projects, so the engine can
// take it for a request's tools instead of estimating them again.
func TestToolTokensAreTheDefinitionsEstimate(t *testing.T) {
	v := fixtureCatalog(t).Snapshot().View("")
	for _, in := range []Inputs{{Mode: "default"}, {Mode: "default", Settings: Settings{Defer: DeferNever}}, {Mode: "plan", ContextWindow: 8000}} {
		vs := Compute(v, in, NewDiscovery())
		sum := 0
		for _, d := range vs.Definitions() {
			sum += tokens.EstimateTool(d.Name, d.Description, d.Parameters)
		}
		if len(vs.Tools) == 0 || vs.ToolTokens != sum {
			t.Errorf("%+v: %d tools, ToolTokens %d, the definitions estimate %d", in, len(vs.Tools), vs.ToolTokens, sum)
		}
	}
}
