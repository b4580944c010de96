-- A receipt for each compaction an agent harness did to a session (Claude Code, Codex), as
-- vybe saw it through the hooks: PreCompact opens it (the trigger, the tokens before where
-- the payload or transcript says), SessionStart(compact) completes it (which of the person's
-- messages vybe gave back verbatim or cut, which the harness kept, which were left in the
-- record only). vybe's own checkpoints have theirs in checkpoint_attempts.
--
-- The message lists are JSON arrays of record numbers (messages.context_seq of the session).

CREATE TABLE compaction_receipts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions (id),
    agent_name TEXT NOT NULL,
    compactor TEXT NOT NULL CHECK (compactor IN ('claude', 'codex')),
    trigger TEXT NOT NULL CHECK (trigger IN ('auto', 'manual', 'unknown')),
    tokens_before INTEGER,
    tokens_after INTEGER,
    completed INTEGER NOT NULL DEFAULT 0,
    verbatim TEXT NOT NULL DEFAULT '[]',
    kept TEXT NOT NULL DEFAULT '[]',
    cut TEXT NOT NULL DEFAULT '[]',
    released TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL,
    completed_at TEXT
);

CREATE INDEX compaction_receipts_session ON compaction_receipts (session_id, id);

CREATE TRIGGER compaction_receipts_no_delete BEFORE DELETE ON compaction_receipts
BEGIN
    SELECT RAISE(ABORT, 'compaction receipts are kept');
END;
