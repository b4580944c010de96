-- The context a hand-off carries (`vybe task assign --to AGENT`): built from the record when
-- the task is handed over, shown in the receiving agent's brief. One row per task_assigned
-- event that carried one; no foreign key, so that pruning archived events stays possible.

CREATE TABLE handoff_context (
    event_id INTEGER PRIMARY KEY,
    task_id TEXT NOT NULL,
    from_agent TEXT NOT NULL,
    to_agent TEXT NOT NULL,
    session_id TEXT,
    context TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE INDEX handoff_context_task ON handoff_context (task_id, to_agent, event_id);
