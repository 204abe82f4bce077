package skills

import (
	"path/filepath"
	"strings"
	"testing"

	"tinyelf/internal/testutil"
)

// frontmatterCases are SKILL.md files whose frontmatter is unusual: YAML
// that fails to parse (skipped and reported with the parser's message and
// the file's line), and shapes that are valid or that the client guide's
// retry forgives (loaded with the text the author wrote). The install and
// load agreement test reuses them.
var frontmatterCases = []struct {
	name    string
	content string
	// Loaded: the description the skill loads with, and a warning it must
	// carry ("" none). Otherwise the problem's line and message.
	loaded  bool
	desc    string
	warning string
	line    int
	message string
}{
	{name: "unclosed-list", content: "---\nname: unclosed-list\ndescription: [unclosed\n---\nbody\n",
		line: 3, message: "did not find expected ',' or ']'"},
	{name: "unclosed-map", content: "---\nname: unclosed-map\ndescription: {unclosed\nlicense: MIT\n---\nbody\n",
		line: 3, message: "did not find expected ',' or '}'"},
	{name: "bracket-then-colon", content: "---\nname: bracket-then-colon\ndescription: [WIP] Use when: the user asks\n---\nbody\n",
		line: 3, message: "not valid YAML"},
	{name: "unterminated-quote", content: "---\nname: unterminated-quote\ndescription: \"never ends\nlicense: MIT\n---\nbody\n",
		message: "found unexpected end of stream"},
	{name: "tab-indent", content: "---\nname: tab-indent\ndescription: Tabs.\nmetadata:\n\tauthor: me\n---\nbody\n",
		line: 5, message: "found character that cannot start any token (YAML does not allow tabs for indentation; indent with spaces)"},
	{name: "colon-and-broken", content: "---\nname: colon-and-broken\ndescription: Use when: asked\nlicense: [MIT\n---\nbody\n",
		message: "not valid YAML"},
	{name: "tab-separator", content: "---\nname: tab-separator\ndescription:\tA tab after the colon.\n---\nbody\n",
		loaded: true, desc: "A tab after the colon."},
	{name: "tab-in-value", content: "---\nname: tab-in-value\ndescription: Columns\tlike\tthese.\n---\nbody\n",
		loaded: true, desc: "Columns\tlike\tthese."},
	{name: "bom", content: "\uFEFF---\nname: bom\ndescription: Saved by an editor that writes a BOM.\n---\nbody\n",
		loaded: true, desc: "Saved by an editor that writes a BOM."},
	{name: "crlf", content: "---\r\nname: crlf\r\ndescription: Saved on Windows.\r\nmetadata:\r\n  author: me\r\n---\r\nbody\r\n",
		loaded: true, desc: "Saved on Windows."},
	{name: "bom-crlf", content: "\uFEFF---\r\nname: bom-crlf\r\ndescription: Both.\r\n---\r\n",
		loaded: true, desc: "Both."},
	{name: "colon-retry", content: "---\nname: colon-retry\ndescription: Use this skill when: the user asks about PDFs\n---\nbody\n",
		loaded: true, desc: "Use this skill when: the user asks about PDFs", warning: "line 3: a value containing ': '"},
	{name: "colon-retry-crlf", content: "\uFEFF---\r\nname: colon-retry-crlf\r\ndescription: Steps: read, then write\r\n---\r\n",
		loaded: true, desc: "Steps: read, then write", warning: "line 3"},
	{name: "trailing-colon", content: "---\nname: trailing-colon\ndescription: Use for this:\n---\nbody\n",
		loaded: true, desc: "Use for this:", warning: "line 3"},
	{name: "quoted-colon", content: "---\nname: quoted-colon\ndescription: \"Already quoted: fine\"\n---\nbody\n",
		loaded: true, desc: "Already quoted: fine"},
	{name: "hint-words", content: "---\nname: hint-words\ndescription: Claude Code's hint style.\nargument-hint: [file] [format]\n---\nbody\n",
		loaded: true, desc: "Claude Code's hint style.", warning: "line 4"},
}

// TestFrontmatterYAML: YAML that fails to parse skips the skill and
// reports the parser's message at the file's line; tabs, a BOM, CRLF and
// the client guide's `: ` retry load with the author's text.
func TestFrontmatterYAML(t *testing.T) {
	e := newEnv(t)
	root := filepath.Join(e.data, "skills")
	for _, c := range frontmatterCases {
		testutil.WriteFile(t, filepath.Join(root, c.name+"/SKILL.md"), c.content, 0)
	}
	snap := Load(Options{DataDir: e.data, NoDefaultBuiltins: true})
	invalid := map[string]Invalid{}
	for _, inv := range snap.Invalid {
		invalid[inv.Name] = inv
	}
	for _, c := range frontmatterCases {
		t.Run(c.name, func(t *testing.T) {
			sk, ok := snap.Get(c.name)
			if !c.loaded {
				if ok {
					t.Fatalf("loaded with description %q; want it skipped", sk.Description)
				}
				inv, ok := invalid[c.name]
				if !ok {
					t.Fatal("neither loaded nor reported")
				}
				p := inv.Problem
				if p.Rule != "yaml" || !strings.Contains(p.Message, c.message) || !strings.HasPrefix(p.Message, "the frontmatter is not valid YAML: ") {
					t.Errorf("problem %q (%s), want the parser's %q", p.Message, p.Rule, c.message)
				}
				if c.line != 0 && p.Line != c.line {
					t.Errorf("reported at line %d, want %d: %s", p.Line, c.line, p)
				}
				return
			}
			if !ok {
				t.Fatalf("not loaded: %+v", invalid[c.name].Problem)
			}
			if sk.Description != c.desc {
				t.Errorf("description %q, want %q", sk.Description, c.desc)
			}
			if c.warning != "" && !strings.Contains(strings.Join(sk.Warnings, "\n"), c.warning) {
				t.Errorf("warnings %q lack %q", sk.Warnings, c.warning)
			}
			if c.warning == "" && len(sk.Warnings) > 0 {
				t.Errorf("unexpected warnings %q", sk.Warnings)
			}
			if body, err := sk.Body(); err != nil || body != "body" && body != "" {
				t.Errorf("body %q, %v", body, err)
			}
		})
	}
}

// TestValidateIsStrictOnRetriedYAML: `skills validate` forgives nothing the
// loader retried, and says how to fix it.
func TestValidateIsStrictOnRetriedYAML(t *testing.T) {
	for _, c := range frontmatterCases {
		if c.warning == "" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), c.name)
			testutil.WriteFile(t, filepath.Join(filepath.Dir(dir), c.name+"/SKILL.md"), c.content, 0)
			ps := Validate(dir)
			if !HasErrors(ps) || ps[0].Rule != "yaml" || !strings.Contains(ps[0].Message, "must be quoted") {
				t.Errorf("validate: %v", ps)
			}
		})
	}
}
