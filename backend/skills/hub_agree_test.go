package skills

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tinyelf/internal/testutil"
)

// TestInstallAgreesWithLoad: every SKILL.md variant — the frontmatter
// cases, the lenient name rules, the ones the loader refuses, and the
// published skills — gives the same outcome installed from a local
// SkillHub as copied by hand into a skills folder: loaded under the same
// name with the same description, or refused with the loader's problem.
func TestInstallAgreesWithLoad(t *testing.T) {
	type variant struct {
		name  string // the hub entry's name, and the hand copy's folder
		files []archiveFile
	}
	one := func(name, content string) variant {
		return variant{name, []archiveFile{{name: "SKILL.md", body: content}}}
	}
	var variants []variant
	for _, c := range frontmatterCases {
		variants = append(variants, one(c.name, c.content))
	}
	variants = append(variants,
		one("mismatch", skillMD("other-name", "Named unlike its folder.", "")),
		one("upper", skillMD("Upper_Case", "Against the spec's name rules.", "")),
		one("no-name", "---\ndescription: The folder (or the hub entry) names it.\n---\n"),
		one("long-description", skillMD("long-description", strings.Repeat("long ", 300), "")),
		one("unknown-field", "---\nname: unknown-field\ndescription: Has more.\nversion: 2\n---\n"),
		one("bad-link", skillMD("bad-link", "Links out.", "See [this](../elsewhere.md).")),
		one("no-description", "---\nname: no-description\n---\nbody\n"),
		one("dot-name", skillMD(".hidden", "Would hide its own folder.", "")),
		one("slash-name", skillMD("a/b", "A path, not a name.", "")),
		one("latin1", "---\nname: latin1\ndescription: caf\xe9\n---\n"),
		one("too-large", skillMD("too-large", "Too big.", strings.Repeat("x", maxSkillFileBytes))),
		variant{"lowercase-file", []archiveFile{{name: "skill.md", body: skillMD("lowercase-file", "Named skill.md.", "")}}},
	)
	entries, err := os.ReadDir("testdata/published")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		var files []archiveFile
		root := filepath.Join("testdata/published", e.Name())
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			rel, _ := filepath.Rel(root, p)
			files = append(files, archiveFile{name: filepath.ToSlash(rel), body: string(b)})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		variants = append(variants, variant{e.Name(), files})
	}

	srv := newHubServer(t)
	var hubEntries []HubEntry
	for _, v := range variants {
		hubEntries = append(hubEntries, HubEntry{ID: "agree/" + v.name, Name: v.name, URL: srv.put("/"+v.name+".zip", makeZip(t, v.files))})
	}
	idx := srv.index(t, "/index.json", hubEntries...)

	type outcome struct {
		loaded            bool
		name, description string
		problem           string
	}
	installed := t.TempDir()
	hub := NewHub(filepath.Join(installed, "skills"), func() []string { return []string{idx} })
	byHand := t.TempDir()
	for _, v := range variants {
		for _, f := range v.files {
			testutil.WriteFile(t, filepath.Join(filepath.Join(byHand, "skills", v.name), f.name), f.body, 0)
		}
	}
	handSnap := Load(Options{DataDir: byHand, NoDefaultBuiltins: true})
	loaded := 0
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			var byHandOut outcome
			for _, sk := range handSnap.Skills {
				if filepath.Base(sk.Dir) == v.name {
					byHandOut = outcome{loaded: true, name: sk.Name, description: sk.Description}
				}
			}
			for _, inv := range handSnap.Invalid {
				if inv.Name == v.name {
					byHandOut.problem = inv.Problem.Message
				}
			}
			inst, err := hub.Install(context.Background(), "agree/"+v.name)
			var hubOut outcome
			if err != nil {
				hubOut.problem = err.Error()
			} else {
				snap := Load(Options{DataDir: installed, NoDefaultBuiltins: true})
				sk, ok := snap.Get(inst.Name)
				if !ok || sk.Dir != inst.Dir {
					t.Fatalf("installed into %s, then not loaded: %v %+v", inst.Dir, snap.Names(), snap.Invalid)
				}
				hubOut = outcome{loaded: true, name: sk.Name, description: sk.Description}
			}
			if byHandOut.loaded != hubOut.loaded || byHandOut.name != hubOut.name || byHandOut.description != hubOut.description {
				t.Fatalf("copied by hand: %+v\ninstalled: %+v", byHandOut, hubOut)
			}
			if !byHandOut.loaded {
				if byHandOut.problem == "" || !strings.Contains(hubOut.problem, byHandOut.problem) {
					t.Errorf("install refused it with %q, not the loader's %q", hubOut.problem, byHandOut.problem)
				}
				return
			}
			loaded++
		})
	}
	if loaded == 0 || loaded == len(variants) {
		t.Errorf("%d of %d variants loaded: the table should hold both kinds", loaded, len(variants))
	}
}
