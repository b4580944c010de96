-- A commit writes one WAL frame per page it changed, and on this kind of disk each frame is
-- most of a mutation's cost. Three pages that bought nothing go:
--
-- * events lose AUTOINCREMENT, whose sqlite_sequence row was one more page per event. Ids
--   stay never-reused without it: a new id is the largest plus one, and the newest event
--   can never be deleted (events_no_delete), so the largest id never goes back.
-- * idempotency loses its created_at index: request ids are forgotten oldest rowid first.
-- * tasks_project indexes only the tasks that have a project.
--
-- Rebuilding events runs with foreign keys off (Store.migrate), so artifacts keep their
-- event ids; foreign_key_check runs before the commit.

CREATE TABLE events_rebuilt (
    id INTEGER PRIMARY KEY,
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

INSERT INTO events_rebuilt (id, kind, agent_name, task_id, project_id, message, metadata,
    assignee_agent, created_at, archived_at)
SELECT id, kind, agent_name, task_id, project_id, message, metadata, assignee_agent,
    created_at, archived_at
FROM events;

-- A store whose newest events were archived and pruned had handed out ids above the largest
-- left. An archived placeholder takes the largest id handed out, so none is handed out again.
INSERT INTO events_rebuilt (id, kind, agent_name, message, created_at, archived_at)
SELECT seq, 'ids_reserved', 'vybe', 'ids up to this one were used by pruned events', at, at
FROM sqlite_sequence,
    (SELECT strftime('%Y-%m-%dT%H:%M:%f000Z', 'now') AS at)
WHERE name = 'events' AND seq > (SELECT COALESCE(MAX(id), 0) FROM events);

DROP TABLE events;

ALTER TABLE events_rebuilt RENAME TO events;

CREATE INDEX events_agent ON events (agent_name, id);
CREATE INDEX events_task ON events (task_id, id);
CREATE INDEX events_kind ON events (kind, archived_at, id);
CREATE INDEX events_project ON events (project_id, id);
CREATE INDEX events_assignee ON events (assignee_agent, id) WHERE assignee_agent IS NOT NULL;
CREATE INDEX events_archived ON events (archived_at) WHERE archived_at IS NOT NULL;

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
WHEN OLD.archived_at IS NULL OR OLD.id = (SELECT MAX(id) FROM events)
BEGIN
    SELECT RAISE(ABORT, 'events are append-only: only archived events can be pruned, never the newest');
END;

DROP INDEX idempotency_created;

DROP INDEX tasks_project;
CREATE INDEX tasks_project ON tasks (project_id) WHERE project_id IS NOT NULL;
