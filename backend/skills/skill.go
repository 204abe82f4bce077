package skills

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Source says where a skill comes from; it decides the skill's trust and its
// precedence: user over project (a cloned repository cannot replace your own
// skill), project over builtin.
type Source string

// The sources of skills.
const (
	SourceUser    Source = "user"
	SourceProject Source = "project"
	SourceBuiltin Source = "builtin"
)

// rank orders sources by precedence; lower wins.
func (s Source) rank() int {
	switch s {
	case SourceUser:
		return 0
	case SourceProject:
		return 1
	}
	return 2
}

// ContextFork is the value of the context field that asks for the skill to
// run in a forked subagent instead of the current conversation.
const ContextFork = "fork"

// Skill is one loaded skill: its frontmatter and where it lives. A Skill is
// immutable once loaded and safe to share between goroutines; the body is
// read from disk on demand (Body), so edits made after loading are seen.
type Skill struct {
	// Name is the frontmatter name (the folder's name when the frontmatter
	// has none); it is the skill's identity, skill__<Name> in the catalog.
	Name string `json:"name"`
	// Description says what the skill does and when to use it.
	Description string `json:"description"`
	// WhenToUse (Claude Code's when_to_use) adds trigger context; the index
	// shows it after the description.
	WhenToUse string `json:"whenToUse,omitempty"`
	// License, Compatibility and Metadata are the spec's optional fields.
	License       string            `json:"license,omitempty"`
	Compatibility string            `json:"compatibility,omitempty"`
	Metadata      map[string]string `json:"metadata,omitempty"`
	// AllowedTools are the tools the skill pre-approves while it is active.
	AllowedTools AllowedTools `json:"allowedTools,omitempty"`

	// UserInvocable (Claude Code, default true) offers the skill as the slash
	// command /<Name>.
	UserInvocable bool `json:"userInvocable"`
	// DisableModelInvocation (Claude Code) keeps the skill out of the model's
	// index: only the user can invoke it.
	DisableModelInvocation bool `json:"disableModelInvocation,omitempty"`
	// ArgumentHint is shown after /<Name> in the composer.
	ArgumentHint string `json:"argumentHint,omitempty"`
	// Arguments names the positional arguments ($name in the body).
	Arguments []string `json:"arguments,omitempty"`
	// Model overrides the model while the skill runs ("" or "inherit": none).
	Model string `json:"model,omitempty"`
	// Context is "" (inline, the default) or ContextFork; Agent names the
	// subagent a forked skill runs in.
	Context string `json:"context,omitempty"`
	Agent   string `json:"agent,omitempty"`
	// Extra keeps the frontmatter fields this package does not know, as YAML
	// decoded them.
	Extra map[string]any `json:"extra,omitempty"`

	// Source is where the skill was found; Root is the skills folder it was
	// found in ("builtin:" plus a label for embedded skills).
	Source Source `json:"source"`
	Root   string `json:"root"`
	// Dir is the skill's folder and File its SKILL.md: absolute paths for
	// skills on disk, paths inside their fs.FS for embedded ones.
	Dir  string `json:"dir"`
	File string `json:"file"`
	// Warnings are the problems lenient loading forgave (a name that differs
	// from the folder, an unquoted colon in the YAML).
	Warnings []string `json:"warnings,omitempty"`
	// Digest is the SHA-256 of SKILL.md (hex), Size its length in bytes.
	Digest  string    `json:"digest"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"modTime"`

	fsys fs.FS // the embedded tree of a builtin skill; nil on disk
}

// ID returns the skill's capability identity, skill__<name>.
func (s *Skill) ID() string { return "skill__" + s.Name }

// Embedded reports whether the skill lives inside the binary (or another
// fs.FS) rather than on disk; its files are then readable only through
// ReadFile, not by path.
func (s *Skill) Embedded() bool { return s.fsys != nil }

// Location is the skill's SKILL.md as shown to people: an absolute path, or
// builtin:<name>/SKILL.md for an embedded skill.
func (s *Skill) Location() string {
	if s.fsys != nil {
		return "builtin:" + s.File
	}
	return s.File
}

// Body returns the Markdown body of SKILL.md (frontmatter removed, trimmed),
// read now. An error means the file went away or no longer parses.
func (s *Skill) Body() (string, error) {
	data, err := s.readRaw("SKILL.md")
	if err != nil {
		return "", err
	}
	doc, prob := splitDocument(data)
	if prob != nil {
		return "", fmt.Errorf("read skill %s: %s", s.Name, prob.Message)
	}
	return doc.body, nil
}

// maxListedFiles caps Files; the guide asks to cap large listings.
const maxListedFiles = 200

// Files lists the skill's files other than SKILL.md, as slash-separated
// paths relative to its folder, sorted, at most limit of them (0: 200).
// truncated says whether more exist. Hidden files and folders are skipped.
func (s *Skill) Files(limit int) (files []string, truncated bool, err error) {
	if limit <= 0 {
		limit = maxListedFiles
	}
	walkErr := s.withTree(func(fsys fs.FS, root string) error {
		return fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p == root {
					return err
				}
				return nil // an unreadable subfolder hides only itself
			}
			rel := relativeTo(root, p)
			if rel == "" {
				return nil
			}
			if strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.IsDir() || rel == "SKILL.md" || rel == "skill.md" {
				return nil
			}
			if len(files) == limit {
				truncated = true
				return fs.SkipAll
			}
			files = append(files, rel)
			return nil
		})
	})
	if walkErr != nil {
		return nil, false, fmt.Errorf("list the files of skill %s: %w", s.Name, walkErr)
	}
	sort.Strings(files)
	return files, truncated, nil
}

// ReadFile reads one file of the skill by its path relative to the skill's
// folder ("references/api.md"). Paths that leave the folder (absolute, "..",
// or through a symbolic link pointing out) are refused.
func (s *Skill) ReadFile(rel string) ([]byte, error) {
	rel = filepath.ToSlash(strings.TrimSpace(rel))
	rel = strings.TrimPrefix(rel, "./")
	if rel == "" || !fs.ValidPath(rel) {
		return nil, fmt.Errorf("%q is not a path inside the skill's folder (use a relative path such as references/guide.md)", rel)
	}
	return s.readRaw(rel)
}

// readRaw reads rel inside the skill's folder, capped at maxSkillFileBytes.
func (s *Skill) readRaw(rel string) ([]byte, error) {
	if s.fsys != nil {
		p := path.Join(s.Dir, rel)
		if rel == "SKILL.md" {
			p = s.File
		}
		return readCapped(s.fsys, p)
	}
	root, err := os.OpenRoot(s.Dir)
	if err != nil {
		return nil, fmt.Errorf("open skill folder %s: %w", s.Dir, err)
	}
	defer root.Close()
	if rel == "SKILL.md" {
		rel = filepath.Base(s.File)
	}
	return readCapped(root.FS(), rel)
}

// relativeTo returns p relative to root, both slash paths inside one fs.FS;
// "" for root itself.
func relativeTo(root, p string) string {
	if p == root {
		return ""
	}
	if root == "." {
		return p
	}
	return strings.TrimPrefix(p, root+"/")
}

// withTree calls fn with an fs.FS and the path of the skill's folder in it.
// On disk the FS is an os.Root, so symbolic links cannot lead out.
func (s *Skill) withTree(fn func(fs.FS, string) error) error {
	if s.fsys != nil {
		return fn(s.fsys, s.Dir)
	}
	root, err := os.OpenRoot(s.Dir)
	if err != nil {
		return fmt.Errorf("open skill folder %s: %w", s.Dir, err)
	}
	defer root.Close()
	return fn(root.FS(), ".")
}

// readCapped reads a file, refusing one over maxSkillFileBytes.
func readCapped(fsys fs.FS, name string) ([]byte, error) {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a folder, not a file", name)
	}
	if st.Size() > maxSkillFileBytes {
		return nil, fmt.Errorf("%s is %s, over the %s limit", name, humanBytes(st.Size()), humanBytes(maxSkillFileBytes))
	}
	return fs.ReadFile(fsys, name)
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
