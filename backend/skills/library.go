package skills

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// Library is the live set of skills of one workspace: the latest snapshot,
// the trust of its project skills, and reloading. It is safe for
// concurrent use. The engine keeps one per workspace and hands it to the
// skills tools.
type Library struct {
	opts  Options
	trust *TrustStore

	mu   sync.RWMutex
	snap *Snapshot
	// fp is the fingerprint of the folders when snap was loaded.
	fp uint64
}

// NewLibrary loads the skills of opts. trust may be nil: project skills are
// then untrusted (or trusted when opts.TrustProject is set) and answers
// cannot be saved.
func NewLibrary(opts Options, trust *TrustStore) *Library {
	snap := Load(opts)
	return &Library{opts: opts, trust: trust, snap: snap, fp: fingerprint(snap.Roots)}
}

// Options returns the options the library loads with.
func (l *Library) Options() Options { return l.opts }

// Snapshot returns the current snapshot.
func (l *Library) Snapshot() *Snapshot {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.snap
}

// Get returns the effective skill of that name.
func (l *Library) Get(name string) (*Skill, bool) { return l.Snapshot().Get(name) }

// Reload loads every skill again and returns what changed since the last
// load, with reasons.
func (l *Library) Reload() []Change {
	fp := fingerprint(l.Snapshot().Roots)
	next := Load(l.opts)
	l.mu.Lock()
	prev := l.snap
	l.snap, l.fp = next, fp
	l.mu.Unlock()
	return Diff(prev, next)
}

// Refresh reloads the library when its folders changed since the last
// load (the same cheap stat-only check the watcher makes) and returns what
// changed; nil when nothing did. A caller that cannot keep a watcher
// running (a library per workspace, asked before each model call) uses it.
func (l *Library) Refresh() []Change {
	fp := fingerprint(l.Snapshot().Roots)
	l.mu.RLock()
	same := fp == l.fp
	l.mu.RUnlock()
	if same {
		return nil
	}
	return l.Reload()
}

// Trusts returns the trust store (nil when the library has none).
func (l *Library) Trusts() *TrustStore { return l.trust }

// Trust returns the trust of a skill: builtin and user skills are always
// trusted; a project skill has the answer recorded for this workspace.
func (l *Library) Trust(sk *Skill) TrustState {
	if sk.Source != SourceProject {
		return TrustTrusted
	}
	if l.opts.TrustProject {
		return TrustTrusted
	}
	return l.trust.State(l.opts.Workspace, sk.Name)
}

// SetTrust records the user's answer for the project skill name in this
// workspace (TrustUntrusted withdraws it). It fails for a skill that is not
// a current project skill, and when the library has no trust store.
func (l *Library) SetTrust(name string, state TrustState) error {
	sk, ok := l.Get(name)
	if !ok {
		return fmt.Errorf("no skill named %q", name)
	}
	if sk.Source != SourceProject {
		return fmt.Errorf("skill %q is a %s skill; only project skills need trust", name, sk.Source)
	}
	if l.trust == nil {
		return fmt.Errorf("skill trust cannot be saved here (no trust store)")
	}
	return l.trust.Set(l.opts.Workspace, name, state)
}

// TrustRequest is what the user is asked the first time a project skill is
// loaded in a workspace.
type TrustRequest struct {
	Workspace string `json:"workspace"`
	Skill     string `json:"skill"`
	Dir       string `json:"dir"`
	// AllowedTools is the skill's allowed-tools as written.
	AllowedTools string `json:"allowedTools,omitempty"`
	// Question is the approval card's text.
	Question string `json:"question"`
}

// TrustRequestFor returns the question to ask before the project skill
// name is loaded, and false when no question is needed (the skill is not a
// project skill, or it is already trusted or denied).
func (l *Library) TrustRequestFor(name string) (TrustRequest, bool) {
	sk, ok := l.Get(name)
	if !ok || sk.Source != SourceProject || l.Trust(sk) != TrustUntrusted {
		return TrustRequest{}, false
	}
	q := fmt.Sprintf("This folder's skill %q wants to guide the agent.", sk.Name)
	if len(sk.AllowedTools) > 0 {
		q = fmt.Sprintf("This folder's skill %q wants to guide the agent; it may ask to run %s.", sk.Name, sk.AllowedTools.String())
	}
	return TrustRequest{Workspace: l.opts.Workspace, Skill: sk.Name, Dir: sk.Dir, AllowedTools: sk.AllowedTools.String(), Question: q}, true
}

// HowToTrust tells the model (and through it the user) how to trust an
// untrusted project skill of this library's workspace.
func (l *Library) HowToTrust(name string) string {
	return HowToTrustIn(l.opts.Workspace, name)
}

// HowToTrustIn tells how to trust the project skill name of workspace.
func HowToTrustIn(workspace, name string) string {
	cmd := "tinyelf skills trust " + name
	if workspace != "" {
		cmd += " --workspace " + shellQuote(workspace)
	}
	return fmt.Sprintf("Skill %q comes from this workspace and has not been trusted yet. Ask the user to trust it in Settings → Skills, or with `%s` (or to rerun `tinyelf run` with --yes).", name, cmd)
}

// shellQuote quotes a path for a command line the user may paste.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"$`\\|&;<>()*?[]{}!#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Status is a skill's state as listed to the user and the model.
type Status string

// The statuses of a listed skill.
const (
	StatusReady     Status = "ready"     // loadable
	StatusUntrusted Status = "untrusted" // a project skill nobody trusted yet
	StatusDenied    Status = "denied"    // a project skill the user refused
	StatusUserOnly  Status = "user-only" // disable-model-invocation: only /name
	StatusShadowed  Status = "shadowed"  // hidden by a skill of the same name
	StatusInvalid   Status = "invalid"   // could not be loaded
)

// Entry is one line of the skills list (list_skills, Settings → Skills,
// `tinyelf skills list`).
type Entry struct {
	Name        string     `json:"name"`
	Description string     `json:"description,omitempty"`
	Source      Source     `json:"source"`
	Status      Status     `json:"status"`
	Trust       TrustState `json:"trust,omitempty"`
	// Reason explains an invalid, untrusted or shadowed status.
	Reason string `json:"reason,omitempty"`
	// Dir is the skill's folder on disk; "" for a skill embedded in the
	// binary (Location then reads builtin:<name>/SKILL.md).
	Dir           string   `json:"dir"`
	Location      string   `json:"location,omitempty"`
	Warnings      []string `json:"warnings,omitempty"`
	UserInvocable bool     `json:"userInvocable,omitempty"`
	ArgumentHint  string   `json:"argumentHint,omitempty"`
	AllowedTools  string   `json:"allowedTools,omitempty"`
}

// List returns every skill found: the effective ones with their trust, the
// shadowed ones and the invalid ones, sorted by name, then by precedence.
func (l *Library) List() []Entry {
	snap := l.Snapshot()
	var out []Entry
	entry := func(sk *Skill) Entry {
		dir := sk.Dir
		if sk.Embedded() {
			dir = ""
		}
		return Entry{Name: sk.Name, Description: sk.Description, Source: sk.Source, Dir: dir,
			Location: sk.Location(), Warnings: sk.Warnings, UserInvocable: sk.UserInvocable,
			ArgumentHint: sk.ArgumentHint, AllowedTools: sk.AllowedTools.String()}
	}
	for _, sk := range snap.Skills {
		e := entry(sk)
		e.Trust = l.Trust(sk)
		switch {
		case e.Trust == TrustDenied:
			e.Status = StatusDenied
		case e.Trust == TrustUntrusted:
			e.Status, e.Reason = StatusUntrusted, l.HowToTrust(sk.Name)
		case sk.DisableModelInvocation:
			e.Status = StatusUserOnly
		default:
			e.Status = StatusReady
		}
		out = append(out, e)
	}
	for _, sh := range snap.Shadowed {
		e := entry(sh.Skill)
		e.Status = StatusShadowed
		e.Reason = fmt.Sprintf("shadowed by the %s skill of the same name at %s", sh.By.Source, sh.By.Location())
		out = append(out, e)
	}
	for _, inv := range snap.Invalid {
		out = append(out, Entry{Name: inv.Name, Source: inv.Source, Status: StatusInvalid, Dir: inv.Dir,
			Location: inv.Problem.File, Reason: inv.Problem.String()})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].Source.rank() < out[j].Source.rank()
	})
	return out
}

// Index returns the model's index: the effective skills the model may
// invoke, without the denied project skills. Untrusted ones stay unless
// TrustedOnly (reading one is what asks the user); o.Include filters
// further.
func (l *Library) Index(o IndexOptions) Index {
	include := o.Include
	o.Include = func(sk *Skill) bool {
		switch l.Trust(sk) {
		case TrustDenied:
			return false
		case TrustUntrusted:
			if o.TrustedOnly {
				return false
			}
		}
		return include == nil || include(sk)
	}
	return l.Snapshot().Index(o)
}

// ReadableDirs returns the folders of the effective skills on disk that the
// model may read with Read although they are outside the workspace
// (read-only): builtin-on-disk, user and trusted project skills.
func (l *Library) ReadableDirs() []string {
	var out []string
	for _, sk := range l.Snapshot().Skills {
		if sk.Embedded() || l.Trust(sk) != TrustTrusted {
			continue
		}
		out = append(out, filepath.Clean(sk.Dir))
	}
	return out
}
