package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestWebSettings(t *testing.T) {
	t.Parallel()
	h := newSvc(t)
	ctx := context.Background()
	const key = "tvly-abcdefgh-12345678"
	var gotAuth string
	tavily := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth = r.Header.Get("Authorization")
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"query":"q","results":[{"url":"https://example.org/a","title":"A","content":"alpha","score":0.9,"raw_content":null}],"response_time":0.4}`))
	}))
	t.Cleanup(tavily.Close)

	v, err := h.svc.GetWebSettings(ctx, struct{}{})
	if err != nil {
		t.Fatal(err)
	}
	if v.AllowLocal || !v.NativeSearch || len(v.Providers) != 5 || v.Providers[0].Name != "tavily" || v.Providers[4].Name != "duckduckgo" || !v.Providers[4].Ready {
		t.Fatalf("defaults: %+v", v)
	}

	url := tavily.URL
	on, off := true, false
	v, err = h.svc.SaveWebSettings(ctx, SaveWebArgs{
		AllowLocal: &on, NativeSearch: &off, Order: []string{"duckduckgo", "tavily"},
		Providers: map[string]WebProviderEdit{"tavily": {APIKey: key, URL: &url}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !v.AllowLocal || v.NativeSearch {
		t.Errorf("switches: %+v", v)
	}
	names := []string{}
	for _, p := range v.Providers {
		names = append(names, p.Name)
	}
	if strings.Join(names, ",") != "duckduckgo,tavily,brave,jina,searxng" {
		t.Errorf("order = %v", names)
	}
	tv := v.Providers[1]
	if !tv.KeySet || tv.KeyHint != "…5678" || tv.KeyFromEnv || !tv.Ready {
		t.Errorf("tavily view = %+v", tv)
	}
	b, _ := json.Marshal(v)
	if strings.Contains(string(b), key) {
		t.Fatal("the key is sent to the UI")
	}

	// An empty key keeps the saved one; ClearKey removes it.
	if v, _ = h.svc.SaveWebSettings(ctx, SaveWebArgs{Providers: map[string]WebProviderEdit{"tavily": {}}}); !v.Providers[1].KeySet {
		t.Error("an empty key must keep the saved one")
	}

	res, err := h.svc.TestWebSearch(ctx, TestWebSearchArgs{Provider: "tavily"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK || len(res.Results) != 1 || gotAuth != "Bearer "+key || len(res.Attempts) != 1 || res.Attempts[0].Outcome != "success" {
		t.Fatalf("test = %+v (auth %q)", res, gotAuth)
	}

	if v, _ = h.svc.SaveWebSettings(ctx, SaveWebArgs{Providers: map[string]WebProviderEdit{"tavily": {ClearKey: true}}}); v.Providers[1].KeySet {
		t.Error("ClearKey must remove the key")
	}
	res, _ = h.svc.TestWebSearch(ctx, TestWebSearchArgs{Provider: "tavily"})
	if res.OK || !strings.Contains(res.Message, "no API key") {
		t.Errorf("test without a key = %+v", res)
	}

	for _, bad := range []SaveWebArgs{
		{Order: []string{"google"}},
		{Providers: map[string]WebProviderEdit{"bing": {}}},
		{Providers: map[string]WebProviderEdit{"searxng": {URL: ptr("ftp://x")}}},
		{Providers: map[string]WebProviderEdit{"brave": {APIKey: "two words"}}},
	} {
		if _, err := h.svc.SaveWebSettings(ctx, bad); err == nil {
			t.Errorf("%+v was accepted", bad)
		}
	}
	// The methods are reachable by name, as the UI calls them.
	if _, ok := h.svc.Methods()["TestWebSearch"]; !ok {
		t.Error("TestWebSearch is not in the method table")
	}
}
