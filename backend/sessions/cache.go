package sessions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// historyCache keeps the model histories of the sessions this process used
// last, so the engine does not read a session's whole history back from
// the database before every model call.
//
// An entry is the history as of a session's last_seq, and is used only
// while the session row still has that last_seq: every append moves it,
// whichever process made it, so a history another process changed is read
// again. The store's own writes extend an entry in place when they append
// to the exact state it holds (and drop it when they rewrite the history,
// as a compaction does), so the turn that just logged a message finds it
// cached.
type historyCache struct {
	mu      sync.Mutex
	entries map[string]*historyEntry
	bytes   int    // the size of the cached messages, roughly
	tick    uint64 // the last use, for eviction
}

type historyEntry struct {
	lastSeq int64
	msgs    []Message
	bytes   int
	used    uint64
}

// The cache's bounds: the sessions it keeps, the bytes it holds, and the
// largest history it keeps at all.
const (
	historyCacheSessions = 32
	historyCacheBytes    = 64 << 20
	historyCacheLargest  = 16 << 20
)

// get returns the cached history of a session and the last_seq it is as of.
func (c *historyCache) get(id string) ([]Message, int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[id]
	if !ok {
		return nil, 0, false
	}
	c.tick++
	e.used = c.tick
	return e.msgs, e.lastSeq, true
}

// put caches a history read as of lastSeq, replacing what was there.
func (c *historyCache) put(id string, lastSeq int64, msgs []Message) {
	size := messagesSize(msgs)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.drop(id)
	if lastSeq <= 0 || size > historyCacheLargest {
		return
	}
	if c.entries == nil {
		c.entries = map[string]*historyEntry{}
	}
	c.tick++
	c.entries[id] = &historyEntry{lastSeq: lastSeq, msgs: msgs, bytes: size, used: c.tick}
	c.bytes += size
	c.evict()
}

// extend applies a committed write: the messages it added to a session
// whose log went from prevSeq to lastSeq. An entry as of prevSeq grows;
// one as of anything else, or a rewritten history, is dropped.
func (c *historyCache) extend(id string, prevSeq, lastSeq int64, added []Message, rewritten bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[id]
	if !ok {
		return
	}
	if rewritten || e.lastSeq != prevSeq {
		c.drop(id)
		return
	}
	size := messagesSize(added)
	if e.bytes+size > historyCacheLargest {
		c.drop(id)
		return
	}
	// In place: a caller holding the old slice reads only up to its own
	// length (and copies it at once), so growing past it is safe, and a
	// long session is not copied on every append.
	e.msgs = append(e.msgs, added...)
	e.lastSeq = lastSeq
	e.bytes += size
	c.bytes += size
	c.evict()
}

// clear forgets everything (after a rebuild or a purge).
func (c *historyCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries, c.bytes = nil, 0
}

func (c *historyCache) drop(id string) {
	if e, ok := c.entries[id]; ok {
		c.bytes -= e.bytes
		delete(c.entries, id)
	}
}

// evict drops the least recently used entries until the bounds hold.
func (c *historyCache) evict() {
	for len(c.entries) > historyCacheSessions || c.bytes > historyCacheBytes {
		oldest, at := "", ^uint64(0)
		for id, e := range c.entries {
			if e.used < at {
				oldest, at = id, e.used
			}
		}
		c.drop(oldest)
	}
}

// messagesSize is roughly the memory messages hold.
func messagesSize(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += 128 + len(m.Content) + len(m.ToolCallID) + len(m.ToolName)
		for _, c := range m.ToolCalls {
			n += 64 + len(c.ID) + len(c.Name) + len(c.Arguments)
		}
		n += 64 * len(m.Attachments)
	}
	return n
}

// historyDelta is what one write transaction did to a session's model
// history, applied to the cache when it commits.
type historyDelta struct {
	prevSeq, lastSeq int64
	added            []Message
	rewritten        bool
}

// modelMessages reads a session's model history: from the cache when the
// session's log has not moved since it was cached, otherwise from the
// database (and cached). The messages' slices are shared with the cache:
// callers must not modify them.
func (s *Store) modelMessages(ctx context.Context, id string) ([]Message, error) {
	if msgs, at, ok := s.history.get(id); ok {
		var last int64
		err := s.hotRead(func(st *readStmts) error { return st.lastSeq.QueryRowContext(ctx, id).Scan(&last) })
		if err == nil && last == at {
			return slices.Clone(msgs), nil
		}
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("read model history of session %s: %w", id, classify(err))
		}
	}
	var (
		msgs []Message
		last int64
	)
	err := s.read(ctx, func(tx *sql.Tx) error {
		err := tx.StmtContext(ctx, s.rst.lastSeq).QueryRowContext(ctx, id).Scan(&last)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("read model history of session %s: %w", id, classify(err))
		}
		rows, err := tx.StmtContext(ctx, s.rst.modelMessages).QueryContext(ctx, id)
		msgs, err = scanModelMessages(rows, err, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.history.put(id, last, msgs)
	return slices.Clone(msgs), nil
}
