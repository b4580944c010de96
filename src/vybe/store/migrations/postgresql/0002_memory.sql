-- PostgreSQL's 0002_memory: scoped memory with TTL, sticky pin, kinds with half-life decay,
-- access counts, provenance and corrections.

CREATE TABLE memory (
    id TEXT PRIMARY KEY,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    value_type TEXT NOT NULL DEFAULT 'string'
        CHECK (value_type IN ('string', 'number', 'boolean', 'json', 'array')),
    scope TEXT NOT NULL CHECK (scope IN ('global', 'project', 'task', 'agent')),
    scope_id TEXT NOT NULL DEFAULT '',
    kind TEXT NOT NULL DEFAULT 'fact' CHECK (kind IN ('fact', 'directive', 'lesson')),
    pinned BIGINT NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1)),
    half_life_days DOUBLE PRECISION,
    expires_at TEXT,
    access_count BIGINT NOT NULL DEFAULT 0,
    last_accessed_at TEXT,
    source_event_id BIGINT,
    source_task_id TEXT,
    supersedes TEXT,
    superseded_by TEXT,
    superseded_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

CREATE UNIQUE INDEX memory_live_key ON memory (scope, scope_id, key)
    WHERE superseded_by IS NULL;
CREATE INDEX memory_history ON memory (scope, scope_id, key, created_at)
    WHERE superseded_by IS NOT NULL;
CREATE INDEX memory_recent ON memory (scope, scope_id, pinned, updated_at)
    WHERE superseded_by IS NULL;
CREATE INDEX memory_read ON memory (scope, scope_id, pinned, access_count)
    WHERE superseded_by IS NULL;
CREATE INDEX memory_directives ON memory (scope, scope_id, access_count)
    WHERE kind = 'directive' AND superseded_by IS NULL;
CREATE INDEX memory_expiry ON memory (expires_at) WHERE expires_at IS NOT NULL;
