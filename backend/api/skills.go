package api

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"tinyelf/backend/capabilities"
	"tinyelf/backend/engine"
	"tinyelf/backend/mcp"
	"tinyelf/backend/proc"
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
	userSkillsPartition    = "skill:user"
	builtinSkillsPartition = "skill:builtin"
	userSkillsPriority     = capabilities.PrioritySkill - 1
	builtinSkillsPriority  = capabilities.PrioritySkill + 1
)

// LiveSkillsChanged tells the UI that the skills changed (a folder, a
// trust answer, an install): Settings → Skills and the "/" menu reload.
const LiveSkillsChanged = "skills.changed"

// skillService holds the skills of every workspace the service has seen.
// It is safe for concurrent use.
type skillService struct {
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

// skillServiceOptions configure the skills of a Service.
type skillServiceOptions struct {
	dataDir, home string
	builtin       []skills.BuiltinFS
	trustProject  bool
	noPrompt      bool
	indexes       func() []string
	environ       func() []string
	children      *proc.Children
}

func newSkillService(o skillServiceOptions, catalog *capabilities.Catalog, publish func(string)) *skillService {
	base := skills.Options{DataDir: o.dataDir, Home: o.home, Builtin: o.builtin, TrustProject: o.trustProject}
	s := &skillService{base: base, catalog: catalog, publish: publish, environ: o.environ, noPrompt: o.noPrompt && !o.trustProject,
		libs: map[string]*skills.Library{}}
	trust, err := skills.OpenTrustStore(filepath.Join(o.dataDir, skills.TrustFile))
	if err != nil {
		s.warning = fmt.Sprintf("Skill trust answers cannot be read (%v); project skills are untrusted and answers are not saved.", err)
	} else {
		s.trust = trust
		s.warning = trust.Warning()
	}
	s.hub = skills.NewHub(base.UserSkillsDir(), o.indexes, skills.WithEnviron(o.environ), skills.WithChildren(o.children))
	s.shared = skills.NewLibrary(base, s.trust)
	s.syncShared("skills loaded")
	return s
}

// start watches the user's skill folders until close.
func (s *skillService) start() {
	s.watcher = s.shared.Watch(context.Background(), 0, func(changes []skills.Change) {
		s.syncShared(changeReasons(changes, s.base.Home))
	})
}

func (s *skillService) close() {
	if s.watcher != nil {
		_ = s.watcher.Close()
	}
}

// library returns the skills of a workspace ("" for the user's and the
// builtin ones only), loaded on first use and refreshed when its folders
// changed.
func (s *skillService) library(workspace string) *skills.Library {
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

// fresh is library with the folders checked for changes first.
// The shared skills are checked too: what the user sees in one list, the
// catalog (Settings → Capabilities) shows as well.
func (s *skillService) fresh(workspace string) *skills.Library {
	if changes := s.shared.Refresh(); len(changes) > 0 {
		s.syncShared(changeReasons(changes, s.base.Home))
	}
	lib := s.library(workspace)
	if lib != s.shared {
		lib.Refresh()
	}
	return lib
}

// refresh reloads the shared skills when their folders changed, and every
// workspace library, and tells the UI. It is what an install, a removal and
// a trust answer call.
func (s *skillService) refresh(reason string) {
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

// syncShared puts the shared skills into the catalog.
func (s *skillService) syncShared(reason string) {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	snap := s.shared.Snapshot()
	user := s.entries(s.shared, snap, skills.SourceUser)
	builtin := s.entries(s.shared, snap, skills.SourceBuiltin)
	s.catalog.Replace(userSkillsPartition, user, capabilities.PartitionOptions{Priority: userSkillsPriority, Reason: reason})
	s.catalog.Replace(builtinSkillsPartition, builtin, capabilities.PartitionOptions{Priority: builtinSkillsPriority, Reason: reason})
	s.publish(reason)
}

// Capabilities implements engine.CapabilitySource: the project skills of
// the session's workspace. It also brings the shared skills up to date, so
// a skill installed a moment ago is in the next model call.
func (s *skillService) Capabilities(_ context.Context, info engine.SessionInfo) (string, []capabilities.Entry) {
	if changes := s.shared.Refresh(); len(changes) > 0 {
		s.syncShared(changeReasons(changes, s.base.Home))
	}
	if info.Workspace == "" {
		return "", nil
	}
	lib := s.library(info.Workspace)
	lib.Refresh()
	es := s.entries(lib, lib.Snapshot(), skills.SourceProject)
	h := fnv.New64a()
	for _, e := range es {
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\n", e.ID, e.Summary, e.Problem, e.Description)
	}
	return fmt.Sprintf("%x", h.Sum64()), es
}

// entries describes the snapshot's skills of one source for the catalog.
func (s *skillService) entries(lib *skills.Library, snap *skills.Snapshot, src skills.Source) []capabilities.Entry {
	return engine.SkillEntries(lib, snap, src, s.noPrompt)
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

// engineSkills is what the engine gets: each workspace's library, the hub,
// the MCP prompts as commands.
func (s *skillService) engineSkills(prompts skills.PromptSource) *engine.Skills {
	return &engine.Skills{Library: s.library, Hub: s.hub, Prompts: prompts, NoTrustPrompt: s.noPrompt}
}

// mcpPrompts offers the user's MCP prompts as slash commands.
type mcpPrompts struct{ svc *mcp.Service }

func (p mcpPrompts) Prompts() []skills.Prompt {
	var out []skills.Prompt
	for _, pc := range p.svc.Prompts() {
		sp := skills.Prompt{Name: pc.Name, Description: pc.Description}
		if sp.Description == "" {
			sp.Description = pc.Title
		}
		for _, a := range pc.Arguments {
			sp.Arguments = append(sp.Arguments, skills.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
		}
		out = append(out, sp)
	}
	return out
}

func (p mcpPrompts) RunPrompt(ctx context.Context, name string, args map[string]string) (string, error) {
	return p.svc.RunPrompt(ctx, name, args)
}

// publishSkills tells the UI the skills changed.
func (s *Service) publishSkills(reason string) {
	b, _ := json.Marshal(map[string]string{"reason": reason})
	s.bus.Publish(engine.Event{Type: LiveSkillsChanged, Time: time.Now(), Data: b})
}

// userHome is the home folder for the user skills in ~/.agents/skills and
// ~/.claude/skills: Options.Home, or the user's own.
func userHome(o Options) string {
	switch o.Home {
	case "":
		h, _ := os.UserHomeDir()
		return h
	case "-":
		return ""
	}
	return o.Home
}

// builtinSkillTrees are the builtin skills beyond the skills package's own:
// those other packages bring (the user-tools package's tool-creator, which
// use_tool's description names), then the caller's extra trees. Every
// surface loads skills through it, so what a tool description points the
// model at is there in the desktop window, serve, run and tool alike.
func builtinSkillTrees(extra []skills.BuiltinFS) []skills.BuiltinFS {
	out := []skills.BuiltinFS{{Label: usertools.SkillLabel, FS: usertools.SkillFS()}}
	for _, t := range extra {
		if t.Label != usertools.SkillLabel {
			out = append(out, t)
		}
	}
	return out
}
