-- Tool calls are searchable: what a call says (its name and the text of its arguments: the
-- command an agent ran, the path it read, the pattern it grepped) is indexed with the
-- message that made it, in both indexes.
--
-- A call lives in content_json (`{"tool_calls": [{"id", "name", "arguments": {…}}]}`, the
-- one shape Claude Code's and Codex's imports and vybe's own agent write), which 0008's
-- view never read. Each call becomes one line, `<name>: <its string values>` in the order
-- they were written (`Bash: ls -la ~/.claude/ List the directory`, `exec_command: sed -n
-- '1,80p' src/app.py /repo`; a list such as Codex's `["bash", "-lc", "ls"]` reads `bash -lc
-- ls`), after the message's own text. Numbers and booleans are left out (limits, flags).
--
-- Bounded, so no content_json can make a write slow or fail: a text that is not JSON, or
-- has no "tool_calls", contributes nothing (read only when the text holds "tool_calls");
-- at most 32 calls, 100 string values per call, 2,000 characters per value, and the
-- literal index takes the first 8,000 characters of the calls.
--
-- The message view is made again with the calls, and every message goes back to the
-- backlog: `vybe upgrade` and `vybe maintain` index it again, newest first, a batch per
-- transaction, as for 0008 and 0011. Both indexes are made again (a contentless index cannot
-- forget a row without the values it was given), events with them.

DROP TRIGGER messages_search;
DROP VIEW search_messages;

CREATE VIEW search_messages AS
SELECT id, 2 * id AS hit,
    substr(content_text || coalesce(_sep || calls, ''), 1, 100000) AS words,
    'tt' || type || ' ts' || hex(session_id) AS tags,
    CASE WHEN length(content_text) > 8000
        THEN substr(content_text, 1, 6000) || ' ' || substr(content_text, -2000)
        ELSE content_text END || coalesce(_sep || substr(calls, 1, 8000), '') AS literal,
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

INSERT INTO search_words (search_words) VALUES ('delete-all');
INSERT INTO search_literal (search_literal) VALUES ('delete-all');

DELETE FROM search_backlog;

INSERT INTO search_backlog (source, below)
SELECT 'messages', MAX(id) + 1 FROM messages HAVING COUNT(*) > 0;

INSERT INTO search_backlog (source, below)
SELECT 'events', MAX(id) + 1 FROM events HAVING COUNT(*) > 0;
