-- 0004: subagent sessions are linked to the session (and the spawn_agent
-- call) that started them, and remember the tools their parent passed on.
-- The projection is rebuilt from the log (projection version 6), which
-- fills these columns for sessions logged before. sessions_by_subagent_parent
-- finds a session's subagents (sessions_by_parent, from 0003, finds its
-- branches).

ALTER TABLE sessions ADD COLUMN parent_id      TEXT    NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN parent_call_id TEXT    NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN inherited      TEXT    NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN background     INTEGER NOT NULL DEFAULT 0;

CREATE INDEX sessions_by_subagent_parent ON sessions (parent_id) WHERE parent_id <> '';
