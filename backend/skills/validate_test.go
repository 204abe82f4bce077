package skills

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tinyelf/internal/testutil"
)

// TestValidate checks every rule of the spec with its file and line.
func TestValidate(t *testing.T) {
	type want struct {
		rule string
		line int
		text string
	}
	cases := []struct {
		dir     string
		content string
		want    []want
	}{
		{"good", "---\nname: good\ndescription: Does a thing. Use when asked.\nlicense: MIT\ncompatibility: Needs git\nmetadata:\n  author: me\nallowed-tools: Bash(git:*) Read\n---\n\n# Good\n", nil},
		{"missing", "---\nlicense: MIT\n---\n", []want{{"name-missing", 2, "missing required field: name"}, {"description-missing", 2, "missing required field: description"}}},
		{"Bad--Name-", "---\nname: Bad--Name-\ndescription: d\n---\n", []want{
			{"name-format", 2, "must be lowercase"}, {"name-format", 2, "must not start or end with a hyphen"},
			{"name-format", 2, "consecutive hyphens"}}},
		{"under_score", "---\nname: under_score\ndescription: d\n---\n", []want{{"name-format", 2, "only letters, digits and hyphens"}}},
		{"mismatch", "---\nname: other\ndescription: d\n---\n", []want{{"name-dir-mismatch", 2, `must match the folder's name "mismatch"`}}},
		{strings.Repeat("n", 65), "---\nname: " + strings.Repeat("n", 65) + "\ndescription: d\n---\n", []want{{"name-format", 2, "65 characters long"}}},
		{"long-desc", "---\nname: long-desc\ndescription: " + strings.Repeat("d", 1025) + "\n---\n", []want{{"description-length", 3, "1025 characters long"}}},
		{"empty-desc", "---\nname: empty-desc\ndescription: ''\n---\n", []want{{"description-empty", 3, "non-empty"}}},
		{"long-compat", "---\nname: long-compat\ndescription: d\ncompatibility: " + strings.Repeat("c", 501) + "\n---\n", []want{{"compatibility-length", 4, "501 characters"}}},
		{"bad-meta", "---\nname: bad-meta\ndescription: d\nmetadata:\n  ok: yes\n  nested:\n    a: b\n---\n", []want{{"metadata-type", 6, "metadata.nested must be text"}}},
		{"meta-list", "---\nname: meta-list\ndescription: d\nmetadata: [a, b]\n---\n", []want{{"metadata-type", 4, "must be a mapping"}}},
		{"unknown", "---\nname: unknown\ndescription: d\nversion: 1.0\nuser-invocable: false\n---\n", []want{{"unknown-field", 4, `unexpected field "version"`}}},
		{"bad-tools", "---\nname: bad-tools\ndescription: d\nallowed-tools: Read Bash(git:*\n---\n", []want{{"allowed-tools-syntax", 4, "not closed"}}},
		{"bad-claude", "---\nname: bad-claude\ndescription: d\nuser-invocable: sometimes\ncontext: detached\nargument-hint: [file]\n---\n", []want{
			{"type", 4, "user-invocable must be true or false"}, {"context-value", 5, `not "detached"`}, {"type", 6, "argument-hint must be quoted"}}},
		{"colon", "---\nname: colon\ndescription: Use when: asked\n---\n", []want{{"yaml", 3, "must be quoted"}}},
		{"dup", "---\nname: dup\ndescription: a\ndescription: b\n---\n", []want{{"duplicate-field", 4, "more than once"}}},
		{"no-fm", "# Title\n", []want{{"frontmatter-missing", 1, "no frontmatter"}}},
		{"links", "---\nname: links\ndescription: d\n---\n\nSee [the guide](references/guide.md) and [up](../x.md).\n\n```\n[not a link](nowhere.md)\n```\n[web](https://example.com) [anchor](#top)\n", []want{
			{"link-missing", 6, `"references/guide.md"`}, {"link-outside", 6, `"../x.md"`}}},
	}
	root := t.TempDir()
	for _, c := range cases {
		t.Run(c.dir, func(t *testing.T) {
			dir := filepath.Join(root, c.dir)
			file := testutil.WriteFile(t, filepath.Join(dir, "SKILL.md"), c.content, 0)
			got := Validate(dir)
			if len(got) != len(c.want) {
				t.Fatalf("got %d problems, want %d:\n%s", len(got), len(c.want), render(got))
			}
			for i, w := range c.want {
				p := got[i]
				if p.Rule != w.rule || p.Line != w.line || !strings.Contains(p.Message, w.text) || p.File != file {
					t.Errorf("problem %d = %s [%s], want %s:%d [%s] containing %q", i, p, p.Rule, file, w.line, w.rule, w.text)
				}
			}
			if HasErrors(got) != (len(c.want) > 0) {
				t.Errorf("HasErrors = %v", HasErrors(got))
			}
		})
	}
}

func render(ps []Problem) string {
	var sb strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&sb, "  %s [%s]\n", p, p.Rule)
	}
	return sb.String()
}

func TestValidateFolderProblems(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFile(t, filepath.Join(root, "file"), "x", 0)
	os.MkdirAll(filepath.Join(root, "empty"), 0o755)
	testutil.WriteFile(t, filepath.Join(root, "long/SKILL.md"), "---\nname: long\ndescription: d\n---\n"+strings.Repeat("line\n", 501), 0)
	testutil.WriteFile(t, filepath.Join(root, "lower/skill.md"), "---\nname: lower\ndescription: d\n---\n", 0)
	cases := []struct {
		dir, rule string
		warning   bool
	}{
		{"missing", "not-found", false},
		{"file", "not-a-folder", false},
		{"empty", "skill-md-missing", false},
		{"long", "body-length", true},
	}
	for _, c := range cases {
		got := Validate(filepath.Join(root, c.dir))
		if len(got) != 1 || got[0].Rule != c.rule || got[0].Warning != c.warning {
			t.Errorf("%s: %s", c.dir, render(got))
		}
	}
	if got := Validate(filepath.Join(root, "lower")); len(got) != 0 {
		t.Errorf("lowercase skill.md: %s", render(got))
	}
	if HasErrors(Validate(filepath.Join(root, "long"))) {
		t.Error("a long body is only a warning")
	}
}

// TestValidatePublished: the published-style skills are valid, apart from
// the fields and the colon the spec's strict reading refuses.
func TestValidatePublished(t *testing.T) {
	allowed := map[string][]string{
		"webapp-testing":    {"yaml"},
		"git-commit-helper": {"type"}, // argument-hint: [scope] unquoted
		"release-notes":     {"unknown-field"},
	}
	entries, err := os.ReadDir("testdata/published")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		got := Validate(filepath.Join("testdata/published", e.Name()))
		for _, p := range got {
			ok := false
			for _, r := range allowed[e.Name()] {
				ok = ok || p.Rule == r
			}
			if !ok {
				t.Errorf("%s: %s [%s]", e.Name(), p, p.Rule)
			}
		}
	}
}
