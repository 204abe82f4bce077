package sessions

import (
	"slices"
	"strings"
)

// The chat's view of capability discovery: each capability.diff that
// changed what the model sees becomes a UICapabilities item (the chip
// "+2 tools: found by ToolSearch …"), and each capability.loaded a
// UILoaded item (the card of a loaded skill or resource).
//
// A session's first diff lists everything as added: it is the baseline,
// kept as an item marked Baseline for the UI to show on demand. A session
// reopened after a restart or an idle eviction logs a full diff again; it
// is folded against the previous diff's sets, so only what really changed
// shows, and nothing at all when nothing did.

// CapabilityChange is a capability.diff as the chat shows it.
type CapabilityChange struct {
	// Baseline marks the session's first set, where everything is new.
	Baseline bool `json:"baseline,omitempty"`
	// Rebuilt marks a set computed afresh when the session was reopened;
	// its items are only what differs from the set before.
	Rebuilt bool `json:"rebuilt,omitempty"`
	// Added and Removed are the tools that became visible (sent with their
	// schemas) and that stopped being visible.
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
	// Reasons are the items' reasons, each once, in the items' order.
	Reasons []string `json:"reasons,omitempty"`
	// Items are the capabilities whose standing changed, with reasons.
	Items []CapabilityItem `json:"items"`
	// Visible and Deferred count the tools sent and the tools in the index
	// after the change; DeferReason says why deferral is on or off.
	Visible     int    `json:"visible"`
	Deferred    int    `json:"deferred"`
	DeferReason string `json:"deferReason,omitempty"`
}

// Capability states and changes as the log records them (the strings of
// backend/capabilities, which this package does not import).
const (
	capVisible  = "visible"
	capDeferred = "deferred"
	capAdded    = "added"
	capRemoved  = "removed"
	capChanged  = "changed"
	capKindTool = "tool"
)

// reopenedReason explains a tool missing from a reopened session's set
// that no item of its diff accounts for.
const reopenedReason = "not offered since the session was reopened"

// capabilityChange makes the chat's item of a diff, given the session's
// previous diff (nil for its first). It returns nil when, folded against the
// previous sets, nothing changed.
func capabilityChange(d CapabilityDiff, prev *CapabilityDiff) *CapabilityChange {
	c := &CapabilityChange{Visible: len(d.Visible), Deferred: len(d.Deferred), DeferReason: d.DeferReason, Items: []CapabilityItem{}}
	if len(d.Items) == 0 {
		d.Items = itemsOfNames(d)
	}
	if prev == nil {
		c.Baseline = true
		c.Items = append(c.Items, d.Items...)
		c.summarize()
		return c
	}
	before, after := toolStates(prev), toolStates(&d)
	// A diff computed against nothing although the log had a set lists
	// tools that were there already as added: the session was reopened.
	for _, it := range d.Items {
		if it.Kind == capKindTool && it.Change == capAdded && before[it.Name] != "" {
			c.Rebuilt = true
			break
		}
	}
	covered := map[string]bool{}
	for _, it := range d.Items {
		if it.Kind != capKindTool {
			// Skills' earlier standing is in items only; a rebuilt set's
			// skills were there before.
			if !(c.Rebuilt && it.Change == capAdded) {
				c.Items = append(c.Items, it)
			}
			continue
		}
		covered[it.Name] = true
		if was := before[it.Name]; it.Change == capAdded && was != "" {
			if was == it.To {
				continue
			}
			it.Change, it.From = capChanged, was
		}
		c.Items = append(c.Items, it)
	}
	if c.Rebuilt {
		for _, n := range slices.Concat(prev.Visible, prev.Deferred) {
			if after[n] == "" && !covered[n] {
				covered[n] = true
				c.Items = append(c.Items, CapabilityItem{Name: n, Kind: capKindTool, Change: capRemoved, From: before[n], Reason: reopenedReason})
			}
		}
	}
	if len(c.Items) == 0 {
		return nil
	}
	c.summarize()
	return c
}

// itemsOfNames makes items of a diff that has only names, as logs written
// before diffs had items do.
func itemsOfNames(d CapabilityDiff) []CapabilityItem {
	why := strings.Join(d.Reasons, "; ")
	var out []CapabilityItem
	for _, n := range d.Added {
		out = append(out, CapabilityItem{Name: n, Kind: capKindTool, Change: capAdded, To: capVisible, Reason: why})
	}
	for _, n := range d.Removed {
		out = append(out, CapabilityItem{Name: n, Kind: capKindTool, Change: capRemoved, From: capVisible, Reason: why})
	}
	return out
}

// summarize fills Added, Removed and Reasons from the items.
func (c *CapabilityChange) summarize() {
	for _, it := range c.Items {
		if it.Kind == capKindTool {
			switch {
			case it.To == capVisible && it.From != capVisible:
				c.Added = append(c.Added, it.Name)
			case it.From == capVisible && it.To != capVisible:
				c.Removed = append(c.Removed, it.Name)
			}
		}
		if it.Reason != "" && !slices.Contains(c.Reasons, it.Reason) {
			c.Reasons = append(c.Reasons, it.Reason)
		}
	}
}

// toolStates maps each tool of a diff's resulting set to its state.
func toolStates(d *CapabilityDiff) map[string]string {
	out := make(map[string]string, len(d.Visible)+len(d.Deferred))
	for _, n := range d.Deferred {
		out[n] = capDeferred
	}
	for _, n := range d.Visible {
		out[n] = capVisible
	}
	return out
}

// projectCapabilityDiff adds the chat's item for a capability.diff.
func projectCapabilityDiff(ev Event, item UIMessage, out sink) error {
	var p CapabilityDiff
	if err := decode(ev, &p); err != nil {
		return err
	}
	prev, err := out.previousDiff(ev.Seq)
	if err != nil {
		return err
	}
	out.noteDiff(p)
	c := capabilityChange(p, prev)
	if c == nil {
		return nil
	}
	item.Kind, item.Capabilities = UICapabilities, c
	return out.addUI(item)
}

// projectCapabilityLoaded adds the card of a loaded skill or resource.
func projectCapabilityLoaded(ev Event, item UIMessage, out sink) error {
	var p CapabilityLoaded
	if err := decode(ev, &p); err != nil {
		return err
	}
	item.Kind, item.Loaded = UILoaded, &p
	return out.addUI(item)
}
