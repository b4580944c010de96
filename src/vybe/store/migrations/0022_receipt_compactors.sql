-- A compaction receipt of Gemini CLI's /compress (its hooks: PreCompress, then the next
-- prompt) or of OpenCode's compaction: the compactor may name them. SQLite changes a CHECK
-- only by building the table again, its rows, ids, indexes and trigger kept.
CREATE TABLE compaction_receipts_new (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions (id),
    agent_name TEXT NOT NULL,
    compactor TEXT NOT NULL CHECK (compactor IN ('claude', 'codex', 'gemini', 'opencode')),
    trigger TEXT NOT NULL CHECK (trigger IN ('auto', 'manual', 'unknown')),
    tokens_before INTEGER,
    tokens_after INTEGER,
    completed INTEGER NOT NULL DEFAULT 0,
    verbatim TEXT NOT NULL DEFAULT '[]',
    kept TEXT NOT NULL DEFAULT '[]',
    cut TEXT NOT NULL DEFAULT '[]',
    released TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL,
    completed_at TEXT,
    source_key TEXT,
    team TEXT NOT NULL DEFAULT 'default'
);

INSERT INTO compaction_receipts_new (id, session_id, agent_name, compactor, trigger,
    tokens_before, tokens_after, completed, verbatim, kept, cut, released, created_at,
    completed_at, source_key, team)
SELECT id, session_id, agent_name, compactor, trigger, tokens_before, tokens_after,
    completed, verbatim, kept, cut, released, created_at, completed_at, source_key, team
FROM compaction_receipts;

DROP TABLE compaction_receipts;

ALTER TABLE compaction_receipts_new RENAME TO compaction_receipts;

CREATE INDEX compaction_receipts_session ON compaction_receipts (session_id, id);

CREATE UNIQUE INDEX compaction_receipts_source ON compaction_receipts (session_id, source_key)
    WHERE source_key IS NOT NULL;

CREATE TRIGGER compaction_receipts_no_delete BEFORE DELETE ON compaction_receipts
WHEN NOT EXISTS (SELECT 1 FROM forgetting)
BEGIN
    SELECT RAISE(ABORT, 'compaction receipts are kept');
END;
