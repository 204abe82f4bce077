package capabilities

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"tinyelf/backend/capabilities/captest"
	"tinyelf/backend/tokens"
	"tinyelf/backend/tools"
	"tinyelf/internal/cputime"
)

// bigCatalog has about 1,000 descriptors: the fixture catalog plus five
// more GitHub-shaped servers under other names.
func bigCatalog(b *testing.B) *Catalog {
	c := fixtureCatalog(b)
	gh, err := captest.MCPTools("github")
	if err != nil {
		b.Fatal(err)
	}
	_ = gh
	for i := 2; i <= 6; i++ {
		srv := fmt.Sprintf("forge%d", i)
		ts, _ := captest.Tools("github")
		var es []Entry
		for _, t := range ts {
			info := t.Info()
			info.Name = "mcp__" + srv + info.Name[len("mcp__github"):]
			info.Origin = srv
			es = append(es, ToolEntry(infoTool{info}))
		}
		c.Replace("mcp:"+srv, es, PartitionOptions{Priority: PriorityMCP})
	}
	return c
}

type infoTool struct{ info tools.Info }

func (t infoTool) Info() tools.Info { return t.info }
func (t infoTool) Execute(context.Context, map[string]any) (tools.Result, error) {
	return tools.Text("ok"), nil
}

// BenchmarkToolSearch is one ToolSearch ranking over ~1,000 descriptors,
// cycling through the labelled queries.
func BenchmarkToolSearch(b *testing.B) {
	v := bigCatalog(b).Snapshot().View("")
	b.ReportMetric(float64(v.Len()), "descriptors")
	qs := loadQueries(b)
	b.ResetTimer()
	cpu := cputime.Self()
	for i := 0; b.Loop(); i++ {
		if _, _, err := v.Search(Query{Text: qs[i%len(qs)].query}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cputime.Self()-cpu)/float64(b.N), "cpu-ns/op")
}

// BenchmarkVisibleSet computes a visible set over the 191-tool catalog and
// 20 skills, as each model call does.
func BenchmarkVisibleSet(b *testing.B) {
	c := fixtureCatalog(b)
	c.Replace("skill:builtin", skillEntries(20), PartitionOptions{Priority: PrioritySkill})
	d := NewDiscovery()
	d.Promote("mcp__github__get_job_logs", "found")
	in := Inputs{Mode: "default", Task: "fix the failing tests", ContextWindow: 200_000}
	for b.Loop() {
		v := c.Snapshot().View("s")
		vs := Compute(v, in, d)
		_ = vs.IndexText()
		_ = vs.Hashes()
	}
}

// BenchmarkCatalogRefresh replaces a 154-tool server's partition (an MCP
// list_changed), indexing included. "changed": each listing changes one description, so the partition is
// indexed again; "same": the same tools again (a reconnect, another
// session's copy), whose index is shared.
func BenchmarkCatalogRefresh(b *testing.B) {
	c := fixtureCatalog(b)
	ts, _ := captest.Tools("github")
	es := entriesOf(ts)
	b.Run("changed", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			b.StopTimer()
			next := slices.Clone(es)
			next[i%len(next)].Description += fmt.Sprint(" (listing ", i, ")")
			b.StartTimer()
			c.Replace("mcp:github", next, PartitionOptions{Priority: PriorityMCP})
		}
	})
	b.Run("same", func(b *testing.B) {
		for b.Loop() {
			c.Replace("mcp:github", es, PartitionOptions{Priority: PriorityMCP})
		}
	})
}

// BenchmarkDefinitionTokens reports the tool-definition tokens of one
// model call over the 191-tool catalog, everything sent vs deferred,
// counted with the o200k_base tokenizer.
func BenchmarkDefinitionTokens(b *testing.B) {
	v := fixtureCatalog(b).Snapshot().View("")
	var all, deferred, index int
	var vs *VisibleSet
	for b.Loop() {
		vs = Compute(v, Inputs{Mode: "default", ContextWindow: 200_000}, NewDiscovery())
	}
	allSet := Compute(v, Inputs{Mode: "default", Settings: Settings{Defer: DeferNever}}, NewDiscovery())
	t1, i1 := definitionTokens(allSet)
	all = t1 + i1
	deferred, index = definitionTokens(vs)
	b.ReportMetric(float64(all), "tokens-all")
	b.ReportMetric(float64(deferred+index), "tokens-deferred")
	b.ReportMetric(100*(1-float64(deferred+index)/float64(all)), "%-fewer")
	sk := skillEntries(100)
	c := NewCatalog()
	c.Replace("skills", sk, PartitionOptions{})
	skills := Compute(c.Snapshot().View(""), Inputs{}, NewDiscovery())
	b.ReportMetric(float64(tokens.Count(skills.IndexText())), "tokens-100-skill-index")
}
