-- PostgreSQL's 0004_requested_checkpoints: a checkpoint a person asked for is audited with
-- the reason 'requested'. PostgreSQL changes the CHECK in place.

ALTER TABLE checkpoint_attempts DROP CONSTRAINT checkpoint_attempts_reason;

ALTER TABLE checkpoint_attempts ADD CONSTRAINT checkpoint_attempts_reason
    CHECK (reason IN ('threshold', 'overflow', 'requested'));
