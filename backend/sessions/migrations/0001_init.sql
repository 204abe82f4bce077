-- 0001: the event log and its projections.
--
-- events is the source of truth; every other table is a projection that
-- Store.Rebuild can drop and recompute from events alone, so events has no
-- foreign key to sessions (deleting a projection row must never delete the
-- log). The projection tables reference sessions with deferred keys: a
-- batch may write a new session's items before its row. Times are Unix
-- milliseconds (UTC).

CREATE TABLE events (
    session_id TEXT    NOT NULL,
    seq        INTEGER NOT NULL CHECK (seq >= 1),
    type       TEXT    NOT NULL CHECK (type <> ''),
    ts         INTEGER NOT NULL,
    data       TEXT    NOT NULL CHECK (json_valid(data)),
    PRIMARY KEY (session_id, seq)
);

-- meta holds small store-wide values (the projection version).
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

-- sessions: the session list. One row per session that has a
-- session.created event.
CREATE TABLE sessions (
    id                 TEXT PRIMARY KEY,
    custom_title       TEXT    NOT NULL DEFAULT '',
    auto_title         TEXT    NOT NULL DEFAULT '',
    workspace          TEXT    NOT NULL DEFAULT '',
    agent              TEXT    NOT NULL DEFAULT '',
    mode               TEXT    NOT NULL DEFAULT '',
    provider           TEXT    NOT NULL DEFAULT '',
    model              TEXT    NOT NULL DEFAULT '',
    created_at         INTEGER NOT NULL DEFAULT 0,
    updated_at         INTEGER NOT NULL DEFAULT 0,
    deleted_at         INTEGER NOT NULL DEFAULT 0, -- 0: not deleted
    last_seq           INTEGER NOT NULL DEFAULT 0,
    message_count      INTEGER NOT NULL DEFAULT 0,
    input_tokens       INTEGER NOT NULL DEFAULT 0,
    output_tokens      INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens  INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    cost_usd           REAL    NOT NULL DEFAULT 0,
    forked_from        TEXT    NOT NULL DEFAULT '',
    forked_at_seq      INTEGER NOT NULL DEFAULT 0
);

CREATE INDEX sessions_by_updated ON sessions (updated_at DESC, id);
CREATE INDEX sessions_by_deleted ON sessions (deleted_at) WHERE deleted_at <> 0;

-- ui_messages: the history the UI shows. One row per item, keyed by the
-- seq of the event that opened it; data is the UIMessage as JSON.
CREATE TABLE ui_messages (
    session_id TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
    seq        INTEGER NOT NULL,
    kind       TEXT    NOT NULL,
    call_id    TEXT    NOT NULL DEFAULT '',
    data       TEXT    NOT NULL,
    PRIMARY KEY (session_id, seq)
);

-- Finds the item a later event (a result, an answer) fills in. Partial:
-- only tool and approval items have a call ID.
CREATE INDEX ui_messages_by_call ON ui_messages (session_id, call_id, kind, seq) WHERE call_id <> '';

-- model_messages: the history sent to the model. pos orders the rows: it
-- is the seq of the source event, or a compaction's UpToSeq for the one
-- summary message that replaces everything up to it.
CREATE TABLE model_messages (
    session_id   TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
    pos          INTEGER NOT NULL,
    seq          INTEGER NOT NULL,
    role         TEXT    NOT NULL,
    content      TEXT    NOT NULL DEFAULT '',
    tool_calls   TEXT    NOT NULL DEFAULT '',
    tool_call_id TEXT    NOT NULL DEFAULT '',
    tool_name    TEXT    NOT NULL DEFAULT '',
    is_error     INTEGER NOT NULL DEFAULT 0,
    summary      INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (session_id, pos)
);

-- search_docs holds the searchable text (user and assistant messages);
-- search_fts indexes it with the trigram tokenizer, which matches any
-- substring of three or more characters, so Japanese (which has no spaces
-- between words) is searchable too. There are no sync triggers: new rows
-- reach the index in one statement per write transaction (a per-row
-- trigger made FTS5 flush its pending terms at every statement), Purge
-- removes its rows from the index itself, and Rebuild empties and refills
-- the index (a trigger's 'delete' fails on an index that lost sync, and
-- Rebuild is the repair).
CREATE TABLE search_docs (
    id         INTEGER PRIMARY KEY,
    session_id TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
    seq        INTEGER NOT NULL,
    role       TEXT    NOT NULL,
    text       TEXT    NOT NULL
);

CREATE INDEX search_docs_by_session ON search_docs (session_id, seq);

CREATE VIRTUAL TABLE search_fts USING fts5 (
    text,
    content = 'search_docs',
    content_rowid = 'id',
    tokenize = 'trigram'
);
