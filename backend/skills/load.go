package skills

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"tinyelf/backend/config"
)

// maxSkillDirs bounds the folders looked at in one skills folder, as the
// client guide suggests, so a huge folder cannot stall loading.
const maxSkillDirs = 2000

// BuiltinFS is a tree of builtin skills (each <name>/SKILL.md at its root),
// such as the one another package embeds with go:embed.
type BuiltinFS struct {
	// Label names the tree in Skill.Root ("builtin:" + Label).
	Label string
	FS    fs.FS
}

// Options says where skills are loaded from. The zero value loads only the
// package's builtin skills.
type Options struct {
	// DataDir is TinyElf's data folder: user skills live in DataDir/skills
	// (where SkillHub installs), user commands in DataDir/commands.
	DataDir string
	// Home is the user's home folder, for ~/.agents/skills,
	// ~/.claude/skills and ~/.claude/commands; "" leaves them out.
	Home string
	// Workspace is the project folder, for .tinyelf/skills, .agents/skills
	// and .claude/skills (and the matching commands folders); "" leaves
	// project skills out.
	Workspace string
	// Builtin adds trees of builtin skills after the package's own (the
	// user-tools package ships tool-creator this way). Among builtins the
	// first tree that has a name wins.
	Builtin []BuiltinFS
	// NoDefaultBuiltins leaves the package's own builtin skills out.
	NoDefaultBuiltins bool
	// TrustProject treats every project skill as trusted without asking
	// (`tinyelf run --yes`); nothing is saved in the trust store.
	TrustProject bool
}

// DefaultOptions returns the options TinyElf runs with: the data folder of
// config.DataDir, the user's home folder and the given workspace.
func DefaultOptions(workspace string) (Options, error) {
	data, err := config.DataDir()
	if err != nil {
		return Options{}, err
	}
	home, err := os.UserHomeDir()
	if err != nil {
		home = ""
	}
	return Options{DataDir: data, Home: home, Workspace: workspace}, nil
}

// UserSkillsDir is the folder SkillHub installs into, DataDir/skills.
func (o Options) UserSkillsDir() string {
	if o.DataDir == "" {
		return ""
	}
	return filepath.Join(o.DataDir, "skills")
}

// Root is one folder skills are looked for in, with the source it gives
// them.
type Root struct {
	Source Source `json:"source"`
	// Dir is the folder (absolute), or "builtin:<label>" for an embedded
	// tree.
	Dir  string `json:"dir"`
	fsys fs.FS
}

// Roots returns the folders skills are loaded from, in precedence order:
// user (DataDir/skills, ~/.agents/skills, ~/.claude/skills), project
// (.tinyelf/skills, .agents/skills, .claude/skills), builtin. A folder that
// appears twice (the workspace is the home folder) counts once, under the
// first source. Missing folders are included: they are watched for.
func (o Options) Roots() []Root {
	var roots []Root
	seen := map[string]bool{}
	add := func(src Source, dir string) {
		if dir == "" {
			return
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return
		}
		key := abs
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			key = real
		}
		if seen[key] {
			return
		}
		seen[key] = true
		roots = append(roots, Root{Source: src, Dir: abs})
	}
	if o.DataDir != "" {
		add(SourceUser, filepath.Join(o.DataDir, "skills"))
	}
	if o.Home != "" {
		add(SourceUser, filepath.Join(o.Home, ".agents", "skills"))
		add(SourceUser, filepath.Join(o.Home, ".claude", "skills"))
	}
	if o.Workspace != "" {
		for _, d := range []string{".tinyelf", ".agents", ".claude"} {
			add(SourceProject, filepath.Join(o.Workspace, d, "skills"))
		}
	}
	if !o.NoDefaultBuiltins {
		roots = append(roots, Root{Source: SourceBuiltin, Dir: "builtin:tinyelf", fsys: builtinSkills()})
	}
	for _, b := range o.Builtin {
		if b.FS != nil {
			roots = append(roots, Root{Source: SourceBuiltin, Dir: "builtin:" + b.Label, fsys: b.FS})
		}
	}
	return roots
}

// Invalid is a skill folder that could not be loaded, with the exact problem.
type Invalid struct {
	// Name is the folder's name (the frontmatter could not be trusted).
	Name    string  `json:"name"`
	Source  Source  `json:"source"`
	Dir     string  `json:"dir"`
	Problem Problem `json:"problem"`
}

// Shadowed is a skill hidden by another of the same name from a source of
// higher precedence (or found earlier in the same source).
type Shadowed struct {
	Skill *Skill `json:"skill"`
	By    *Skill `json:"by"`
}

// Snapshot is the result of one load: the effective skills by name, the
// shadowed ones and the invalid ones. It is immutable and safe to share.
type Snapshot struct {
	// Skills are the effective skills, sorted by name.
	Skills   []*Skill   `json:"skills"`
	Shadowed []Shadowed `json:"shadowed,omitempty"`
	Invalid  []Invalid  `json:"invalid,omitempty"`
	Roots    []Root     `json:"roots"`
	LoadedAt time.Time  `json:"loadedAt"`

	byName map[string]*Skill
}

// Get returns the effective skill of that name.
func (s *Snapshot) Get(name string) (*Skill, bool) {
	if s == nil {
		return nil, false
	}
	sk, ok := s.byName[name]
	return sk, ok
}

// Names returns the effective skills' names, sorted.
func (s *Snapshot) Names() []string {
	out := make([]string, len(s.Skills))
	for i, sk := range s.Skills {
		out[i] = sk.Name
	}
	return out
}

// Load reads every skill of every root of opts. It never fails as a whole:
// a folder that cannot be read or a skill that cannot be parsed is listed in
// Invalid and the others load.
func Load(opts Options) *Snapshot {
	snap := &Snapshot{Roots: opts.Roots(), LoadedAt: time.Now(), byName: map[string]*Skill{}}
	for _, r := range snap.Roots {
		found, invalid := scanRoot(r)
		snap.Invalid = append(snap.Invalid, invalid...)
		for _, sk := range found {
			if prev, ok := snap.byName[sk.Name]; ok {
				snap.Shadowed = append(snap.Shadowed, Shadowed{Skill: sk, By: prev})
				continue
			}
			snap.byName[sk.Name] = sk
			snap.Skills = append(snap.Skills, sk)
		}
	}
	sort.Slice(snap.Skills, func(i, j int) bool { return snap.Skills[i].Name < snap.Skills[j].Name })
	return snap
}

// LoadFolder loads the one skill in dir by exactly the rules Load applies
// to each folder of a root (the same lenient parsing, limits and checks),
// as if the folder were named folderName ("" keeps dir's own name). It
// returns the skill, or why it would be skipped; both nil when dir holds
// no SKILL.md. SkillHub installs what this loads and nothing else.
func LoadFolder(dir, folderName string) (*Skill, *Invalid) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	if folderName == "" {
		folderName = filepath.Base(abs)
	}
	r := Root{Source: SourceUser, Dir: filepath.Dir(abs)}
	return loadSkill(r, os.DirFS(abs), ".", folderName)
}

// readSized reads a file whose size is known, in one allocation; a file
// that grew meanwhile is read to at most maxSkillFileBytes+1.
func readSized(f io.Reader, size int64) ([]byte, error) {
	buf := make([]byte, 0, min(size, maxSkillFileBytes)+1)
	for {
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
		if len(buf) > maxSkillFileBytes {
			return buf, nil
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
	}
}

// open returns the root as an FS, the path of its top in it, and a release.
func (r Root) open() (fs.FS, string, func(), error) {
	if r.fsys != nil {
		return r.fsys, ".", func() {}, nil
	}
	// os.DirFS follows symbolic links, as skill folders in ~/.claude/skills
	// often are; the skill's own files are later read through an os.Root.
	return os.DirFS(r.Dir), ".", func() {}, nil
}

// scanRoot loads the skills directly under one root.
func scanRoot(r Root) ([]*Skill, []Invalid) {
	fsys, top, done, err := r.open()
	if err != nil {
		return nil, nil
	}
	defer done()
	entries, err := fs.ReadDir(fsys, top)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, []Invalid{{Name: filepath.Base(r.Dir), Source: r.Source, Dir: r.Dir,
			Problem: Problem{File: r.Dir, Rule: "unreadable", Message: fmt.Sprintf("the skills folder cannot be read: %v", err)}}}
	}
	var found []*Skill
	var invalid []Invalid
	n := 0
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || name == "node_modules" {
			continue
		}
		rel := path.Join(top, name)
		if !e.IsDir() {
			if e.Type()&fs.ModeSymlink == 0 {
				continue
			}
			st, err := fs.Stat(fsys, rel) // a symlinked skill folder
			if err != nil || !st.IsDir() {
				continue
			}
		}
		if n++; n > maxSkillDirs {
			invalid = append(invalid, Invalid{Name: name, Source: r.Source, Dir: r.dirOf(name),
				Problem: Problem{File: r.Dir, Rule: "too-many", Message: fmt.Sprintf("more than %d folders here; the rest were not read", maxSkillDirs)}})
			break
		}
		sk, inv := loadSkill(r, fsys, rel, name)
		switch {
		case sk != nil:
			found = append(found, sk)
		case inv != nil:
			invalid = append(invalid, *inv)
		}
	}
	return found, invalid
}

func (r Root) dirOf(name string) string {
	if r.fsys != nil {
		return name
	}
	return filepath.Join(r.Dir, name)
}

// loadSkill loads the skill in folder rel of fsys. A folder without a
// SKILL.md is not a skill and gives neither.
func loadSkill(r Root, fsys fs.FS, rel, name string) (*Skill, *Invalid) {
	file := ""
	var f fs.File
	for _, name := range []string{"SKILL.md", "skill.md"} {
		if opened, err := fsys.Open(path.Join(rel, name)); err == nil {
			file, f = name, opened
			break
		}
	}
	if file == "" {
		return nil, nil
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.IsDir() {
		return nil, nil
	}
	dir, location := r.dirOf(name), path.Join(rel, file)
	if r.fsys == nil {
		location = filepath.Join(dir, file)
	}
	bad := func(p Problem) *Invalid {
		p.File = location
		if r.fsys != nil {
			p.File = "builtin:" + path.Join(name, file)
		}
		return &Invalid{Name: name, Source: r.Source, Dir: dir, Problem: p}
	}
	if st.Size() > maxSkillFileBytes {
		return nil, bad(Problem{Rule: "too-large", Message: fmt.Sprintf("SKILL.md is %s, over the %s limit; move long material to references/", humanBytes(st.Size()), humanBytes(maxSkillFileBytes))})
	}
	data, err := readSized(f, st.Size())
	if err != nil {
		return nil, bad(Problem{Rule: "unreadable", Message: fmt.Sprintf("SKILL.md cannot be read: %v", err)})
	}
	if len(data) > maxSkillFileBytes { // grew since the stat
		return nil, bad(Problem{Rule: "too-large", Message: fmt.Sprintf("SKILL.md is over the %s limit", humanBytes(maxSkillFileBytes))})
	}
	sk, prob := parseSkill(data, name)
	if prob != nil {
		return nil, bad(*prob)
	}
	sum := sha256.Sum256(data)
	sk.Source, sk.Root, sk.Dir, sk.File = r.Source, r.Dir, dir, location
	sk.Digest, sk.Size, sk.ModTime = hex.EncodeToString(sum[:]), int64(len(data)), st.ModTime()
	if r.fsys != nil {
		sk.fsys, sk.Dir, sk.File = fsys, rel, path.Join(rel, file)
	}
	return sk, nil
}
