package web

import (
	"container/list"
	"sync"
	"time"
	"tinyelf/backend/tools"
)

// Summary cache bounds: entries live SummaryCacheTTL; at most
// summaryCacheEntries of them, and at most summaryCacheBytes of text.
const (
	SummaryCacheTTL     = 15 * time.Minute
	summaryCacheEntries = 256
	summaryCacheBytes   = 8 << 20
)

// SummaryCache keeps WebFetch results (summaries, and the short pages that
// need none) for SummaryCacheTTL per (url, prompt), least recently used
// first out when full. The engine shares one across sessions. It is safe
// for concurrent use; the zero value is not usable, use NewSummaryCache.
type SummaryCache struct {
	now func() time.Time

	mu    sync.Mutex
	items map[cacheKey]*list.Element
	order *list.List // front: most recently used
	bytes int
}

type cacheKey struct{ url, prompt string }

type cacheEntry struct {
	key     cacheKey
	res     tools.Result
	local   bool // fetched from a local address: needs approval again
	expires time.Time
	size    int
}

// NewSummaryCache returns an empty cache; now is the clock (nil: time.Now).
func NewSummaryCache(now func() time.Time) *SummaryCache {
	if now == nil {
		now = time.Now
	}
	return &SummaryCache{now: now, items: map[cacheKey]*list.Element{}, order: list.New()}
}

func (c *SummaryCache) get(url, prompt string) (cacheEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[cacheKey{url, prompt}]
	if !ok {
		return cacheEntry{}, false
	}
	e := el.Value.(*cacheEntry)
	if !c.now().Before(e.expires) {
		c.remove(el)
		return cacheEntry{}, false
	}
	c.order.MoveToFront(el)
	return *e, true
}

func (c *SummaryCache) put(url, prompt string, res tools.Result, local bool) {
	size := len(res.Content) + len(url) + len(prompt)
	if size > summaryCacheBytes/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k := cacheKey{url, prompt}
	if el, ok := c.items[k]; ok {
		c.remove(el)
	}
	e := &cacheEntry{key: k, res: res, local: local, expires: c.now().Add(SummaryCacheTTL), size: size}
	c.items[k] = c.order.PushFront(e)
	c.bytes += size
	for c.order.Len() > summaryCacheEntries || c.bytes > summaryCacheBytes {
		c.remove(c.order.Back())
	}
}

// Len returns the number of entries held, expired ones included.
func (c *SummaryCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

func (c *SummaryCache) remove(el *list.Element) {
	e := el.Value.(*cacheEntry)
	c.order.Remove(el)
	delete(c.items, e.key)
	c.bytes -= e.size
}
