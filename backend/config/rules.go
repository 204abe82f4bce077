package config

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Rules returns the persisted permission rules.
func (s *Store) Rules() []Rule {
	return s.Get().Permissions.Rules
}

// AddRule persists a rule and returns it with its ID. An identical rule
// (same tool, pattern and action) is not duplicated: the existing one is
// returned.
func (s *Store) AddRule(r Rule) (Rule, error) {
	r.Tool = strings.TrimSpace(r.Tool)
	r.Pattern = strings.TrimSpace(r.Pattern)
	if r.Tool == "" {
		return Rule{}, fmt.Errorf("a rule needs a tool name")
	}
	if r.Action != RuleAllow && r.Action != RuleDeny {
		return Rule{}, fmt.Errorf("rule action must be %q or %q, not %q", RuleAllow, RuleDeny, r.Action)
	}
	var out Rule
	err := s.Update(func(st *Settings) error {
		for _, old := range st.Permissions.Rules {
			if old.Tool == r.Tool && old.Pattern == r.Pattern && old.Action == r.Action {
				out = old
				return nil
			}
		}
		if r.ID == "" {
			r.ID = NewID()
		}
		if r.CreatedAt.IsZero() {
			r.CreatedAt = time.Now().UTC()
		}
		st.Permissions.Rules = append(st.Permissions.Rules, r)
		out = r
		return nil
	})
	return out, err
}

// RemoveRule deletes the rule with that ID and reports whether it existed.
func (s *Store) RemoveRule(id string) (bool, error) {
	found := false
	err := s.Update(func(st *Settings) error {
		n := len(st.Permissions.Rules)
		st.Permissions.Rules = slices.DeleteFunc(st.Permissions.Rules, func(r Rule) bool { return r.ID == id })
		found = len(st.Permissions.Rules) != n
		return nil
	})
	return found, err
}
