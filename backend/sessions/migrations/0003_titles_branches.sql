-- 0003: titles a model wrote (session.titled) and edit-and-resend branches.
--
-- Both columns are projections of the log; Open rebuilds them (the
-- projection version changed with them). sessions_by_parent finds a
-- conversation's branches.

ALTER TABLE sessions ADD COLUMN generated_title TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN branch INTEGER NOT NULL DEFAULT 0;

CREATE INDEX sessions_by_parent ON sessions (forked_from) WHERE forked_from <> '';
