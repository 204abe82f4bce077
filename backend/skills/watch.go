package skills

import (
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// ChangeKind says how a skill changed between two loads.
type ChangeKind string

// The kinds of change.
const (
	ChangeAdded   ChangeKind = "added"
	ChangeChanged ChangeKind = "changed"
	ChangeRemoved ChangeKind = "removed"
	// ChangeInvalid reports a skill folder that newly fails to load (or
	// fails differently); the skill it was, if any, is reported removed.
	ChangeInvalid ChangeKind = "invalid"
)

// Change is one difference between two snapshots, with the reason the
// capability diff logs.
type Change struct {
	Kind   ChangeKind `json:"kind"`
	Name   string     `json:"name"`
	ID     string     `json:"id"` // skill__<name>
	Source Source     `json:"source"`
	Reason string     `json:"reason"`
	// Dir is the skill's folder (as it is now, or as it was for a removed
	// one); for an embedded skill its path inside the binary.
	Dir string `json:"dir"`
	// Embedded is set for a skill built into the binary.
	Embedded bool `json:"embedded,omitempty"`
	// Skill is the skill as it is now; nil for removed and invalid.
	Skill *Skill `json:"-"`
}

// Diff compares two snapshots (prev may be nil) and returns the changes of
// the effective skills, sorted by name, then the newly invalid folders.
func Diff(prev, next *Snapshot) []Change {
	if prev == nil {
		prev = &Snapshot{}
	}
	var out []Change
	invalidNow := map[string]Invalid{}
	for _, inv := range next.Invalid {
		invalidNow[inv.Name] = inv
	}
	for _, sk := range next.Skills {
		old, ok := prev.Get(sk.Name)
		switch {
		case !ok:
			reason := fmt.Sprintf("%s skill added at %s", sk.Source, sk.Location())
			if sh := shadowOf(prev, sk.Name); sh != nil {
				reason = fmt.Sprintf("%s skill at %s now loads (it was shadowed)", sk.Source, sk.Location())
			}
			out = append(out, Change{Kind: ChangeAdded, Name: sk.Name, ID: sk.ID(), Source: sk.Source, Reason: reason, Skill: sk, Dir: sk.Dir, Embedded: sk.Embedded()})
		case old.Source != sk.Source || old.File != sk.File:
			out = append(out, Change{Kind: ChangeChanged, Name: sk.Name, ID: sk.ID(), Source: sk.Source, Skill: sk, Dir: sk.Dir, Embedded: sk.Embedded(),
				Reason: fmt.Sprintf("now the %s skill at %s (was the %s skill at %s)", sk.Source, sk.Location(), old.Source, old.Location())})
		case old.Digest != sk.Digest:
			out = append(out, Change{Kind: ChangeChanged, Name: sk.Name, ID: sk.ID(), Source: sk.Source, Skill: sk, Dir: sk.Dir, Embedded: sk.Embedded(),
				Reason: fmt.Sprintf("SKILL.md changed at %s", sk.Location())})
		}
	}
	for _, old := range prev.Skills {
		if _, ok := next.Get(old.Name); ok {
			continue
		}
		reason := fmt.Sprintf("%s skill removed from %s", old.Source, old.Location())
		if inv, ok := invalidNow[filepath.Base(old.Dir)]; ok {
			reason = fmt.Sprintf("%s skill no longer loads: %s", old.Source, inv.Problem.String())
		}
		out = append(out, Change{Kind: ChangeRemoved, Name: old.Name, ID: old.ID(), Source: old.Source, Reason: reason, Dir: old.Dir, Embedded: old.Embedded()})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	wasInvalid := map[string]string{}
	for _, inv := range prev.Invalid {
		wasInvalid[inv.Dir] = inv.Problem.String()
	}
	for _, inv := range next.Invalid {
		if p, ok := wasInvalid[inv.Dir]; ok && p == inv.Problem.String() {
			continue
		}
		out = append(out, Change{Kind: ChangeInvalid, Name: inv.Name, ID: "skill__" + inv.Name, Source: inv.Source, Reason: inv.Problem.String(), Dir: inv.Dir})
	}
	return out
}

func shadowOf(s *Snapshot, name string) *Shadowed {
	for i := range s.Shadowed {
		if s.Shadowed[i].Skill.Name == name {
			return &s.Shadowed[i]
		}
	}
	return nil
}

// DefaultWatchInterval is how often Watch looks at the skill folders.
const DefaultWatchInterval = 2 * time.Second

// Watcher reloads a library when its skill folders change. It polls: every
// interval it stats each skills folder, the folders in it and their
// SKILL.md (a few hundred stat calls for hundreds of skills, no file
// reads), and reloads only when that fingerprint changed. Polling needs no
// file descriptors per folder and sees folders that do not exist yet.
type Watcher struct {
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
}

// Watch starts watching the library's folders until ctx ends or Close is
// called. onChange is called from the watcher's goroutine, one call at a
// time, with the changes of each reload that changed something. interval
// 0 means DefaultWatchInterval.
func (l *Library) Watch(ctx context.Context, interval time.Duration, onChange func([]Change)) *Watcher {
	if interval <= 0 {
		interval = DefaultWatchInterval
	}
	ctx, cancel := context.WithCancel(ctx)
	w := &Watcher{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if changes := l.Refresh(); len(changes) > 0 && onChange != nil {
				onChange(changes)
			}
		}
	}()
	return w
}

// Close stops the watcher and waits for its goroutine to end; no onChange
// call runs after it returns. It is safe to call more than once.
func (w *Watcher) Close() error {
	w.once.Do(w.cancel)
	<-w.done
	return nil
}

// fingerprint hashes what a reload would notice in the folders on disk.
func fingerprint(roots []Root) uint64 {
	h := fnv.New64a()
	for _, r := range roots {
		if r.fsys != nil {
			continue
		}
		fmt.Fprintf(h, "root %s\n", r.Dir)
		entries, err := os.ReadDir(r.Dir)
		if err != nil {
			fmt.Fprintf(h, "missing\n")
			continue
		}
		for i, e := range entries {
			if i > maxSkillDirs {
				break
			}
			name := e.Name()
			if strings.HasPrefix(name, ".") || name == "node_modules" {
				continue
			}
			for _, f := range []string{"SKILL.md", "skill.md"} {
				if st, err := os.Stat(filepath.Join(r.Dir, name, f)); err == nil {
					fmt.Fprintf(h, "%s/%s %d %d\n", name, f, st.Size(), st.ModTime().UnixNano())
				}
			}
		}
	}
	return h.Sum64()
}
