package capabilities

import (
	"slices"
	"testing"
)

// recall scores the labelled queries against the fixture catalog the way
// ToolSearch ranks (every tool admitted): recall@k is the mean, over the
// queries, of the share of expected tools in the top k.
func recall(t testing.TB, v *View, qs []labelled, k int, misses func(q labelled, got []string)) float64 {
	var sum float64
	for _, q := range qs {
		hits, _, err := v.Search(Query{Text: q.query, Kind: KindTool, Limit: k})
		if err != nil {
			t.Fatalf("%q: %v", q.query, err)
		}
		var got []string
		for _, h := range hits {
			got = append(got, h.Entry.Name)
		}
		found := 0
		for _, e := range q.expected {
			if slices.Contains(got, e) {
				found++
			}
		}
		// A query with several acceptable tools counts as answered when
		// any of them is found.
		if found > 0 {
			sum++
		} else if misses != nil {
			misses(q, got)
		}
	}
	return sum / float64(len(qs))
}

func TestLabelledQueriesNameRealTools(t *testing.T) {
	v := fixtureCatalog(t).Snapshot().View("")
	if n := v.Len(); n != 191 {
		t.Errorf("fixture catalog has %d tools, want 191", n)
	}
	qs := loadQueries(t)
	if len(qs) < 60 {
		t.Fatalf("only %d labelled queries", len(qs))
	}
	for _, q := range qs {
		for _, e := range q.expected {
			if _, ok := v.ToolByName(e); !ok {
				t.Errorf("query %q expects %s, which the catalog lacks", q.query, e)
			}
		}
	}
}

func TestRecallReport(t *testing.T) {
	if testing.Short() {
		t.Skip()
	}
	v := fixtureCatalog(t).Snapshot().View("")
	qs := loadQueries(t)
	r5 := recall(t, v, qs, 5, func(q labelled, got []string) { t.Logf("miss@5 %q: want %v, got %v", q.query, q.expected, got) })
	r1 := recall(t, v, qs, 1, nil)
	t.Logf("recall@1 %.3f recall@5 %.3f over %d queries", r1, r5, len(qs))
}
