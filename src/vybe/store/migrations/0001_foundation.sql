-- Projects, tasks with dependencies and claims, the append-only event log, artifacts,
-- per-agent cursors and the idempotency ledger.

CREATE TABLE projects (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    metadata TEXT,
    created_at TEXT NOT NULL
);

CREATE TABLE tasks (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'in_progress', 'completed', 'blocked')),
    priority INTEGER NOT NULL DEFAULT 0,
    blocked_reason TEXT,
    project_id TEXT REFERENCES projects (id) ON DELETE SET NULL,
    metadata TEXT,
    claimed_by TEXT,
    claim_epoch INTEGER NOT NULL DEFAULT 0,
    lease_expires_at TEXT,
    version INTEGER NOT NULL DEFAULT 1,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

CREATE INDEX tasks_pick ON tasks (status, project_id, priority DESC, created_at ASC);
CREATE INDEX tasks_project ON tasks (project_id);

CREATE TABLE task_dependencies (
    task_id TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    depends_on_task_id TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    created_at TEXT NOT NULL,
    PRIMARY KEY (task_id, depends_on_task_id)
);

CREATE INDEX task_dependencies_blocker ON task_dependencies (depends_on_task_id);

CREATE TABLE events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    agent_name TEXT NOT NULL,
    task_id TEXT,
    project_id TEXT,
    message TEXT NOT NULL DEFAULT '',
    metadata TEXT,
    assignee_agent TEXT,
    created_at TEXT NOT NULL,
    archived_at TEXT
);

CREATE INDEX events_agent ON events (agent_name, id);
CREATE INDEX events_task ON events (task_id, id);
CREATE INDEX events_kind ON events (kind, archived_at, id);
CREATE INDEX events_project ON events (project_id, id);
CREATE INDEX events_assignee ON events (assignee_agent, id);
CREATE INDEX events_archived ON events (archived_at);

-- Events are append-only: only archiving may touch a row, and only archived rows may go.
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
WHEN NEW.id IS NOT OLD.id OR NEW.kind IS NOT OLD.kind OR NEW.agent_name IS NOT OLD.agent_name
  OR NEW.task_id IS NOT OLD.task_id OR NEW.project_id IS NOT OLD.project_id
  OR NEW.message IS NOT OLD.message OR NEW.metadata IS NOT OLD.metadata
  OR NEW.assignee_agent IS NOT OLD.assignee_agent OR NEW.created_at IS NOT OLD.created_at
  OR (OLD.archived_at IS NOT NULL AND NEW.archived_at IS NOT OLD.archived_at)
BEGIN
    SELECT RAISE(ABORT, 'events are append-only');
END;

CREATE TRIGGER events_no_delete BEFORE DELETE ON events
WHEN OLD.archived_at IS NULL
BEGIN
    SELECT RAISE(ABORT, 'events are append-only: only archived events can be pruned');
END;

CREATE TABLE artifacts (
    id TEXT PRIMARY KEY,
    task_id TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    event_id INTEGER REFERENCES events (id) ON DELETE SET NULL,
    file_path TEXT NOT NULL,
    content_type TEXT,
    project_id TEXT,
    created_at TEXT NOT NULL
);

CREATE INDEX artifacts_task ON artifacts (task_id, created_at);

CREATE TABLE agent_state (
    agent_name TEXT PRIMARY KEY,
    last_seen_event_id INTEGER NOT NULL DEFAULT 0,
    focus_task_id TEXT,
    focus_project_id TEXT,
    version INTEGER NOT NULL DEFAULT 1,
    last_active_at TEXT NOT NULL
);

CREATE TABLE idempotency (
    agent_name TEXT NOT NULL,
    request_id TEXT NOT NULL,
    command TEXT NOT NULL,
    args_sha256 TEXT NOT NULL,
    result_json TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (agent_name, request_id)
);

CREATE INDEX idempotency_created ON idempotency (created_at);
