package usertools

import (
	"slices"
	"strings"
	"testing"
)

// TestReportProblems: the lines the session log gets name each skipped or
// broken tool with its origin, file and problem, skipped ones first; a
// folder's own problem names the folder's kind; a clean report has none.
func TestReportProblems(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		r    Report
		want []string
	}{
		{name: "clean", r: Report{Loaded: []string{"mail"}}},
		{name: "skipped and broken", r: Report{
			Errors:  []Problem{{Tool: "mail", Origin: OriginCommon, Path: "/d/common_tools/mail.py", Message: "SyntaxError: invalid syntax (line 3)"}},
			Skipped: []Problem{{Tool: "grep", Origin: OriginPersonal, Path: "/d/agents/default/tools/grep.py", Message: "its name is taken by the core tool Grep"}},
		}, want: []string{
			"Skipped grep (personal, /d/agents/default/tools/grep.py): its name is taken by the core tool Grep",
			"Error in mail (common, /d/common_tools/mail.py): SyntaxError: invalid syntax (line 3)",
		}},
		{name: "a folder", r: Report{Errors: []Problem{{Origin: OriginPersonal, Message: "open /d/agents/default/tools: permission denied"}}},
			want: []string{"Error in the personal tools: open /d/agents/default/tools: permission denied"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := tc.r.Problems()
			if !slices.Equal(got, tc.want) {
				t.Errorf("Problems() = %q, want %q", got, tc.want)
			}
			for _, line := range tc.want {
				if !strings.Contains(tc.r.Summary(), line) {
					t.Errorf("Summary() lacks %q", line)
				}
			}
		})
	}
}
