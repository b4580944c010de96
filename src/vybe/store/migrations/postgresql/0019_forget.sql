-- The twin of SQLite's 0019: the append-only tables refuse every change but those of a
-- forget's own transaction, which holds the one row of `forgetting` until just before its
-- commit (never committed: no other transaction sees it).
CREATE TABLE forgetting (id BIGINT PRIMARY KEY CHECK (id = 1));

CREATE OR REPLACE FUNCTION vybe_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM forgetting) THEN
        IF TG_OP = 'DELETE' THEN
            RETURN OLD;
        END IF;
        RETURN NEW;
    END IF;
    RAISE EXCEPTION '%', TG_ARGV[0];
END $$;

CREATE OR REPLACE FUNCTION vybe_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM forgetting) THEN
        IF TG_OP = 'DELETE' THEN
            RETURN OLD;
        END IF;
        RETURN NEW;
    END IF;
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
