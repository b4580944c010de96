-- The twin of SQLite's 0014: a message's literal text is all of it, its whole text and
-- every tool call it makes (as 0012's vybe_message_text shows them), no longer its first
-- 6,000 and last 2,000 characters and its calls' first 8,000. A message is bounded already
-- by what can write one; the words keep their bound of 100,000 characters.
--
-- The literal index is an expression index over vybe_message_literal: replacing the
-- function does not change what the index holds, so it is made again here, over every
-- message, under the migration's advisory lock.

CREATE OR REPLACE FUNCTION vybe_message_literal(t text, j text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT vybe_message_text(t, j)
$$;

DROP INDEX messages_search_literal;
CREATE INDEX messages_search_literal ON messages
    USING gin (vybe_trigrams(vybe_message_literal(content_text, content_json)));

DROP FUNCTION vybe_search_literal(text);
