-- Full-text search on PostgreSQL's own machinery, from built-ins only: no extension (the
-- server may refuse CREATE EXTENSION, and pg_trgm is not in every build), so one way that
-- works on every server.
--
-- * words: each message's and event's tsvector in message_words / event_words (GIN),
--   written by a trigger inside the transaction that writes the row; the `simple`
--   configuration (lower case, no stemming, no stop words) over the text with punctuation
--   as spaces, so a text splits into the runs of letters and digits SQLite's unicode61
--   tokenizer makes (`read-only` is `read only`, `/srv/app/config.yaml` `srv app config
--   yaml`). Stored, not recomputed: a phrase query rechecks positions and ts_rank ranks
--   from the stored vector. Tables of their own, so `SELECT *` on events shows no vector.
-- * literal: an expression GIN index over each text's (lower-cased) trigrams, which the
--   server keeps in step with the table; a query's trigrams pick the candidates, strpos on
--   the text keeps those that hold it as written.
--
-- What each row contributes is what SQLite's search_messages and search_events views say:
-- a message's words are its first 100,000 characters; its literal text is its first 6,000
-- and last 2,000 characters when it is longer than 8,000; an event contributes its kind
-- and message. The rows already there are indexed here, under the migration's advisory
-- lock, so search_backlog (read by the indexing of `vybe upgrade`) stays empty.

CREATE FUNCTION vybe_search_text(t text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT regexp_replace(t, '[[:punct:]]', ' ', 'g')
$$;

CREATE FUNCTION vybe_search_words(t text) RETURNS tsvector
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT to_tsvector('simple'::regconfig, vybe_search_text(left(t, 100000)))
$$;

-- A word as a prefix: the phrase of its tokens, the last one matching any word it begins.
CREATE FUNCTION vybe_search_prefix(t text) RETURNS tsquery
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT COALESCE(
        to_tsquery('simple'::regconfig,
            NULLIF(phraseto_tsquery('simple'::regconfig, vybe_search_text(t))::text, '') || ':*'),
        ''::tsquery)
$$;

CREATE FUNCTION vybe_search_literal(t text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT CASE WHEN length(t) > 8000 THEN left(t, 6000) || ' ' || right(t, 2000) ELSE t END
$$;

-- Every trigram of a text, lower-cased: the runs of three characters from each of the
-- first three offsets (regexp_matches reads a text once; substr at each offset would read
-- a multibyte text from its start every time).
CREATE FUNCTION vybe_trigrams(t text) RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT COALESCE(array_agg(m[1]), '{}')
    FROM lower(t) AS f, generate_series(1, 3) AS o, regexp_matches(substr(f, o), '...', 'g') AS m
$$;

-- What a literal query looks up: the trigrams that tile its first 60 characters, and its
-- last (a long query would otherwise read a posting list per trigram); strpos checks the
-- rest.
CREATE FUNCTION vybe_trigram_probe(t text) RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT array_agg(m[1]) || right(lower(t), 3)
    FROM regexp_matches(left(lower(t), 60), '...', 'g') AS m
$$;

CREATE TABLE message_words (
    id BIGINT PRIMARY KEY REFERENCES messages (id),
    words tsvector NOT NULL
);

CREATE TABLE event_words (
    id BIGINT PRIMARY KEY REFERENCES events (id) ON DELETE CASCADE,
    words tsvector NOT NULL
);

-- A row's filters as terms of its vector, as SQLite's `tags` column holds them, so a filter
-- is one more posting list GIN intersects rather than rows read and thrown away: `:tt:` and
-- the type, `:ts:` the md5 of the session, `:ta:` of the agent, `:tp:` of the project. A
-- query's own terms never hold a `:` (punctuation is a space to them), so no word, and no
-- prefix (`t*`), matches a tag: a tag begins with one.
CREATE FUNCTION vybe_search_tags(VARIADIC tags text[]) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT array_to_tsvector(array_remove(tags, NULL))
$$;

CREATE FUNCTION vybe_message_words(m messages) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT vybe_search_words(m.content_text)
        || vybe_search_tags(':tt:' || m.type, ':ts:' || md5(m.session_id))
$$;

CREATE FUNCTION vybe_event_words(e events) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT vybe_search_words(e.kind || ' ' || e.message)
        || vybe_search_tags(':tt:event', ':ta:' || md5(e.agent_name), ':tp:' || md5(e.project_id))
$$;

CREATE FUNCTION vybe_index_words() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'messages' THEN
        INSERT INTO message_words (id, words) VALUES (NEW.id, vybe_message_words(NEW));
    ELSE
        INSERT INTO event_words (id, words) VALUES (NEW.id, vybe_event_words(NEW));
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER messages_search AFTER INSERT ON messages
FOR EACH ROW EXECUTE FUNCTION vybe_index_words();

CREATE TRIGGER events_search AFTER INSERT ON events
FOR EACH ROW EXECUTE FUNCTION vybe_index_words();

INSERT INTO message_words (id, words) SELECT id, vybe_message_words(messages) FROM messages;
INSERT INTO event_words (id, words) SELECT id, vybe_event_words(events) FROM events;

CREATE INDEX message_words_match ON message_words USING gin (words);
CREATE INDEX event_words_match ON event_words USING gin (words);
CREATE INDEX messages_search_literal ON messages
    USING gin (vybe_trigrams(vybe_search_literal(content_text)));
CREATE INDEX events_search_literal ON events USING gin (vybe_trigrams(kind || ' ' || message));

-- Read by the indexing of `vybe upgrade` and `vybe maintain`: always empty here.
CREATE TABLE search_backlog (
    source TEXT PRIMARY KEY CHECK (source IN ('messages', 'events')),
    below BIGINT NOT NULL
);
