package hooks

import (
	"time"
)

// SourceSettings names the hooks of TinyElf's own settings file.
const SourceSettings = "settings"

// Source is the hooks section of one settings file.
type Source struct {
	// Name says where the hooks come from: SourceSettings, or a project
	// file's path relative to the workspace (".claude/settings.json").
	Name   string
	Config Config
}

// Hook is one runnable command hook as it applies: its event, its group's
// matcher and where it was written.
type Hook struct {
	Event   Event         `json:"event"`
	Matcher string        `json:"matcher,omitempty"`
	Command string        `json:"command"`
	Timeout time.Duration `json:"-"`
	Source  string        `json:"source"`

	match Matcher
}

// Set is the hooks that apply to one workspace, their matchers compiled.
// It is immutable and safe for concurrent use; a nil *Set has no hooks.
type Set struct {
	byEvent map[Event][]*Hook
}

// NewSet compiles sources, in order (the settings' hooks first, then the
// project's). Hooks that cannot run (another type, no command, a matcher
// that does not compile) are left out; Parse reports them.
func NewSet(sources ...Source) *Set {
	s := &Set{byEvent: map[Event][]*Hook{}}
	for _, src := range sources {
		for _, ev := range Events {
			for _, g := range src.Config[ev] {
				m, err := CompileMatcher(g.Matcher)
				if err != nil {
					continue
				}
				for _, c := range g.Hooks {
					if !c.Runnable() {
						continue
					}
					s.byEvent[ev] = append(s.byEvent[ev], &Hook{
						Event: ev, Matcher: g.Matcher, Command: c.Command, Timeout: c.Timeout.Duration(), Source: src.Name, match: m,
					})
				}
			}
		}
	}
	return s
}

// Has reports whether any hook is set for ev, whatever its matcher.
func (s *Set) Has(ev Event) bool { return s != nil && len(s.byEvent[ev]) > 0 }

// Empty reports whether the set has no hooks at all.
func (s *Set) Empty() bool { return s == nil || len(s.byEvent) == 0 }

// Hooks returns every hook of ev, in order.
func (s *Set) Hooks(ev Event) []*Hook {
	if s == nil {
		return nil
	}
	return s.byEvent[ev]
}

// Match returns the hooks ev runs for value (the field MatchField names;
// ignored for events without one), each command once: the first hook
// written with that exact command, with the longest timeout any of its
// copies asks for. It allocates nothing when no hook matches.
func (s *Set) Match(ev Event, value string) []*Hook {
	if s == nil {
		return nil
	}
	all := s.byEvent[ev]
	matchAll := ev.MatchField() == ""
	var out []*Hook
	for _, h := range all {
		if !matchAll && !h.match.Match(value) {
			continue
		}
		dup := false
		for i, o := range out {
			if o.Command == h.Command {
				dup = true
				if h.Timeout > o.Timeout {
					c := *o
					c.Timeout = h.Timeout
					out[i] = &c
				}
				break
			}
		}
		if !dup {
			out = append(out, h)
		}
	}
	return out
}
