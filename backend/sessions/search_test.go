package sessions

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
)

// searchFixture makes three sessions with English and Japanese messages.
func searchFixture(t *testing.T) (*Store, map[string]string) {
	t.Helper()
	s := openTestStore(t, WithClock(newTestClock().Now))
	ids := map[string]string{}
	add := func(name string, evs ...Event) {
		sess := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
		mustAppend(t, s, sess.ID, evs...)
		ids[name] = sess.ID
	}
	add("parser",
		NewEvent(EventUserMessage, UserMessage{Text: "The Parser crashes on empty input"}),
		NewEvent(EventAssistantMessage, AssistantMessage{Text: "I fixed the parser: it now returns ErrEmpty."}),
		NewEvent(EventToolResult, ToolResult{CallID: "c", Name: "Read", Content: "secret tool output zanzibar"}),
	)
	add("tokyo",
		NewEvent(EventUserMessage, UserMessage{Text: "明日は東京都庁で会議があります。資料を準備してください。"}),
		NewEvent(EventAssistantMessage, AssistantMessage{Text: "承知しました。会議の資料を作成します。"}),
	)
	add("quotes",
		NewEvent(EventUserMessage, UserMessage{Text: `He said "AND" is a keyword; use NEAR(a b) and 100% <html> & C++_v2 (go) x*y`}),
	)
	return s, ids
}

func TestSearch(t *testing.T) {
	t.Parallel()
	s, ids := searchFixture(t)
	ctx := context.Background()
	tests := []struct {
		name    string
		query   string
		want    []string // "session:seq", any order
		snippet string   // a substring of the first hit's snippet
	}{
		{"word", "parser", []string{"parser:2", "parser:3"}, "<mark>Parser</mark>"},
		{"case-insensitive substring", "PARS", []string{"parser:2", "parser:3"}, "ars</mark>er"},
		{"all terms must match", "parser ErrEmpty", []string{"parser:3"}, "<mark>ErrEmpty</mark>"},
		{"phrase", `"empty input"`, []string{"parser:2"}, "<mark>empty input</mark>"},
		{"phrase order matters", `"input empty"`, nil, ""},
		{"Japanese word inside a sentence", "東京都", []string{"tokyo:2"}, "<mark>東京都</mark>"},
		{"Japanese three characters mid-word", "都庁で", []string{"tokyo:2"}, "<mark>都庁で</mark>"},
		{"Japanese two-character word", "会議", []string{"tokyo:2", "tokyo:3"}, "<mark>会議</mark>"},
		{"Japanese two words", "資料 作成", []string{"tokyo:3"}, "<mark>資料</mark>"},
		{"one character, literally", "*", []string{"quotes:2"}, "x<mark>*</mark>y"},
		{"tool results are not indexed", "zanzibar", nil, ""},
		{"no match", "kubernetes", nil, ""},
		{"HTML is escaped in snippets", "<html>", []string{"quotes:2"}, "<mark>&lt;html&gt;</mark>"},
		{"percent is literal", "100%", []string{"quotes:2"}, "<mark>100%</mark>"},
		{"underscore is literal", "_v", []string{"quotes:2"}, "<mark>_v</mark>"},
		{"two-character LIKE is not a wildcard", "%<", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits, err := s.Search(ctx, tt.query, SearchOptions{})
			if err != nil {
				t.Fatalf("Search(%q): %v", tt.query, err)
			}
			var got []string
			for _, h := range hits {
				for name, id := range ids {
					if id == h.SessionID {
						got = append(got, fmt.Sprintf("%s:%d", name, h.Seq))
					}
				}
			}
			sort.Strings(got)
			want := append([]string(nil), tt.want...)
			sort.Strings(want)
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("Search(%q) = %v, want %v", tt.query, got, want)
			}
			if tt.snippet != "" && !strings.Contains(hits[0].Snippet, tt.snippet) {
				t.Errorf("snippet %q lacks %q", hits[0].Snippet, tt.snippet)
			}
			for _, h := range hits {
				if h.Time.IsZero() || h.Role == "" {
					t.Errorf("hit without time or role: %+v", h)
				}
			}
		})
	}
}

func TestSearchSanitizesQuerySyntax(t *testing.T) {
	t.Parallel()
	s, _ := searchFixture(t)
	queries := []string{
		`"`, `""`, `"""`, `AND`, `OR`, `NOT`, `a AND`, `AND OR NOT`, `NEAR(`, `NEAR(a b)`, `*`, `pars*`,
		`(`, `)`, `()`, `-parser`, `parser:`, `text:parser`, `^parser`, `{a b}`, `+`, `'`, `\`, `%`, `_`,
		`"unterminated phrase`, `a " b`, "tab\tand\nnewline", "\x00", `col : "x"`, `""""parser""""`,
	}
	for _, q := range queries {
		t.Run(q, func(t *testing.T) {
			if _, err := s.Search(context.Background(), q, SearchOptions{}); err != nil {
				t.Errorf("Search(%q) = %v; user syntax must not surface as an error", q, err)
			}
		})
	}
	// Operators are searched for as words.
	hits, err := s.Search(context.Background(), `AND`, SearchOptions{})
	if err != nil || len(hits) != 1 || !strings.Contains(hits[0].Snippet, `<mark>AND</mark>`) {
		t.Errorf(`Search("AND") = %+v, %v`, hits, err)
	}
	hits, err = s.Search(context.Background(), `NEAR(a`, SearchOptions{})
	if err != nil || len(hits) != 1 {
		t.Errorf(`Search("NEAR(a") = %+v, %v`, hits, err)
	}
	if hits, err := s.Search(context.Background(), "   ", SearchOptions{}); err != nil || hits != nil {
		t.Errorf("blank query = %v, %v", hits, err)
	}
}

func TestSearchScopeRankingAndPaging(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTestStore(t, WithClock(newTestClock().Now))
	var ids []string
	for i := 0; i < 5; i++ {
		sess := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
		// Session i mentions "widget" i+1 times in one message, in a
		// message of similar length, so bm25 ranks the later ones higher.
		text := strings.Repeat("widget ", i+1) + strings.Repeat("filler ", 5-i)
		mustAppend(t, s, sess.ID, NewEvent(EventUserMessage, UserMessage{Text: text}))
		ids = append(ids, sess.ID)
	}
	hits, err := s.Search(ctx, "widget", SearchOptions{})
	if err != nil || len(hits) != 5 {
		t.Fatalf("Search = %d hits, %v", len(hits), err)
	}
	if hits[0].SessionID != ids[4] || hits[4].SessionID != ids[0] {
		t.Errorf("ranking: first %s last %s, want %s then ... %s", hits[0].SessionID, hits[4].SessionID, ids[4], ids[0])
	}
	var paged []string
	for off := 0; off < 6; off += 2 {
		page, err := s.Search(ctx, "widget", SearchOptions{Limit: 2, Offset: off})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range page {
			paged = append(paged, h.SessionID)
		}
	}
	var all []string
	for _, h := range hits {
		all = append(all, h.SessionID)
	}
	if strings.Join(paged, ",") != strings.Join(all, ",") {
		t.Errorf("pages %v != one query %v", paged, all)
	}
	one, err := s.Search(ctx, "widget", SearchOptions{SessionID: ids[2]})
	if err != nil || len(one) != 1 || one[0].SessionID != ids[2] {
		t.Errorf("session scope = %+v, %v", one, err)
	}
	if err := s.Delete(ctx, ids[4]); err != nil {
		t.Fatal(err)
	}
	if h, _ := s.Search(ctx, "widget", SearchOptions{}); len(h) != 4 {
		t.Errorf("deleted session searched: %d hits", len(h))
	}
	if h, _ := s.Search(ctx, "widget", SearchOptions{IncludeDeleted: true}); len(h) != 5 {
		t.Errorf("IncludeDeleted: %d hits", len(h))
	}
	if err := s.Rename(ctx, ids[0], "Widgets"); err != nil {
		t.Fatal(err)
	}
	if h, _ := s.Search(ctx, "widget", SearchOptions{SessionID: ids[0]}); len(h) != 1 || h[0].SessionTitle != "Widgets" {
		t.Errorf("hit title: %+v", h)
	}
}

func TestSnippet(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("lorem ipsum ", 20) + "the NEEDLE is here " + strings.Repeat("dolor sit ", 20)
	tests := []struct {
		name, text string
		terms      []string
		want       string
	}{
		{"short text whole", "find the needle", []string{"needle"}, "find the <mark>needle</mark>"},
		{"every match marked", "a needle, another Needle", []string{"needle"}, "a <mark>needle</mark>, another <mark>Needle</mark>"},
		{"overlapping terms merge", "abcdef", []string{"abc", "cde"}, "<mark>abcde</mark>f"},
		{"whitespace collapsed", "one\n\n  two", []string{"two"}, "one <mark>two</mark>"},
		{"escaped", `<b>"x"</b> & y`, []string{"x"}, `&lt;b&gt;&#34;<mark>x</mark>&#34;&lt;/b&gt; &amp; y`},
		{"no match shows the start", "nothing here", []string{"zzz"}, "nothing here"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := snippet(tt.text, tt.terms, 80); got != tt.want {
				t.Errorf("snippet = %q, want %q", got, tt.want)
			}
		})
	}
	got := snippet(long, []string{"needle"}, 40)
	if !strings.HasPrefix(got, "…") || !strings.HasSuffix(got, "…") || !strings.Contains(got, "<mark>NEEDLE</mark>") {
		t.Errorf("long snippet = %q", got)
	}
}

func TestParseQuery(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
	}{
		{`foo bar`, []string{"foo", "bar"}},
		{`"foo bar" baz`, []string{"foo bar", "baz"}},
		{`"unterminated phrase`, []string{"unterminated phrase"}},
		{`a"b`, []string{"a", "b"}},
		{`  `, nil},
		{`東京 会議`, []string{"東京", "会議"}},
	}
	for _, tt := range tests {
		if got := parseQuery(tt.in); strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("parseQuery(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
