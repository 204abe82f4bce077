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

func TestTokenReport(t *testing.T) {
	v := fixtureCatalog(t).Snapshot().View("")
	all := Compute(v, Inputs{Mode: "default", Settings: Settings{Defer: DeferNever}}, NewDiscovery())
	def := Compute(v, Inputs{Mode: "default"}, NewDiscovery())
	at, ai := definitionTokens(all)
	dt, di := definitionTokens(def)
	t.Logf("everything: %d tools, %d tokens (estimate %d); deferred: %d tools %d tokens + index %d (estimate %d + %d)",
		len(all.Tools), at+ai, all.ToolTokens, len(def.Tools), dt, di, def.ToolTokens, def.IndexTokens)
	for _, d := range def.Definitions() {
		b, _ := json.Marshal(d)
		t.Logf("  %-14s %d", d.Name, tokens.Count(string(b)))
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
