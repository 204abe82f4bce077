package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ProjectFiles are the workspace files whose "hooks" section holds the
// project's hooks, in the order they run: TinyElf's own, then Claude
// Code's.
var ProjectFiles = []string{filepath.Join(".tinyelf", "settings.json"), filepath.Join(".claude", "settings.json")}

// maxProjectFile bounds a project settings file TinyElf reads.
const maxProjectFile = 1 << 20

// Project is the project hooks of one workspace. They come with the
// workspace (a cloned repository can bring them), so they run only once
// the user trusts them (TrustStore): Hash names exactly what was trusted,
// and a change asks again.
type Project struct {
	Workspace string
	// Files are the project files that exist and have a hooks section,
	// with what they hold (or why they could not be read).
	Files []ProjectFile
	// Hash identifies the hooks of all Files together; "" when there are
	// none.
	Hash string
}

// ProjectFile is one project settings file's hooks.
type ProjectFile struct {
	// Path is relative to the workspace (".claude/settings.json").
	Path     string    `json:"path"`
	Config   Config    `json:"config"`
	Problems []Problem `json:"problems,omitempty"`
	// Err says why the file could not be read or parsed; its hooks are
	// then none.
	Err string `json:"error,omitempty"`
}

// LoadProject reads a workspace's project hooks. Files that do not exist
// or have no hooks section are left out; one that cannot be read or is not
// JSON is listed with Err (and no hooks).
func LoadProject(workspace string) Project {
	p := Project{Workspace: workspace}
	if workspace == "" {
		return p
	}
	h := sha256.New()
	for _, rel := range ProjectFiles {
		f, ok := loadProjectFile(workspace, rel)
		if !ok {
			continue
		}
		p.Files = append(p.Files, f)
		b, _ := f.Config.Marshal()
		fmt.Fprintf(h, "%s\x00%s\x00", filepath.ToSlash(rel), b)
	}
	if len(p.Files) > 0 && !p.Empty() {
		p.Hash = hex.EncodeToString(h.Sum(nil))[:32]
	}
	return p
}

func loadProjectFile(workspace, rel string) (ProjectFile, bool) {
	f := ProjectFile{Path: filepath.ToSlash(rel)}
	file, err := os.Open(filepath.Join(workspace, rel))
	if errors.Is(err, fs.ErrNotExist) {
		return f, false
	}
	if err != nil {
		f.Err = "cannot be read: " + err.Error()
		return f, true
	}
	defer file.Close()
	b, err := io.ReadAll(io.LimitReader(file, maxProjectFile+1))
	if err != nil {
		f.Err = "cannot be read: " + err.Error()
		return f, true
	}
	if len(b) > maxProjectFile {
		f.Err = fmt.Sprintf("is larger than %d bytes; not read", maxProjectFile)
		return f, true
	}
	var doc struct {
		Hooks json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		f.Err = "is not valid JSON: " + err.Error()
		return f, true
	}
	if len(doc.Hooks) == 0 || string(doc.Hooks) == "null" {
		return f, false
	}
	f.Config, f.Problems = Parse(doc.Hooks)
	return f, true
}

// Empty reports whether the project has no hook that could run.
func (p Project) Empty() bool {
	for _, f := range p.Files {
		for _, groups := range f.Config {
			for _, g := range groups {
				for _, c := range g.Hooks {
					if c.Runnable() {
						return false
					}
				}
			}
		}
	}
	return true
}

// Sources returns the project's hooks as sources for NewSet.
func (p Project) Sources() []Source {
	out := make([]Source, 0, len(p.Files))
	for _, f := range p.Files {
		out = append(out, Source{Name: f.Path, Config: f.Config})
	}
	return out
}

// Commands lists the project's runnable hooks, for the trust question.
func (p Project) Commands() []*Hook {
	return NewSet(p.Sources()...).All()
}

// All returns every hook of the set, event by event in lifecycle order.
func (s *Set) All() []*Hook {
	if s == nil {
		return nil
	}
	var out []*Hook
	for _, ev := range Events {
		out = append(out, s.byEvent[ev]...)
	}
	return out
}
