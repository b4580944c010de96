-- A checkpoint a person asked for (`vybe session checkpoint ID`) is audited with the reason
-- 'requested'. SQLite cannot change a CHECK constraint in place, so the audit table is
-- rebuilt with its rows, index and append-only triggers.

DROP TRIGGER checkpoint_attempts_no_update;

DROP TRIGGER checkpoint_attempts_no_delete;

CREATE TABLE checkpoint_attempts_new (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions (id),
    run_id TEXT NOT NULL DEFAULT '',
    mode TEXT NOT NULL CHECK (mode IN ('normal', 'rolling', 'dropped')),
    reason TEXT NOT NULL CHECK (reason IN ('threshold', 'overflow', 'requested')),
    outcome TEXT NOT NULL CHECK (outcome IN ('accepted', 'failed')),
    checkpoint_id INTEGER REFERENCES checkpoints (id),
    tokens_before INTEGER NOT NULL,
    tokens_after INTEGER,
    problems TEXT NOT NULL DEFAULT '[]',
    repair_ran INTEGER NOT NULL DEFAULT 0,
    fallbacks TEXT NOT NULL DEFAULT '[]',
    flagged_references TEXT NOT NULL DEFAULT '[]',
    rounds INTEGER NOT NULL DEFAULT 0,
    usage TEXT NOT NULL DEFAULT '{}',
    error TEXT,
    created_at TEXT NOT NULL
);

INSERT INTO checkpoint_attempts_new SELECT
    id, session_id, run_id, mode, reason, outcome, checkpoint_id, tokens_before, tokens_after,
    problems, repair_ran, fallbacks, flagged_references, rounds, usage, error, created_at
FROM checkpoint_attempts;

DROP TABLE checkpoint_attempts;

ALTER TABLE checkpoint_attempts_new RENAME TO checkpoint_attempts;

CREATE INDEX checkpoint_attempts_session ON checkpoint_attempts (session_id, id);

CREATE TRIGGER checkpoint_attempts_no_update BEFORE UPDATE ON checkpoint_attempts
BEGIN
    SELECT RAISE(ABORT, 'checkpoint attempts are append-only');
END;

CREATE TRIGGER checkpoint_attempts_no_delete BEFORE DELETE ON checkpoint_attempts
BEGIN
    SELECT RAISE(ABORT, 'checkpoint attempts are append-only');
END;
