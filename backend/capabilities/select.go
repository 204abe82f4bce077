package capabilities

import (
	"fmt"
	"strings"
)

// SelectPrefix starts a query that names capabilities instead of
// describing them ("select:Read,mcp__github__create_issue"), as Claude
// Code's ToolSearch takes them: a model that knows a name gets exactly that
// capability, and nothing ranked around it.
const SelectPrefix = "select:"

// selectNames answers a select: query. Each name matches, in this order, a
// tool's model-facing name, a capability's identity, or the tool's own name
// without its mcp__server__ prefix, case-insensitively; hits come in the
// order named. Names that match nothing the filters admit are listed in the
// note.
func (v *View) selectNames(list string, admit func(Entry) bool) ([]Hit, string) {
	var hits []Hit
	var missing []string
	seen := map[string]bool{}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		e, ok := v.lookupName(name, admit)
		if !ok {
			missing = append(missing, name)
			continue
		}
		if seen[e.ID] || len(hits) == MaxLimit {
			continue
		}
		seen[e.ID] = true
		hits = append(hits, Hit{Entry: e, Score: 1, Why: "selected by name"})
	}
	note := ""
	if len(missing) > 0 {
		note = fmt.Sprintf("nothing available is named %s; search with words to find it", strings.Join(missing, ", "))
	}
	return hits, note
}

func (v *View) lookupName(name string, admit func(Entry) bool) (Entry, bool) {
	if e, ok := v.ToolByName(name); ok && admit(e) {
		return e, true
	}
	if e, ok := v.ByID(name); ok && admit(e) {
		return e, true
	}
	lower := strings.ToLower(name)
	var found []Entry
	for _, e := range v.entries {
		if !admit(e) {
			continue
		}
		if strings.ToLower(e.Name) == lower || strings.ToLower(e.ID) == lower {
			return e, true
		}
		if strings.ToLower(bareName(e.Descriptor)) == lower {
			found = append(found, e)
		}
	}
	// A bare name two servers share names neither.
	if len(found) == 1 {
		return found[0], true
	}
	return Entry{}, false
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}
