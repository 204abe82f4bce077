package capabilities

import "testing"

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
