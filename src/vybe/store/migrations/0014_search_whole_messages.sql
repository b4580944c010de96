-- The literal index holds every character of a message: its whole text and every tool call
-- it makes, as a snippet shows them (the view's `shown`). Before, a message over 8,000
-- characters was indexed by its first 6,000 and last 2,000 only, and its calls by their
-- first 8,000, so an id or an error in the middle of a long tool output was not found, and
-- the search said it was complete. A message is bounded already by what can write one (a
-- hook's input, a transcript's line, the calls' bounds of 0012); the words index keeps its
-- bound of 100,000 characters.
--
-- Only the rows whose literal text changes are indexed again, here: the messages whose
-- text or calls were cut (the old view's `literal` differs from `shown`). Each leaves the
-- contentless index given the values it was indexed with (read from the old view before it
-- goes) and comes back whole. A row the backlog has not reached yet was never indexed, and
-- is indexed whole when it is.

CREATE TEMP TABLE search_whole_again AS
SELECT id FROM search_messages
WHERE id IN (
    SELECT id FROM messages
    WHERE length(content_text) > 8000 OR length(content_json) > 8000
) AND literal <> shown
AND id >= coalesce((SELECT below FROM search_backlog WHERE source = 'messages'), 0);

INSERT INTO search_literal (search_literal, rowid, body)
SELECT 'delete', hit, literal FROM search_messages
WHERE id IN (SELECT id FROM search_whole_again);

DROP TRIGGER messages_search;
DROP VIEW search_messages;

CREATE VIEW search_messages AS
SELECT id, 2 * id AS hit,
    substr(content_text || coalesce(_sep || calls, ''), 1, 100000) AS words,
    'tt' || type || ' ts' || hex(session_id) AS tags,
    content_text || coalesce(_sep || calls, '') AS literal,
    content_text || coalesce(_sep || calls, '') AS shown
FROM (
    SELECT m.*, CASE
        WHEN instr(m.content_json, '"tool_calls"') = 0 THEN NULL
        WHEN json_valid(m.content_json) THEN (
            SELECT group_concat(line, char(10)) FROM (
                SELECT substr(CAST(coalesce(json_extract(c.value, '$.name'), '') AS TEXT), 1, 200)
                    || ':' || coalesce((
                        SELECT ' ' || group_concat(v, ' ') FROM (
                            SELECT substr(a.value, 1, 2000) AS v
                            FROM json_tree(c.value, '$.arguments') AS a
                            WHERE a.type = 'text' LIMIT 100
                        )
                    ), '') AS line
                FROM json_each(m.content_json, '$.tool_calls') AS c
                WHERE c.type = 'object' LIMIT 32
            )
        )
    END AS calls, CASE WHEN m.content_text = '' THEN '' ELSE char(10) END AS _sep
    FROM messages AS m
);

CREATE TRIGGER messages_search AFTER INSERT ON messages
BEGIN
    INSERT INTO search_words (rowid, body, tags)
    SELECT hit, words, tags FROM search_messages WHERE id = NEW.id;
    INSERT INTO search_literal (rowid, body)
    SELECT hit, literal FROM search_messages WHERE id = NEW.id;
END;

INSERT INTO search_literal (rowid, body)
SELECT hit, literal FROM search_messages WHERE id IN (SELECT id FROM search_whole_again);

DROP TABLE search_whole_again;
