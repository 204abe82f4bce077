package mcp

import (
	"maps"
	"slices"
	"testing"
)

func TestParsePromptLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line       string
		name       string
		args       map[string]string
		positional []string
		wantErr    bool
	}{
		{line: "/mcp__everything__simple-prompt", name: "mcp__everything__simple-prompt", args: map[string]string{}},
		{line: `/mcp__everything__args-prompt city=Paris state="Île de France"`, name: "mcp__everything__args-prompt",
			args: map[string]string{"city": "Paris", "state": "Île de France"}},
		{line: `  /p key=value "quoted value" 'single quoted' plain  `, name: "p",
			args: map[string]string{"key": "value"}, positional: []string{"quoted value", "single quoted", "plain"}},
		{line: `/p "a=b" x\ y note="say \"hi\""`, name: "p",
			args: map[string]string{"note": `say "hi"`}, positional: []string{"a=b", "x y"}},
		{line: `/p "key=quoted whole"`, name: "p", args: map[string]string{}, positional: []string{"key=quoted whole"}},
		{line: `/p empty= =value`, name: "p", args: map[string]string{"empty": ""}, positional: []string{"=value"}},
		{line: `/p a=1 a=2`, wantErr: true},
		{line: `/p "unclosed`, wantErr: true},
		{line: `no slash`, wantErr: true},
		{line: `/`, wantErr: true},
		{line: ``, wantErr: true},
	}
	for _, tc := range tests {
		inv, err := ParsePromptLine(tc.line)
		if tc.wantErr {
			if err == nil {
				t.Errorf("ParsePromptLine(%q) = %+v, want an error", tc.line, inv)
			}
			continue
		}
		if err != nil || inv.Name != tc.name || !maps.Equal(inv.Args, tc.args) || !slices.Equal(inv.Positional, tc.positional) {
			t.Errorf("ParsePromptLine(%q) = %+v, %v; want %s %v %q", tc.line, inv, err, tc.name, tc.args, tc.positional)
		}
	}
}

func TestCheckPromptArgs(t *testing.T) {
	t.Parallel()
	pc := PromptCommand{Name: "mcp__s__p", Arguments: []PromptArgument{
		{Name: "city", Description: "Name of the city", Required: true}, {Name: "state"}}}
	tests := []struct {
		args map[string]string
		err  string
	}{
		{map[string]string{"city": "Paris"}, ""},
		{map[string]string{"city": "Paris", "state": "TX"}, ""},
		{map[string]string{"state": "TX"}, "/mcp__s__p needs the argument city (Name of the city); write it as city=VALUE"},
		{map[string]string{"city": "x", "zip": "1"}, `/mcp__s__p has no argument "zip" (it takes: city, state)`},
	}
	for _, tc := range tests {
		err := checkPromptArgs(pc, tc.args)
		if (err == nil) != (tc.err == "") || err != nil && err.Error() != tc.err {
			t.Errorf("checkPromptArgs(%v) = %v, want %q", tc.args, err, tc.err)
		}
	}
}
