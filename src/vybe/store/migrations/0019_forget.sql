-- `vybe forget` and retention take words back out of the record: the append-only tables
-- stay append-only for every writer but a forget's own transaction, which holds the one row
-- of `forgetting` from its start to just before its commit. The row is never committed
-- (the table is empty at rest), so no other transaction ever sees it.
CREATE TABLE forgetting (id INTEGER PRIMARY KEY CHECK (id = 1));

DROP TRIGGER messages_no_update;
CREATE TRIGGER messages_no_update BEFORE UPDATE ON messages
WHEN NOT EXISTS (SELECT 1 FROM forgetting)
BEGIN
    SELECT RAISE(ABORT, 'messages are append-only');
END;

DROP TRIGGER checkpoints_no_delete;
CREATE TRIGGER checkpoints_no_delete BEFORE DELETE ON checkpoints
WHEN NOT EXISTS (SELECT 1 FROM forgetting)
BEGIN
    SELECT RAISE(ABORT, 'checkpoints are append-only');
END;

DROP TRIGGER checkpoint_attempts_no_delete;
CREATE TRIGGER checkpoint_attempts_no_delete BEFORE DELETE ON checkpoint_attempts
WHEN NOT EXISTS (SELECT 1 FROM forgetting)
BEGIN
    SELECT RAISE(ABORT, 'checkpoint attempts are append-only');
END;

DROP TRIGGER compaction_receipts_no_delete;
CREATE TRIGGER compaction_receipts_no_delete BEFORE DELETE ON compaction_receipts
WHEN NOT EXISTS (SELECT 1 FROM forgetting)
BEGIN
    SELECT RAISE(ABORT, 'compaction receipts are kept');
END;

DROP TRIGGER events_no_update;
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
WHEN (NEW.id IS NOT OLD.id OR NEW.kind IS NOT OLD.kind OR NEW.agent_name IS NOT OLD.agent_name
  OR NEW.task_id IS NOT OLD.task_id OR NEW.project_id IS NOT OLD.project_id
  OR NEW.message IS NOT OLD.message OR NEW.metadata IS NOT OLD.metadata
  OR NEW.assignee_agent IS NOT OLD.assignee_agent OR NEW.created_at IS NOT OLD.created_at
  OR (OLD.archived_at IS NOT NULL AND NEW.archived_at IS NOT OLD.archived_at))
  AND NOT EXISTS (SELECT 1 FROM forgetting)
BEGIN
    SELECT RAISE(ABORT, 'events are append-only');
END;
