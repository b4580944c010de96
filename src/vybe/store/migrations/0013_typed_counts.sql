-- How many of the person's messages each session's record holds, kept as they are written:
-- a compaction's hook, the status line and a hand-off say how many were typed, and counting
-- them grew with the session (10k typed messages: about 5M instructions a hook, 0.1x of
-- its 2x budget). Derived from messages alone (a store copy leaves it to the server's own
-- trigger, which counts each message the copy inserts).

CREATE TABLE session_typed (
    session_id TEXT PRIMARY KEY,
    typed INTEGER NOT NULL
);

INSERT INTO session_typed (session_id, typed)
SELECT session_id, COUNT(*) FROM messages WHERE type = 'user' GROUP BY session_id;

CREATE TRIGGER messages_typed AFTER INSERT ON messages WHEN NEW.type = 'user'
BEGIN
    INSERT INTO session_typed (session_id, typed) VALUES (NEW.session_id, 1)
    ON CONFLICT (session_id) DO UPDATE SET typed = typed + 1;
END;
