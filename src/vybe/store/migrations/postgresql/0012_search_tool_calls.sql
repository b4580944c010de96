-- The twin of SQLite's 0012: what a tool call says (`<name>: <its string values>`, one
-- line per call, after the message's own text) is in a message's words and its literal
-- text, with the same bounds: at most 32 calls, 100 string values per call (in the order
-- written, nested up to 16 deep), 2,000 characters per value; the literal text takes the
-- first 8,000 characters of the calls. A content_json that is not JSON, or whose
-- tool_calls is not a list, contributes nothing: the parse is read only when the text
-- holds "tool_calls", and its failure is caught, so no content_json can break a write.
-- The rows already there are indexed again here, under the migration's advisory lock.

-- A JSON value's strings in the order they were written (`json`, not `jsonb`, which
-- reorders keys), the first 100, each cut at 2,000 characters.
CREATE FUNCTION vybe_json_strings(v json) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    WITH RECURSIVE t(v, path) AS (
        SELECT v, ARRAY[]::bigint[]
        UNION ALL
        SELECT e.v, t.path || e.n FROM t, LATERAL (
            SELECT x.value AS v, x.n
            FROM json_each(CASE WHEN json_typeof(t.v) = 'object' THEN t.v END)
                WITH ORDINALITY AS x(key, value, n)
            UNION ALL
            SELECT x.value, x.n
            FROM json_array_elements(CASE WHEN json_typeof(t.v) = 'array' THEN t.v END)
                WITH ORDINALITY AS x(value, n)
        ) AS e
        WHERE cardinality(t.path) < 16
    )
    SELECT string_agg(s, ' ' ORDER BY path) FROM (
        SELECT left(v #>> '{}', 2000) AS s, path FROM t
        WHERE json_typeof(v) = 'string' ORDER BY path LIMIT 100
    ) AS strings
$$;

CREATE FUNCTION vybe_tool_calls(j text) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    IF j IS NULL OR strpos(j, '"tool_calls"') = 0 THEN
        RETURN NULL;
    END IF;
    RETURN (
        SELECT string_agg(line, E'\n' ORDER BY n) FROM (
            SELECT c.n, left(COALESCE(c.call ->> 'name', ''), 200) || ':'
                || COALESCE(' ' || vybe_json_strings(c.call -> 'arguments'), '') AS line
            FROM json_array_elements(CASE WHEN json_typeof(j::json -> 'tool_calls') = 'array'
                THEN j::json -> 'tool_calls' END) WITH ORDINALITY AS c(call, n)
            WHERE json_typeof(c.call) = 'object'
            ORDER BY c.n LIMIT 32
        ) AS calls
    );
EXCEPTION WHEN OTHERS THEN
    RETURN NULL;
END $$;

-- What a message shows and is found by: its text, then its calls.
CREATE FUNCTION vybe_message_text(t text, j text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT t || COALESCE(CASE WHEN t = '' THEN '' ELSE E'\n' END || vybe_tool_calls(j), '')
$$;

CREATE FUNCTION vybe_message_literal(t text, j text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT vybe_search_literal(t)
        || COALESCE(CASE WHEN t = '' THEN '' ELSE E'\n' END || left(vybe_tool_calls(j), 8000), '')
$$;

CREATE OR REPLACE FUNCTION vybe_message_words(m messages) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT vybe_search_words(vybe_message_text(m.content_text, m.content_json))
        || vybe_search_tags(':tt:' || m.type, ':ts:' || md5(m.session_id))
$$;

UPDATE message_words AS w SET words = vybe_message_words(m)
FROM messages AS m
WHERE m.id = w.id AND strpos(m.content_json, '"tool_calls"') > 0;

DROP INDEX messages_search_literal;
CREATE INDEX messages_search_literal ON messages
    USING gin (vybe_trigrams(vybe_message_literal(content_text, content_json)));
