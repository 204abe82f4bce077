package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"tinyelf/backend/tools"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The search providers of the WebSearchService (stage 2).
const (
	SearchTavily     = "tavily"
	SearchJina       = "jina"
	SearchSearXNG    = "searxng"
	SearchBrave      = "brave"
	SearchDuckDuckGo = "duckduckgo"
)

// SearchKeyEnv is the environment variable each keyed provider reads its
// key from when the Settings have none (SearXNG reads its URL).
var SearchKeyEnv = map[string]string{
	SearchTavily:  "TAVILY_API_KEY",
	SearchJina:    "JINA_API_KEY",
	SearchBrave:   "BRAVE_API_KEY",
	SearchSearXNG: "SEARXNG_URL",
}

// searchEndpoints are the public APIs.
var searchEndpoints = map[string]string{
	SearchTavily:     "https://api.tavily.com/search",
	SearchJina:       "https://s.jina.ai/",
	SearchBrave:      "https://api.search.brave.com/res/v1/web/search",
	SearchDuckDuckGo: "https://html.duckduckgo.com/html/",
}

// SearchProviderConfig is one provider of the WebSearchService as the
// engine resolved it from the Settings and the environment.
type SearchProviderConfig struct {
	// Name is one of the Search* provider names.
	Name string
	// Key is the API key (Tavily, Jina, Brave). It is sent only to the
	// provider and never appears in results, errors or logs.
	Key string
	// URL is SearXNG's base URL; for the others it replaces the public
	// endpoint (a proxy, or a test server).
	URL string
	// Disabled leaves the provider out (recorded as ineligible).
	Disabled bool
}

// searchMaxResponse bounds a provider's answer.
const searchMaxResponse = 2 << 20

// searchProviderTimeout bounds one provider's request.
const searchProviderTimeout = 15 * time.Second

// searchServiceProvider runs one configured provider.
type searchServiceProvider struct {
	cfg    SearchProviderConfig
	client *http.Client
}

// ineligible says why the provider cannot be tried, or "".
func (p searchServiceProvider) ineligible() string {
	switch {
	case p.cfg.Disabled:
		return "switched off in Settings → Web"
	case p.cfg.Name == SearchSearXNG && strings.TrimSpace(p.cfg.URL) == "":
		return "no SearXNG URL (set it in Settings → Web or SEARXNG_URL)"
	case p.cfg.Name != SearchSearXNG && p.cfg.Name != SearchDuckDuckGo && p.cfg.Key == "":
		return fmt.Sprintf("no API key (add one in Settings → Web or set %s)", SearchKeyEnv[p.cfg.Name])
	}
	if _, ok := searchEndpoints[p.cfg.Name]; !ok && p.cfg.Name != SearchSearXNG {
		return "unknown provider"
	}
	return ""
}

func (p searchServiceProvider) endpoint() string {
	if p.cfg.URL != "" {
		return p.cfg.URL
	}
	return searchEndpoints[p.cfg.Name]
}

// search runs the query. Errors never contain the key: callers redact them
// all the same.
func (p searchServiceProvider) search(ctx context.Context, query string, count int) ([]SearchResult, error) {
	ctx, cancel := context.WithTimeout(ctx, searchProviderTimeout)
	defer cancel()
	switch p.cfg.Name {
	case SearchTavily:
		return p.tavily(ctx, query, count)
	case SearchJina:
		return p.jina(ctx, query, count)
	case SearchSearXNG:
		return p.searxng(ctx, query, count)
	case SearchBrave:
		return p.brave(ctx, query, count)
	case SearchDuckDuckGo:
		return p.duckduckgo(ctx, query, count)
	}
	return nil, fmt.Errorf("unknown provider %q", p.cfg.Name)
}

// do sends req and returns the body of a 2xx answer.
func (p searchServiceProvider) do(req *http.Request) ([]byte, error) {
	req.Header.Set("User-Agent", webUserAgent)
	resp, err := p.client.Do(req)
	if err != nil {
		if req.Context().Err() != nil {
			return nil, fmt.Errorf("no answer within %s", searchProviderTimeout)
		}
		var uerr *url.Error
		if errors.As(err, &uerr) {
			return nil, uerr.Err
		}
		return nil, err
	}
	defer resp.Body.Close()
	body, _, err := readAtMost(resp.Body, searchMaxResponse)
	if err != nil {
		return nil, fmt.Errorf("read the answer: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		msg := strings.TrimSpace(string(body))
		if len(msg) > 300 {
			msg = tools.CutUTF8(msg, 300) + "…"
		}
		hint := ""
		switch resp.StatusCode {
		case 401, 403:
			hint = " (check the API key)"
		case 429:
			hint = " (rate limited or out of credits)"
		}
		return nil, fmt.Errorf("HTTP %d%s: %s", resp.StatusCode, hint, msg)
	}
	return body, nil
}

// tavily: POST /search {"query", "max_results"} with a bearer key; the
// answer's "results" hold title, url, content and, for news,
// published_date.
func (p searchServiceProvider) tavily(ctx context.Context, query string, count int) ([]SearchResult, error) {
	body, _ := json.Marshal(map[string]any{"query": query, "max_results": count, "search_depth": "basic"})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.endpoint(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+p.cfg.Key)
	raw, err := p.do(req)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Results []struct {
			Title         string  `json:"title"`
			URL           string  `json:"url"`
			Content       string  `json:"content"`
			Score         float64 `json:"score"`
			PublishedDate string  `json:"published_date"`
		} `json:"results"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("unexpected answer: %v", err)
	}
	out := make([]SearchResult, 0, len(doc.Results))
	for _, r := range doc.Results {
		out = append(out, SearchResult{Title: r.Title, URL: r.URL, Snippet: r.Content, Date: r.PublishedDate})
	}
	return out, nil
}

// jina: GET s.jina.ai/?q=… with Accept: application/json; "data" holds
// title, url, description (and content, which X-Respond-With: no-content
// leaves out).
func (p searchServiceProvider) jina(ctx context.Context, query string, count int) ([]SearchResult, error) {
	u, err := url.Parse(p.endpoint())
	if err != nil {
		return nil, fmt.Errorf("bad endpoint: %v", err)
	}
	q := u.Query()
	q.Set("q", query)
	q.Set("num", strconv.Itoa(count))
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", "Bearer "+p.cfg.Key)
	req.Header.Set("X-Respond-With", "no-content")
	raw, err := p.do(req)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Code int `json:"code"`
		Data []struct {
			Title       string `json:"title"`
			URL         string `json:"url"`
			Description string `json:"description"`
			Content     string `json:"content"`
			Date        string `json:"date"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("unexpected answer: %v", err)
	}
	out := make([]SearchResult, 0, len(doc.Data))
	for _, r := range doc.Data {
		snippet := r.Description
		if snippet == "" {
			snippet = tools.CutUTF8(r.Content, 400)
		}
		out = append(out, SearchResult{Title: r.Title, URL: r.URL, Snippet: snippet, Date: r.Date})
	}
	return out, nil
}

// searxng: GET {base}/search?q=…&format=json (the instance must allow the
// json format); "results" hold url, title, content and publishedDate.
func (p searchServiceProvider) searxng(ctx context.Context, query string, count int) ([]SearchResult, error) {
	base, err := url.Parse(strings.TrimSpace(p.cfg.URL))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("the SearXNG URL %q is not an http(s) URL", p.cfg.URL)
	}
	u := base.JoinPath("search")
	q := u.Query()
	q.Set("q", query)
	q.Set("format", "json")
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	if p.cfg.Key != "" {
		req.Header.Set("Authorization", "Bearer "+p.cfg.Key)
	}
	raw, err := p.do(req)
	if err != nil {
		if strings.Contains(err.Error(), "HTTP 403") {
			return nil, fmt.Errorf("%v (is the json format enabled in the instance's settings.yml, search.formats?)", err)
		}
		return nil, err
	}
	var doc struct {
		Results []struct {
			URL           string  `json:"url"`
			Title         string  `json:"title"`
			Content       string  `json:"content"`
			PublishedDate *string `json:"publishedDate"`
			Engine        string  `json:"engine"`
		} `json:"results"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("unexpected answer (not JSON; is format=json enabled?): %v", err)
	}
	out := make([]SearchResult, 0, len(doc.Results))
	for _, r := range doc.Results {
		sr := SearchResult{Title: r.Title, URL: r.URL, Snippet: r.Content}
		if r.PublishedDate != nil {
			sr.Date = *r.PublishedDate
		}
		out = append(out, sr)
		if len(out) >= count {
			break
		}
	}
	return out, nil
}

// brave: GET /res/v1/web/search?q=…&count=… with X-Subscription-Token;
// "web.results" hold title, url, description (with <strong> marks), age
// and page_age.
func (p searchServiceProvider) brave(ctx context.Context, query string, count int) ([]SearchResult, error) {
	u, err := url.Parse(p.endpoint())
	if err != nil {
		return nil, fmt.Errorf("bad endpoint: %v", err)
	}
	q := u.Query()
	q.Set("q", query)
	q.Set("count", strconv.Itoa(count))
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Subscription-Token", p.cfg.Key)
	raw, err := p.do(req)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Web struct {
			Results []struct {
				Title       string `json:"title"`
				URL         string `json:"url"`
				Description string `json:"description"`
				Age         string `json:"age"`
				PageAge     string `json:"page_age"`
			} `json:"results"`
		} `json:"web"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("unexpected answer: %v", err)
	}
	out := make([]SearchResult, 0, len(doc.Web.Results))
	for _, r := range doc.Web.Results {
		date := r.PageAge
		if date == "" {
			date = r.Age
		}
		out = append(out, SearchResult{Title: stripTags(r.Title), URL: r.URL, Snippet: stripTags(r.Description), Date: date})
	}
	return out, nil
}

// duckduckgo scrapes the keyless HTML endpoint: results are
// div.result blocks with an a.result__a (the link, wrapped in a
// duckduckgo.com/l/?uddg= redirect) and an a.result__snippet; ads carry
// the result--ad class and are skipped.
func (p searchServiceProvider) duckduckgo(ctx context.Context, query string, count int) ([]SearchResult, error) {
	form := url.Values{"q": {query}, "kl": {"wt-wt"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.endpoint(), strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "text/html")
	raw, err := p.do(req)
	if err != nil {
		return nil, err
	}
	doc, err := html.Parse(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("unexpected answer: %v", err)
	}
	base, _ := url.Parse(p.endpoint())
	var out []SearchResult
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if len(out) >= count {
			return
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.Div && hasClass(n, "result") {
			if hasClass(n, "result--ad") {
				return
			}
			if r, ok := ddgResult(n, base); ok {
				out = append(out, r)
			}
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if len(out) == 0 && bytes.Contains(raw, []byte("anomaly")) {
		return nil, fmt.Errorf("DuckDuckGo asked for a captcha (too many automated searches); try again later or configure another provider")
	}
	return out, nil
}

func ddgResult(n *html.Node, base *url.URL) (SearchResult, bool) {
	var r SearchResult
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch {
			case n.DataAtom == atom.A && hasClass(n, "result__a") && r.URL == "":
				r.URL = absoluteURL(base, attr(n, "href"))
				r.Title = flatText(n)
			case hasClass(n, "result__snippet") && r.Snippet == "":
				r.Snippet = flatText(n)
			case hasClass(n, "result__extras__url"):
				// The date DuckDuckGo shows after the URL, when it has one.
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					if c.Type == html.ElementNode && c.DataAtom == atom.Span {
						if d := strings.TrimSpace(strings.Trim(innerText(c), "\u00a0 ")); d != "" {
							r.Date = d
						}
					}
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return r, r.URL != "" && r.Title != ""
}

func hasClass(n *html.Node, class string) bool {
	for _, f := range strings.Fields(attr(n, "class")) {
		if f == class {
			return true
		}
	}
	return false
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// stripTags removes HTML tags and entities from a snippet.
func stripTags(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return s
	}
	nodes, err := html.ParseFragment(strings.NewReader(s), &html.Node{Type: html.ElementNode, DataAtom: atom.Div, Data: "div"})
	if err != nil {
		return s
	}
	var b strings.Builder
	for _, n := range nodes {
		b.WriteString(innerText(n))
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
