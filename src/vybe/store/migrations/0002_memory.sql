-- Scoped memory: TTL, sticky pin, kinds with half-life decay, access counts, provenance,
-- and corrections (a superseded entry stays as history and leaves the live key space).

CREATE TABLE memory (
    id TEXT PRIMARY KEY,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    value_type TEXT NOT NULL DEFAULT 'string'
        CHECK (value_type IN ('string', 'number', 'boolean', 'json', 'array')),
    scope TEXT NOT NULL CHECK (scope IN ('global', 'project', 'task', 'agent')),
    scope_id TEXT NOT NULL DEFAULT '',
    kind TEXT NOT NULL DEFAULT 'fact' CHECK (kind IN ('fact', 'directive', 'lesson')),
    pinned INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1)),
    half_life_days REAL,
    expires_at TEXT,
    access_count INTEGER NOT NULL DEFAULT 0,
    last_accessed_at TEXT,
    source_event_id INTEGER,
    source_task_id TEXT,
    supersedes TEXT,
    superseded_by TEXT,
    superseded_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

-- One live entry per (scope, scope_id, key); superseded entries keep their key as history.
CREATE UNIQUE INDEX memory_live_key ON memory (scope, scope_id, key)
    WHERE superseded_by IS NULL;
CREATE INDEX memory_history ON memory (scope, scope_id, key, created_at)
    WHERE superseded_by IS NOT NULL;
-- The ranking's candidates per scope: the most recent, the most read (pinned first) and
-- the directives, which never decay.
CREATE INDEX memory_recent ON memory (scope, scope_id, pinned, updated_at)
    WHERE superseded_by IS NULL;
CREATE INDEX memory_read ON memory (scope, scope_id, pinned, access_count)
    WHERE superseded_by IS NULL;
CREATE INDEX memory_directives ON memory (scope, scope_id, access_count)
    WHERE kind = 'directive' AND superseded_by IS NULL;
CREATE INDEX memory_expiry ON memory (expires_at) WHERE expires_at IS NOT NULL;
