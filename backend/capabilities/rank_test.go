package capabilities

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"tinyelf/backend/tools"
)

func TestSplitSteps(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"list my open pull requests", nil},
		{"Find the paper. Then summarise it in a Word document.", []string{"Find the paper", "Then summarise it in a Word document."}},
		{"create a branch, then open a pull request and then request a review", []string{"create a branch", "open a pull request", "request a review"}},
		{"Fetch today's news; save it to /root/news.md", []string{"Fetch today's news", "save it to /root/news.md"}},
		{"ブランチを作成してから、プルリクエストを開く", []string{"ブランチを作成", "プルリクエストを開く"}},
		{"天気を調べて。服装を提案して", []string{"天気を調べて", "服装を提案して"}},
		{"the. of. and.", nil}, // no words in any step
	} {
		if got := splitSteps(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("splitSteps(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func topNames(t *testing.T, v *View, q string, n int) []string {
	t.Helper()
	hits, _, err := v.Search(Query{Text: q, Kind: KindTool, Limit: n})
	if err != nil {
		t.Fatalf("%q: %v", q, err)
	}
	var out []string
	for _, h := range hits {
		out = append(out, h.Entry.Name)
	}
	return out
}

func TestSearchRanksWhatQueriesAsk(t *testing.T) {
	v := fixtureCatalog(t).Snapshot().View("")
	for _, tc := range []struct {
		why, query string
		top        int // the tool must be within the first top hits
		want       string
	}{
		{"a spelled-out name beats words it shares with others", "run search_code for TODO comments in my pull request", 1, "mcp__github__search_code"},
		{"a spelled-out name beats words it shares with others", "get_file_contents of the README in the pull request branch", 1, "mcp__github__get_file_contents"},
		{"each step of a task is searched", "create a new branch, then open a pull request from it and request a review", 3, "mcp__github__create_branch"},
		{"each step of a task is searched", "create a new branch, then open a pull request from it and request a review", 1, "mcp__github__create_pull_request"},
		{"Japanese", "プルリクエストを作成", 1, "mcp__github__create_pull_request"},
		{"Japanese", "ディレクトリの中のファイルを一覧表示", 1, "mcp__filesystem__list_directory"},
		{"Japanese", "失敗したワークフローのログを取得", 3, "mcp__github__get_job_logs"},
		{"mixed languages", "GitHubのissueを作成したい create an issue", 1, "mcp__github__create_issue"},
		{"mixed languages", "このリポジトリの pull request を merge して", 1, "mcp__github__merge_pull_request"},
	} {
		got := topNames(t, v, tc.query, tc.top)
		if !slices.Contains(got, tc.want) {
			t.Errorf("%s: %q: want %s in the top %d, got %v", tc.why, tc.query, tc.want, tc.top, got)
		}
	}
}

func TestSearchSelectNames(t *testing.T) {
	v := fixtureCatalog(t).Snapshot().View("")
	hits, note, err := v.Search(Query{Text: "select:Read, mcp__github__create_issue,CREATE_PULL_REQUEST,no_such_tool,Read"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range hits {
		got = append(got, h.Entry.Name)
		if h.Why != "selected by name" {
			t.Errorf("%s: why %q", h.Entry.Name, h.Why)
		}
	}
	want := []string{"Read", "mcp__github__create_issue", "mcp__github__create_pull_request"}
	if !slices.Equal(got, want) {
		t.Errorf("select: got %v, want %v", got, want)
	}
	if !strings.Contains(note, "no_such_tool") {
		t.Errorf("note %q does not name the missing tool", note)
	}
	// What the policy hides is not selected either.
	hidden := func(e Entry) bool { return e.Name != "mcp__github__create_issue" }
	hits, note, _ = v.Search(Query{Text: "SELECT:mcp__github__create_issue", Admit: hidden})
	if len(hits) != 0 || !strings.Contains(note, "mcp__github__create_issue") {
		t.Errorf("hidden tool selected: %v, note %q", hits, note)
	}
	// A bare name two servers share selects neither.
	c := NewCatalog()
	for _, srv := range []string{"a", "b"} {
		c.Replace("mcp:"+srv, []Entry{ToolEntry(evalMCPTool{tools.Info{Name: "mcp__" + srv + "__search", Description: "Search.",
			Source: tools.SourceMCP, Origin: srv}})}, PartitionOptions{Priority: PriorityMCP})
	}
	if hits, _, _ := c.Snapshot().View("").Search(Query{Text: "select:search"}); len(hits) != 0 {
		t.Errorf("ambiguous bare name selected %v", hits)
	}
}

// TestSearchBadInput10KB searches a 10 KB paragraph mixing English,
// Japanese, a path, a URL and base64: it is cut, and still ranks.
func TestSearchBadInput10KB(t *testing.T) {
	v := fixtureCatalog(t).Snapshot().View("")
	var sb strings.Builder
	for sb.Len() < 10_000 {
		sb.WriteString("Please open a pull request for /root/src/main.go プルリクエストを作成して https://example.com/a?b=c iVBORw0KGgoAAAANSUhEUgAA ")
	}
	hits, note, err := v.Search(Query{Text: sb.String(), Kind: KindTool})
	if err != nil || !strings.Contains(note, "cut") {
		t.Fatalf("10 KB query: %v, note %q", err, note)
	}
	if len(hits) == 0 || hits[0].Entry.Name != "mcp__github__create_pull_request" {
		t.Errorf("10 KB query: top %v", hits)
	}
	for _, q := range []string{"", "   ", "。、！", "the of and"} {
		if hits, _, err := v.Search(Query{Text: q}); len(hits) != 0 || !errors.Is(err, ErrEmptyQuery) {
			t.Errorf("%q: %d hits, err %v", q, len(hits), err)
		}
	}
	for _, q := range []string{"select:", "select: , ,"} {
		if hits, _, err := v.Search(Query{Text: q}); len(hits) != 0 || err != nil {
			t.Errorf("%q: %d hits, err %v", q, len(hits), err)
		}
	}
}

// TestSearchOddSchemas indexes tools whose schemas are what real servers
// publish: type unions, missing types, properties that are not objects,
// schemas that are not objects at all. None may break the index; the
// parameters that can be read are searchable.
func TestSearchOddSchemas(t *testing.T) {
	schemas := map[string]string{
		"union_types":    `{"type":"object","properties":{"zebra_count":{"type":["integer","null"],"description":"how many zebras"}}}`,
		"missing_type":   `{"properties":{"walrus_name":{"description":"the walrus"}}}`,
		"odd_properties": `{"type":"object","properties":{"okapi_id":true,"ibex":"string","yak":{"type":"strange"}}}`,
		"array_props":    `{"type":"object","properties":[]}`,
		"not_an_object":  `["type","object"]`,
		"null_schema":    `null`,
		"empty":          ``,
	}
	var es []Entry
	for name, schema := range schemas {
		es = append(es, ToolEntry(evalMCPTool{tools.Info{Name: "mcp__odd__" + name, Description: "A tool with an odd schema.",
			Parameters: json.RawMessage(schema), Source: tools.SourceMCP, Origin: "odd"}}))
	}
	c := NewCatalog()
	c.Replace("mcp:odd", es, PartitionOptions{Priority: PriorityMCP})
	v := c.Snapshot().View("")
	for q, want := range map[string]string{"zebra count": "mcp__odd__union_types", "walrus": "mcp__odd__missing_type"} {
		if got := topNames(t, v, q, 1); !slices.Equal(got, []string{want}) {
			t.Errorf("%q: got %v, want %s", q, got, want)
		}
	}
	if got := topNames(t, v, "odd schema", 25); len(got) != len(schemas) {
		t.Errorf("odd schema: %d of %d tools found: %v", len(got), len(schemas), got)
	}
}

// TestSearchAggregatedServer: one server offering 2,375 tools (MSC-Bench's
// registry behind an aggregator) is indexed, searched, and its tools are
// told apart by the server names their names carry.
func TestSearchAggregatedServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the evaluation's catalogs")
	}
	hub := evalCatalogs()[catHub]
	if hub.Tools != 2375 || hub.View.Len() != 2375 {
		t.Fatalf("hub has %d tools, view %d", hub.Tools, hub.View.Len())
	}
	broken := 0
	for _, e := range hub.View.Entries() {
		if e.Server != "hub" || !strings.HasPrefix(e.Name, "mcp__hub__") {
			t.Fatalf("%s is from %q", e.Name, e.Server)
		}
		if e.Problem != "" {
			broken++
		}
	}
	if broken > 0 {
		t.Errorf("%d of 2,375 published schemas refused", broken)
	}
	got := topNames(t, hub.View, "On Semgrep, scan the file main.js for vulnerabilities", 5)
	if len(got) != 5 || !strings.Contains(got[0], "semgrep") {
		t.Errorf("hub search: %v", got)
	}
	res, err := Find(hub.View, Inputs{Mode: "default"}, nil, SearchRequest{Query: "create a todoist task", Limit: 25})
	if err != nil || len(res.Items) == 0 {
		t.Fatalf("Find over the hub: %v, %d items", err, len(res.Items))
	}
}
