package config

import (
	"slices"
	"testing"
)

func TestWebSettings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		order []string
		want  []string
	}{
		{nil, WebSearchProviderNames},
		{[]string{"duckduckgo", "Brave", "nope", "brave"}, []string{"duckduckgo", "brave", "tavily", "jina", "searxng"}},
	} {
		if got := (Web{Order: tc.order}).SearchOrder(); !slices.Equal(got, tc.want) {
			t.Errorf("SearchOrder(%v) = %v, want %v", tc.order, got, tc.want)
		}
	}
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == EnvWebAllowLocal {
				return v
			}
			return ""
		}
	}
	if (Web{}).LocalAllowed(env("")) || !(Web{}).LocalAllowed(env("1")) || !(Web{AllowLocal: true}).LocalAllowed(env("0")) {
		t.Error("LocalAllowed: the switch or TINYELF_WEB_ALLOW_LOCAL=1 allows local addresses")
	}
	off := false
	if !(Web{}).NativeSearchOn() || (Web{NativeSearch: &off}).NativeSearchOn() {
		t.Error("NativeSearchOn: on unless set to false")
	}
}
