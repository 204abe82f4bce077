package engine

import (
	"encoding/binary"
	"hash/maphash"
	"sync"

	"tinyelf/backend/capabilities"
	"tinyelf/backend/tools"
)

// maxCachedEntries bounds an entryCache; past it the cache starts over.
const maxCachedEntries = 4096

// entryCache remembers the catalog entries of tools by what their Info
// says, so that a new session (every subagent is one) whose tools describe
// themselves as another session's did reuses the descriptor, its schema
// check and its search terms instead of making them again. Only the
// binding to the session's own tool value changes. Safe for concurrent use.
type entryCache struct {
	mu    sync.Mutex
	m     map[infoHash]capabilities.Entry
	seeds [2]maphash.Seed
}

// infoHash is 128 bits of a tool's Info: two hashes under two seeds.
type infoHash [2]uint64

func newEntryCache() *entryCache {
	return &entryCache{m: map[infoHash]capabilities.Entry{}, seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}}
}

// entry returns the catalog entry of t.
func (c *entryCache) entry(t tools.Tool) capabilities.Entry {
	key := infoKey(c.seeds, t.Info())
	c.mu.Lock()
	e, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return e.WithTool(t)
	}
	e = capabilities.ToolEntry(t)
	c.mu.Lock()
	if len(c.m) >= maxCachedEntries {
		clear(c.m)
	}
	c.m[key] = e
	c.mu.Unlock()
	return e
}

// infoKey hashes every field of a tool's Info, each with its length, so
// two tools share a key only when they describe themselves alike (or
// collide in 128 bits).
func infoKey(seeds [2]maphash.Seed, in tools.Info) infoHash {
	var key infoHash
	for i, seed := range seeds {
		var h maphash.Hash
		h.SetSeed(seed)
		for _, s := range []string{in.Name, in.Description, string(in.Parameters), string(in.Source), in.Origin, in.Title} {
			writeField(&h, s)
		}
		var flags [9]byte
		for i, b := range []bool{in.ReadOnly, in.Safe, in.Destructive, in.OpenWorld} {
			if b {
				flags[i] = 1
			}
		}
		binary.LittleEndian.PutUint32(flags[4:8], uint32(in.MaxOutputBytes))
		h.Write(flags[:])
		key[i] = h.Sum64()
	}
	return key
}

func writeField(h *maphash.Hash, s string) {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
	h.Write(n[:])
	h.WriteString(s)
}
