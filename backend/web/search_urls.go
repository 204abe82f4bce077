package web

import (
	"encoding/base64"
	"net/url"
	"strings"
)

// unwrapRedirect returns the target of a search engine's click-tracking
// link (DuckDuckGo's /l/?uddg=, Google's /url?q=, Bing's /ck/a?u=a1…,
// Yahoo's RU=…/), or the URL itself.
func unwrapRedirect(raw string) string {
	for range 3 { // a wrapped link may be wrapped again
		next := unwrapOnce(raw)
		if next == raw {
			break
		}
		raw = next
	}
	return raw
}

func unwrapOnce(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return raw
	}
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	q := u.Query()
	pick := func(keys ...string) string {
		for _, k := range keys {
			if v := q.Get(k); isHTTPURL(v) {
				return v
			}
		}
		return raw
	}
	switch {
	case strings.HasSuffix(host, "duckduckgo.com") && strings.HasPrefix(u.Path, "/l/"):
		return pick("uddg")
	case (strings.HasPrefix(host, "google.") || strings.Contains(host, ".google.")) && u.Path == "/url":
		return pick("q", "url")
	case strings.HasSuffix(host, "bing.com") && strings.HasPrefix(u.Path, "/ck/a"):
		if v := q.Get("u"); strings.HasPrefix(v, "a1") {
			if b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(v[2:], "=")); err == nil && isHTTPURL(string(b)) {
				return string(b)
			}
		}
	case strings.HasSuffix(host, "search.yahoo.com"):
		// r.search.yahoo.com/_ylt=…/RU=https%3a%2f%2f…/RK=2/RS=…
		if i := strings.Index(u.EscapedPath(), "/RU="); i >= 0 {
			rest := u.EscapedPath()[i+4:]
			if j := strings.Index(rest, "/"); j >= 0 {
				rest = rest[:j]
			}
			if v, err := url.PathUnescape(rest); err == nil && isHTTPURL(v) {
				return v
			}
		}
	}
	return raw
}

func isHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// dedupKey is a URL reduced to what makes two results the same page: no
// scheme, no "www.", no fragment, no trailing slash, no tracking
// parameters.
func dedupKey(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return strings.ToLower(strings.TrimSpace(raw))
	}
	q := u.Query()
	for k := range q {
		lk := strings.ToLower(k)
		if strings.HasPrefix(lk, "utm_") || lk == "fbclid" || lk == "gclid" || lk == "ref" || lk == "ref_src" {
			q.Del(k)
		}
	}
	host := strings.TrimPrefix(strings.ToLower(u.Host), "www.")
	path := strings.TrimRight(u.EscapedPath(), "/")
	key := host + path
	if enc := q.Encode(); enc != "" {
		key += "?" + enc
	}
	return key
}
