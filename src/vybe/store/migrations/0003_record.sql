-- The record of agent sessions: every input and reply, append-only, numbered by one
-- context_seq per session; the accepted checkpoints of a session; an audit row for every
-- checkpoint attempt. A session's context is a pure function of these rows.

CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL
);

CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions (id),
    context_seq INTEGER NOT NULL,
    type TEXT NOT NULL CHECK (type IN ('user', 'harness', 'assistant', 'tool', 'system')),
    source TEXT NOT NULL DEFAULT '',
    content_text TEXT NOT NULL DEFAULT '',
    content_json TEXT,
    tokens INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    UNIQUE (session_id, context_seq)
);

CREATE INDEX messages_session_type ON messages (session_id, type, context_seq);

CREATE TRIGGER messages_no_update BEFORE UPDATE ON messages
BEGIN
    SELECT RAISE(ABORT, 'messages are append-only');
END;

CREATE TRIGGER messages_no_delete BEFORE DELETE ON messages
BEGIN
    SELECT RAISE(ABORT, 'messages are append-only');
END;

-- One row per accepted checkpoint; the latest row of a session is the one in effect.
CREATE TABLE checkpoints (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions (id),
    mode TEXT NOT NULL CHECK (mode IN ('normal', 'rolling', 'dropped')),
    first_kept_seq INTEGER NOT NULL,
    summarized_to_seq INTEGER NOT NULL,
    mind TEXT NOT NULL DEFAULT '',
    memo TEXT NOT NULL DEFAULT '[]',
    now TEXT NOT NULL DEFAULT '',
    kept_inputs TEXT NOT NULL DEFAULT '[]',
    skills TEXT NOT NULL DEFAULT '[]',
    files TEXT NOT NULL DEFAULT '{}',
    tokens_before INTEGER NOT NULL,
    tokens_after INTEGER NOT NULL,
    created_at TEXT NOT NULL
);

CREATE INDEX checkpoints_session ON checkpoints (session_id, id);

CREATE TRIGGER checkpoints_no_update BEFORE UPDATE ON checkpoints
BEGIN
    SELECT RAISE(ABORT, 'checkpoints are append-only');
END;

CREATE TRIGGER checkpoints_no_delete BEFORE DELETE ON checkpoints
BEGIN
    SELECT RAISE(ABORT, 'checkpoints are append-only');
END;

-- The audit trail: every attempt, accepted or failed, with what the checks found.
CREATE TABLE checkpoint_attempts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions (id),
    run_id TEXT NOT NULL DEFAULT '',
    mode TEXT NOT NULL CHECK (mode IN ('normal', 'rolling', 'dropped')),
    reason TEXT NOT NULL CHECK (reason IN ('threshold', 'overflow')),
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

CREATE INDEX checkpoint_attempts_session ON checkpoint_attempts (session_id, id);

CREATE TRIGGER checkpoint_attempts_no_update BEFORE UPDATE ON checkpoint_attempts
BEGIN
    SELECT RAISE(ABORT, 'checkpoint attempts are append-only');
END;

CREATE TRIGGER checkpoint_attempts_no_delete BEFORE DELETE ON checkpoint_attempts
BEGIN
    SELECT RAISE(ABORT, 'checkpoint attempts are append-only');
END;
