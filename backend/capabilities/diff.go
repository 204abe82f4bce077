package capabilities

import (
	"fmt"
	"slices"
	"strings"
)

// Change kinds of a diff item.
const (
	// ChangeAdded: the capability entered the set (visible or deferred).
	ChangeAdded = "added"
	// ChangeRemoved: it left the set (hidden, or gone from the catalog).
	ChangeRemoved = "removed"
	// ChangeChanged: it moved between visible and deferred, or its
	// definition changed.
	ChangeChanged = "changed"
)

// DiffItem is one capability whose standing changed.
type DiffItem struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Kind   Kind   `json:"kind"`
	Change string `json:"change"`
	From   State  `json:"from,omitempty"`
	To     State  `json:"to,omitempty"`
	Reason string `json:"reason"`
	// Hash is the schema hash of a tool that is visible after the change.
	Hash string `json:"hash,omitempty"`
}

// SetDiff is how one visible set differs from the previous one (seed 003
// §十): the capability.diff event's content.
type SetDiff struct {
	Items []DiffItem
	// Added and Removed are the visible tools' names that came and went
	// (the summary the UI's chip shows).
	Added, Removed []string
	// Reasons summarise the items' reasons, each once.
	Reasons []string
}

// sameStanding reports, cheaply, that two sets of the same view hold the
// same entries in the same states: the same tools and deferred entries in
// the same order (a view's entries never change, so neither do their
// schemas or index lines) and the same skills standing the same.
func sameStanding(prev, next *VisibleSet) bool {
	if prev == nil || next == nil || prev.view == nil || prev.view != next.view ||
		!slices.Equal(prev.Tools, next.Tools) || !slices.Equal(prev.Deferred, next.Deferred) || !slices.Equal(prev.Skills, next.Skills) {
		return false
	}
	for _, e := range next.Skills {
		if prev.decisions[e.ID].State != next.decisions[e.ID].State {
			return false
		}
	}
	return true
}

// Empty reports whether nothing changed.
func (d SetDiff) Empty() bool { return len(d.Items) == 0 }

// DiffSets compares two visible sets; prev nil means the session's first
// call (everything is added). A tool or skill that left the catalog gets the
// reason its source gave (snap's partition reason: "MCP server github
// disconnected"), one that is still there the reason of its new state; one
// new to the catalog gets both (its source's reason, then its state's).
func DiffSets(prev, next *VisibleSet) SetDiff {
	var d SetDiff
	if sameStanding(prev, next) {
		return d
	}
	type standing struct {
		state State
		hash  string
		// sig is a skill's index line: a skill has no schema, but a new
		// description is a change of what the model is shown.
		sig string
		e   *Entry
	}
	stand := func(vs *VisibleSet) map[string]standing {
		if vs == nil {
			return map[string]standing{}
		}
		out := make(map[string]standing, len(vs.Tools)+len(vs.Deferred)+len(vs.Skills))
		for _, e := range vs.Tools {
			out[e.ID] = standing{state: StateVisible, hash: e.schemaHash(), e: e}
		}
		for _, e := range vs.Deferred {
			out[e.ID] = standing{state: StateDeferred, e: e}
		}
		for _, e := range vs.Skills {
			out[e.ID] = standing{state: vs.decisions[e.ID].State, sig: e.IndexLine(), e: e}
		}
		return out
	}
	before, after := stand(prev), stand(next)
	add := func(it DiffItem) {
		d.Items = append(d.Items, it)
		if it.Reason != "" && !slices.Contains(d.Reasons, it.Reason) {
			d.Reasons = append(d.Reasons, it.Reason)
		}
	}
	// Items in the new set's order, then the removed ones in the old set's.
	order := func(vs *VisibleSet) []*Entry {
		if vs == nil {
			return nil
		}
		return slices.Concat(vs.Tools, vs.Deferred, vs.Skills)
	}
	for _, e := range order(next) {
		a := after[e.ID]
		dec := next.decisions[e.ID]
		b, had := before[e.ID]
		switch {
		case !had:
			reason := arrivalReason(e, prev, next, dec.Reason)
			if why := sourceChange(prev, next, e); why != "" && e.Kind == KindSkill {
				// Every skill has the same state reason; what the user wants
				// to know is where it came from ("skill x was added to …").
				reason = why
			}
			add(DiffItem{ID: e.ID, Name: e.Name, Kind: e.Kind, Change: ChangeAdded, To: a.state, Reason: reason, Hash: a.hash})
			if a.state == StateVisible && e.Kind == KindTool {
				d.Added = append(d.Added, e.Name)
			}
		case b.state != a.state:
			add(DiffItem{ID: e.ID, Name: e.Name, Kind: e.Kind, Change: ChangeChanged, From: b.state, To: a.state, Reason: dec.Reason, Hash: a.hash})
			if e.Kind == KindTool {
				if a.state == StateVisible {
					d.Added = append(d.Added, e.Name)
				} else if b.state == StateVisible {
					d.Removed = append(d.Removed, e.Name)
				}
			}
		case a.hash != b.hash:
			add(DiffItem{ID: e.ID, Name: e.Name, Kind: e.Kind, Change: ChangeChanged, From: b.state, To: a.state,
				Reason: "its definition changed (" + sourceWords(e) + " sent a new one)", Hash: a.hash})
		case a.sig != b.sig:
			reason := sourceChange(prev, next, e)
			if reason == "" {
				reason = "its description changed"
			}
			add(DiffItem{ID: e.ID, Name: e.Name, Kind: e.Kind, Change: ChangeChanged, From: b.state, To: a.state, Reason: reason})
		}
	}
	for _, e := range order(prev) {
		if _, still := after[e.ID]; still {
			continue
		}
		b := before[e.ID]
		add(DiffItem{ID: e.ID, Name: e.Name, Kind: e.Kind, Change: ChangeRemoved, From: b.state, Reason: goneReason(e, next)})
		if b.state == StateVisible && e.Kind == KindTool {
			d.Removed = append(d.Removed, e.Name)
		}
	}
	return d
}

// Baseline rebuilds a visible set from a log's record of it — the tools
// sent (with their schema hashes) and the index — over the current view, so
// a reopened session's first diff says only what changed while it was
// closed. A name the view no longer has becomes a bare entry, which the diff
// then reports as removed.
func Baseline(v *View, visible, deferred []string, hashes map[string]string, skills, loaded []string) *VisibleSet {
	vs := &VisibleSet{decisions: map[string]Decision{}, view: v}
	entry := func(name string) *Entry {
		if e, ok := v.ToolByName(name); ok {
			return &e
		}
		id := "local__" + name
		if strings.HasPrefix(name, "mcp__") {
			id = name
		}
		return &Entry{Descriptor: Descriptor{ID: id, Kind: KindTool, Name: name}}
	}
	for _, n := range visible {
		e := entry(n)
		e.hash = hashes[n]
		vs.Tools = append(vs.Tools, e)
		vs.decisions[e.ID] = Decision{ID: e.ID, Name: n, Kind: KindTool, State: StateVisible, Reason: "visible before the session was reopened"}
	}
	for _, n := range deferred {
		e := entry(n)
		vs.Deferred = append(vs.Deferred, e)
		vs.decisions[e.ID] = Decision{ID: e.ID, Name: n, Kind: KindTool, State: StateDeferred, Reason: "deferred before the session was reopened"}
	}
	for _, id := range skills {
		e, ok := v.ByID(id)
		if !ok {
			e = Entry{Descriptor: Descriptor{ID: id, Kind: KindSkill, Name: strings.TrimPrefix(id, "skill__")}}
		}
		st := StateDeferred
		if slices.Contains(loaded, id) {
			st = StateVisible
		}
		vs.Skills = append(vs.Skills, &e)
		vs.decisions[id] = Decision{ID: id, Name: e.Name, Kind: KindSkill, State: st, Reason: "indexed before the session was reopened"}
	}
	return vs
}

// arrivalReason explains why a capability entered the set: the policy's
// verdict, after its source's last change when the capability is new to
// the catalog since prev ("the user tools changed their tools (the tool
// list fits the budget)"), so the diff says where it came from and not
// only why it is shown. A session's first set has no such cause.
func arrivalReason(e *Entry, prev, next *VisibleSet, verdict string) string {
	if prev == nil || prev.view == nil || next.view == nil || next.view.Snapshot == nil {
		return verdict
	}
	if _, known := prev.view.ByID(e.ID); known {
		return verdict
	}
	why, ok := next.view.Snapshot.PartitionReason(e.Partition())
	if !ok || why == "" {
		return verdict
	}
	return why + " (" + verdict + ")"
}

// sourceChange returns the reason e's partition gave when it changed
// between the two sets' snapshots, "" when it did not (or prev is the
// session's first).
func sourceChange(prev, next *VisibleSet, e *Entry) string {
	if prev == nil || prev.view == nil || next.view == nil || prev.view.Snapshot == nil || next.view.Snapshot == nil {
		return ""
	}
	now, ok := next.view.Snapshot.parts[e.Partition()]
	if !ok {
		return ""
	}
	if was, ok := prev.view.Snapshot.parts[e.Partition()]; ok && was.version == now.version {
		return ""
	}
	return now.reason
}

// goneReason explains why a capability left the set: the policy's verdict
// when it is still in the view, its source's last change otherwise.
func goneReason(e *Entry, next *VisibleSet) string {
	if dec, ok := next.decisions[e.ID]; ok {
		return dec.Reason
	}
	if next.view != nil && next.view.Snapshot != nil {
		if why, ok := next.view.Snapshot.PartitionReason(e.Partition()); ok && why != "" {
			return why
		}
	}
	return fmt.Sprintf("%s no longer offers it", sourceWords(e))
}

func sourceWords(e *Entry) string {
	if e.Server != "" {
		return "MCP server " + e.Server
	}
	switch e.Source {
	case SourceBuiltin:
		return "TinyElf"
	case "":
		return "its source"
	}
	return e.Source
}
