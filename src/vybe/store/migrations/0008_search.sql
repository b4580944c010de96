-- Full-text search over the record of sessions and the event log, kept in step by triggers
-- inside the writing transaction.
--
-- Two contentless FTS5 indexes share one row id space: a message's row is 2·id, an event's
-- 2·id + 1, so one query ranks both. The text itself stays in messages and events; snippets
-- are cut from there.
--
-- * search_words: words (unicode61, accents folded), ranked with bm25; phrase and prefix
--   queries. Its `tags` column holds one term per filter (`tt<type>`, `ts<hex session id>`,
--   `ta<hex agent>`, `tp<hex project>`), so a filter is one more term FTS5 intersects
--   instead of rows read and thrown away.
-- * search_literal: trigrams, for text as the agent wrote it: paths, ids, error messages.
--
-- What each row contributes is written once, in the views search_messages and
-- search_events: a long text is indexed up to a bound (words: its first 100,000 characters;
-- trigrams: its first 6,000 and last 2,000, where a log's error line usually is), so a pasted
-- log stays findable without every write paying for all of it.
--
-- Rows written before this migration are indexed by `vybe upgrade` and `vybe maintain`, a
-- batch per transaction, newest first (search_backlog holds where each source stands), so an
-- upgrade of a big store never holds the write lock for long.

CREATE VIRTUAL TABLE search_words USING fts5(
    body, tags, content = '', tokenize = 'unicode61 remove_diacritics 2'
);

CREATE VIRTUAL TABLE search_literal USING fts5(body, content = '', tokenize = 'trigram');

CREATE VIEW search_messages AS
SELECT id, 2 * id AS hit,
    substr(content_text, 1, 100000) AS words,
    'tt' || type || ' ts' || hex(session_id) AS tags,
    CASE WHEN length(content_text) > 8000
        THEN substr(content_text, 1, 6000) || ' ' || substr(content_text, -2000)
        ELSE content_text END AS literal
FROM messages;

CREATE VIEW search_events AS
SELECT id, 2 * id + 1 AS hit,
    kind || ' ' || message AS words,
    'ttevent ta' || hex(agent_name)
        || CASE WHEN project_id IS NULL THEN '' ELSE ' tp' || hex(project_id) END AS tags,
    kind || ' ' || message AS literal
FROM events;

CREATE TRIGGER messages_search AFTER INSERT ON messages
BEGIN
    INSERT INTO search_words (rowid, body, tags)
    SELECT hit, words, tags FROM search_messages WHERE id = NEW.id;
    INSERT INTO search_literal (rowid, body)
    SELECT hit, literal FROM search_messages WHERE id = NEW.id;
END;

CREATE TRIGGER events_search AFTER INSERT ON events
BEGIN
    INSERT INTO search_words (rowid, body, tags)
    SELECT hit, words, tags FROM search_events WHERE id = NEW.id;
    INSERT INTO search_literal (rowid, body)
    SELECT hit, literal FROM search_events WHERE id = NEW.id;
END;

-- A pruned event leaves both indexes: a contentless index forgets a row given its values,
-- read here while the row still exists (a refused delete rolls this back with it); a row
-- the backlog has not reached yet was never indexed.
CREATE TRIGGER events_search_prune BEFORE DELETE ON events
WHEN NOT EXISTS (SELECT 1 FROM search_backlog WHERE source = 'events' AND OLD.id < below)
BEGIN
    INSERT INTO search_words (search_words, rowid, body, tags)
    SELECT 'delete', hit, words, tags FROM search_events WHERE id = OLD.id;
    INSERT INTO search_literal (search_literal, rowid, body)
    SELECT 'delete', hit, literal FROM search_events WHERE id = OLD.id;
END;

-- Rows with an id below `below` are not indexed yet.
CREATE TABLE search_backlog (
    source TEXT PRIMARY KEY CHECK (source IN ('messages', 'events')),
    below INTEGER NOT NULL
);

INSERT INTO search_backlog (source, below)
SELECT 'messages', MAX(id) + 1 FROM messages HAVING COUNT(*) > 0;

INSERT INTO search_backlog (source, below)
SELECT 'events', MAX(id) + 1 FROM events HAVING COUNT(*) > 0;
