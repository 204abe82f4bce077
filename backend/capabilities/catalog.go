package capabilities

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Catalog is the one place every capability is recorded (seed 003 §二, 十一):
// the Registry's extended view, holding tools, skills, resources, prompts
// and channels alike. Sources own partitions: the local tools, each MCP
// server, each skill folder, the user tools. A source replaces its whole
// partition when it changes (an MCP server connects, disconnects or sends
// list_changed; a skill folder changes; refresh_tools runs), and the catalog
// indexes the new partition before publishing it.
//
// Catalog is safe for concurrent use. Writers are serialised and do their
// work (descriptor checks, indexing) before taking the write lock for a
// pointer swap; readers take an immutable Snapshot and never wait for a
// writer, so a refresh of a thousand descriptors does not block a turn.
type Catalog struct {
	wmu     sync.Mutex // serialises writers
	cur     atomic.Pointer[Snapshot]
	version atomic.Uint64

	smu  sync.Mutex
	subs map[int]func(Change)
	next int

	indexes indexCache
}

// Change tells subscribers that a partition was replaced or removed.
type Change struct {
	Partition string
	Session   string
	// Reason says why, in words the capability diff can repeat ("MCP
	// server github disconnected: EOF").
	Reason  string
	Version uint64
}

// Snapshot is the catalog as it stood at one version. It is immutable and
// safe for concurrent use.
type Snapshot struct {
	Version uint64
	parts   map[string]*partition
	ordered []*partition // by priority, then key
	// gone keeps the reasons of removed partitions (bounded), so a diff can
	// say why a capability disappeared. It is the catalog's, shared by its
	// snapshots: copying it into each would cost every replacement.
	gone *tombstones
	// views caches View results by session: a snapshot never changes, so
	// neither do its views.
	views sync.Map
}

// maxTombstones bounds the removed partitions whose reasons are kept.
const maxTombstones = 256

// partition is one source's entries and their search index.
type partition struct {
	key      string
	session  string // "" for every session; else the only session it belongs to
	priority int
	entries  []Entry
	index    *partIndex
	reason   string
	version  uint64
	updated  time.Time
}

// Partition priorities order a view and decide name clashes: a lower
// number comes first and wins. Local tools beat everything, so an MCP server
// cannot shadow Read.
const (
	PriorityLocal    = 0
	PriorityUserTool = 10
	PriorityMCP      = 20
	PrioritySkill    = 30
	PriorityOther    = 40
)

// NewCatalog returns an empty catalog.
func NewCatalog() *Catalog {
	c := &Catalog{subs: map[int]func(Change){}}
	c.cur.Store(&Snapshot{parts: map[string]*partition{}, gone: &tombstones{}})
	return c
}

// PartitionOptions describe a partition beyond its entries.
type PartitionOptions struct {
	// Session, when set, limits the partition to that session's views (the
	// builtin MCP providers and direct servers of one session, its local
	// tools bound to its workspace).
	Session string
	// Priority orders views and settles name clashes (Priority* consts).
	Priority int
	// Reason is why the partition changed, for capability diffs.
	Reason string
}

// Replace sets a partition's entries, replacing what it held. Entries
// whose ID repeats inside the partition keep the first. It returns the new
// catalog version.
func (c *Catalog) Replace(key string, entries []Entry, opts PartitionOptions) uint64 {
	entries = dedupe(entries)
	for i := range entries {
		entries[i].part = key
		entries[i].lowerName = strings.ToLower(entries[i].Name)
		entries[i].lowerBare = strings.ToLower(bareName(entries[i].Descriptor))
	}
	idx := c.indexes.get(entries)
	c.wmu.Lock()
	old := c.cur.Load()
	v := c.version.Add(1)
	p := &partition{key: key, session: opts.Session, priority: opts.Priority, entries: entries, index: idx,
		reason: opts.Reason, version: v, updated: time.Now()}
	next := old.with(key, p)
	next.Version = v
	c.cur.Store(next)
	c.wmu.Unlock()
	c.notify(Change{Partition: key, Session: opts.Session, Reason: opts.Reason, Version: v})
	return v
}

// Remove drops a partition (a server removed from the settings, a session
// closed). Removing an absent partition does nothing.
func (c *Catalog) Remove(key, reason string) {
	c.wmu.Lock()
	old := c.cur.Load()
	p, ok := old.parts[key]
	if !ok {
		c.wmu.Unlock()
		return
	}
	v := c.version.Add(1)
	next := old.with(key, nil)
	next.gone.set(key, reason)
	next.Version = v
	c.cur.Store(next)
	c.wmu.Unlock()
	c.notify(Change{Partition: key, Session: p.session, Reason: reason, Version: v})
}

// RemoveSession drops every partition limited to a session.
func (c *Catalog) RemoveSession(session, reason string) {
	for _, p := range c.Snapshot().ordered {
		if p.session == session {
			c.Remove(p.key, reason)
		}
	}
}

// Snapshot returns the current catalog. It never blocks on writers.
func (c *Catalog) Snapshot() *Snapshot { return c.cur.Load() }

// Subscribe calls fn after every change, from the writer's goroutine; fn
// must not block for long. The returned function unsubscribes.
func (c *Catalog) Subscribe(fn func(Change)) (cancel func()) {
	c.smu.Lock()
	id := c.next
	c.next++
	c.subs[id] = fn
	c.smu.Unlock()
	return func() {
		c.smu.Lock()
		delete(c.subs, id)
		c.smu.Unlock()
	}
}

func (c *Catalog) notify(ch Change) {
	c.smu.Lock()
	fns := make([]func(Change), 0, len(c.subs))
	for _, fn := range c.subs {
		fns = append(fns, fn)
	}
	c.smu.Unlock()
	for _, fn := range fns {
		fn(ch)
	}
}

// with returns a copy of the snapshot with partition key set to p (nil
// removes it).
func (s *Snapshot) with(key string, p *partition) *Snapshot {
	parts := make(map[string]*partition, len(s.parts)+1)
	for k, v := range s.parts {
		parts[k] = v
	}
	if p == nil {
		delete(parts, key)
	} else {
		parts[key] = p
		s.gone.drop(key)
	}
	ordered := make([]*partition, 0, len(parts))
	for _, v := range parts {
		ordered = append(ordered, v)
	}
	slices.SortFunc(ordered, func(a, b *partition) int {
		return cmp.Or(cmp.Compare(a.priority, b.priority), strings.Compare(a.key, b.key))
	})
	return &Snapshot{parts: parts, ordered: ordered, gone: s.gone}
}

// Partitions returns the keys of the snapshot's partitions, in view order.
func (s *Snapshot) Partitions() []string {
	out := make([]string, len(s.ordered))
	for i, p := range s.ordered {
		out[i] = p.key
	}
	return out
}

// PartitionReason returns why a partition last changed (or was removed),
// and whether the catalog knows it.
func (s *Snapshot) PartitionReason(key string) (string, bool) {
	if p, ok := s.parts[key]; ok {
		return p.reason, true
	}
	return s.gone.get(key)
}

// tombstones are the reasons of removed partitions, the newest
// maxTombstones of them. Safe for concurrent use.
type tombstones struct {
	mu    sync.Mutex
	why   map[string]tombstone
	order []tombstoneKey // oldest first; an entry whose key was set again since is stale
	n     uint64
}

type tombstone struct {
	reason string
	n      uint64 // when it was set
}

type tombstoneKey struct {
	key string
	n   uint64
}

func (t *tombstones) set(key, reason string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.why == nil {
		t.why = map[string]tombstone{}
	}
	t.n++
	t.why[key] = tombstone{reason, t.n}
	t.order = append(t.order, tombstoneKey{key, t.n})
	for len(t.why) > maxTombstones {
		old := t.order[0]
		t.order = t.order[1:]
		if cur, ok := t.why[old.key]; ok && cur.n == old.n {
			delete(t.why, old.key)
		}
	}
	if len(t.order) > 2*maxTombstones {
		t.order = slices.DeleteFunc(t.order, func(k tombstoneKey) bool {
			cur, ok := t.why[k.key]
			return !ok || cur.n != k.n
		})
	}
}

func (t *tombstones) drop(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.why, key)
}

func (t *tombstones) get(key string) (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	why, ok := t.why[key]
	return why.reason, ok
}

// View is what one session sees of a snapshot: the shared partitions and
// its own, in priority order, with name clashes settled (the first
// partition wins; the loser is listed in Shadowed). A View is immutable.
type View struct {
	Snapshot *Snapshot
	Session  string
	parts    []viewPart
	// entries in view order; byID and byName index them.
	entries []Entry
	byID    map[string]int
	byName  map[string]int
	// Shadowed lists entries hidden by a clash, with the winner's ID.
	Shadowed []Shadowed
	// key identifies the partitions (and their versions) the view holds, so
	// callers can cache what they derive from it.
	key string
	// lex merges the partitions' search indexes, built on the first search.
	lex lexicon
}

// viewPart is a partition in a view, with which of its entries the view
// kept (an entry that lost a clash is not kept).
type viewPart struct {
	*partition
	keep []bool
}

// Shadowed is an entry a name clash hid.
type Shadowed struct {
	ID, Name, Source string
	// By is the ID of the entry that won.
	By string
}

// View returns the session's view of the snapshot.
func (s *Snapshot) View(session string) *View {
	if v, ok := s.views.Load(session); ok {
		return v.(*View)
	}
	v := s.buildView(session)
	if actual, loaded := s.views.LoadOrStore(session, v); loaded {
		return actual.(*View)
	}
	return v
}

func (s *Snapshot) buildView(session string) *View {
	v := &View{Snapshot: s, Session: session, byID: map[string]int{}, byName: map[string]int{}}
	var key strings.Builder
	for _, p := range s.ordered {
		if p.session != "" && p.session != session {
			continue
		}
		vp := viewPart{partition: p, keep: make([]bool, len(p.entries))}
		key.WriteString(p.key)
		key.WriteByte('@')
		key.WriteString(strconv.FormatUint(p.version, 10))
		key.WriteByte(';')
		for j, e := range p.entries {
			if i, dup := v.byID[e.ID]; dup {
				v.Shadowed = append(v.Shadowed, Shadowed{ID: e.ID, Name: e.Name, Source: e.Source, By: v.entries[i].ID})
				continue
			}
			if e.Kind == KindTool {
				if i, dup := v.byName[e.Name]; dup {
					v.Shadowed = append(v.Shadowed, Shadowed{ID: e.ID, Name: e.Name, Source: e.Source, By: v.entries[i].ID})
					continue
				}
				v.byName[e.Name] = len(v.entries)
			}
			v.byID[e.ID] = len(v.entries)
			v.entries = append(v.entries, e)
			vp.keep[j] = true
		}
		v.parts = append(v.parts, vp)
	}
	v.key = key.String()
	return v
}

// Key identifies the view's content: two views with the same key hold the
// same entries.
func (v *View) Key() string { return v.key }

// Entries returns the view's entries in priority order. The slice must not
// be modified.
func (v *View) Entries() []Entry { return v.entries }

// Len returns the number of entries.
func (v *View) Len() int { return len(v.entries) }

// ByID finds an entry by its identity.
func (v *View) ByID(id string) (Entry, bool) {
	i, ok := v.byID[id]
	if !ok {
		return Entry{}, false
	}
	return v.entries[i], true
}

// ToolByName finds a tool by the name the model uses.
func (v *View) ToolByName(name string) (Entry, bool) {
	i, ok := v.byName[name]
	if !ok {
		return Entry{}, false
	}
	return v.entries[i], true
}

// Servers returns the MCP servers the view holds tools, resources or
// prompts of, sorted.
func (v *View) Servers() []string {
	var out []string
	for _, e := range v.entries {
		if e.Server != "" && !slices.Contains(out, e.Server) {
			out = append(out, e.Server)
		}
	}
	slices.Sort(out)
	return out
}

func dedupe(entries []Entry) []Entry {
	seen := make(map[string]bool, len(entries))
	out := make([]Entry, 0, len(entries))
	for _, e := range entries {
		if seen[e.ID] {
			continue
		}
		seen[e.ID] = true
		out = append(out, e)
	}
	return out
}
