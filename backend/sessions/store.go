package sessions

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"iter"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Errors the store returns, wrapped with what was being attempted.
var (
	// ErrNotFound: no session has that ID (or it was purged).
	ErrNotFound = errors.New("session not found")
	// ErrInvalidEvent: an event was refused (bad JSON, a payload that does
	// not fit its type, a missing type, a session.created out of place).
	// Nothing of its batch was written.
	ErrInvalidEvent = errors.New("invalid event")
	// ErrClosed: the store was closed.
	ErrClosed = errors.New("session store closed")
)

// Store is the session log in one SQLite file. It is safe for concurrent
// use: writes are serialized through one connection (SQLite has one writer
// anyway) and reads run beside them on a small pool. Several processes may
// open the same file; they wait for each other's write locks.
type Store struct {
	path string
	w    *sql.DB       // the single write connection
	r    *sql.DB       // readers
	wsem chan struct{} // held while a write transaction runs
	st   *writeStmts
	rst  *readStmts // on the reader pool
	wrst *readStmts // the same, on the write connection (hotRead)
	// history caches the model histories of the sessions used last.
	history historyCache
	// maint runs the work left after writes (search index, checkpoint) on
	// ckpt, a connection of its own for checkpoints.
	maint maintenance
	ckpt  *sql.DB
	// rows are the session rows as this store last committed or read them
	// in a write, used while rowsVersion (the write connection's
	// data_version) says no other process wrote since. Only a write
	// touches them, so wsem guards them.
	rows        map[string]Session
	rowsVersion int64
	now         func() time.Time
	// blobs holds attachments' content, beside the database file.
	blobs *Blobs

	closeOnce sync.Once
	closed    chan struct{} // closed by Close
	closeErr  error
}

// Option configures Open.
type Option func(*Store)

// WithClock sets the clock that stamps events appended without a time
// (tests use it for reproducible logs).
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// Open opens (creating when missing) the session database at path and
// brings its schema up to date; before it upgrades the schema of a database
// that already has one, it copies the database aside once (BackupPath). A
// file that is not an SQLite database, or
// is too damaged to read, gives an error wrapping ErrNotDatabase and is left
// untouched. When the projection code changed since the file was last
// written, the projections are rebuilt from the log.
func Open(ctx context.Context, path string, opts ...Option) (*Store, error) {
	if err := checkHeader(path); err != nil {
		return nil, err
	}
	s := &Store{path: path, wsem: make(chan struct{}, 1), now: time.Now, closed: make(chan struct{}),
		blobs: NewBlobs(filepath.Join(filepath.Dir(path), "attachments"))}
	for _, o := range opts {
		o(s)
	}
	fail := func(err error) (*Store, error) {
		s.Close()
		if s.explain(&err); errors.As(err, new(*DamagedError)) {
			return nil, err
		}
		return nil, fmt.Errorf("open session store %s: %w", path, err)
	}
	// Look before the writer connects: its journal_mode(WAL) would
	// already change another application's file.
	probe, err := connect(path, roleReader)
	if err != nil {
		return fail(err)
	}
	err = checkNotForeign(ctx, probe)
	probe.Close()
	if err != nil {
		return fail(err)
	}
	if s.w, err = connect(path, roleWriter); err != nil {
		return fail(err)
	}
	if err := migrate(ctx, s.w, path); err != nil {
		return fail(err)
	}
	if s.r, err = connect(path, roleReader); err != nil {
		return fail(err)
	}
	if s.ckpt, err = connect(path, roleCheckpointer); err != nil {
		return fail(err)
	}
	if s.st, err = prepareWriteStmts(ctx, s.w); err != nil {
		return fail(err)
	}
	if s.rst, err = prepareReadStmts(ctx, s.r); err != nil {
		return fail(err)
	}
	if s.wrst, err = prepareReadStmts(ctx, s.w); err != nil {
		return fail(err)
	}
	var v string
	err = s.w.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'projection_version'`).Scan(&v)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fail(classify(err))
	}
	if v != projectionVersion {
		if err := s.Rebuild(ctx); err != nil {
			return fail(err)
		}
	}
	// What a crash (here or in another process) left out of the index.
	if err := s.IndexSearch(ctx); err != nil {
		return fail(err)
	}
	return s, nil
}

// Blobs returns the store of attachments' content: the folder
// "attachments" beside the database file.
func (s *Store) Blobs() *Blobs { return s.blobs }

// IntegrityCheck runs SQLite's integrity_check over the file and FTS5's
// check that the search index matches the indexed text. It returns nil
// when both pass, and an error wrapping ErrNotDatabase that says what is
// wrong otherwise.
func (s *Store) IntegrityCheck(ctx context.Context) (err error) {
	defer s.explain(&err)
	// A fresh connection: on a pooled reader, FTS5's part of
	// integrity_check can read a cached index structure that a later write
	// replaced, and report corruption that is not there.
	probe, err := connect(s.path, roleReader)
	if err != nil {
		return fmt.Errorf("check database %s: %w", s.path, err)
	}
	msgs, err := queryStrings(ctx, probe, `PRAGMA integrity_check`)
	probe.Close()
	if err != nil {
		return fmt.Errorf("check database %s: %w", s.path, classify(err))
	}
	if len(msgs) != 1 || msgs[0] != "ok" {
		return fmt.Errorf("check database %s: %w: %s", s.path, ErrNotDatabase, strings.Join(msgs, "; "))
	}
	// rank 1 compares the index with search_docs, not just with itself.
	err = s.write(ctx, func(w *writeTx) error {
		if _, err := w.indexPending(); err != nil {
			return err
		}
		_, err := w.tx.ExecContext(ctx, `INSERT INTO search_fts (search_fts, rank) VALUES ('integrity-check', 1)`)
		return err
	})
	if err != nil {
		return fmt.Errorf("check search index of %s: %w", s.path, classify(err))
	}
	return nil
}

// Path is the database file the store was opened on.
func (s *Store) Path() string { return s.path }

// Close waits for a running write to finish and closes the database;
// later writes fail with ErrClosed. Closing twice is harmless.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.stopMaintenance()
		if s.w != nil && s.st != nil {
			// What is left waiting is indexed at the next Open otherwise.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_ = s.IndexSearch(ctx)
			cancel()
		}
		s.wsem <- struct{}{} // never released
		close(s.closed)
		var errs []error
		for _, st := range []*readStmts{s.rst, s.wrst} {
			if st != nil {
				errs = append(errs, st.close())
			}
		}
		if s.st != nil {
			errs = append(errs, s.st.close())
		}
		for _, db := range []*sql.DB{s.ckpt, s.r, s.w} {
			if db != nil {
				errs = append(errs, db.Close())
			}
		}
		if err := errors.Join(errs...); err != nil {
			s.closeErr = fmt.Errorf("close session store %s: %w", s.path, err)
		}
	})
	return s.closeErr
}

// write runs fn in one write transaction, committed when fn returns nil.
func (s *Store) write(ctx context.Context, fn func(w *writeTx) error) error {
	select {
	case <-s.closed:
		return ErrClosed
	default:
	}
	select {
	case s.wsem <- struct{}{}:
	case <-s.closed:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.wsem }()
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return classify(err)
	}
	w := &writeTx{tx: tx, st: s.st, ctx: ctx, now: s.now}
	var version int64
	if err := w.stmt(s.st.dataVersion).QueryRowContext(ctx).Scan(&version); err != nil {
		tx.Rollback()
		return classify(err)
	}
	if version != s.rowsVersion || s.rows == nil {
		s.rows, s.rowsVersion = map[string]Session{}, version // another process wrote
	}
	w.rows = s.rows
	err = fn(w)
	if err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		s.rows = nil // the file is in an unknown state: read it again
		return classify(err)
	}
	if w.clearHistory {
		s.history.clear()
		s.rows = map[string]Session{}
	}
	if len(s.rows)+len(w.saved) > rowCacheSize {
		clear(s.rows)
	}
	if len(w.saved) <= rowCacheSize {
		for id, sess := range w.saved {
			s.rows[id] = sess
		}
	}
	s.afterWrite()
	for id, d := range w.history {
		s.history.extend(id, d.prevSeq, d.lastSeq, d.added, d.rewritten)
	}
	return nil
}

// rowCacheSize bounds the session rows kept for the write path.
const rowCacheSize = 512

// hotRead runs fn with the read statements of the write connection when no
// write is under way, and with the reader pool's otherwise. A reader drops
// its page cache whenever anything was written since its last read, so the
// small reads the engine makes between its writes (a session row, its log's
// last seq) cost several times more there than on the connection that
// wrote. fn must be a single statement or a few: a write waits for it.
func (s *Store) hotRead(fn func(st *readStmts) error) error {
	select {
	case s.wsem <- struct{}{}:
		defer func() { <-s.wsem }()
		return fn(s.wrst)
	default:
		return fn(s.rst)
	}
}

// newID makes a session ID: 26 random base32 characters.
func newID() string { return strings.ToLower(rand.Text()) }

// Create starts a session: it appends session.created and returns the new
// session. Forks are made with Fork, so c.ForkedFrom must be empty.
func (s *Store) Create(ctx context.Context, c SessionCreated) (_ Session, err error) {
	sess, _, err := s.CreateWith(ctx, c)
	return sess, err
}

// CreateWith is Create with the session's first events after
// session.created, in the same transaction (a subagent's session and its
// first message). It returns them as stored.
func (s *Store) CreateWith(ctx context.Context, c SessionCreated, first ...Event) (_ Session, _ []Event, err error) {
	defer s.explain(&err)
	if c.ForkedFrom != "" || c.ForkedAtSeq != 0 {
		return Session{}, nil, fmt.Errorf("create session: %w: use Fork to fork a session", ErrInvalidEvent)
	}
	id := newID()
	var (
		sess    Session
		logged  []Event
		history []Message
	)
	err = s.write(ctx, func(w *writeTx) error {
		var err error
		sess, logged, err = w.append(id, append([]Event{NewEvent(EventSessionCreated, c)}, first...), true)
		history = w.historyDelta(id).added
		return err
	})
	if err != nil {
		return Session{}, nil, fmt.Errorf("create session: %w", err)
	}
	// The whole history is known: nothing to read back before the next write.
	s.history.put(sess.ID, sess.LastSeq, history)
	return sess, logged[1:], nil
}

// Append adds events to a session's log in one transaction: all of them or
// none. The store assigns SessionID and Seq (contiguous, after the last
// one) and stamps a zero Time with the clock; times are kept at millisecond
// precision in UTC. It returns the events as stored. An event whose Data is
// not JSON, or does not fit its type's payload, fails the whole call with
// ErrInvalidEvent; an unknown type is stored and left out of projections.
// session.created cannot be appended (Create, Fork and Import write it).
// A soft-deleted session still takes appends: a turn may be running when
// the user deletes it.
func (s *Store) Append(ctx context.Context, sessionID string, events ...Event) (_ []Event, err error) {
	defer s.explain(&err)
	if len(events) == 0 {
		return nil, nil
	}
	var out []Event
	err = s.write(ctx, func(w *writeTx) error {
		var err error
		_, out, err = w.append(sessionID, events, false)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("append %d events to session %s: %w", len(events), sessionID, err)
	}
	return out, nil
}

// Get returns a session's list entry, deleted or not.
func (s *Store) Get(ctx context.Context, id string) (_ Session, err error) {
	defer s.explain(&err)
	var sess Session
	err = s.hotRead(func(st *readStmts) error {
		sess, err = rowSession(st.getSession.QueryRowContext(ctx, id))
		return err
	})
	if err != nil {
		return Session{}, fmt.Errorf("get session %s: %w", id, err)
	}
	return sess, nil
}

func getSession(ctx context.Context, q querier, id string) (Session, error) {
	return rowSession(q.QueryRowContext(ctx, qGetSession, id))
}

// rowSession reads the session row a qGetSession query found.
func rowSession(r *sql.Row) (Session, error) {
	sess, err := scanSession(r)
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, ErrNotFound
	}
	return sess, classify(err)
}

// querier is what reads run on: the reader pool or a transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// read runs fn in a read-only transaction, so its queries see one
// snapshot.
func (s *Store) read(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return classify(err)
	}
	defer tx.Rollback()
	return fn(tx)
}

// DeletedFilter says whether List shows soft-deleted sessions.
type DeletedFilter int

// List filters for soft-deleted sessions.
const (
	ExcludeDeleted DeletedFilter = iota // the default: the live sessions
	IncludeDeleted                      // live and deleted
	OnlyDeleted                         // the trash
)

// ListOptions pages and filters List.
type ListOptions struct {
	Limit     int // 0 means 50
	Offset    int
	Deleted   DeletedFilter
	Workspace string // when set, only sessions of this workspace
	// TopLevel leaves out subagents' sessions (Descendants finds them).
	TopLevel bool
	// Parent, when set, lists only the subagent sessions that session
	// started (its direct children).
	Parent string
}

// List returns sessions, most recently updated first (ties by ID). Pages
// are by offset, so a session updated between two calls may move across
// pages.
func (s *Store) List(ctx context.Context, o ListOptions) (_ []Session, err error) {
	defer s.explain(&err)
	q := `SELECT ` + sessionCols + ` FROM sessions WHERE 1`
	var args []any
	switch o.Deleted {
	case ExcludeDeleted:
		q += ` AND deleted_at = 0`
	case OnlyDeleted:
		q += ` AND deleted_at <> 0`
	}
	if o.Workspace != "" {
		q += ` AND workspace = ?`
		args = append(args, o.Workspace)
	}
	if o.TopLevel {
		q += ` AND parent_id = ''`
	}
	if o.Parent != "" {
		q += ` AND parent_id = ?`
		args = append(args, o.Parent)
	}
	if o.Limit <= 0 {
		o.Limit = 50
	}
	q += ` ORDER BY updated_at DESC, id LIMIT ? OFFSET ?`
	args = append(args, o.Limit, max(o.Offset, 0))
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", classify(err))
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("list sessions: %w", classify(err))
		}
		out = append(out, sess)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list sessions: %w", classify(err))
	}
	return out, nil
}

// maxDescendants bounds what Descendants returns, so a runaway tree of
// subagents cannot make the session list unbounded.
const maxDescendants = 500

// Descendants returns the subagent sessions below the given sessions (their
// children, their children's children…), not deleted, most recently
// updated first, at most 500 of them.
func (s *Store) Descendants(ctx context.Context, ids []string) ([]Session, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	roots := strings.Repeat("?, ", len(ids)-1) + "?"
	q := `WITH RECURSIVE tree(id, depth) AS (
			SELECT id, 1 FROM sessions WHERE parent_id IN (` + roots + `)
			UNION
			SELECT s.id, tree.depth + 1 FROM sessions s JOIN tree ON s.parent_id = tree.id WHERE tree.depth < 16
		)
		SELECT ` + sessionCols + ` FROM sessions WHERE id IN (SELECT id FROM tree) AND deleted_at = 0
		ORDER BY updated_at DESC, id LIMIT ?`
	args := make([]any, 0, len(ids)+1)
	for _, id := range ids {
		args = append(args, id)
	}
	args = append(args, maxDescendants)
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list subagent sessions: %w", classify(err))
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("list subagent sessions: %w", classify(err))
		}
		out = append(out, sess)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list subagent sessions: %w", classify(err))
	}
	return out, nil
}

// Rename gives a session the user's title (event session.renamed). An
// empty title goes back to the auto title.
func (s *Store) Rename(ctx context.Context, id, title string) (err error) {
	defer s.explain(&err)
	if _, err := s.Append(ctx, id, NewEvent(EventSessionRenamed, SessionRenamed{Title: title})); err != nil {
		return fmt.Errorf("rename session %s: %w", id, err)
	}
	return nil
}

// Delete soft-deletes a session (event session.deleted): it leaves the
// list and search until Restore, or until Purge removes it for good.
// Deleting a deleted session does nothing.
func (s *Store) Delete(ctx context.Context, id string) (err error) {
	defer s.explain(&err)
	if err := s.setDeleted(ctx, id, true); err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	return nil
}

// Restore undoes Delete (event session.restored). Restoring a session that
// is not deleted does nothing.
func (s *Store) Restore(ctx context.Context, id string) (err error) {
	defer s.explain(&err)
	if err := s.setDeleted(ctx, id, false); err != nil {
		return fmt.Errorf("restore session %s: %w", id, err)
	}
	return nil
}

func (s *Store) setDeleted(ctx context.Context, id string, deleted bool) error {
	return s.write(ctx, func(w *writeTx) error {
		sess, err := w.loadSession(id)
		if err != nil {
			return err
		}
		if sess.Deleted() == deleted {
			return nil
		}
		ev := NewEvent(EventSessionRestored, SessionRestored{})
		if deleted {
			ev = NewEvent(EventSessionDeleted, SessionDeleted{})
		}
		_, _, err = w.append(id, []Event{ev}, false)
		return err
	})
}

// Purge removes for good the sessions soft-deleted before the given time,
// and the subagent sessions below them: their events, projections and
// search entries. It returns how many sessions went. Forks of a purged
// session keep their own copy of the log.
func (s *Store) Purge(ctx context.Context, deletedBefore time.Time) (_ int, err error) {
	defer s.explain(&err)
	n := 0
	err = s.write(ctx, func(w *writeTx) error {
		ids, err := queryStrings(ctx, w.tx, `WITH RECURSIVE gone(id, depth) AS (
				SELECT id, 0 FROM sessions WHERE deleted_at <> 0 AND deleted_at < ?
				UNION
				SELECT s.id, gone.depth + 1 FROM sessions s JOIN gone ON s.parent_id = gone.id WHERE gone.depth < 16
			) SELECT DISTINCT id FROM gone`, deletedBefore.UnixMilli())
		if err != nil {
			return err
		}
		// The index must hold every row of what it forgets.
		if _, err := w.indexPending(); err != nil {
			return err
		}
		for _, id := range ids {
			for _, q := range []string{
				`DELETE FROM events WHERE session_id = ?`,
				`INSERT INTO search_fts (search_fts, rowid, text) SELECT 'delete', id, text FROM search_docs WHERE session_id = ?`,
				`DELETE FROM sessions WHERE id = ?`, // cascades to the projections
			} {
				if _, err := w.tx.ExecContext(ctx, q, id); err != nil {
					return err
				}
			}
		}
		n = len(ids)
		w.clearHistory = n > 0
		return w.markIndexed()
	})
	if err != nil {
		return 0, fmt.Errorf("purge sessions deleted before %s: %w", deletedBefore.Format(time.RFC3339), classify(err))
	}
	return n, nil
}

// Events iterates a session's events in seq order from fromSeq (1 for the
// whole log) to toSeq (0 for the end). The iteration reads one consistent
// snapshot. A failure is yielded once as the error, and ends it; a session
// without events yields ErrNotFound.
func (s *Store) Events(ctx context.Context, id string, fromSeq, toSeq int64) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		if toSeq <= 0 {
			toSeq = 1<<63 - 1
		}
		rows, err := s.r.QueryContext(ctx, `SELECT seq, type, ts, data FROM events WHERE session_id = ? AND seq >= ? AND seq <= ? ORDER BY seq`, id, fromSeq, toSeq)
		if err != nil {
			yield(Event{}, fmt.Errorf("read events of session %s: %w", id, classify(err)))
			return
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			ev, err := scanEvent(rows, id)
			if err != nil {
				yield(Event{}, fmt.Errorf("read events of session %s: %w", id, classify(err)))
				return
			}
			n++
			if !yield(ev, nil) {
				return
			}
		}
		if err := rows.Err(); err != nil {
			yield(Event{}, fmt.Errorf("read events of session %s: %w", id, classify(err)))
			return
		}
		if n == 0 && fromSeq <= 1 {
			yield(Event{}, fmt.Errorf("read events of session %s: %w", id, ErrNotFound))
		}
	}
}

// readEvents reads a session's events up to toSeq (0: all) in order.
func readEvents(ctx context.Context, q querier, id string, toSeq int64) ([]Event, error) {
	if toSeq <= 0 {
		toSeq = 1<<63 - 1
	}
	rows, err := q.QueryContext(ctx, `SELECT seq, type, ts, data FROM events WHERE session_id = ? AND seq <= ? ORDER BY seq`, id, toSeq)
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	var evs []Event
	for rows.Next() {
		ev, err := scanEvent(rows, id)
		if err != nil {
			return nil, classify(err)
		}
		evs = append(evs, ev)
	}
	if err := rows.Err(); err != nil {
		return nil, classify(err)
	}
	if len(evs) == 0 {
		return nil, ErrNotFound
	}
	return evs, nil
}

type scanner interface{ Scan(dest ...any) error }

func scanEvent(r scanner, sessionID string) (Event, error) {
	var (
		ev   Event
		ts   int64
		data string
	)
	if err := r.Scan(&ev.Seq, &ev.Type, &ts, &data); err != nil {
		return Event{}, err
	}
	ev.SessionID, ev.Time, ev.Data = sessionID, time.UnixMilli(ts).UTC(), []byte(data)
	return ev, nil
}
