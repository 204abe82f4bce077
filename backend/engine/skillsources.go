package engine

import (
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"tinyelf/backend/proc"

	"tinyelf/backend/capabilities"
	"tinyelf/backend/skills"
	"tinyelf/backend/usertools"
)

// Skills in the catalog: the user's and the builtin skills are two shared
// partitions, kept current by a watcher on their folders (and checked again
// before every model call); the project skills of a session's workspace are
// that session's own partition, through the engine's CapabilitySource.
// Shadowed and invalid skills are entries too, with the problem that hides
// them, so Settings → Capabilities can say why they are not offered.

// The shared skill partitions. Their priorities make the view settle a name
// clash the way skills do: a user skill wins over the project's (the
// session partitions sit at capabilities.PrioritySkill), the project's over
// a builtin.
const (
	// UserSkillsPartition is the catalog partition of the user's skills.
	UserSkillsPartition    = "skill:user"
	builtinSkillsPartition = "skill:builtin"
	userSkillsPriority     = capabilities.PrioritySkill - 1
	builtinSkillsPriority  = capabilities.PrioritySkill + 1
)

// SkillService holds the skills of every workspace a surface has seen:
// the user's and the builtin skills (the catalog's shared partitions), and
// each workspace's library with its project skills, which its sessions get
// through Capabilities and the skills tools through EngineSkills. It is
// safe for concurrent use; Close it to stop watching the folders.
type SkillService struct {
	base    skills.Options // DataDir, Home, Builtin; no workspace
	trust   *skills.TrustStore
	hub     *skills.Hub
	catalog *capabilities.Catalog
	publish func(reason string)
	environ func() []string
	// noPrompt: nobody can be asked about a project skill (tinyelf run
	// without --yes), so untrusted ones are listed but not offered.
	noPrompt bool

	// shared has the user and builtin skills; watcher keeps it current.
	shared  *skills.Library
	watcher *skills.Watcher
	// syncMu serialises the shared partitions' updates.
	syncMu sync.Mutex

	mu   sync.Mutex
	libs map[string]*skills.Library // workspace (cleaned, absolute) → its skills
	// warning explains a trust file that could not be read.
	warning string
}

// SkillServiceOptions configure a SkillService.
type SkillServiceOptions struct {
	// DataDir holds the user skills SkillHub installs and the trust file.
	DataDir string
	// Home is the home folder of ~/.agents/skills and ~/.claude/skills
	// ("" none; see UserHome).
	Home string
	// Builtin are the builtin skill trees (see BuiltinSkillTrees).
	Builtin []skills.BuiltinFS
	// TrustProject trusts every project skill without asking or saving an
	// answer (`tinyelf run --yes`).
	TrustProject bool
	// NoPrompt says nobody can be asked about a project skill (`tinyelf
	// run` without --yes): untrusted ones are listed but not offered.
	NoPrompt bool
	// Indexes returns the SkillHub indexes in effect.
	Indexes func() []string
	// Environ and Children start SkillHub's git clones.
	Environ  func() []string
	Children *proc.Children
	// Catalog receives the shared partitions; nil gives the service a
	// catalog of its own.
	Catalog *capabilities.Catalog
	// OnChange is told, with the reason, whenever the skills changed (a
	// folder, a trust answer, an install); may be nil.
	OnChange func(reason string)
}

// NewSkillService loads the user's and the builtin skills into the
// catalog; Start watches their folders.
func NewSkillService(o SkillServiceOptions) *SkillService {
	base := skills.Options{DataDir: o.DataDir, Home: o.Home, Builtin: o.Builtin, TrustProject: o.TrustProject}
	if o.Catalog == nil {
		o.Catalog = capabilities.NewCatalog()
	}
	if o.OnChange == nil {
		o.OnChange = func(string) {}
	}
	s := &SkillService{base: base, catalog: o.Catalog, publish: o.OnChange, environ: o.Environ, noPrompt: o.NoPrompt && !o.TrustProject,
		libs: map[string]*skills.Library{}}
	trust, err := skills.OpenTrustStore(filepath.Join(o.DataDir, skills.TrustFile))
	if err != nil {
		s.warning = fmt.Sprintf("Skill trust answers cannot be read (%v); project skills are untrusted and answers are not saved.", err)
	} else {
		s.trust = trust
		s.warning = trust.Warning()
	}
	s.hub = skills.NewHub(base.UserSkillsDir(), o.Indexes, skills.WithEnviron(o.Environ), skills.WithChildren(o.Children))
	s.shared = skills.NewLibrary(base, s.trust)
	s.syncShared("skills loaded")
	return s
}

// Start watches the user's skill folders until Close.
func (s *SkillService) Start() {
	s.watcher = s.shared.Watch(context.Background(), 0, func(changes []skills.Change) {
		s.syncShared(changeReasons(changes, s.base.Home))
	})
}

// Close stops watching the folders.
func (s *SkillService) Close() {
	if s.watcher != nil {
		_ = s.watcher.Close()
	}
}

// Library returns the skills of a workspace ("" for the user's and the
// builtin ones only), loaded on first use and refreshed when its folders
// changed.
func (s *SkillService) Library(workspace string) *skills.Library {
	if workspace == "" {
		return s.shared
	}
	key := workspace
	if abs, err := filepath.Abs(workspace); err == nil {
		key = abs
	}
	s.mu.Lock()
	lib := s.libs[key]
	if lib == nil {
		o := s.base
		o.Workspace = key
		lib = skills.NewLibrary(o, s.trust)
		s.libs[key] = lib
	}
	s.mu.Unlock()
	return lib
}

// Fresh is Library with the folders checked for changes first.
// The shared skills are checked too: what the user sees in one list, the
// catalog (Settings → Capabilities) shows as well.
func (s *SkillService) Fresh(workspace string) *skills.Library {
	if changes := s.shared.Refresh(); len(changes) > 0 {
		s.syncShared(changeReasons(changes, s.base.Home))
	}
	lib := s.Library(workspace)
	if lib != s.shared {
		lib.Refresh()
	}
	return lib
}

// Refresh reloads the shared skills when their folders changed, and every
// workspace library, and tells OnChange. It is what an install, a removal
// and a trust answer call.
func (s *SkillService) Refresh(reason string) {
	if changes := s.shared.Refresh(); len(changes) > 0 {
		s.syncShared(changeReasons(changes, s.base.Home))
	} else if reason != "" {
		s.publish(reason)
	}
	s.mu.Lock()
	libs := make([]*skills.Library, 0, len(s.libs))
	for _, l := range s.libs {
		libs = append(libs, l)
	}
	s.mu.Unlock()
	for _, l := range libs {
		l.Refresh()
	}
}

// Changed tells OnChange that the skills changed for reason (a trust
// answer the libraries see at their next look).
func (s *SkillService) Changed(reason string) { s.publish(reason) }

// Hub is SkillHub, where skills are searched and installed.
func (s *SkillService) Hub() *skills.Hub { return s.hub }

// Shared returns the user's and the builtin skills.
func (s *SkillService) Shared() *skills.Library { return s.shared }

// Warning explains a trust file that could not be read ("" none).
func (s *SkillService) Warning() string { return s.warning }

// syncShared puts the shared skills into the catalog.
func (s *SkillService) syncShared(reason string) {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	snap := s.shared.Snapshot()
	user := s.entries(s.shared, snap, skills.SourceUser)
	builtin := s.entries(s.shared, snap, skills.SourceBuiltin)
	s.catalog.Replace(UserSkillsPartition, user, capabilities.PartitionOptions{Priority: userSkillsPriority, Reason: reason})
	s.catalog.Replace(builtinSkillsPartition, builtin, capabilities.PartitionOptions{Priority: builtinSkillsPriority, Reason: reason})
	s.publish(reason)
}

// Capabilities implements CapabilitySource: the project skills of the
// session's workspace. It also brings the shared skills up to date, so a
// skill installed a moment ago is in the next model call.
func (s *SkillService) Capabilities(_ context.Context, info SessionInfo) (string, []capabilities.Entry) {
	if changes := s.shared.Refresh(); len(changes) > 0 {
		s.syncShared(changeReasons(changes, s.base.Home))
	}
	if info.Workspace == "" {
		return "", nil
	}
	lib := s.Library(info.Workspace)
	lib.Refresh()
	es := s.entries(lib, lib.Snapshot(), skills.SourceProject)
	h := fnv.New64a()
	for _, e := range es {
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\n", e.ID, e.Summary, e.Problem, e.Description)
	}
	return fmt.Sprintf("%x", h.Sum64()), es
}

// entries describes the snapshot's skills of one source for the catalog.
func (s *SkillService) entries(lib *skills.Library, snap *skills.Snapshot, src skills.Source) []capabilities.Entry {
	return SkillEntries(lib, snap, src, s.noPrompt)
}

// changeReasons says what the watcher saw, for the capability diff:
// "skill x was added to ~/.agents/skills".
func changeReasons(changes []skills.Change, home string) string {
	var parts []string
	for _, c := range changes {
		parts = append(parts, changeReason(c, home))
	}
	if len(parts) > 4 {
		parts = append(parts[:4], fmt.Sprintf("and %d more changes", len(parts)-4))
	}
	return strings.Join(parts, "; ")
}

func changeReason(c skills.Change, home string) string {
	where := "TinyElf's builtin skills"
	if !c.Embedded {
		where = tildeIn(filepath.Dir(c.Dir), home)
	}
	switch c.Kind {
	case skills.ChangeAdded:
		return fmt.Sprintf("skill %s was added to %s", c.Name, where)
	case skills.ChangeChanged:
		return fmt.Sprintf("skill %s changed in %s", c.Name, where)
	case skills.ChangeRemoved:
		if strings.Contains(c.Reason, "no longer loads") {
			return fmt.Sprintf("skill %s in %s no longer loads: %s", c.Name, where, tildeIn(c.Reason, home))
		}
		return fmt.Sprintf("skill %s was removed from %s", c.Name, where)
	case skills.ChangeInvalid:
		return fmt.Sprintf("skill folder %s does not load: %s", tildeIn(c.Dir, home), tildeIn(c.Reason, home))
	}
	return tildeIn(c.Reason, home)
}

// tildeIn writes paths under the home folder as ~/….
func tildeIn(s, home string) string {
	sep := string(filepath.Separator)
	switch {
	case home == "" || home == sep:
		return s
	case s == home:
		return "~"
	}
	return strings.ReplaceAll(s, home+sep, "~"+sep)
}

// EngineSkills is what Options.Skills gets: each workspace's library, the
// hub; the MCP prompts as commands come from Options.MCP.
func (s *SkillService) EngineSkills() *Skills {
	return &Skills{Library: s.Library, Fresh: s.Fresh, Hub: s.hub, NoTrustPrompt: s.noPrompt}
}

// UserHome is the home folder for the user skills in ~/.agents/skills and
// ~/.claude/skills: home, except that "" means the user's own and "-" none
// (tests).
func UserHome(home string) string {
	switch home {
	case "":
		h, _ := os.UserHomeDir()
		return h
	case "-":
		return ""
	}
	return home
}

// BuiltinSkillTrees are the builtin skills beyond the skills package's own:
// those other packages bring (the user-tools package's tool-creator, which
// use_tool's description names), then the caller's extra trees. Every
// surface loads skills through it, so what a tool description points the
// model at is there in the desktop window, serve, run and tool alike.
func BuiltinSkillTrees(extra []skills.BuiltinFS) []skills.BuiltinFS {
	out := []skills.BuiltinFS{{Label: usertools.SkillLabel, FS: usertools.SkillFS()}}
	for _, t := range extra {
		if t.Label != usertools.SkillLabel {
			out = append(out, t)
		}
	}
	return out
}
