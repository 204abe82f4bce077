package mcp

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

var validToolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func TestToolName(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 80)
	tests := []struct {
		server, tool string
		want         string // exact, or the start of a 64-character name when long
		long         bool
	}{
		{"github", "get_pull_request", "mcp__github__get_pull_request", false},
		{"everything", "get-sum", "mcp__everything__get-sum", false},
		{"my.server", "tool name/v2", "mcp__my_server__tool_name_v2", false},
		{"日本", "検索", "mcp______", false},
		{"s", "", "mcp__s___", false},
		{"s", long, "mcp__s__" + strings.Repeat("x", 47) + "_", true}, // then an 8-digit hash
	}
	for _, tc := range tests {
		got := ToolName(tc.server, tc.tool)
		if !validToolName.MatchString(got) {
			t.Errorf("ToolName(%q, %q) = %q is not a valid function name", tc.server, tc.tool, got)
		}
		if tc.long && (len(got) != MaxToolNameLen || !strings.HasPrefix(got, tc.want)) || !tc.long && got != tc.want {
			t.Errorf("ToolName(%q, %q) = %q, want %q", tc.server, tc.tool, got, tc.want)
		}
	}
	a, b := ToolName("s", long+"a"), ToolName("s", long+"b")
	if a == b || len(a) != 64 || len(b) != 64 {
		t.Errorf("long names %q and %q must differ and be 64 long", a, b)
	}
	if ToolName("s", long) != ToolName("s", long) {
		t.Error("ToolName is not deterministic")
	}
}

func TestAssignNames(t *testing.T) {
	t.Parallel()
	keys := []nameKey{
		{"b.srv", "run"},
		{"a", "x.y"},
		{"a", "x_y"},
		{"b_srv", "run"},
		{"c", "unique"},
	}
	got := assignNames(keys)
	if got[4] != "mcp__c__unique" {
		t.Errorf("a name without collision changed: %q", got[4])
	}
	// Among colliding keys the smallest (server, tool) keeps the plain name.
	if got[1] != "mcp__a__x_y" || !strings.HasPrefix(got[2], "mcp__a__x_y_") {
		t.Errorf("a x.y / x_y = %q, %q", got[1], got[2])
	}
	if got[0] != "mcp__b_srv__run" || !strings.HasPrefix(got[3], "mcp__b_srv__run_") {
		t.Errorf("b.srv / b_srv = %q, %q", got[0], got[3])
	}
	seen := map[string]bool{}
	for _, n := range got {
		if seen[n] || !validToolName.MatchString(n) {
			t.Errorf("name %q is repeated or invalid in %v", n, got)
		}
		seen[n] = true
	}
	// The outcome depends on the set, not on the order keys arrive in.
	rev := slices.Clone(keys)
	slices.Reverse(rev)
	again := assignNames(rev)
	slices.Reverse(again)
	if !slices.Equal(got, again) {
		t.Errorf("order changed the names: %v vs %v", got, again)
	}
}

func TestValidServerName(t *testing.T) {
	t.Parallel()
	for name, ok := range map[string]bool{
		"github": true, "brave-search": true, "a_1": true, "9lives": true,
		"": false, "-x": false, "my server": false, "a.b": false, strings.Repeat("a", 49): false,
	} {
		if ValidServerName(name) != ok {
			t.Errorf("ValidServerName(%q) = %v", name, !ok)
		}
	}
}
