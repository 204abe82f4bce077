package usertools_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tinyelf/backend/skills"
	"tinyelf/backend/usertools"
)

// tool-creator is a valid Agent Skill that the skills package loads as a
// builtin tree.
func TestToolCreatorSkill(t *testing.T) {
	snap := skills.Load(skills.Options{NoDefaultBuiltins: true, Builtin: []skills.BuiltinFS{{Label: "usertools", FS: usertools.SkillFS()}}})
	sk, ok := snap.Get("tool-creator")
	if !ok {
		t.Fatalf("tool-creator not loaded: %+v", snap.Invalid)
	}
	if !strings.Contains(sk.Description, "refresh_tools") || !strings.Contains(sk.Description, "share_tool") {
		t.Errorf("description %q", sk.Description)
	}
	// The strict validator, on a copy on disk.
	dir := filepath.Join(t.TempDir(), "tool-creator")
	if err := os.CopyFS(dir, mustSub(t, usertools.SkillFS(), "tool-creator")); err != nil {
		t.Fatal(err)
	}
	if problems := skills.Validate(dir); skills.HasErrors(problems) {
		t.Fatalf("problems: %+v", problems)
	}
	body, _ := fs.ReadFile(usertools.SkillFS(), "tool-creator/SKILL.md")
	for _, want := range []string{"get_tool_schemas", "EXECUTION_PROFILE", ".tool.json", "gated", "background_eligible", "Validation checklist"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("SKILL.md lacks %q", want)
		}
	}
}

func mustSub(t *testing.T, fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		t.Fatal(err)
	}
	return sub
}
