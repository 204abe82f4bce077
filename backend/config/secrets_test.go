package config

import (
	"slices"
	"testing"
)

func TestLooksSecret(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, value string
		want        bool
	}{
		{"GITHUB_TOKEN", "ghp_abc", true},
		{"API_KEY", "anything", true},
		{"Authorization", "Bearer abc.def", true},
		{"DB_PASSWORD", "hunter2", true},
		{"X-Custom", "sk-proj-0123456789abcdef", true},
		{"X-Custom", "Bearer eyJhbGciOiJIUzI1NiJ9.payload", true},
		{"DATABASE_URL", "postgres://app:s3cret@db:5432/app", true},
		{"BLOB", "AbCdEf0123456789GhIjKlMnOpQr", true},
		{"GITHUB_TOKEN", "${GITHUB_TOKEN}", false},
		{"Authorization", "Bearer ${TOKEN}", false},
		{"API_KEY", "${KEY:-}", false},
		{"API_KEY", "", false},
		{"LOG_LEVEL", "debug", false},
		{"NODE_ENV", "production", false},
		{"PATH", "/usr/local/bin:/usr/bin", false},
		{"ROOT", "/home/user/projects/very-long-folder-name-2026", false},
		{"URL", "https://example.com/mcp", false},
	} {
		if got := LooksSecret(tc.name, tc.value); got != tc.want {
			t.Errorf("LooksSecret(%q, %q) = %v, want %v", tc.name, tc.value, got, tc.want)
		}
	}
}

func TestMaskAndUnmask(t *testing.T) {
	t.Parallel()
	stored := MCPServer{Name: "s",
		Env:     map[string]string{"GITHUB_TOKEN": "ghp_0123456789abcdefWXYZ", "SHORT_KEY": "abc", "LEVEL": "info"},
		Headers: map[string]string{"Authorization": "Bearer sk-0123456789abcdefABCD"}}
	shown := MaskMCPServer(stored)
	for k, want := range map[string]string{"GITHUB_TOKEN": MaskPrefix + "WXYZ", "SHORT_KEY": MaskPrefix, "LEVEL": "info"} {
		if shown.Env[k] != want {
			t.Errorf("env %s shown as %q, want %q", k, shown.Env[k], want)
		}
	}
	if got := shown.Headers["Authorization"]; got != "Bearer "+MaskPrefix+"ABCD" {
		t.Errorf("header shown as %q", got)
	}
	if stored.Env["GITHUB_TOKEN"] != "ghp_0123456789abcdefWXYZ" {
		t.Error("masking changed the stored server")
	}
	back := UnmaskMCPServer(shown, stored)
	if !mapsEqual(back.Env, stored.Env) || !mapsEqual(back.Headers, stored.Headers) {
		t.Errorf("unmasked %v %v, want the stored values", back.Env, back.Headers)
	}
	if HasMasked(back) {
		t.Error("HasMasked after a full unmask")
	}
	edited := MaskMCPServer(stored)
	edited.Env["GITHUB_TOKEN"] = "ghp_typed_by_the_user_0000"
	edited.Env["NEW_TOKEN"] = MaskPrefix + "WXYZ"
	back = UnmaskMCPServer(edited, stored)
	if back.Env["GITHUB_TOKEN"] != "ghp_typed_by_the_user_0000" {
		t.Errorf("typed value lost: %q", back.Env["GITHUB_TOKEN"])
	}
	if !HasMasked(back) {
		t.Error("a masked value under a new name was not reported")
	}
}

func TestSecretValues(t *testing.T) {
	t.Parallel()
	s := Settings{
		Providers:   []Provider{{Name: "a", APIKey: "sk-provider-0123456789"}, {Name: "local", APIKey: "ollama"}},
		Web:         Web{Search: map[string]WebSearchProvider{"tavily": {APIKey: "tvly-0123456789"}}},
		MCPServers:  []MCPServer{{Name: "m", Env: map[string]string{"TOKEN": "tok-0123456789", "REF": "${X}", "LEVEL": "debugging-verbose"}}},
		Agents:      []Agent{{Name: "g", DirectMCPServers: []MCPServer{{Name: "d", Headers: map[string]string{"Authorization": "Bearer direct-0123456789"}}}}},
		Credentials: map[string]Credential{"myapi": {APIKey: "cred-key-0123456789", Keys: map[string]string{"client_secret": "cred-secret-0123456789"}}},
	}
	got := s.SecretValues()
	for _, want := range []string{"sk-provider-0123456789", "tvly-0123456789", "tok-0123456789", "direct-0123456789", "cred-key-0123456789", "cred-secret-0123456789"} {
		if !slices.Contains(got, want) {
			t.Errorf("SecretValues lacks %q: %v", want, got)
		}
	}
	for _, not := range []string{"ollama", "${X}", "debugging-verbose", "Bearer direct-0123456789"} {
		if slices.Contains(got, not) {
			t.Errorf("SecretValues holds %q: %v", not, got)
		}
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
