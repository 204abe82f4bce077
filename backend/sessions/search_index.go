package sessions

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Two pieces of a write's work are done shortly after it, in the
// background, rather than inside it:
//
//   - The search index catches up in batches: indexing a message costs FTS5
//     a segment of its own per transaction, several times the rest of a
//     small append, and a batch of messages costs little more than one.
//     meta's search_indexed marks how far the index goes (migration 0005).
//     Search first indexes what is still waiting, so it always finds every
//     message written; what a crash leaves waiting is indexed when the store
//     opens again.
//   - The write-ahead log is copied into the database file (a checkpoint,
//     with its fsyncs) by a connection of its own, instead of by whichever
//     commit happens to fill the log: that commit, and every event it
//     carries, would wait for the disk. A crash before it loses nothing:
//     the log is replayed when the database opens.

// maintenanceDelay is how long after the first of a burst of writes the
// background work runs.
const maintenanceDelay = time.Second

// maintenance schedules that work, one timer at a time.
type maintenance struct {
	mu      sync.Mutex
	timer   *time.Timer
	stopped bool
	// checkpoints counts the checkpoints run (tests wait on it).
	checkpoints atomic.Int64
}

// afterWrite notes a committed write: the background work runs
// maintenanceDelay after the first write since it last ran.
func (s *Store) afterWrite() {
	s.maint.mu.Lock()
	defer s.maint.mu.Unlock()
	if s.maint.stopped || s.maint.timer != nil {
		return
	}
	s.maint.timer = time.AfterFunc(maintenanceDelay, func() {
		s.maint.mu.Lock()
		s.maint.timer = nil
		s.maint.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		// A failure leaves the work for the next run, search or open.
		if waiting, err := s.searchWaiting(ctx); err == nil && waiting {
			_ = s.IndexSearch(ctx)
		}
		_ = s.checkpoint(ctx)
	})
}

// stopMaintenance cancels a scheduled run (Close does the work itself).
func (s *Store) stopMaintenance() {
	s.maint.mu.Lock()
	defer s.maint.mu.Unlock()
	s.maint.stopped = true
	if s.maint.timer != nil {
		s.maint.timer.Stop()
		s.maint.timer = nil
	}
}

// walRestartFrames is the log size (in pages) past which a checkpoint
// makes sure the log starts over.
const walRestartFrames = 4096

// checkpoint copies the write-ahead log into the database file without
// waiting for readers or writers (a PASSIVE checkpoint). The log starts
// over at the first write after a checkpoint that copied all of it; while
// writes go on during the copy, that never happens, so past
// walRestartFrames the little written meanwhile is copied again on the
// write connection, with writes held for that moment only.
func (s *Store) checkpoint(ctx context.Context) error {
	select {
	case <-s.closed:
		return ErrClosed
	default:
	}
	var busy, frames, copied int
	if err := s.ckpt.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &copied); err != nil {
		return fmt.Errorf("checkpoint %s: %w", s.path, classify(err))
	}
	s.maint.checkpoints.Add(1)
	if frames < walRestartFrames {
		return nil
	}
	select {
	case s.wsem <- struct{}{}:
	case <-s.closed:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.wsem }()
	if err := s.w.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &copied); err != nil {
		return fmt.Errorf("checkpoint %s: %w", s.path, classify(err))
	}
	return nil
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
