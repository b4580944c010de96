-- The context a hand-off carries: the twin of the SQLite migration (see its comments).

CREATE TABLE handoff_context (
    event_id BIGINT PRIMARY KEY,
    task_id TEXT NOT NULL,
    from_agent TEXT NOT NULL,
    to_agent TEXT NOT NULL,
    session_id TEXT,
    context TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE INDEX handoff_context_task ON handoff_context (task_id, to_agent, event_id);
