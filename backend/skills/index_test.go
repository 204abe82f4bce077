package skills

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"tinyelf/internal/testutil"
)

func TestIndex(t *testing.T) {
	e := newEnv(t)
	long := strings.Repeat("word ", 100)
	testutil.WriteFile(t, filepath.Join(e.data, "skills/long/SKILL.md"), skillMD("long", long, ""), 0)
	testutil.WriteFile(t, filepath.Join(e.data, "skills/manual/SKILL.md"), "---\nname: manual\ndescription: hidden\ndisable-model-invocation: true\n---\n", 0)
	testutil.WriteFile(t, filepath.Join(e.data, "skills/when/SKILL.md"), "---\nname: when\ndescription: Does X.\nwhen_to_use: the user says Y\n---\n", 0)
	testutil.WriteFile(t, filepath.Join(e.data, "skills/nihongo/SKILL.md"), skillMD("nihongo", "日本語の説明です", ""), 0)
	lib := NewLibrary(Options{DataDir: e.data, NoDefaultBuiltins: true}, nil)
	idx := lib.Index(IndexOptions{})
	var names []string
	total := 0
	for _, en := range idx.Entries {
		names = append(names, en.Name)
		total += en.Tokens
		if en.ID != "skill__"+en.Name || en.Line != "- "+en.Name+": "+en.Description {
			t.Errorf("entry %+v", en)
		}
	}
	if strings.Join(names, ",") != "long,nihongo,when" || total != idx.Tokens {
		t.Errorf("names %v tokens %d/%d", names, total, idx.Tokens)
	}
	if d := idx.Entries[0].Description; utf8.RuneCountInString(d) > DefaultIndexDescriptionRunes || !strings.HasSuffix(d, "…") {
		t.Errorf("long description not capped: %q", d)
	}
	if idx.Entries[2].Description != "Does X. the user says Y" {
		t.Errorf("when_to_use: %q", idx.Entries[2].Description)
	}
	text := idx.Text()
	if !strings.HasPrefix(text, "Skills (task guides; call read_skill") || strings.Count(text, "\n") != 4 {
		t.Errorf("text:\n%s", text)
	}
	if (Index{}).Text() != "" {
		t.Error("an empty index must render as nothing")
	}
	short := lib.Index(IndexOptions{MaxDescriptionRunes: 20, Include: func(s *Skill) bool { return s.Name == "long" }})
	if len(short.Entries) != 1 || utf8.RuneCountInString(short.Entries[0].Description) > 20 {
		t.Errorf("options: %+v", short)
	}
}

func TestCompactedNote(t *testing.T) {
	n := CompactedNote("test-fix")
	if strings.Contains(n, "\n") || !strings.Contains(n, `read_skill with name "test-fix"`) {
		t.Errorf("note = %q", n)
	}
}
