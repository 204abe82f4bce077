package capabilities

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestTermsSplitAndStem(t *testing.T) {
	for in, want := range map[string]string{
		"getPRComments":                    "get pr comment",
		"list_directory_with_sizes":        "list directory size",
		"mcp__github__create_pull_request": "mcp github creat pull request",
		"Created, creating, creates":       "creat creat creat",
		"Running the tests":                "run test",
		"v2Alpha":                          "v 2 alpha",
		"ファイルを読む":                          "ファ ァイ イル ルを を読 読 読む",
	} {
		if got := strings.Join(Terms(in), " "); got != want {
			t.Errorf("Terms(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSearchBadInput(t *testing.T) {
	v := fixtureCatalog(t).Snapshot().View("")
	if _, _, err := v.Search(Query{Text: "   "}); !errors.Is(err, ErrEmptyQuery) {
		t.Errorf("empty query: %v", err)
	}
	if _, _, err := v.Search(Query{Text: "the of and"}); !errors.Is(err, ErrEmptyQuery) {
		t.Errorf("stop words only: %v", err)
	}
	long := strings.Repeat("pull request ", 1000) // 13 KB
	hits, note, err := v.Search(Query{Text: long})
	if err != nil || len(hits) == 0 || !strings.Contains(note, "cut") {
		t.Errorf("long query: %v, %d hits, note %q", err, len(hits), note)
	}
	if _, _, err := v.Search(Query{Text: "pull(", Regex: true}); err == nil || !strings.Contains(err.Error(), "does not compile") {
		t.Errorf("bad regex: %v", err)
	}
	hits, _, err = v.Search(Query{Text: "pull_?requests?$", Regex: true, Limit: 25})
	if err != nil || len(hits) == 0 {
		t.Fatalf("regex: %v %d", err, len(hits))
	}
	for _, h := range hits {
		if !strings.Contains(h.Why, "matches") {
			t.Errorf("regex hit without reason: %+v", h)
		}
	}
	if hits, _, _ := v.Search(Query{Text: "issue", Kind: KindSkill}); len(hits) != 0 {
		t.Errorf("kind filter let tools through: %d", len(hits))
	}
}

func TestSearchExplainsAndRanksNames(t *testing.T) {
	v := fixtureCatalog(t).Snapshot().View("")
	hits, _, err := v.Search(Query{Text: "create pull request"})
	if err != nil {
		t.Fatal(err)
	}
	if hits[0].Entry.Name != "mcp__github__create_pull_request" || !strings.Contains(hits[0].Why, "name: creat, pull, request") {
		t.Errorf("top hit %s (%s)", hits[0].Entry.Name, hits[0].Why)
	}
}

type fakeSearcher struct{ got SearchRequest }

func (f *fakeSearcher) SearchCapabilities(_ context.Context, req SearchRequest) (SearchResult, error) {
	f.got = req
	if req.Query == "boom" {
		return SearchResult{}, ErrEmptyQuery
	}
	return SearchResult{Query: req.Query, Items: []SearchItem{{ID: "mcp__github__get_issue", Name: "mcp__github__get_issue", Kind: KindTool,
		Source: "mcp:github", Summary: "Get one issue.", Why: "name: issue", Use: "loaded for your next step: call mcp__github__get_issue"}}}, nil
}

func TestToolSearchTool(t *testing.T) {
	ts := NewToolSearch()
	info := ts.Info()
	if !info.ReadOnly || !info.Safe || info.Name != ToolSearchName {
		t.Errorf("info: %+v", info)
	}
	res, _ := ts.Execute(context.Background(), map[string]any{"query": "x"})
	if !res.IsError || !strings.Contains(res.Content, "not available") {
		t.Errorf("without a searcher: %+v", res)
	}
	fs := &fakeSearcher{}
	ctx := WithSearcher(context.Background(), fs)
	res, _ = ts.Execute(ctx, map[string]any{"query": "issue", "kind": "tool", "limit": float64(3)})
	if res.IsError || !strings.Contains(res.Content, "1. mcp__github__get_issue [tool, mcp:github] — Get one issue.") || fs.got.Limit != 3 || fs.got.Kind != KindTool {
		t.Errorf("result: %+v, request %+v", res, fs.got)
	}
	if ids, _ := res.Meta["capabilityHits"].([]string); len(ids) != 1 {
		t.Errorf("meta: %+v", res.Meta)
	}
	res, _ = ts.Execute(ctx, map[string]any{"query": "x", "kind": "gadget"})
	if !res.IsError || !strings.Contains(res.Content, "unknown kind") {
		t.Errorf("bad kind: %+v", res)
	}
	res, _ = ts.Execute(ctx, map[string]any{"query": "boom"})
	if !res.IsError || !strings.Contains(res.Content, "query is empty") {
		t.Errorf("searcher error: %+v", res)
	}
}
