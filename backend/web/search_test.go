package web

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"tinyelf/backend/tools"
)

// The fake providers answer in each API's documented response shape.
const (
	tavilyAnswer = `{"query":"go readability","follow_up_questions":null,"answer":null,"images":[],
 "results":[
  {"url":"https://pkg.go.dev/codeberg.org/readeck/go-readability/v2","title":"readability package - codeberg.org/readeck/go-readability/v2","content":"Package readability is a Go package that find the main readable content from a HTML page.","score":0.83,"raw_content":null},
  {"url":"https://codeberg.org/readeck/go-readability","title":"readeck/go-readability - Codeberg.org","content":"Go package that cleans a HTML page for better readability.","score":0.71,"raw_content":null,"published_date":"Tue, 03 Jun 2025 09:12:00 GMT"},
  {"url":"https://pkg.go.dev/codeberg.org/readeck/go-readability/v2/","title":"duplicate with a trailing slash","content":"dup","score":0.5,"raw_content":null}
 ],"response_time":1.07,"request_id":"6d3c9f0a-1b2c-4d5e-8f90-0a1b2c3d4e5f"}`

	braveAnswer = `{"query":{"original":"go readability","show_strict_warning":false,"is_navigational":false,"is_news_breaking":false,"spellcheck_off":true,"country":"us","bad_results":false,"should_fallback":false,"postal_code":"","city":"","header_country":"","more_results_available":true,"state":""},
 "mixed":{"type":"mixed","main":[{"type":"web","index":0,"all":false},{"type":"web","index":1,"all":false}],"top":[],"side":[]},
 "type":"search",
 "web":{"type":"search","results":[
  {"title":"<strong>readability</strong> package - codeberg.org/readeck/go-readability/v2 - Go Packages","url":"https://pkg.go.dev/codeberg.org/readeck/go-readability/v2","is_source_local":false,"is_source_both":false,"description":"Package <strong>readability</strong> is a Go package that find the main readable content from a HTML page.","page_age":"2025-03-04T10:11:12","profile":{"name":"Go Packages","url":"https://pkg.go.dev/codeberg.org/readeck/go-readability/v2","long_name":"pkg.go.dev","img":"https://imgs.search.brave.com/x.png"},"language":"en","family_friendly":true,"type":"search_result","subtype":"generic","is_live":false,"meta_url":{"scheme":"https","netloc":"pkg.go.dev","hostname":"pkg.go.dev","favicon":"https://imgs.search.brave.com/f.png","path":"› codeberg.org › readeck › go-readability › v2"},"age":"March 4, 2025"},
  {"title":"Mozilla Readability","url":"https://github.com/mozilla/readability","is_source_local":false,"is_source_both":false,"description":"A standalone version of the <strong>readability</strong> library used for Firefox Reader View.","profile":{"name":"GitHub","url":"https://github.com/mozilla/readability","long_name":"github.com","img":"https://imgs.search.brave.com/g.png"},"language":"en","family_friendly":true,"type":"search_result","subtype":"generic","is_live":false,"meta_url":{"scheme":"https","netloc":"github.com","hostname":"github.com","favicon":"https://imgs.search.brave.com/gf.png","path":"› mozilla › readability"},"age":"2 days ago"}
 ],"family_friendly":true}}`

	jinaAnswer = `{"code":200,"status":20000,"data":[
  {"title":"readability package - Go Packages","url":"https://pkg.go.dev/codeberg.org/readeck/go-readability/v2","description":"Package readability is a Go package that find the main readable content from a HTML page.","content":"","date":"2025-01-15T00:00:00.000Z","usage":{"tokens":1000}},
  {"title":"go-readability","url":"https://codeberg.org/readeck/go-readability","description":"Go package that cleans a HTML page.","content":"","usage":{"tokens":1000}}
 ],"meta":{"usage":{"tokens":2000}}}`

	searxngAnswer = `{"query":"go readability","number_of_results":0,"results":[
  {"url":"https://pkg.go.dev/codeberg.org/readeck/go-readability/v2","title":"readability package","content":"Package readability is a Go package that find the main readable content.","publishedDate":null,"thumbnail":null,"engine":"duckduckgo","template":"default.html","parsed_url":["https","pkg.go.dev","/codeberg.org/readeck/go-readability/v2","","",""],"img_src":"","priority":"","engines":["duckduckgo","google"],"positions":[1,2],"score":4.0,"category":"general"},
  {"url":"https://www.google.com/url?q=https://github.com/go-shiori/go-readability&sa=U","title":"go-shiori/go-readability","content":"Go package that cleans a HTML page for better readability.","publishedDate":"2023-05-15T00:00:00","thumbnail":null,"engine":"google","template":"default.html","parsed_url":["https","www.google.com","/url","","q=x",""],"img_src":"","priority":"","engines":["google"],"positions":[2],"score":1.0,"category":"general"}
 ],"answers":[],"corrections":[],"infoboxes":[],"suggestions":["go readability example"],"unresponsive_engines":[["brave","timeout"]]}`

	ddgAnswer = `<!DOCTYPE html><html><head><title>go readability at DuckDuckGo</title></head><body>
<div class="serp__results"><div id="links" class="results">
 <div class="result results_links results_links_deep result--ad ">
  <div class="links_main links_deep result__body"><h2 class="result__title"><a rel="nofollow" class="result__a" href="https://duckduckgo.com/y.js?ad_domain=ads.example&amp;u3=x">Buy readability now</a></h2>
  <a class="result__snippet" href="https://duckduckgo.com/y.js?ad">An advertisement.</a></div>
 </div>
 <div class="result results_links results_links_deep web-result ">
  <div class="links_main links_deep result__body">
   <h2 class="result__title"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fpkg.go.dev%2Fcodeberg.org%2Freadeck%2Fgo%2Dreadability%2Fv2&amp;rut=abc123">readability package - <b>Go</b> Packages</a></h2>
   <div class="result__extras"><div class="result__extras__url"><span class="result__icon"></span><a class="result__url" href="//duckduckgo.com/l/?uddg=x">pkg.go.dev/codeberg.org/readeck/go-readability/v2</a><span>&nbsp; &nbsp; 2025-03-04T00:00:00.0000000</span></div></div>
   <a class="result__snippet" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fpkg.go.dev%2F">Package <b>readability</b> is a Go package that find the main readable content.</a>
   <div class="clear"></div>
  </div>
 </div>
 <div class="result results_links results_links_deep web-result ">
  <div class="links_main links_deep result__body">
   <h2 class="result__title"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fgithub.com%2Fmozilla%2Freadability&amp;rut=def456">mozilla/readability - GitHub</a></h2>
   <a class="result__snippet" href="//duckduckgo.com/l/?uddg=x">A standalone version of the <b>readability</b> library used for Firefox Reader View.</a>
  </div>
 </div>
</div></div></body></html>`
)

// fakeProvider is a search API on loopback that records its requests.
type fakeProvider struct {
	srv    *httptest.Server
	mu     sync.Mutex
	reqs   []*http.Request
	bodies []string
}

func newFakeProvider(t *testing.T, status int, contentType, body string) *fakeProvider {
	t.Helper()
	f := &fakeProvider{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.reqs = append(f.reqs, r.Clone(context.Background()))
		f.bodies = append(f.bodies, string(b))
		f.mu.Unlock()
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeProvider) requests() ([]*http.Request, []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*http.Request(nil), f.reqs...), append([]string(nil), f.bodies...)
}

func runSearch(t *testing.T, o SearchOptions, params map[string]any) tools.Result {
	t.Helper()
	res, err := NewSearch(o).Execute(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func attemptsOf(t *testing.T, res tools.Result) []SearchAttempt {
	t.Helper()
	a, ok := res.Meta["attempts"].([]SearchAttempt)
	if !ok {
		t.Fatalf("attempts missing: %#v", res.Meta)
	}
	return a
}

func resultsOf(t *testing.T, res tools.Result) []SearchResult {
	t.Helper()
	r, ok := res.Meta["results"].([]SearchResult)
	if !ok {
		t.Fatalf("results missing: %#v", res.Meta)
	}
	return r
}

func TestWebSearchProviders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, provider, key, ctype, body string
		check                            func(t *testing.T, r *http.Request, body string)
		want                             []SearchResult
	}{
		{name: "tavily", provider: SearchTavily, key: "tvly-test-key-1234", ctype: "application/json", body: tavilyAnswer,
			check: func(t *testing.T, r *http.Request, body string) {
				var req map[string]any
				json.Unmarshal([]byte(body), &req)
				if r.Method != http.MethodPost || r.Header.Get("Authorization") != "Bearer tvly-test-key-1234" || req["query"] != "go readability" || req["max_results"] != float64(5) {
					t.Errorf("request: %s %v %s", r.Method, r.Header, body)
				}
			},
			want: []SearchResult{
				{Title: "readability package - codeberg.org/readeck/go-readability/v2", URL: "https://pkg.go.dev/codeberg.org/readeck/go-readability/v2", Snippet: "Package readability is a Go package that find the main readable content from a HTML page."},
				{Title: "readeck/go-readability - Codeberg.org", URL: "https://codeberg.org/readeck/go-readability", Snippet: "Go package that cleans a HTML page for better readability.", Date: "Tue, 03 Jun 2025 09:12:00 GMT"},
			}},
		{name: "brave", provider: SearchBrave, key: "BSA-test-key-5678", ctype: "application/json", body: braveAnswer,
			check: func(t *testing.T, r *http.Request, _ string) {
				if r.Header.Get("X-Subscription-Token") != "BSA-test-key-5678" || r.URL.Query().Get("q") != "go readability" || r.URL.Query().Get("count") != "5" {
					t.Errorf("request: %v %v", r.URL, r.Header)
				}
			},
			want: []SearchResult{
				{Title: "readability package - codeberg.org/readeck/go-readability/v2 - Go Packages", URL: "https://pkg.go.dev/codeberg.org/readeck/go-readability/v2", Snippet: "Package readability is a Go package that find the main readable content from a HTML page.", Date: "2025-03-04T10:11:12"},
				{Title: "Mozilla Readability", URL: "https://github.com/mozilla/readability", Snippet: "A standalone version of the readability library used for Firefox Reader View.", Date: "2 days ago"},
			}},
		{name: "jina", provider: SearchJina, key: "jina_test_key_9012", ctype: "application/json", body: jinaAnswer,
			check: func(t *testing.T, r *http.Request, _ string) {
				if r.Header.Get("Authorization") != "Bearer jina_test_key_9012" || r.Header.Get("Accept") != "application/json" || r.URL.Query().Get("q") != "go readability" {
					t.Errorf("request: %v %v", r.URL, r.Header)
				}
			},
			want: []SearchResult{
				{Title: "readability package - Go Packages", URL: "https://pkg.go.dev/codeberg.org/readeck/go-readability/v2", Snippet: "Package readability is a Go package that find the main readable content from a HTML page.", Date: "2025-01-15T00:00:00.000Z"},
				{Title: "go-readability", URL: "https://codeberg.org/readeck/go-readability", Snippet: "Go package that cleans a HTML page."},
			}},
		{name: "searxng", provider: SearchSearXNG, ctype: "application/json", body: searxngAnswer,
			check: func(t *testing.T, r *http.Request, _ string) {
				if r.URL.Path != "/searx/search" || r.URL.Query().Get("format") != "json" || r.URL.Query().Get("q") != "go readability" {
					t.Errorf("request: %v", r.URL)
				}
			},
			want: []SearchResult{
				{Title: "readability package", URL: "https://pkg.go.dev/codeberg.org/readeck/go-readability/v2", Snippet: "Package readability is a Go package that find the main readable content."},
				{Title: "go-shiori/go-readability", URL: "https://github.com/go-shiori/go-readability", Snippet: "Go package that cleans a HTML page for better readability.", Date: "2023-05-15T00:00:00"},
			}},
		{name: "duckduckgo", provider: SearchDuckDuckGo, ctype: "text/html; charset=utf-8", body: ddgAnswer,
			check: func(t *testing.T, r *http.Request, body string) {
				if r.Method != http.MethodPost || !strings.Contains(body, "q=go+readability") {
					t.Errorf("request: %s %s", r.Method, body)
				}
			},
			want: []SearchResult{
				{Title: "readability package - Go Packages", URL: "https://pkg.go.dev/codeberg.org/readeck/go-readability/v2", Snippet: "Package readability is a Go package that find the main readable content.", Date: "2025-03-04T00:00:00.0000000"},
				{Title: "mozilla/readability - GitHub", URL: "https://github.com/mozilla/readability", Snippet: "A standalone version of the readability library used for Firefox Reader View."},
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeProvider(t, 200, tc.ctype, tc.body)
			url := f.srv.URL
			if tc.provider == SearchSearXNG {
				url += "/searx/"
			}
			res := runSearch(t, SearchOptions{Providers: []SearchProviderConfig{{Name: tc.provider, Key: tc.key, URL: url}}},
				map[string]any{"query": "go  readability"})
			if res.IsError {
				t.Fatal(res.Content)
			}
			reqs, bodies := f.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			tc.check(t, reqs[0], bodies[0])
			got := resultsOf(t, res)
			if len(got) != len(tc.want) {
				t.Fatalf("results = %+v", got)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("result %d = %+v\nwant %+v", i, got[i], tc.want[i])
				}
			}
			if res.Meta["provider"] != tc.provider || res.Meta["stage"] != StageService {
				t.Errorf("provider = %v, stage = %v", res.Meta["provider"], res.Meta["stage"])
			}
			for _, w := range []string{"1. " + tc.want[0].Title, tc.want[0].URL, "trust=\"untrusted\"", tc.provider + " (service): success, 2 results"} {
				if !strings.Contains(res.Content, w) {
					t.Errorf("missing %q in:\n%s", w, res.Content)
				}
			}
			if tc.key != "" && strings.Contains(res.Content, tc.key) {
				t.Error("the key is in the result")
			}
		})
	}
}

// fakeNative is a stage-1 searcher.
type fakeNative struct {
	res NativeSearchResult
	err error
}

func (f fakeNative) NativeSearch(context.Context, string, int) (NativeSearchResult, error) {
	return f.res, f.err
}

func TestWebSearchFallback(t *testing.T) {
	t.Parallel()
	const key = "tvly-SECRET-key-000111"
	failing := newFakeProvider(t, 401, "application/json", `{"detail":{"error":"Unauthorized: invalid API key `+key+`"}}`)
	empty := newFakeProvider(t, 200, "application/json", `{"query":{"original":"q"},"type":"search","web":{"type":"search","results":[],"family_friendly":true}}`)
	working := newFakeProvider(t, 200, "application/json", jinaAnswer)
	providers := []SearchProviderConfig{
		{Name: SearchTavily, Key: key, URL: failing.srv.URL},
		{Name: SearchSearXNG},
		{Name: SearchBrave, Key: "brave-key-222333", URL: empty.srv.URL},
		{Name: SearchJina, Key: "jina-key-444555", URL: working.srv.URL},
		{Name: SearchDuckDuckGo, URL: "http://127.0.0.1:1/never-reached"},
	}
	native := fakeNative{err: &SearchIneligibleError{Provider: "ollama", Reason: "this provider has no native web search"}}
	res := runSearch(t, SearchOptions{Native: native, Providers: providers}, map[string]any{"query": "q", "count": 50})
	if res.IsError || res.Meta["provider"] != SearchJina {
		t.Fatalf("got %v: %s", res.IsError, res.Content)
	}
	if res.Meta["count"] != 10 {
		t.Errorf("count = %v, want clamped to 10", res.Meta["count"])
	}
	got := attemptsOf(t, res)
	want := []struct{ stage, provider, outcome, reason string }{
		{StageNative, "ollama", OutcomeIneligible, "no native web search"},
		{StageService, SearchTavily, OutcomeFailed, "HTTP 401 (check the API key)"},
		{StageService, SearchSearXNG, OutcomeIneligible, "no SearXNG URL"},
		{StageService, SearchBrave, OutcomeEmpty, ""},
		{StageService, SearchJina, OutcomeSuccess, ""},
	}
	if len(got) != len(want) {
		t.Fatalf("attempts = %+v", got)
	}
	for i, w := range want {
		a := got[i]
		if a.Stage != w.stage || a.Provider != w.provider || a.Outcome != w.outcome || !strings.Contains(a.Reason, w.reason) {
			t.Errorf("attempt %d = %+v, want %+v", i, a, w)
		}
	}
	if got[4].Results != 2 {
		t.Errorf("jina results = %d", got[4].Results)
	}
	if !strings.Contains(res.Content, "tavily (service): failed: HTTP 401") || !strings.Contains(res.Content, "brave (service): empty") {
		t.Errorf("attempts not shown:\n%s", res.Content)
	}
	// The failing provider echoed the key; it must appear nowhere.
	metaJSON, _ := json.Marshal(res.Meta)
	for _, s := range []string{res.Content, string(metaJSON)} {
		if strings.Contains(s, key) {
			t.Fatalf("key leaked: %s", s)
		}
	}
	if !strings.Contains(res.Content, "[redacted]") {
		t.Errorf("the echoed key should show as [redacted]:\n%s", res.Content)
	}

	t.Run("count clamped up to 1", func(t *testing.T) {
		f := newFakeProvider(t, 200, "application/json", tavilyAnswer)
		res := runSearch(t, SearchOptions{Providers: []SearchProviderConfig{{Name: SearchTavily, Key: "k-123456", URL: f.srv.URL}}}, map[string]any{"query": "q", "count": 0})
		if n := len(resultsOf(t, res)); n != 1 || res.Meta["count"] != 1 {
			t.Errorf("results = %d, count = %v", n, res.Meta["count"])
		}
	})
	t.Run("native search wins", func(t *testing.T) {
		f := newFakeProvider(t, 200, "application/json", tavilyAnswer)
		n := fakeNative{res: NativeSearchResult{Provider: "anthropic web_search", Results: []SearchResult{
			{Title: "A", URL: "https://a.example/x", Snippet: "s", Date: "May 1, 2025"},
			{Title: "A again", URL: "https://www.a.example/x/#top"},
		}}}
		res := runSearch(t, SearchOptions{Native: n, Providers: []SearchProviderConfig{{Name: SearchTavily, Key: "k-123456", URL: f.srv.URL}}}, map[string]any{"query": "q"})
		if res.Meta["stage"] != StageNative || len(resultsOf(t, res)) != 1 {
			t.Fatalf("got %v %+v", res.Meta["stage"], res.Meta["results"])
		}
		if reqs, _ := f.requests(); len(reqs) != 0 {
			t.Error("the service was asked although native search succeeded")
		}
	})
	t.Run("native failure falls through", func(t *testing.T) {
		f := newFakeProvider(t, 200, "application/json", tavilyAnswer)
		n := fakeNative{res: NativeSearchResult{Provider: "openai web_search"}, err: errString("web search is not enabled for this organization")}
		res := runSearch(t, SearchOptions{Native: n, Providers: []SearchProviderConfig{{Name: SearchTavily, Key: "k-123456", URL: f.srv.URL}}}, map[string]any{"query": "q"})
		a := attemptsOf(t, res)
		if a[0].Outcome != OutcomeFailed || a[0].Provider != "openai web_search" || res.Meta["provider"] != SearchTavily {
			t.Fatalf("attempts %+v", a)
		}
	})
}

type errString string

func (e errString) Error() string { return string(e) }

func TestWebSearchUnavailable(t *testing.T) {
	t.Parallel()
	res := runSearch(t, SearchOptions{NativeOff: true, Providers: []SearchProviderConfig{
		{Name: SearchTavily}, {Name: SearchBrave}, {Name: SearchJina}, {Name: SearchSearXNG}, {Name: SearchDuckDuckGo, Disabled: true},
	}}, map[string]any{"query": "anything"})
	if !res.IsError || res.Meta["stage"] != StageUnavailable {
		t.Fatalf("got %v: %s", res.IsError, res.Content)
	}
	for _, w := range []string{"Web search is unavailable", "Settings → Web", "TAVILY_API_KEY", "SearXNG", "DuckDuckGo",
		"tavily (service): ineligible: no API key", "duckduckgo (service): ineligible: switched off", "model provider (native): ineligible: switched off"} {
		if !strings.Contains(res.Content, w) {
			t.Errorf("missing %q in:\n%s", w, res.Content)
		}
	}

	t.Run("everything empty is not unavailable", func(t *testing.T) {
		empty := newFakeProvider(t, 200, "application/json", `{"query":"q","results":[],"response_time":0.5}`)
		res := runSearch(t, SearchOptions{Providers: []SearchProviderConfig{{Name: SearchTavily, Key: "k-123456", URL: empty.srv.URL}}}, map[string]any{"query": "q"})
		if res.IsError || !strings.Contains(res.Content, "No results found") {
			t.Fatalf("got %v: %s", res.IsError, res.Content)
		}
	})
}

func TestUnwrapRedirect(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com%2Fa%3Fb%3D1&rut=x":                   "https://example.com/a?b=1",
		"https://www.google.com/url?q=https://example.com/g&sa=U&ved=2":                                "https://example.com/g",
		"https://www.google.co.jp/url?url=https://example.jp/&rct=j":                                   "https://example.jp/",
		"https://www.bing.com/ck/a?!&&p=abc&u=a1aHR0cHM6Ly9leGFtcGxlLmNvbS9iaW5n&ntb=1":                "https://example.com/bing",
		"https://r.search.yahoo.com/_ylt=A/RV=2/RE=1/RO=10/RU=https%3a%2f%2fexample.com%2fy/RK=2/RS=x": "https://example.com/y",
		"https://example.com/plain":                        "https://example.com/plain",
		"https://www.google.com/url?q=javascript:alert(1)": "https://www.google.com/url?q=javascript:alert(1)",
	} {
		if got := unwrapRedirect(in); got != want {
			t.Errorf("unwrapRedirect(%s) = %s, want %s", in, got, want)
		}
	}
	if dedupKey("https://www.Example.com/a/?utm_source=x#f") != dedupKey("http://example.com/a") {
		t.Error("dedupKey should ignore scheme, www, trailing slash, fragment and tracking parameters")
	}
}
