-- PostgreSQL's 0001_foundation: projects, tasks with dependencies and claims, the
-- append-only event log, artifacts, per-agent cursors and the idempotency ledger.
-- Text sorts by the database's collation: a database created with --locale=C (or
-- LC_COLLATE 'C') lists keys in SQLite's byte order; any collation compares times and ids,
-- which are fixed-width, alike.

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
    priority BIGINT NOT NULL DEFAULT 0,
    blocked_reason TEXT,
    project_id TEXT REFERENCES projects (id) ON DELETE SET NULL,
    metadata TEXT,
    claimed_by TEXT,
    claim_epoch BIGINT NOT NULL DEFAULT 0,
    lease_expires_at TEXT,
    version BIGINT NOT NULL DEFAULT 1,
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

-- Event ids are handed out in commit order: the trigger numbers a new event under a lock
-- held to the end of its transaction, so no event can commit later with a smaller id than
-- one a reader has already passed (a cursor never skips an event). A row that brings its id
-- (a store copied in) keeps it.
CREATE SEQUENCE events_id_seq;

CREATE TABLE events (
    id BIGINT PRIMARY KEY,
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

CREATE FUNCTION vybe_number_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.id IS NULL THEN
        PERFORM pg_advisory_xact_lock(7391, 1);
        NEW.id := nextval('events_id_seq');
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER events_number BEFORE INSERT ON events
FOR EACH ROW EXECUTE FUNCTION vybe_number_event();

CREATE INDEX events_agent ON events (agent_name, id);
CREATE INDEX events_task ON events (task_id, id);
CREATE INDEX events_kind ON events (kind, archived_at, id);
CREATE INDEX events_project ON events (project_id, id);
CREATE INDEX events_assignee ON events (assignee_agent, id);
CREATE INDEX events_archived ON events (archived_at);

-- Events are append-only: only archiving may touch a row, and only archived rows may go.
CREATE FUNCTION vybe_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF OLD.archived_at IS NULL THEN
            RAISE EXCEPTION 'events are append-only: only archived events can be pruned';
        END IF;
        RETURN OLD;
    END IF;
    IF NEW.id IS DISTINCT FROM OLD.id OR NEW.kind IS DISTINCT FROM OLD.kind
        OR NEW.agent_name IS DISTINCT FROM OLD.agent_name
        OR NEW.task_id IS DISTINCT FROM OLD.task_id
        OR NEW.project_id IS DISTINCT FROM OLD.project_id
        OR NEW.message IS DISTINCT FROM OLD.message
        OR NEW.metadata IS DISTINCT FROM OLD.metadata
        OR NEW.assignee_agent IS DISTINCT FROM OLD.assignee_agent
        OR NEW.created_at IS DISTINCT FROM OLD.created_at
        OR (OLD.archived_at IS NOT NULL AND NEW.archived_at IS DISTINCT FROM OLD.archived_at)
    THEN
        RAISE EXCEPTION 'events are append-only';
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER events_no_update BEFORE UPDATE ON events
FOR EACH ROW EXECUTE FUNCTION vybe_events_append_only();

CREATE TRIGGER events_no_delete BEFORE DELETE ON events
FOR EACH ROW EXECUTE FUNCTION vybe_events_append_only();

CREATE TABLE artifacts (
    id TEXT PRIMARY KEY,
    task_id TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    event_id BIGINT REFERENCES events (id) ON DELETE SET NULL,
    file_path TEXT NOT NULL,
    content_type TEXT,
    project_id TEXT,
    created_at TEXT NOT NULL
);

CREATE INDEX artifacts_task ON artifacts (task_id, created_at);

CREATE TABLE agent_state (
    agent_name TEXT PRIMARY KEY,
    last_seen_event_id BIGINT NOT NULL DEFAULT 0,
    focus_task_id TEXT,
    focus_project_id TEXT,
    version BIGINT NOT NULL DEFAULT 1,
    last_active_at TEXT NOT NULL
);

-- rowid numbers the ledger in the order it was written, as SQLite's rowid does: the oldest
-- request ids are forgotten first.
CREATE TABLE idempotency (
    agent_name TEXT NOT NULL,
    request_id TEXT NOT NULL,
    command TEXT NOT NULL,
    args_sha256 TEXT NOT NULL,
    result_json TEXT NOT NULL,
    created_at TEXT NOT NULL,
    rowid BIGINT GENERATED BY DEFAULT AS IDENTITY UNIQUE,
    PRIMARY KEY (agent_name, request_id)
);

CREATE INDEX idempotency_created ON idempotency (created_at);
