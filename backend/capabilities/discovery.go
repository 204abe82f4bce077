package capabilities

import (
	"slices"
	"sync"
)

// Discovery is one session's memory for the discovery policy: what
// ToolSearch found or the model asked for by name (promotions, which stay
// for the session), what it used, which tools it keeps calling invalidly,
// the paths it touched, the skills it loaded, and the order in which tools
// first became visible (so the tool list keeps a stable prefix for prompt
// caches). The engine owns one per open session. It is safe for concurrent
// use.
type Discovery struct {
	mu       sync.Mutex
	promoted map[string]string // tool name → why
	used     map[string]bool
	failures map[string]int // consecutive invalid calls, by tool name
	touched  []string
	loaded   []string // skill IDs
	order    []string // tool names in first-visible order
	last     *VisibleSet
	// rendered caches the last rendered index texts by their input, one
	// slot per kind of index.
	rendered [2]struct{ key, text string }
}

// Discovery bounds.
const (
	// DemoteAfter invalid calls in a row defer a tool until it is found
	// again.
	DemoteAfter = 3
	// maxTouched bounds the touched paths kept (the newest win).
	maxTouched = 64
)

// NewDiscovery returns an empty discovery state.
func NewDiscovery() *Discovery {
	return &Discovery{promoted: map[string]string{}, used: map[string]bool{}, failures: map[string]int{}}
}

// Promote makes a tool visible from the next model call on, for the rest
// of the session, and clears its failures (a fresh look at its schema).
func (d *Discovery) Promote(name, why string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.promoted[name] = why
	delete(d.failures, name)
}

// Promoted returns why a tool was promoted, if it was.
func (d *Discovery) Promoted(name string) (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	why, ok := d.promoted[name]
	return why, ok
}

// NoteCall records a call's outcome: invalid calls (arguments the tool's
// schema refused, a call to a tool that is unknown, hidden or denied)
// count towards demotion; any other outcome — a deferred tool called by its
// name and run included — resets the count and marks the tool used.
func (d *Discovery) NoteCall(name string, invalid bool) (failures int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if invalid {
		d.failures[name]++
		return d.failures[name]
	}
	delete(d.failures, name)
	d.used[name] = true
	return 0
}

// Touch records a path a tool call read or changed.
func (d *Discovery) Touch(paths ...string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, p := range paths {
		if p == "" {
			continue
		}
		if i := slices.Index(d.touched, p); i >= 0 {
			d.touched = slices.Delete(d.touched, i, i+1)
		}
		d.touched = append(d.touched, p)
	}
	if n := len(d.touched); n > maxTouched {
		d.touched = slices.Clone(d.touched[n-maxTouched:])
	}
}

// NoteLoaded records a skill (or resource) the model loaded.
func (d *Discovery) NoteLoaded(id string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !slices.Contains(d.loaded, id) {
		d.loaded = append(d.loaded, id)
	}
}

// Forget drops what the session loaded (after a compaction replaced the
// loaded bodies with notes) so they can be loaded again.
func (d *Discovery) Forget() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.loaded = nil
}

// Restore seeds a reopened session from the last visible set its log
// recorded: tools that were visible then and that the policy would now
// defer are promoted again, so reopening changes nothing the model saw.
func (d *Discovery) Restore(visible []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, n := range visible {
		if _, ok := d.promoted[n]; !ok {
			d.promoted[n] = "visible before the session was reopened"
		}
		if !slices.Contains(d.order, n) {
			d.order = append(d.order, n)
		}
	}
}

// Last returns the visible set of the previous model call (nil before the
// first).
func (d *Discovery) Last() *VisibleSet {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.last
}

// SetLast records the visible set sent with a model call.
func (d *Discovery) SetLast(v *VisibleSet) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.last = v
}

// cachedIndex returns the deferred index for key, rendering it with
// render when key differs from the last one.
func (d *Discovery) cachedIndex(slot int, key string, render func() string) string {
	if d == nil {
		return render()
	}
	d.mu.Lock()
	if c := d.rendered[slot]; c.key == key {
		d.mu.Unlock()
		return c.text
	}
	d.mu.Unlock()
	text := render()
	d.mu.Lock()
	d.rendered[slot].key, d.rendered[slot].text = key, text
	d.mu.Unlock()
	return text
}

// state is a consistent copy of the discovery state for one computation.
type discoveryState struct {
	promoted map[string]string
	used     map[string]bool
	failures map[string]int
	touched  []string
	loaded   []string
}

func (d *Discovery) snapshot() discoveryState {
	if d == nil {
		return discoveryState{}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	s := discoveryState{
		promoted: make(map[string]string, len(d.promoted)),
		used:     make(map[string]bool, len(d.used)),
		failures: make(map[string]int, len(d.failures)),
		touched:  slices.Clone(d.touched),
		loaded:   slices.Clone(d.loaded),
	}
	for k, v := range d.promoted {
		s.promoted[k] = v
	}
	for k, v := range d.used {
		s.used[k] = v
	}
	for k, v := range d.failures {
		s.failures[k] = v
	}
	return s
}

// orderOf returns the tools' first-visible positions, appending the new
// ones in the order given.
func (d *Discovery) orderOf(names []string) map[string]int {
	pos := map[string]int{}
	if d == nil {
		for i, n := range names {
			pos[n] = i
		}
		return pos
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, n := range names {
		if !slices.Contains(d.order, n) {
			d.order = append(d.order, n)
		}
	}
	if len(d.order) > 4096 {
		// A session that saw thousands of tools come and go keeps the
		// order of those it can still see.
		keep := d.order[:0:0]
		for _, n := range d.order {
			if slices.Contains(names, n) {
				keep = append(keep, n)
			}
		}
		d.order = keep
	}
	for i, n := range d.order {
		pos[n] = i
	}
	return pos
}
