package api

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"tinyelf/backend/config"
	"tinyelf/backend/engine"
	"tinyelf/backend/proc"
	"tinyelf/backend/skills"
)

// The methods of Settings → Skills and `tinyelf skills`.

// Skills is the skills part of the API: the Service offers its methods
// (Settings → Skills), and OpenSkills gives `tinyelf skills` the same ones
// without starting an engine or MCP servers. It is safe for concurrent use.
type Skills struct {
	settings *config.Store
	svc      *engine.SkillService
	// sessionWorkspace finds a session's workspace (nil: no sessions here).
	sessionWorkspace func(ctx context.Context, id string) (string, error)
	owned            bool // the skills service is ours to close
	// children starts git clones and the file manager.
	children *proc.Children
}

// SkillsOptions configure OpenSkills.
type SkillsOptions struct {
	// DataDir holds the settings and the user skills (default: DataDir()).
	DataDir string
	// Home is as in Options.Home.
	Home string
	// SkillTrees are extra builtin skill trees (as in Options.SkillTrees).
	SkillTrees []skills.BuiltinFS
	// Getenv reads the environment for git's child environment (default:
	// os.Getenv).
	Getenv func(string) string
}

// OpenSkills reads the settings and the skills, for `tinyelf skills`.
// Close it when done.
func OpenSkills(o SkillsOptions) (*Skills, error) {
	if o.DataDir == "" {
		dir, err := config.DataDir()
		if err != nil {
			return nil, err
		}
		o.DataDir = dir
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	settings, err := config.OpenStore(filepath.Join(o.DataDir, config.SettingsFile))
	if err != nil {
		return nil, err
	}
	children := engine.NewChildren(o.DataDir, settings, o.Getenv)
	svc := engine.NewSkillService(engine.SkillServiceOptions{
		DataDir: o.DataDir, Home: engine.UserHome(o.Home), Builtin: engine.BuiltinSkillTrees(o.SkillTrees),
		Indexes:  func() []string { return settings.Get().Skills.Indexes() },
		Environ:  func() []string { return engine.ChildEnviron(settings.Get().WithEnvironment(o.Getenv)) },
		Children: children,
	})
	return &Skills{settings: settings, svc: svc, owned: true, children: children}, nil
}

// Warnings returns the problems met while reading the settings and the
// skill trust file, one sentence each.
func (k *Skills) Warnings() []string {
	var out []string
	if w := k.settings.Warning(); w != "" {
		out = append(out, w)
	}
	if w := k.svc.Warning(); w != "" {
		out = append(out, w)
	}
	return out
}

// Close releases what OpenSkills opened.
func (k *Skills) Close() error {
	if k.owned {
		k.svc.Close()
		k.children.KillAll()
	}
	return nil
}

// SkillInfo is one skill as Settings → Skills lists it: where it comes
// from, its trust, its state (ready, untrusted, denied, user-only,
// shadowed, invalid) with the reason.
type SkillInfo struct {
	skills.Entry
	// Installed is the SkillHub record of a skill SkillHub installed; only
	// those can be removed here.
	Installed *skills.HubRecord `json:"installed,omitempty"`
}

// SkillsArgs names the workspace whose skills are listed: Workspace, or
// the workspace of SessionID; neither lists the user's and the builtin
// skills only.
type SkillsArgs struct {
	Workspace string `json:"workspace,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
}

// SkillList is every skill found for a workspace.
type SkillList struct {
	Workspace string      `json:"workspace,omitempty"`
	Skills    []SkillInfo `json:"skills"`
	// Roots are the folders skills are looked for in, in precedence order
	// (missing ones included: a skill put there is found).
	Roots []skills.Root `json:"roots"`
	// UserDir is where SkillHub installs.
	UserDir string `json:"userDir"`
	// HubIndexes are the SkillHub indexes in effect (none: SkillHub off).
	HubIndexes []string `json:"hubIndexes"`
	// DefaultHubIndexes are TinyElf's default ones (see SkillSettings).
	DefaultHubIndexes []string `json:"defaultHubIndexes"`
	// Warning explains a trust file that could not be read.
	Warning string `json:"warning,omitempty"`
}

// ListSkills returns every skill of a workspace: the effective ones with
// their trust, the shadowed and the invalid ones with why.
func (k *Skills) ListSkills(ctx context.Context, a SkillsArgs) (SkillList, error) {
	ws, err := k.workspace(ctx, a.SessionID, a.Workspace)
	if err != nil {
		return SkillList{}, err
	}
	lib := k.svc.Fresh(ws)
	out := SkillList{Workspace: ws, Skills: []SkillInfo{}, Roots: lib.Snapshot().Roots, UserDir: lib.Options().UserSkillsDir(),
		HubIndexes: k.hubIndexes(), DefaultHubIndexes: config.DefaultHubIndexes(), Warning: k.svc.Warning()}
	for _, e := range lib.List() {
		out.Skills = append(out.Skills, k.skillInfo(e))
	}
	return out, nil
}

func (k *Skills) skillInfo(e skills.Entry) SkillInfo {
	info := SkillInfo{Entry: e}
	if e.Source == skills.SourceUser && e.Dir != "" && filepath.Dir(e.Dir) == filepath.Clean(k.svc.Hub().Dir()) {
		if rec, ok := skills.Record(e.Dir); ok {
			info.Installed = &rec
		}
	}
	return info
}

// workspace is the workspace of a session, or dir made absolute; a folder
// that does not exist is an error.
func (k *Skills) workspace(ctx context.Context, sessionID, dir string) (string, error) {
	ws := dir
	if sessionID != "" {
		if k.sessionWorkspace == nil {
			return "", invalidf("sessions are not available here; name the workspace instead")
		}
		var err error
		if ws, err = k.sessionWorkspace(ctx, sessionID); err != nil {
			return "", err
		}
	}
	if ws == "" {
		return "", nil
	}
	abs, err := filepath.Abs(ws)
	if err != nil {
		return "", invalidf("workspace %q: %v", ws, err)
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return "", invalidf("workspace %s is not a folder", abs)
	}
	return abs, nil
}

// SkillArgs names one skill: by name (the effective skill of that name),
// or by Location too for a shadowed or invalid one.
type SkillArgs struct {
	Workspace string `json:"workspace,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
	Name      string `json:"name"`
	Location  string `json:"location,omitempty"`
}

// SkillDetail is a skill with its SKILL.md as written and its files.
type SkillDetail struct {
	SkillInfo
	// Content is SKILL.md, frontmatter included (cut at 1 MB).
	Content string   `json:"content"`
	Files   []string `json:"files"`
	// FilesTruncated says the skill has more files than listed.
	FilesTruncated bool `json:"filesTruncated,omitempty"`
}

// maxShownSkillFile bounds the SKILL.md GetSkill returns.
const maxShownSkillFile = 1 << 20

// GetSkill returns one skill with its SKILL.md and its files.
func (k *Skills) GetSkill(ctx context.Context, a SkillArgs) (SkillDetail, error) {
	ws, err := k.workspace(ctx, a.SessionID, a.Workspace)
	if err != nil {
		return SkillDetail{}, err
	}
	lib := k.svc.Fresh(ws)
	e, sk, err := findSkill(lib, a.Name, a.Location)
	if err != nil {
		return SkillDetail{}, err
	}
	d := SkillDetail{SkillInfo: k.skillInfo(e), Files: []string{}}
	if sk == nil {
		// An invalid skill: show the file as it is, so the problem can be seen.
		if b, err := readCappedFile(e.Location, maxShownSkillFile); err == nil {
			d.Content = b
		}
		return d, nil
	}
	raw, err := sk.ReadFile("SKILL.md")
	if err != nil {
		return SkillDetail{}, invalidf("read %s: %v", sk.Location(), err)
	}
	d.Content = cutText(raw, maxShownSkillFile)
	if files, truncated, err := sk.Files(0); err == nil {
		d.Files, d.FilesTruncated = files, truncated
	}
	return d, nil
}

// findSkill finds a listed skill and, unless it is invalid, the skill
// itself.
func findSkill(lib *skills.Library, name, location string) (skills.Entry, *skills.Skill, error) {
	if strings.TrimSpace(name) == "" {
		return skills.Entry{}, nil, invalidf("which skill? (a name is needed)")
	}
	for _, e := range lib.List() {
		if e.Name != name || (location != "" && e.Location != location) {
			continue
		}
		if location == "" && e.Status == skills.StatusShadowed {
			continue // the effective one, unless asked for the shadowed
		}
		snap := lib.Snapshot()
		if sk, ok := snap.Get(name); ok && sk.Location() == e.Location {
			return e, sk, nil
		}
		for _, sh := range snap.Shadowed {
			if sh.Skill.Name == name && sh.Skill.Location() == e.Location {
				return e, sh.Skill, nil
			}
		}
		return e, nil, nil
	}
	return skills.Entry{}, nil, notFoundf("no skill named %q", name)
}

func readCappedFile(path string, limit int) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	buf := make([]byte, limit+1)
	n, _ := f.Read(buf)
	return cutText(buf[:n], limit), nil
}

// cutText returns b as text, cut at limit bytes on a character boundary.
func cutText(b []byte, limit int) string {
	if len(b) <= limit {
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return strings.ToValidUTF8(string(b[:cut]), "\uFFFD") + "\n…"
}

// SkillTrustArgs trusts, denies or forgets (untrusted: ask again) a
// project skill in a workspace.
type SkillTrustArgs struct {
	Workspace string `json:"workspace,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
	Name      string `json:"name"`
	// Trust is "trusted", "denied" or "untrusted".
	Trust string `json:"trust"`
}

// SetSkillTrust records the user's answer about a project skill for the
// workspace and returns the workspace's skills.
func (k *Skills) SetSkillTrust(ctx context.Context, a SkillTrustArgs) (SkillList, error) {
	state, err := skills.ParseTrustState(a.Trust)
	if err != nil {
		return SkillList{}, invalidf("%v", err)
	}
	ws, err := k.workspace(ctx, a.SessionID, a.Workspace)
	if err != nil {
		return SkillList{}, err
	}
	if ws == "" {
		return SkillList{}, invalidf("trust is per workspace: name the workspace the project skill %q is in", a.Name)
	}
	lib := k.svc.Fresh(ws)
	if err := lib.SetTrust(a.Name, state); err != nil {
		return SkillList{}, invalidf("%v", err)
	}
	k.svc.Changed(fmt.Sprintf("skill %s is %s in %s", a.Name, state, ws))
	return k.ListSkills(ctx, SkillsArgs{Workspace: ws})
}

// HubSearchArgs searches the configured SkillHub indexes.
type HubSearchArgs struct {
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty"`
}

// HubSearchResult is a SkillHub search, with the names of the user skills
// installed already.
type HubSearchResult struct {
	skills.SearchResult
	// Installed maps an entry's name to the SkillHub ID installed under it.
	Installed map[string]string `json:"installed"`
}

// SearchSkillHub ranks the entries of every configured SkillHub index
// against the query. With no index configured it fails with CodeInvalid
// and says where to add one.
func (k *Skills) SearchSkillHub(ctx context.Context, a HubSearchArgs) (HubSearchResult, error) {
	res, err := k.svc.Hub().Search(ctx, a.Query, a.Limit)
	if err != nil {
		return HubSearchResult{}, invalidf("%v", err)
	}
	if res.Entries == nil {
		res.Entries = []skills.HubEntry{}
	}
	out := HubSearchResult{SearchResult: res, Installed: map[string]string{}}
	for _, e := range k.svc.Shared().List() {
		if e.Source == skills.SourceUser && e.Dir != "" {
			if rec, ok := skills.Record(e.Dir); ok {
				out.Installed[e.Name] = rec.ID
			}
		}
	}
	return out, nil
}

// HubInstallArgs names a SkillHub entry by its ID.
type HubInstallArgs struct {
	ID string `json:"id"`
}

// InstallSkill downloads, checks and installs a SkillHub skill into the
// user skills folder; it is available in every session at once.
func (k *Skills) InstallSkill(ctx context.Context, a HubInstallArgs) (skills.Installed, error) {
	if strings.TrimSpace(a.ID) == "" {
		return skills.Installed{}, invalidf("which SkillHub skill? (an id from the search is needed)")
	}
	inst, err := k.svc.Hub().Install(ctx, strings.TrimSpace(a.ID))
	if err != nil {
		return skills.Installed{}, invalidf("%v", err)
	}
	k.svc.Refresh(fmt.Sprintf("skill %s was installed from SkillHub", inst.Name))
	return inst, nil
}

// RemoveSkillArgs names a skill SkillHub installed.
type RemoveSkillArgs struct {
	Name string `json:"name"`
}

// RemoveSkill removes a skill SkillHub installed; a skill the user made by
// hand is never removed (its folder is theirs).
func (k *Skills) RemoveSkill(_ context.Context, a RemoveSkillArgs) (struct{}, error) {
	if err := k.svc.Hub().Remove(strings.TrimSpace(a.Name)); err != nil {
		return struct{}{}, invalidf("%v", err)
	}
	k.svc.Refresh(fmt.Sprintf("skill %s was removed", a.Name))
	return struct{}{}, nil
}

// ValidateSkillArgs names a skill folder.
type ValidateSkillArgs struct {
	Dir string `json:"dir"`
}

// ValidateReport is a strict validation of one skill folder.
type ValidateReport struct {
	Dir      string           `json:"dir"`
	Problems []skills.Problem `json:"problems"`
	// Valid is false when any problem is not a warning.
	Valid bool `json:"valid"`
	// Loads says whether TinyElf loads (and SkillHub would install) the
	// skill anyway: the loader forgives what the Agent Skills client guide
	// allows. LoadProblem is why not, when it does not.
	Loads       bool            `json:"loads"`
	LoadProblem *skills.Problem `json:"loadProblem,omitempty"`
}

// ValidateSkill checks a skill folder strictly, as the reference
// validator does: every problem with its file and line.
func (k *Skills) ValidateSkill(_ context.Context, a ValidateSkillArgs) (ValidateReport, error) {
	if strings.TrimSpace(a.Dir) == "" {
		return ValidateReport{}, invalidf("which folder? (the skill's folder, holding SKILL.md)")
	}
	ps := skills.Validate(a.Dir)
	if ps == nil {
		ps = []skills.Problem{}
	}
	rep := ValidateReport{Dir: a.Dir, Problems: ps, Valid: !skills.HasErrors(ps)}
	sk, inv := skills.LoadFolder(a.Dir, "")
	rep.Loads = sk != nil
	if inv != nil {
		rep.LoadProblem = &inv.Problem
	}
	return rep, nil
}

// SkillSettings are the skills' settings: the SkillHub indexes.
type SkillSettings struct {
	// HubIndexes are the indexes in effect (TinyElf's default ones until
	// the user saves a list; an empty list turns SkillHub off).
	HubIndexes []string `json:"hubIndexes"`
	// DefaultHubIndexes are TinyElf's default indexes, so that a surface
	// can mark them and offer them back once removed (ignored on save).
	DefaultHubIndexes []string `json:"defaultHubIndexes"`
	// RestoreDefault, on save, goes back to the default indexes (and to
	// whatever later versions of TinyElf ship as default) instead of
	// saving HubIndexes.
	RestoreDefault bool `json:"restoreDefault,omitempty"`
}

// GetSkillSettings returns the skills' settings.
func (k *Skills) GetSkillSettings(context.Context, struct{}) (SkillSettings, error) {
	return SkillSettings{HubIndexes: k.hubIndexes(), DefaultHubIndexes: config.DefaultHubIndexes()}, nil
}

// hubIndexes returns the indexes in effect, never nil.
func (k *Skills) hubIndexes() []string {
	if idx := k.settings.Get().Skills.Indexes(); idx != nil {
		return idx
	}
	return []string{}
}

// SaveSkillSettings replaces the SkillHub indexes (https, or http on this
// machine only; none turns SkillHub off, the default one included), or
// restores the default ones.
func (k *Skills) SaveSkillSettings(ctx context.Context, a SkillSettings) (SkillSettings, error) {
	var idx []string // nil: the default indexes
	if !a.RestoreDefault {
		var err error
		if idx, err = config.NormalizeHubIndexes(a.HubIndexes); err != nil {
			return SkillSettings{}, invalidf("%v", err)
		}
	}
	if err := k.settings.Update(func(st *config.Settings) error { st.Skills.HubIndexes = idx; return nil }); err != nil {
		return SkillSettings{}, err
	}
	return k.GetSkillSettings(ctx, struct{}{})
}

// OpenSkillFolder opens a skill's folder in the system's file manager (on
// the machine TinyElf runs on). Only the folder of a listed skill is
// opened.
func (k *Skills) OpenSkillFolder(ctx context.Context, a SkillArgs) (struct{}, error) {
	ws, err := k.workspace(ctx, a.SessionID, a.Workspace)
	if err != nil {
		return struct{}{}, err
	}
	e, _, err := findSkill(k.svc.Fresh(ws), a.Name, a.Location)
	if err != nil {
		return struct{}{}, err
	}
	if e.Dir == "" {
		return struct{}{}, invalidf("skill %s is built into TinyElf: it has no folder on disk (view its SKILL.md instead)", e.Name)
	}
	if err := openFolder(k.children, e.Dir); err != nil {
		return struct{}{}, invalidf("cannot open %s here (%v); its folder is %s", e.Name, err, e.Dir)
	}
	return struct{}{}, nil
}
