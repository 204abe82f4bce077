package sessions

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// The text of a write reaches the search index shortly after the write
// rather than inside it: indexing a message costs FTS5 a segment of its own
// per transaction, several times the rest of a small append, and a batch of
// messages costs little more than one. meta's search_indexed marks how far
// the index goes (migration 0005). Search first indexes what is still
// waiting, so it always finds every message written; what a crash leaves
// waiting is indexed when the store opens again.

// searchIndexDelay is how long text waits for the index after the write
// that added it.
const searchIndexDelay = time.Second

// searchIndexer schedules the catching up, one timer at a time.
type searchIndexer struct {
	mu      sync.Mutex
	timer   *time.Timer
	stopped bool
}

// searchAdded notes a committed write that added text: the index catches
// up searchIndexDelay after the first such write.
func (s *Store) searchAdded() {
	s.indexer.mu.Lock()
	defer s.indexer.mu.Unlock()
	if s.indexer.stopped || s.indexer.timer != nil {
		return
	}
	s.indexer.timer = time.AfterFunc(searchIndexDelay, func() {
		s.indexer.mu.Lock()
		s.indexer.timer = nil
		s.indexer.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		// A failure leaves the text waiting: the next search, write or
		// open indexes it.
		_ = s.IndexSearch(ctx)
	})
}

// stopIndexer cancels a scheduled catching up (Close does it itself).
func (s *Store) stopIndexer() {
	s.indexer.mu.Lock()
	defer s.indexer.mu.Unlock()
	s.indexer.stopped = true
	if s.indexer.timer != nil {
		s.indexer.timer.Stop()
		s.indexer.timer = nil
	}
}

// IndexSearch brings the full-text index up to date with every message
// written so far, by this process or another. Search does it before it
// looks, so callers need it only to choose when the work is done.
func (s *Store) IndexSearch(ctx context.Context) (err error) {
	defer s.explain(&err)
	err = s.write(ctx, func(w *writeTx) error {
		_, err := w.indexPending()
		return err
	})
	if err != nil {
		return fmt.Errorf("index messages for search: %w", err)
	}
	return nil
}

// searchWaiting reports whether messages are waiting for the index.
func (s *Store) searchWaiting(ctx context.Context) (bool, error) {
	var waiting bool
	err := s.r.QueryRowContext(ctx, `SELECT COALESCE((SELECT MAX(id) FROM search_docs), 0) >
		COALESCE((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'search_indexed'), 0)`).Scan(&waiting)
	if err != nil {
		return false, fmt.Errorf("check the search index: %w", classify(err))
	}
	return waiting, nil
}
