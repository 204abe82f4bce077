package skills

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"tinyelf/backend/tools"
	"tinyelf/internal/testutil"
)

// fakeAsker answers trust questions and records them.
type fakeAsker struct {
	mu     sync.Mutex
	answer TrustState
	asked  []TrustRequest
}

func (f *fakeAsker) AskTrust(ctx context.Context, req TrustRequest) (TrustState, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, req)
	return f.answer, nil
}

func (f *fakeAsker) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.asked)
}

// toolEnv builds a registry with the skills tools over a prepared folder.
type toolEnv struct {
	testEnv
	lib   *Library
	reg   *tools.Registry
	asker *fakeAsker
	srv   *hubServer
}

func newToolEnv(t *testing.T, answer TrustState) *toolEnv {
	t.Helper()
	e := newEnv(t)
	copyTree(t, "testdata/published/pdf-processing", filepath.Join(e.data, "skills", "pdf-processing"))
	testutil.WriteFile(t, filepath.Join(e.ws, ".claude/skills/proj/SKILL.md"), "---\nname: proj\ndescription: A project skill.\nallowed-tools: Bash(make:*)\n---\nUse make.\n", 0)
	testutil.WriteFile(t, filepath.Join(e.data, "skills/manual/SKILL.md"), "---\nname: manual\ndescription: Only by hand.\ndisable-model-invocation: true\n---\nx\n", 0)
	testutil.WriteFile(t, filepath.Join(e.data, "skills/broken/SKILL.md"), "no frontmatter", 0)
	testutil.WriteFile(t, filepath.Join(e.data, "commands/greet.md"), "---\ndescription: Greet\nallowed-tools: Read\n---\nGreet $1 warmly.\n", 0)
	store, err := OpenTrustStore(filepath.Join(e.data, TrustFile))
	if err != nil {
		t.Fatal(err)
	}
	te := &toolEnv{testEnv: e, lib: NewLibrary(e.opts(), store), asker: &fakeAsker{answer: answer}, srv: newHubServer(t)}
	zip := makeZip(t, []archiveFile{{name: "SKILL.md", body: skillMD("hub-skill", "Installed from the hub.", "Hub body.")}})
	idx := te.srv.index(t, "/index.json", HubEntry{ID: "hub-skill", Name: "hub-skill", Description: "A skill from the hub", Version: "0.1", URL: te.srv.put("/h.zip", zip), SHA256: sha(zip)})
	hub := NewHub(filepath.Join(e.data, "skills"), func() []string { return []string{idx} })
	te.reg = tools.NewRegistry()
	if err := te.reg.RegisterAll(Tools(ToolsOptions{Library: te.lib, Hub: hub, Trust: te.asker})...); err != nil {
		t.Fatal(err)
	}
	return te
}

func (te *toolEnv) call(t *testing.T, name string, args map[string]any) tools.CallResult {
	t.Helper()
	b, _ := json.Marshal(args)
	res := te.reg.Execute(context.Background(), "c1", name, b)
	if _, err := json.Marshal(res.Meta); err != nil {
		t.Errorf("%s meta does not marshal: %v", name, err)
	}
	return res
}

func TestToolsInfo(t *testing.T) {
	te := newToolEnv(t, TrustTrusted)
	want := map[string]struct{ safe, readOnly bool }{
		"list_skills":      {true, true},
		"read_skill":       {true, true},
		"skillhub_search":  {true, true},
		"skillhub_install": {false, false},
		"slash_command":    {true, true},
	}
	if got := te.reg.Names(); len(got) != len(want) {
		t.Fatalf("tools = %v", got)
	}
	for name, w := range want {
		info, ok := te.reg.Info(name)
		if !ok {
			t.Fatalf("%s missing", name)
		}
		if info.Safe != w.safe || info.ReadOnly != w.readOnly || info.Source != tools.SourceSkill || info.Description == "" {
			t.Errorf("%s info = %+v", name, info)
		}
	}
}

func TestListSkillsTool(t *testing.T) {
	te := newToolEnv(t, TrustTrusted)
	res := te.call(t, "list_skills", nil)
	for _, want := range []string{
		"- pdf-processing [user, ready]: Extract text",
		"- proj [project, untrusted]: A project skill. — Skill \"proj\" comes from this workspace",
		"- manual [user, user-only]",
		"- broken [user, invalid]",
		"- test-fix [builtin, ready]",
	} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("list lacks %q:\n%s", want, res.Content)
		}
	}
}

func TestReadSkillTool(t *testing.T) {
	te := newToolEnv(t, TrustTrusted)
	res := te.call(t, "read_skill", map[string]any{"name": "pdf-processing"})
	dir := filepath.Join(te.data, "skills", "pdf-processing")
	for _, want := range []string{`<skill_content name="pdf-processing" source="user">`, "# PDF processing", "Skill folder: " + dir, "<file>scripts/extract_text.py</file>", "</skill_content>"} {
		if !strings.Contains(res.Content, want) || res.IsError {
			t.Errorf("read lacks %q:\n%s", want, res.Content)
		}
	}
	loaded, _ := res.Meta[CapabilityLoadedKey].(map[string]any)
	if loaded["id"] != "skill__pdf-processing" || loaded["kind"] != "skill" || loaded["source"] != "user" {
		t.Errorf("meta = %v", res.Meta)
	}

	res = te.call(t, "read_skill", map[string]any{"name": "test-fix"})
	if res.IsError || !strings.Contains(res.Content, "Reproduce before touching anything") || !strings.Contains(res.Content, "built into TinyElf") {
		t.Errorf("builtin: %s", res.Content)
	}
	res = te.call(t, "read_skill", map[string]any{"name": "pdf-processing", "file": "references/forms.md"})
	if res.IsError || !strings.HasPrefix(res.Content, "# Filling PDF forms") || res.Meta[CapabilityLoadedKey] != nil {
		t.Errorf("file: %+v", res)
	}
	res = te.call(t, "read_skill", map[string]any{"name": "pdf-processing", "file": "../manual/SKILL.md"})
	if !res.IsError || !strings.Contains(res.Content, "not a path inside") {
		t.Errorf("escape: %s", res.Content)
	}
	res = te.call(t, "read_skill", map[string]any{"name": "nope"})
	if !res.IsError || !strings.Contains(res.Content, "Available skills: code-review, pdf-processing, proj, test-fix.") {
		t.Errorf("unknown: %s", res.Content)
	}
	res = te.call(t, "read_skill", map[string]any{"name": "manual"})
	if !res.IsError || !strings.Contains(res.Content, "only be run by the user") {
		t.Errorf("manual: %s", res.Content)
	}
	res = te.call(t, "read_skill", map[string]any{})
	if !res.IsError || !strings.Contains(res.Content, "missing required parameter") {
		t.Errorf("no name: %s", res.Content)
	}
}

// TestReadSkillTrust checks that a project skill is asked about once, and
// the answer remembered.
func TestReadSkillTrust(t *testing.T) {
	t.Run("trusted", func(t *testing.T) {
		te := newToolEnv(t, TrustTrusted)
		for range 2 {
			res := te.call(t, "read_skill", map[string]any{"name": "proj"})
			if res.IsError || !strings.Contains(res.Content, "Use make.") || !strings.Contains(res.Content, "Pre-approved while this skill is active: Bash(make:*)") {
				t.Fatalf("proj: %s", res.Content)
			}
		}
		if te.asker.count() != 1 || !strings.Contains(te.asker.asked[0].Question, "it may ask to run Bash(make:*)") {
			t.Errorf("asked %+v", te.asker.asked)
		}
		store, _ := OpenTrustStore(filepath.Join(te.data, TrustFile))
		if store.State(te.ws, "proj") != TrustTrusted {
			t.Error("trust not saved")
		}
	})
	t.Run("denied", func(t *testing.T) {
		te := newToolEnv(t, TrustDenied)
		for range 2 {
			res := te.call(t, "read_skill", map[string]any{"name": "proj"})
			if !res.IsError || strings.Contains(res.Content, "Use make.") {
				t.Fatalf("proj: %s", res.Content)
			}
		}
		if te.asker.count() != 1 {
			t.Errorf("asked %d times", te.asker.count())
		}
		if idx := te.lib.Index(IndexOptions{}).Text(); strings.Contains(idx, "- proj:") {
			t.Errorf("denied skill in the index:\n%s", idx)
		}
	})
	t.Run("not now", func(t *testing.T) {
		te := newToolEnv(t, TrustUntrusted)
		te.call(t, "read_skill", map[string]any{"name": "proj"})
		te.call(t, "read_skill", map[string]any{"name": "proj"})
		if te.asker.count() != 2 {
			t.Errorf("'not now' must ask again; asked %d times", te.asker.count())
		}
	})
	t.Run("no asker", func(t *testing.T) {
		te := newToolEnv(t, TrustTrusted)
		reg := tools.NewRegistry()
		reg.Register(NewReadSkill(te.lib, nil))
		res := reg.Execute(context.Background(), "c", "read_skill", json.RawMessage(`{"name":"proj"}`))
		if !res.IsError || !strings.Contains(res.Content, "tinyelf skills trust proj") {
			t.Errorf("no asker: %s", res.Content)
		}
	})
}

func TestSkillHubTools(t *testing.T) {
	te := newToolEnv(t, TrustTrusted)
	res := te.call(t, "skillhub_search", map[string]any{"query": "hub"})
	if res.IsError || !strings.Contains(res.Content, "- id hub-skill: hub-skill 0.1 — A skill from the hub") {
		t.Fatalf("search: %s", res.Content)
	}
	res = te.call(t, "skillhub_install", map[string]any{"skillId": "hub-skill"})
	if res.IsError || !strings.Contains(res.Content, `Installed skill "hub-skill" (version 0.1)`) || !strings.Contains(res.Content, `read_skill(name="hub-skill")`) {
		t.Fatalf("install: %s", res.Content)
	}
	if _, ok := te.lib.Get("hub-skill"); !ok {
		t.Fatal("the library was not reloaded")
	}
	changes, _ := res.Meta["changes"].([]Change)
	if len(changes) != 1 || changes[0].Kind != ChangeAdded || changes[0].Name != "hub-skill" {
		t.Errorf("changes = %+v", res.Meta["changes"])
	}
	res = te.call(t, "read_skill", map[string]any{"name": "hub-skill"})
	if res.IsError || !strings.Contains(res.Content, "Hub body.") {
		t.Errorf("read installed: %s", res.Content)
	}
	res = te.call(t, "skillhub_install", map[string]any{"skillId": "nope"})
	if !res.IsError || !strings.Contains(res.Content, "use skillhub_search") {
		t.Errorf("unknown id: %s", res.Content)
	}

	reg := tools.NewRegistry()
	reg.RegisterAll(NewSkillHubSearch(NewHub(t.TempDir(), nil)))
	r := reg.Execute(context.Background(), "c", "skillhub_search", json.RawMessage(`{"query":"x"}`))
	if !r.IsError || !strings.Contains(r.Content, "SkillHub is not set up") {
		t.Errorf("no index: %s", r.Content)
	}
}

func TestSlashCommandTool(t *testing.T) {
	te := newToolEnv(t, TrustTrusted)
	res := te.call(t, "slash_command", map[string]any{"command": "/greet", "args": "Ada"})
	if res.IsError || !strings.Contains(res.Content, "Greet Ada warmly.") || !strings.Contains(res.Content, "allowed-tools apply for the rest of this turn: Read") {
		t.Fatalf("greet: %s", res.Content)
	}
	if res.Meta["kind"] != "markdown" || res.Meta["allowedTools"] == nil {
		t.Errorf("meta %v", res.Meta)
	}
	res = te.call(t, "slash_command", map[string]any{"command": "code-review", "args": "main..HEAD"})
	if res.IsError || !strings.Contains(res.Content, "ARGUMENTS: main..HEAD") {
		t.Fatalf("code-review: %s", res.Content)
	}
	if loaded, _ := res.Meta[CapabilityLoadedKey].(map[string]any); loaded["id"] != "skill__code-review" {
		t.Errorf("meta %v", res.Meta)
	}
	res = te.call(t, "slash_command", map[string]any{"command": "proj"})
	if !res.IsError || !strings.Contains(res.Content, "not trusted") {
		t.Errorf("untrusted project skill: %s", res.Content)
	}
	res = te.call(t, "slash_command", map[string]any{"command": "nope"})
	if !res.IsError || !strings.Contains(res.Content, "Available commands: /code-review, /greet, /manual") {
		t.Errorf("unknown: %s", res.Content)
	}
	res = te.call(t, "slash_command", map[string]any{"command": "greet", "args": `"open`})
	if !res.IsError || !strings.Contains(res.Content, "unclosed") {
		t.Errorf("bad args: %s", res.Content)
	}
}

func TestInheritableToolNames(t *testing.T) {
	names := InheritableToolNames()
	names[0] = "changed"
	if InheritableToolNames()[0] != "list_skills" {
		t.Error("the list is shared")
	}
}
