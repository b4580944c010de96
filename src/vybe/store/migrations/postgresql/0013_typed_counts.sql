-- The twin of SQLite's 0013: how many of the person's messages each session's record
-- holds, kept by a trigger as they are written (counting them grew with the session).
-- Derived from messages alone: a store copy leaves it to this trigger, which counts each
-- message the copy inserts.

-- Writers of an older vybe wait while it runs: a message written between the count and the
-- trigger would be counted by neither.
LOCK TABLE messages IN SHARE ROW EXCLUSIVE MODE;

CREATE TABLE session_typed (
    session_id TEXT PRIMARY KEY,
    typed BIGINT NOT NULL
);

INSERT INTO session_typed (session_id, typed)
SELECT session_id, COUNT(*) FROM messages WHERE type = 'user' GROUP BY session_id;

CREATE FUNCTION vybe_count_typed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO session_typed (session_id, typed) VALUES (NEW.session_id, 1)
    ON CONFLICT (session_id) DO UPDATE SET typed = session_typed.typed + 1;
    RETURN NULL;
END $$;

CREATE TRIGGER messages_typed AFTER INSERT ON messages
FOR EACH ROW WHEN (NEW.type = 'user') EXECUTE FUNCTION vybe_count_typed();
