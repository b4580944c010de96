-- PostgreSQL's 0007_fewer_pages_per_write. Events never had AUTOINCREMENT here (a sequence
-- numbers them); what carries over: the newest event can never be deleted (its id keeps
-- ids from being handed out again), the ledger loses its created_at index (the oldest
-- rowids go first) and tasks_project indexes only the tasks that have a project.

CREATE OR REPLACE FUNCTION vybe_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF OLD.archived_at IS NULL OR OLD.id = (SELECT MAX(id) FROM events) THEN
            RAISE EXCEPTION 'events are append-only: only archived events can be pruned, never the newest';
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

DROP INDEX idempotency_created;

DROP INDEX tasks_project;
CREATE INDEX tasks_project ON tasks (project_id) WHERE project_id IS NOT NULL;
