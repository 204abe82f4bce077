package skills

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"tinyelf/internal/testutil"
)

// TestPublishedSkillsLoadUnchanged loads skills written the way public
// collections write them (scripts, references, assets, Claude Code fields,
// an unquoted colon, CRLF with a BOM, a folded description, a YAML list of
// allowed tools) without touching them.
func TestPublishedSkillsLoadUnchanged(t *testing.T) {
	e := newEnv(t)
	copyTree(t, "testdata/published", filepath.Join(e.home, ".claude", "skills"))
	snap := Load(Options{Home: e.home, NoDefaultBuiltins: true})
	if len(snap.Invalid) > 0 {
		t.Fatalf("invalid: %+v", snap.Invalid)
	}
	want := []string{"brand-guidelines", "data-analysis", "git-commit-helper", "pdf-processing", "release-notes", "webapp-testing"}
	if got := snap.Names(); !slices.Equal(got, want) {
		t.Fatalf("names = %v, want %v", got, want)
	}
	get := func(name string) *Skill {
		sk, ok := snap.Get(name)
		if !ok {
			t.Fatalf("%s missing", name)
		}
		if sk.Source != SourceUser {
			t.Errorf("%s source = %s", name, sk.Source)
		}
		return sk
	}

	pdf := get("pdf-processing")
	if pdf.License != "Proprietary. LICENSE.txt has complete terms" || len(pdf.Warnings) != 0 {
		t.Errorf("pdf: license %q warnings %v", pdf.License, pdf.Warnings)
	}
	files, truncated, err := pdf.Files(0)
	if err != nil || truncated {
		t.Fatal(err, truncated)
	}
	wantFiles := []string{"LICENSE.txt", "references/api.md", "references/forms.md", "scripts/extract_text.py", "scripts/fill_form.py", "scripts/list_fields.py"}
	if !slices.Equal(files, wantFiles) {
		t.Errorf("files = %v", files)
	}
	body, err := pdf.Body()
	if err != nil || !strings.HasPrefix(body, "# PDF processing") || strings.Contains(body, "description:") {
		t.Errorf("body = %q, %v", body, err)
	}
	if b, err := pdf.ReadFile("references/forms.md"); err != nil || !strings.Contains(string(b), "Filling PDF forms") {
		t.Errorf("ReadFile: %q %v", b, err)
	}

	web := get("webapp-testing")
	if !strings.Contains(web.Description, "Playwright: verify") || len(web.Warnings) != 1 || !strings.Contains(web.Warnings[0], "line 3") {
		t.Errorf("webapp: %q %v", web.Description, web.Warnings)
	}

	git := get("git-commit-helper")
	if git.ArgumentHint != "[scope]" || git.Model != "sonnet" || git.DisableModelInvocation || !git.UserInvocable {
		t.Errorf("git: %+v", git)
	}
	if got := git.AllowedTools.String(); got != "Bash(git diff:*) Bash(git status:*) Bash(git log:*) Read Grep" {
		t.Errorf("git allowed-tools = %q", got)
	}

	brand := get("brand-guidelines")
	if brand.Metadata["version"] != "2.1" || brand.Metadata["author"] != "example-org" || brand.Compatibility == "" {
		t.Errorf("brand: %+v", brand)
	}

	rel := get("release-notes")
	if !strings.HasPrefix(rel.Description, "Draft release notes from the merged pull requests") || rel.Extra["version"] != "1.2.0" ||
		!slices.Equal(rel.Arguments, []string{"from", "to"}) || len(rel.Warnings) != 0 {
		t.Errorf("release-notes: %+v", rel)
	}
	if body, err := rel.Body(); err != nil || !strings.HasPrefix(body, "# Release notes") || strings.Contains(body, "\r") {
		t.Errorf("release-notes body %q %v", body, err)
	}

	data := get("data-analysis")
	if data.Context != ContextFork || data.Agent != "general-purpose" || data.UserInvocable || data.WhenToUse == "" {
		t.Errorf("data-analysis: %+v", data)
	}
	if got := data.AllowedTools.String(); got != "Read Bash(python3 scripts/summarize.py *) mcp__duckdb__*" {
		t.Errorf("data-analysis allowed-tools = %q", got)
	}
}

// TestInvalidSkills checks every case lenient loading cannot forgive: the
// skill is listed with its exact problem and skipped, and the good skill
// beside it still loads.
func TestInvalidSkills(t *testing.T) {
	big := "---\nname: huge\ndescription: too big\n---\n" + strings.Repeat("x", 10<<20)
	cases := []struct {
		name    string
		content string
		rule    string
		message string
	}{
		{"no-frontmatter", "# Just a heading\n\nNo frontmatter at all.\n", "frontmatter-missing", "has no frontmatter"},
		{"unclosed", "---\nname: unclosed\ndescription: never closed\n", "frontmatter-unclosed", "never closed"},
		{"no-description", "---\nname: no-description\n---\nbody\n", "description-missing", "no description"},
		{"empty-description", "---\nname: empty-description\ndescription: \"  \"\n---\nbody\n", "description-empty", "description is empty"},
		{"list-description", "---\nname: list-description\ndescription:\n  - a\n  - b\n---\n", "description-type", "must be text, not a list"},
		{"bad-yaml", "---\nname: bad-yaml\ndescription: \"unterminated\nlicense: MIT\n---\n", "yaml", "not valid YAML"},
		{"bad-indent", "---\nname: bad-indent\n  description: x\n bad: [\n---\n", "yaml", "line "},
		{"scalar-frontmatter", "---\njust text\n---\n", "yaml", "must be a mapping"},
		{"latin1", "---\nname: latin1\ndescription: caf\xe9\n---\n", "encoding", "not UTF-8 text (byte 0xE9 on line 3)"},
		{"utf16", "\xff\xfe-\x00-\x00-\x00", "encoding", "UTF-16"},
		{"huge", big, "too-large", "over the 1.0 MB limit"},
	}
	e := newEnv(t)
	root := filepath.Join(e.data, "skills")
	for _, c := range cases {
		testutil.WriteFile(t, filepath.Join(root, c.name+"/SKILL.md"), c.content, 0)
	}
	testutil.WriteFile(t, filepath.Join(root, "good/SKILL.md"), skillMD("good", "A good skill.", "Body."), 0)
	testutil.WriteFile(t, filepath.Join(root, "not-a-skill/README.md"), "no SKILL.md here", 0)
	testutil.WriteFile(t, filepath.Join(root, "stray.md"), "a file, not a folder", 0)

	snap := Load(Options{DataDir: e.data, NoDefaultBuiltins: true})
	if got := snap.Names(); !slices.Equal(got, []string{"good"}) {
		t.Fatalf("loaded %v, want only good", got)
	}
	byName := map[string]Invalid{}
	for _, inv := range snap.Invalid {
		byName[inv.Name] = inv
	}
	if len(byName) != len(cases) {
		t.Errorf("%d invalid, want %d: %+v", len(byName), len(cases), snap.Invalid)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			inv, ok := byName[c.name]
			if !ok {
				t.Fatalf("not listed as invalid")
			}
			if inv.Problem.Rule != c.rule || !strings.Contains(inv.Problem.Message, c.message) {
				t.Errorf("problem = %s (%s), want rule %s with %q", inv.Problem.Message, inv.Problem.Rule, c.rule, c.message)
			}
			if inv.Problem.File != filepath.Join(root, c.name, "SKILL.md") || inv.Source != SourceUser {
				t.Errorf("file %s source %s", inv.Problem.File, inv.Source)
			}
		})
	}
}

// TestLenientWarnings checks the problems loading forgives, with a warning.
func TestLenientWarnings(t *testing.T) {
	long := strings.Repeat("a", 70)
	cases := []struct {
		dir, content, name, warning string
	}{
		{"folder", skillMD("other-name", "Named differently.", ""), "other-name", `differs from its folder "folder"`},
		{long, skillMD(long, "Long name.", ""), long, "over the limit of 64"},
		{"Upper", skillMD("Upper", "Uppercase.", ""), "Upper", "must be lowercase"},
		{"no-name", "---\ndescription: The folder names it.\n---\n", "no-name", "has no name"},
		{"colon", "---\nname: colon\ndescription: Use this skill when: the user asks about PDFs\n---\n", "colon", "line 3"},
		{"hint", "---\nname: hint\ndescription: Two hints.\nargument-hint: [pr-number] [priority]\n---\n", "hint", "line 4"},
		{"dup", "---\nname: dup\ndescription: first\ndescription: second\n---\n", "dup", "given twice"},
		{"bad-bool", "---\nname: bad-bool\ndescription: x\nuser-invocable: maybe\n---\n", "bad-bool", "should be true or false"},
		{"bad-tools", "---\nname: bad-tools\ndescription: x\nallowed-tools: Read Bash(git:*\n---\n", "bad-tools", "not closed"},
	}
	e := newEnv(t)
	root := filepath.Join(e.data, "skills")
	for _, c := range cases {
		testutil.WriteFile(t, filepath.Join(root, c.dir+"/SKILL.md"), c.content, 0)
	}
	snap := Load(Options{DataDir: e.data, NoDefaultBuiltins: true})
	if len(snap.Invalid) > 0 {
		t.Fatalf("invalid: %+v", snap.Invalid)
	}
	for _, c := range cases {
		t.Run(c.dir, func(t *testing.T) {
			sk, ok := snap.Get(c.name)
			if !ok {
				t.Fatalf("%s not loaded: %v", c.name, snap.Names())
			}
			if !slices.ContainsFunc(sk.Warnings, func(w string) bool { return strings.Contains(w, c.warning) }) {
				t.Errorf("warnings %q lack %q", sk.Warnings, c.warning)
			}
		})
	}
	if sk, _ := snap.Get("colon"); sk.Description != "Use this skill when: the user asks about PDFs" {
		t.Errorf("colon description = %q", sk.Description)
	}
	if sk, _ := snap.Get("hint"); sk.ArgumentHint != "[pr-number] [priority]" {
		t.Errorf("hint = %q", sk.ArgumentHint)
	}
	if sk, _ := snap.Get("dup"); sk.Description != "first" {
		t.Errorf("dup description = %q", sk.Description)
	}
}

// TestShadowing checks precedence user > project > builtin, and the order
// within one source.
func TestShadowing(t *testing.T) {
	e := newEnv(t)
	testutil.WriteFile(t, filepath.Join(e.data, "skills/shared/SKILL.md"), skillMD("shared", "user copy", ""), 0)
	testutil.WriteFile(t, filepath.Join(e.ws, ".claude/skills/shared/SKILL.md"), skillMD("shared", "project copy", ""), 0)
	testutil.WriteFile(t, filepath.Join(e.ws, ".tinyelf/skills/proj/SKILL.md"), skillMD("proj", "tinyelf folder", ""), 0)
	testutil.WriteFile(t, filepath.Join(e.ws, ".agents/skills/proj/SKILL.md"), skillMD("proj", "agents folder", ""), 0)
	testutil.WriteFile(t, filepath.Join(e.ws, ".claude/skills/code-review/SKILL.md"), skillMD("code-review", "project review", ""), 0)
	testutil.WriteFile(t, filepath.Join(e.home, ".agents/skills/home/SKILL.md"), skillMD("home", "home agents", ""), 0)
	testutil.WriteFile(t, filepath.Join(e.home, ".claude/skills/home/SKILL.md"), skillMD("home", "home claude", ""), 0)

	lib := NewLibrary(e.opts(), nil)
	snap := lib.Snapshot()
	check := func(name, desc string, src Source) {
		t.Helper()
		sk, ok := snap.Get(name)
		if !ok || sk.Description != desc || sk.Source != src {
			t.Errorf("%s = %+v, want %q from %s", name, sk, desc, src)
		}
	}
	check("shared", "user copy", SourceUser)
	check("proj", "tinyelf folder", SourceProject)
	check("code-review", "project review", SourceProject)
	check("home", "home agents", SourceUser)
	check("test-fix", mustBuiltin(t, "test-fix").Description, SourceBuiltin)

	shadowed := map[string]string{}
	for _, sh := range snap.Shadowed {
		shadowed[sh.Skill.Description] = sh.By.Description
	}
	want := map[string]string{
		"project copy":  "user copy",
		"agents folder": "tinyelf folder",
		"home claude":   "home agents",
		mustBuiltin(t, "code-review").Description: "project review",
	}
	for k, v := range want {
		if shadowed[k] != v {
			t.Errorf("%q shadowed by %q, want %q", k, shadowed[k], v)
		}
	}
	var listed []string
	for _, en := range lib.List() {
		if en.Status == StatusShadowed {
			listed = append(listed, en.Name+"/"+string(en.Source))
			if !strings.Contains(en.Reason, "shadowed by the") {
				t.Errorf("reason %q", en.Reason)
			}
		}
	}
	if !slices.Equal(listed, []string{"code-review/builtin", "home/user", "proj/project", "shared/project"}) {
		t.Errorf("listed shadowed = %v", listed)
	}
}

func mustBuiltin(t *testing.T, name string) *Skill {
	t.Helper()
	sk, ok := Load(Options{}).Get(name)
	if !ok {
		t.Fatalf("builtin %s missing", name)
	}
	return sk
}

// TestBuiltinSkills checks TinyElf's own skills and one added from another
// package's fs.FS.
func TestBuiltinSkills(t *testing.T) {
	extra := fstest.MapFS{
		"tool-creator/SKILL.md":             {Data: []byte(skillMD("tool-creator", "Create a user tool.", "# Tool creator\nSee references/schema.md."))},
		"tool-creator/references/schema.md": {Data: []byte("# Schema\n")},
		"test-fix/SKILL.md":                 {Data: []byte(skillMD("test-fix", "an imposter", ""))},
	}
	snap := Load(Options{Builtin: []BuiltinFS{{Label: "usertools", FS: extra}}})
	for _, name := range []string{"test-fix", "code-review", "tool-creator"} {
		sk, ok := snap.Get(name)
		if !ok {
			t.Fatalf("%s missing: %v", name, snap.Names())
		}
		if sk.Source != SourceBuiltin || !sk.Embedded() || len(sk.Warnings) > 0 {
			t.Errorf("%s: source %s embedded %v warnings %v", name, sk.Source, sk.Embedded(), sk.Warnings)
		}
		body, err := sk.Body()
		if err != nil || len(body) < 20 {
			t.Errorf("%s body %q %v", name, body, err)
		}
		if e := IndexEntryFor(sk, DefaultIndexDescriptionRunes); e.Description != sk.Description {
			t.Errorf("%s: the description is cut in the index: %q", name, e.Description)
		}
		if problems := validateData(mustRead(t, sk), sk.File, name, ""); len(problems) > 0 {
			t.Errorf("%s does not validate: %v", name, problems)
		}
	}
	if sk, _ := snap.Get("test-fix"); sk.Description == "an imposter" || sk.Root != "builtin:tinyelf" {
		t.Errorf("the package's own test-fix must win: %+v", sk)
	}
	tc, _ := snap.Get("tool-creator")
	if tc.Root != "builtin:usertools" || tc.Location() != "builtin:tool-creator/SKILL.md" {
		t.Errorf("tool-creator root %s location %s", tc.Root, tc.Location())
	}
	files, _, err := tc.Files(0)
	if err != nil || !slices.Equal(files, []string{"references/schema.md"}) {
		t.Errorf("files %v %v", files, err)
	}
	if b, err := tc.ReadFile("references/schema.md"); err != nil || string(b) != "# Schema\n" {
		t.Errorf("ReadFile %q %v", b, err)
	}
	if _, err := tc.ReadFile("../test-fix/SKILL.md"); err == nil {
		t.Error("ReadFile left the skill's folder")
	}
}

func mustRead(t *testing.T, sk *Skill) []byte {
	t.Helper()
	b, err := sk.readRaw("SKILL.md")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReadFileStaysInside checks that a skill's files cannot lead out of
// its folder, by path or by symbolic link.
func TestReadFileStaysInside(t *testing.T) {
	e := newEnv(t)
	root := filepath.Join(e.data, "skills")
	testutil.WriteFile(t, filepath.Join(root, "s/SKILL.md"), skillMD("s", "d", ""), 0)
	testutil.WriteFile(t, filepath.Join(e.data, "secret.txt"), "secret", 0)
	if err := os.Symlink(filepath.Join(e.data, "secret.txt"), filepath.Join(root, "s", "link.txt")); err != nil {
		t.Skip("no symlinks:", err)
	}
	sk, ok := Load(Options{DataDir: e.data, NoDefaultBuiltins: true}).Get("s")
	if !ok {
		t.Fatal("not loaded")
	}
	for _, p := range []string{"../../secret.txt", "/etc/passwd", "link.txt", ""} {
		if b, err := sk.ReadFile(p); err == nil {
			t.Errorf("ReadFile(%q) = %q, want an error", p, b)
		}
	}
}

func TestRootsDeduplicated(t *testing.T) {
	e := newEnv(t)
	// The workspace is the home folder: ~/.agents/skills is a user folder.
	roots := Options{DataDir: e.data, Home: e.home, Workspace: e.home}.Roots()
	var got []string
	for _, r := range roots {
		got = append(got, string(r.Source)+":"+strings.TrimPrefix(r.Dir, filepath.Dir(e.data)))
	}
	want := []string{"user:/data/skills", "user:/home/.agents/skills", "user:/home/.claude/skills", "project:/home/.tinyelf/skills", "builtin:builtin:tinyelf"}
	if !slices.Equal(got, want) {
		t.Errorf("roots = %v, want %v", got, want)
	}
}

// TestSymlinkedSkillFolder: ~/.claude/skills often holds links to skill
// folders kept elsewhere; they load and read like any other.
func TestSymlinkedSkillFolder(t *testing.T) {
	e := newEnv(t)
	real := filepath.Join(e.home, "dev", "linked")
	testutil.WriteFile(t, filepath.Join(real, "SKILL.md"), skillMD("linked", "Kept elsewhere.", "Linked body."), 0)
	testutil.WriteFile(t, filepath.Join(real, "references/r.md"), "ref", 0)
	root := filepath.Join(e.home, ".claude", "skills")
	os.MkdirAll(root, 0o755)
	if err := os.Symlink(real, filepath.Join(root, "linked")); err != nil {
		t.Skip("no symlinks:", err)
	}
	sk, ok := Load(Options{Home: e.home, NoDefaultBuiltins: true}).Get("linked")
	if !ok {
		t.Fatal("a symlinked skill folder did not load")
	}
	body, err := sk.Body()
	files, _, ferr := sk.Files(0)
	if err != nil || body != "Linked body." || ferr != nil || !slices.Equal(files, []string{"references/r.md"}) {
		t.Errorf("body %q %v files %v %v", body, err, files, ferr)
	}
}
