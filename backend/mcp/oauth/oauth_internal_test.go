package oauth

import "testing"

func TestCheckIss(t *testing.T) {
	t.Parallel()
	md := func(issuer string, promised bool) *Discovery {
		d := &Discovery{Found: true}
		d.Metadata.Issuer, d.Metadata.IssParameterSupported = issuer, promised
		return d
	}
	cases := []struct {
		name string
		d    *Discovery
		iss  string
		ok   bool
	}{
		{"promised and matching", md("https://as.example", true), "https://as.example", true},
		{"not promised, not sent", md("https://as.example", false), "", true},
		{"promised, missing", md("https://as.example", true), "", false},
		{"wrong issuer", md("https://as.example", true), "https://evil.example", false},
		{"not promised but sent wrong", md("https://as.example", false), "https://evil.example", false},
		{"a trailing slash is another string", md("https://as.example", true), "https://as.example/", false},
		{"2025-03-26 default endpoints", &Discovery{}, "https://anything.example", true},
	}
	for _, c := range cases {
		if err := checkIss(c.d, c.iss); (err == nil) != c.ok {
			t.Errorf("%s: checkIss = %v, want ok=%v", c.name, err, c.ok)
		}
	}
}
