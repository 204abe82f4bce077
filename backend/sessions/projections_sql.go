package sessions

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// projectionVersion names the projection code. When a database was last
// projected by other code, Open rebuilds its projections from the log.
// 2: assistant items carry their usage; 3: capability changes and loaded
// capabilities are UI items; 4: attachments, model changes; 5: generated
// titles, branches, decision reasons; 6: subagent sessions' links to their
// parent; 7: hook runs.
const projectionVersion = "7"

// The statements of the write path, prepared once on the write connection.
const (
	qMaxSeq      = `SELECT COALESCE(MAX(seq), 0) FROM events WHERE session_id = ?`
	qInsertEvent = `INSERT INTO events (session_id, seq, type, ts, data) VALUES (?, ?, ?, ?, ?)`
	qSaveSession = `INSERT INTO sessions (` + sessionCols + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET custom_title = excluded.custom_title, auto_title = excluded.auto_title,
		workspace = excluded.workspace, agent = excluded.agent, mode = excluded.mode, provider = excluded.provider,
		model = excluded.model, created_at = excluded.created_at, updated_at = excluded.updated_at,
		deleted_at = excluded.deleted_at, last_seq = excluded.last_seq, message_count = excluded.message_count,
		input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens,
		cache_read_tokens = excluded.cache_read_tokens, cache_write_tokens = excluded.cache_write_tokens,
		cost_usd = excluded.cost_usd, forked_from = excluded.forked_from, forked_at_seq = excluded.forked_at_seq,
		generated_title = excluded.generated_title, branch = excluded.branch,
		parent_id = excluded.parent_id, parent_call_id = excluded.parent_call_id, inherited = excluded.inherited,
		background = excluded.background`
	qInsertUI = `INSERT INTO ui_messages (session_id, seq, kind, call_id, data) VALUES (?, ?, ?, ?, ?)`
	// call_id <> '' lets SQLite use the partial index ui_messages_by_call.
	qFindUI = `SELECT seq, data FROM ui_messages WHERE session_id = ? AND call_id = ? AND call_id <> '' AND kind = ?
		ORDER BY seq DESC LIMIT 1`
	qUpdateUI    = `UPDATE ui_messages SET data = ? WHERE session_id = ? AND seq = ?`
	qInsertModel = `INSERT INTO model_messages (session_id, pos, seq, role, content, tool_calls, tool_call_id, tool_name, is_error, summary, attachments)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	qCompactModel = `DELETE FROM model_messages WHERE session_id = ? AND pos <= ?`
	qInsertSearch = `INSERT INTO search_docs (session_id, seq, role, text) VALUES (?, ?, ?, ?)`
	qPrevDiff     = `SELECT seq, data FROM events WHERE session_id = ? AND seq < ? AND type = 'capability.diff'
		ORDER BY seq DESC LIMIT 1`
	// The search index's watermark (migration 0005) and its catching up.
	qDataVersion   = `PRAGMA data_version`
	qSearchIndexed = `SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'search_indexed'`
	qIndexAbove    = `INSERT INTO search_fts (rowid, text) SELECT id, text FROM search_docs WHERE id > ?`
	qSetIndexed    = `INSERT INTO meta (key, value) SELECT 'search_indexed', CAST(COALESCE(MAX(id), 0) AS TEXT) FROM search_docs
		WHERE 1 ON CONFLICT (key) DO UPDATE SET value = excluded.value`
)

// The statements of the engine's hot reads, prepared once on the reader
// pool (database/sql prepares them on each connection at its first use).
const (
	qGetSession    = `SELECT ` + sessionCols + ` FROM sessions WHERE id = ?`
	qLastSeq       = `SELECT last_seq FROM sessions WHERE id = ?`
	qModelMessages = `SELECT seq, role, content, tool_calls, tool_call_id, tool_name, is_error, summary, attachments
		FROM model_messages WHERE session_id = ? ORDER BY pos`
)

// sessionCols are the sessions columns in the order scanSession and
// qSaveSession use.
const sessionCols = `id, custom_title, auto_title, workspace, agent, mode, provider, model, created_at, updated_at,
	deleted_at, last_seq, message_count, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd,
	forked_from, forked_at_seq, generated_title, branch, parent_id, parent_call_id, inherited, background`

func scanSession(r scanner) (Session, error) {
	var s Session
	var created, updated, deleted int64
	var inherited string
	err := r.Scan(&s.ID, &s.titles.custom, &s.titles.auto, &s.Workspace, &s.Agent, &s.Mode, &s.Provider, &s.Model,
		&created, &updated, &deleted, &s.LastSeq, &s.MessageCount, &s.Usage.InputTokens, &s.Usage.OutputTokens,
		&s.Usage.CacheReadTokens, &s.Usage.CacheWriteTokens, &s.Usage.CostUSD, &s.ForkedFrom, &s.ForkedAtSeq,
		&s.titles.generated, &s.Branch, &s.Parent, &s.ParentCallID, &inherited, &s.Background)
	if err != nil {
		return Session{}, err
	}
	if inherited != "" {
		if err := json.Unmarshal([]byte(inherited), &s.Inherited); err != nil {
			return Session{}, fmt.Errorf("session %s: inherited tools: %w", s.ID, err)
		}
	}
	s.CreatedAt, s.UpdatedAt, s.DeletedAt = fromMillis(created), fromMillis(updated), fromMillis(deleted)
	s.setTitle()
	return s, nil
}

func sessionArgs(s *Session) []any {
	return []any{s.ID, s.titles.custom, s.titles.auto, s.Workspace, s.Agent, s.Mode, s.Provider, s.Model,
		millis(s.CreatedAt), millis(s.UpdatedAt), millis(s.DeletedAt), s.LastSeq, s.MessageCount,
		s.Usage.InputTokens, s.Usage.OutputTokens, s.Usage.CacheReadTokens, s.Usage.CacheWriteTokens, s.Usage.CostUSD,
		s.ForkedFrom, s.ForkedAtSeq, s.titles.generated, s.Branch, s.Parent, s.ParentCallID, inheritedText(s.Inherited), s.Background}
}

// inheritedText stores a subagent's inherited tools as JSON ("" for none).
func inheritedText(names []string) string {
	if len(names) == 0 {
		return ""
	}
	b, _ := json.Marshal(names)
	return string(b)
}

// millis stores a time as Unix milliseconds, the zero time as 0.
func millis(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func fromMillis(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

// readStmts are the hot reads' prepared statements, on the reader pool.
type readStmts struct{ getSession, lastSeq, modelMessages *sql.Stmt }

func prepareReadStmts(ctx context.Context, db *sql.DB) (*readStmts, error) {
	st := &readStmts{}
	var err error
	for _, p := range []struct {
		dst **sql.Stmt
		q   string
	}{{&st.getSession, qGetSession}, {&st.lastSeq, qLastSeq}, {&st.modelMessages, qModelMessages}} {
		if *p.dst, err = db.PrepareContext(ctx, p.q); err != nil {
			break
		}
	}
	if err != nil {
		st.close()
		return nil, fmt.Errorf("prepare reads: %w", classify(err))
	}
	return st, nil
}

func (st *readStmts) close() error {
	var errs []error
	for _, s := range []*sql.Stmt{st.getSession, st.lastSeq, st.modelMessages} {
		if s != nil {
			errs = append(errs, s.Close())
		}
	}
	return errors.Join(errs...)
}

// writeStmts are the write path's prepared statements.
type writeStmts struct {
	maxSeq, insertEvent, loadSession, saveSession, insertUI, findUI, updateUI,
	insertModel, compactModel, insertSearch, prevDiff, searchIndexed, indexAbove, setIndexed, dataVersion *sql.Stmt
}

func prepareWriteStmts(ctx context.Context, db *sql.DB) (*writeStmts, error) {
	st := &writeStmts{}
	for _, p := range []struct {
		dst **sql.Stmt
		q   string
	}{
		{&st.maxSeq, qMaxSeq}, {&st.insertEvent, qInsertEvent}, {&st.loadSession, qGetSession},
		{&st.saveSession, qSaveSession}, {&st.insertUI, qInsertUI}, {&st.findUI, qFindUI},
		{&st.updateUI, qUpdateUI}, {&st.insertModel, qInsertModel}, {&st.compactModel, qCompactModel},
		{&st.insertSearch, qInsertSearch}, {&st.prevDiff, qPrevDiff},
		{&st.searchIndexed, qSearchIndexed}, {&st.indexAbove, qIndexAbove}, {&st.setIndexed, qSetIndexed},
		{&st.dataVersion, qDataVersion},
	} {
		s, err := db.PrepareContext(ctx, p.q)
		if err != nil {
			st.close()
			return nil, fmt.Errorf("prepare %q: %w", p.q, classify(err))
		}
		*p.dst = s
	}
	return st, nil
}

func (st *writeStmts) close() error {
	var errs []error
	for _, s := range []*sql.Stmt{st.maxSeq, st.insertEvent, st.loadSession, st.saveSession, st.insertUI,
		st.findUI, st.updateUI, st.insertModel, st.compactModel, st.insertSearch, st.prevDiff,
		st.searchIndexed, st.indexAbove, st.setIndexed, st.dataVersion} {
		if s != nil {
			errs = append(errs, s.Close())
		}
	}
	return errors.Join(errs...)
}

// writeTx is one write transaction; it is also the sink that keeps the
// SQL projections of the session being appended to.
type writeTx struct {
	tx    *sql.Tx
	st    *writeStmts
	ctx   context.Context
	now   func() time.Time
	bound map[*sql.Stmt]*sql.Stmt // st's statements bound to tx
	sid   string                  // the session the sink writes to
	// UI items of the batch being appended, written by flushUI: a result
	// or an answer that follows its call in the same batch then costs no
	// read and no rewrite.
	pendingUI     []UIMessage
	pendingByCall map[string]int // callKey -> index in pendingUI
	// rows are the session rows as committed (the store's rowCache, valid
	// for this transaction); saved are the rows this transaction wrote.
	rows  map[string]Session
	saved map[string]Session
	// What the transaction did to model histories, for the history cache
	// when it commits: per session, or everything (a rebuild, a purge).
	history      map[string]*historyDelta
	clearHistory bool
}

// historyDelta returns the session's entry in w.history, made at first use.
func (w *writeTx) historyDelta(id string) *historyDelta {
	if w.history == nil {
		w.history = map[string]*historyDelta{}
	}
	d, ok := w.history[id]
	if !ok {
		d = &historyDelta{}
		w.history[id] = d
	}
	return d
}

// stmt binds a prepared statement to the transaction (once); the bound
// statement closes with the transaction.
func (w *writeTx) stmt(s *sql.Stmt) *sql.Stmt {
	if b, ok := w.bound[s]; ok {
		return b
	}
	if w.bound == nil {
		w.bound = map[*sql.Stmt]*sql.Stmt{}
	}
	b := w.tx.StmtContext(w.ctx, s)
	w.bound[s] = b
	return b
}

// loadSession reads a session row inside the transaction: as this
// transaction left it, as the last commit left it, or from the database.
func (w *writeTx) loadSession(id string) (Session, error) {
	if sess, ok := w.saved[id]; ok {
		return sess, nil
	}
	if sess, ok := w.rows[id]; ok {
		return sess, nil
	}
	return rowSession(w.stmt(w.st.loadSession).QueryRowContext(w.ctx, id))
}

// append writes events after the session's last seq and projects them.
// create says the batch starts a new session (its first event is
// session.created); otherwise the session must exist and session.created
// is refused. It returns the session row after the batch and the events
// as stored.
func (w *writeTx) append(id string, events []Event, create bool) (Session, []Event, error) {
	var last int64
	var sess Session
	if create {
		if err := w.stmt(w.st.maxSeq).QueryRowContext(w.ctx, id).Scan(&last); err != nil {
			return Session{}, nil, classify(err)
		}
		if last > 0 {
			return Session{}, nil, fmt.Errorf("session %s already exists", id)
		}
	} else {
		// The row's last_seq is its log's last seq: every event moves it.
		var err error
		if sess, err = w.loadSession(id); errors.Is(err, ErrNotFound) {
			return Session{}, nil, ErrNotFound
		} else if err != nil {
			return Session{}, nil, fmt.Errorf("load session row: %w", err)
		}
		last = sess.LastSeq
	}
	w.sid = id
	if d := w.historyDelta(id); d.lastSeq == 0 {
		d.prevSeq = last // the first append of the transaction to this session
	}
	out := make([]Event, len(events))
	for i, ev := range events {
		if ev.SessionID != "" && ev.SessionID != id {
			return Session{}, nil, fmt.Errorf("event %d is for session %s: %w", i, ev.SessionID, ErrInvalidEvent)
		}
		if ev.Type == "" {
			return Session{}, nil, fmt.Errorf("event %d: %w: no type", i, ErrInvalidEvent)
		}
		if (ev.Type == EventSessionCreated) != (create && i == 0) {
			return Session{}, nil, fmt.Errorf("event %d: %w: session.created must be the first event of a session, and only that", i, ErrInvalidEvent)
		}
		// Compact form, so an export (which compacts) re-imports byte
		// for byte; it also checks the JSON. NewEvent's is both already.
		if !ev.marshaled {
			var buf bytes.Buffer
			if err := json.Compact(&buf, ev.Data); err != nil {
				return Session{}, nil, fmt.Errorf("event %d (%s): %w: data is not JSON: %v", i, ev.Type, ErrInvalidEvent, err)
			}
			ev.Data = buf.Bytes()
		}
		ev.marshaled = false
		if ev.Time.IsZero() {
			ev.Time = w.now()
		}
		ev.SessionID, ev.Seq, ev.Time = id, last+int64(i)+1, time.UnixMilli(ev.Time.UnixMilli()).UTC()
		// Projecting first decodes (and so validates) a known payload
		// before anything of it is written.
		if err := project(&sess, ev, w); err != nil {
			return Session{}, nil, err
		}
		if _, err := w.stmt(w.st.insertEvent).ExecContext(w.ctx, id, ev.Seq, string(ev.Type), ev.Time.UnixMilli(), string(ev.Data)); err != nil {
			return Session{}, nil, fmt.Errorf("insert event %d: %w", ev.Seq, classify(err))
		}
		out[i] = ev
	}
	if err := w.flushUI(); err != nil {
		return Session{}, nil, err
	}
	if err := w.saveSession(&sess); err != nil {
		return Session{}, nil, err
	}
	return sess, out, nil
}

func (w *writeTx) saveSession(s *Session) error {
	w.historyDelta(s.ID).lastSeq = s.LastSeq
	if w.saved == nil {
		w.saved = map[string]Session{}
	}
	w.saved[s.ID] = *s
	if _, err := w.stmt(w.st.saveSession).ExecContext(w.ctx, sessionArgs(s)...); err != nil {
		return fmt.Errorf("save session row %s: %w", s.ID, classify(err))
	}
	return nil
}

// The sink methods: they write the projections of w.sid.

func (w *writeTx) addUI(m UIMessage) error {
	w.pendingUI = append(w.pendingUI, m)
	if id := callID(m); id != "" {
		if w.pendingByCall == nil {
			w.pendingByCall = map[string]int{}
		}
		w.pendingByCall[callKey(m.Kind, id)] = len(w.pendingUI) - 1
	}
	return nil
}

// flushUI writes the pending UI items.
func (w *writeTx) flushUI() error {
	for _, m := range w.pendingUI {
		data, err := json.Marshal(m)
		if err != nil {
			return fmt.Errorf("encode UI item %d: %w", m.Seq, err)
		}
		if _, err := w.stmt(w.st.insertUI).ExecContext(w.ctx, w.sid, m.Seq, string(m.Kind), callID(m), string(data)); err != nil {
			return fmt.Errorf("insert UI item %d: %w", m.Seq, classify(err))
		}
	}
	w.pendingUI = w.pendingUI[:0]
	clear(w.pendingByCall)
	return nil
}

func (w *writeTx) updateUI(kind UIKind, id string, fn func(*UIMessage)) (bool, error) {
	if id == "" {
		return false, nil
	}
	// Pending items are newer than any written one.
	if i, ok := w.pendingByCall[callKey(kind, id)]; ok {
		fn(&w.pendingUI[i])
		return true, nil
	}
	var (
		seq  int64
		data string
	)
	err := w.stmt(w.st.findUI).QueryRowContext(w.ctx, w.sid, id, string(kind)).Scan(&seq, &data)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("find %s item for call %s: %w", kind, id, classify(err))
	}
	var m UIMessage
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		return false, fmt.Errorf("decode UI item %d: %w", seq, err)
	}
	fn(&m)
	b, err := json.Marshal(m)
	if err != nil {
		return false, fmt.Errorf("encode UI item %d: %w", seq, err)
	}
	if _, err := w.stmt(w.st.updateUI).ExecContext(w.ctx, string(b), w.sid, seq); err != nil {
		return false, fmt.Errorf("update UI item %d: %w", seq, classify(err))
	}
	return true, nil
}

func (w *writeTx) addModel(pos int64, m Message) error {
	calls := ""
	if len(m.ToolCalls) > 0 {
		b, err := json.Marshal(m.ToolCalls)
		if err != nil {
			return fmt.Errorf("encode tool calls of %d: %w", m.Seq, err)
		}
		calls = string(b)
	}
	attached := ""
	if len(m.Attachments) > 0 {
		b, err := json.Marshal(m.Attachments)
		if err != nil {
			return fmt.Errorf("encode attachments of %d: %w", m.Seq, err)
		}
		attached = string(b)
	}
	if _, err := w.stmt(w.st.insertModel).ExecContext(w.ctx, w.sid, pos, m.Seq, string(m.Role), m.Content, calls,
		m.ToolCallID, m.ToolName, m.IsError, m.Summary, attached); err != nil {
		return fmt.Errorf("insert model message %d: %w", m.Seq, classify(err))
	}
	d := w.historyDelta(w.sid)
	d.added = append(d.added, m)
	return nil
}

func (w *writeTx) compactModel(upTo int64, summary Message) error {
	w.historyDelta(w.sid).rewritten = true
	if _, err := w.stmt(w.st.compactModel).ExecContext(w.ctx, w.sid, upTo); err != nil {
		return fmt.Errorf("compact model history up to %d: %w", upTo, classify(err))
	}
	return w.addModel(upTo, summary)
}

func (w *writeTx) addSearch(seq int64, role Role, text string) error {
	if _, err := w.stmt(w.st.insertSearch).ExecContext(w.ctx, w.sid, seq, string(role), text); err != nil {
		return fmt.Errorf("index message %d: %w", seq, classify(err))
	}
	return nil
}

// previousDiff reads the session's last capability.diff before seq from
// the log: the events of the batch being appended are already in it.
func (w *writeTx) previousDiff(before int64) (*CapabilityDiff, error) {
	var (
		seq  int64
		data string
	)
	err := w.stmt(w.st.prevDiff).QueryRowContext(w.ctx, w.sid, before).Scan(&seq, &data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("find the capability diff before %d: %w", before, classify(err))
	}
	var d CapabilityDiff
	if err := json.Unmarshal([]byte(data), &d); err != nil {
		return nil, fmt.Errorf("decode capability diff %d: %w", seq, err)
	}
	return &d, nil
}

func (w *writeTx) noteDiff(CapabilityDiff) {}

// indexPending adds the search_docs rows above the watermark to the
// full-text index, in one statement, and moves the watermark to the
// highest row. It returns how many rows it indexed.
func (w *writeTx) indexPending() (int64, error) {
	var upto int64
	if err := w.stmt(w.st.searchIndexed).QueryRowContext(w.ctx).Scan(&upto); err != nil {
		return 0, fmt.Errorf("update search index: read its watermark: %w", classify(err))
	}
	res, err := w.stmt(w.st.indexAbove).ExecContext(w.ctx, upto)
	if err != nil {
		return 0, fmt.Errorf("update search index: %w", classify(err))
	}
	n, _ := res.RowsAffected()
	if n > 0 {
		if err := w.markIndexed(); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// markIndexed moves the watermark to the highest search_docs row: every
// row there is must be indexed. A purge runs it after deleting, so that
// the ids it freed, which SQLite hands out again, count as not indexed.
func (w *writeTx) markIndexed() error {
	if _, err := w.stmt(w.st.setIndexed).ExecContext(w.ctx); err != nil {
		return fmt.Errorf("update search index: move its watermark: %w", classify(err))
	}
	return nil
}

// UIMessages returns the history the UI shows for a session, in order.
func (s *Store) UIMessages(ctx context.Context, id string) (_ []UIMessage, err error) {
	defer s.explain(&err)
	return uiMessages(ctx, s.r, id)
}

func uiMessages(ctx context.Context, q querier, id string) ([]UIMessage, error) {
	rows, err := q.QueryContext(ctx, `SELECT data FROM ui_messages WHERE session_id = ? ORDER BY seq`, id)
	if err != nil {
		return nil, fmt.Errorf("read UI history of session %s: %w", id, classify(err))
	}
	defer rows.Close()
	var out []UIMessage
	var data []byte
	for rows.Next() {
		if err := rows.Scan(&data); err != nil {
			return nil, fmt.Errorf("read UI history of session %s: %w", id, classify(err))
		}
		var m UIMessage
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, fmt.Errorf("decode UI history of session %s: %w", id, err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read UI history of session %s: %w", id, classify(err))
	}
	return out, nil
}

// ModelMessages returns the history the model is sent for a session, in
// order: user, assistant and tool messages, with everything a compaction
// replaced standing as one summary message. It is the log as recorded;
// Resume also closes tool calls that never got a result.
func (s *Store) ModelMessages(ctx context.Context, id string) (_ []Message, err error) {
	defer s.explain(&err)
	return s.modelMessages(ctx, id)
}

// ModelHistory is ModelMessages ready to send: like Resume's Messages, a
// tool call that never got a result is answered by an InterruptedResult.
// It is what the engine reads before every model call.
func (s *Store) ModelHistory(ctx context.Context, id string) (_ []Message, err error) {
	defer s.explain(&err)
	msgs, err := s.modelMessages(ctx, id)
	if err != nil {
		return nil, err
	}
	return closeToolCalls(msgs), nil
}

func modelMessages(ctx context.Context, q querier, id string) ([]Message, error) {
	rows, err := q.QueryContext(ctx, qModelMessages, id)
	return scanModelMessages(rows, err, id)
}

// scanModelMessages reads the rows of qModelMessages (err: the query's).
func scanModelMessages(rows *sql.Rows, err error, id string) ([]Message, error) {
	if err != nil {
		return nil, fmt.Errorf("read model history of session %s: %w", id, classify(err))
	}
	defer rows.Close()
	var out []Message
	var calls, attached []byte
	for rows.Next() {
		var m Message
		if err := rows.Scan(&m.Seq, &m.Role, &m.Content, &calls, &m.ToolCallID, &m.ToolName, &m.IsError, &m.Summary, &attached); err != nil {
			return nil, fmt.Errorf("read model history of session %s: %w", id, classify(err))
		}
		if len(calls) > 0 {
			if err := json.Unmarshal(calls, &m.ToolCalls); err != nil {
				return nil, fmt.Errorf("decode tool calls of message %d: %w", m.Seq, err)
			}
		}
		if len(attached) > 0 {
			if err := json.Unmarshal(attached, &m.Attachments); err != nil {
				return nil, fmt.Errorf("decode attachments of message %d: %w", m.Seq, err)
			}
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read model history of session %s: %w", id, classify(err))
	}
	return out, nil
}

// Rebuild drops every projection (session list, UI and model histories,
// search index) and recomputes them from the event log, in one
// transaction. Open runs it when the projection code changed; it is also
// the repair for projections that went wrong, a search index that lost
// sync included.
func (s *Store) Rebuild(ctx context.Context) (err error) {
	defer s.explain(&err)
	err = s.write(ctx, func(w *writeTx) error {
		for _, q := range []string{
			`DELETE FROM sessions`, // cascades to the other projection tables
			`INSERT INTO search_fts (search_fts) VALUES ('delete-all')`,
			`UPDATE meta SET value = '0' WHERE key = 'search_indexed'`,
		} {
			if _, err := w.tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("clear projections: %w", classify(err))
			}
		}
		ids, err := queryStrings(ctx, w.tx, `SELECT DISTINCT session_id FROM events`)
		if err != nil {
			return fmt.Errorf("list logged sessions: %w", classify(err))
		}
		for _, id := range ids {
			if err := w.reproject(id); err != nil {
				return fmt.Errorf("session %s: %w", id, err)
			}
		}
		if _, err := w.indexPending(); err != nil {
			return err
		}
		_, err = w.tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('projection_version', ?)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, projectionVersion)
		return classify(err)
	})
	if err != nil {
		return fmt.Errorf("rebuild projections: %w", err)
	}
	return nil
}

// reproject projects one session's whole log into empty projections.
func (w *writeTx) reproject(id string) error {
	w.clearHistory = true
	evs, err := readEvents(w.ctx, w.tx, id, 0)
	if err != nil {
		return err
	}
	if len(evs) == 0 || evs[0].Type != EventSessionCreated {
		return fmt.Errorf("log does not start with session.created")
	}
	w.sid = id
	var sess Session
	for _, ev := range evs {
		if err := project(&sess, ev, w); err != nil {
			return err
		}
	}
	if err := w.flushUI(); err != nil {
		return err
	}
	return w.saveSession(&sess)
}

// queryStrings runs a query with one text column.
func queryStrings(ctx context.Context, q querier, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
