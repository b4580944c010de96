-- Full-text search on PostgreSQL's own machinery, from built-ins only (no extension: the
-- server may not allow CREATE EXTENSION, and pg_trgm is not everywhere), as expression
-- indexes: PostgreSQL keeps an index in step with its table inside the writing
-- transaction, so there is no trigger to write and nothing a reader of `SELECT *` sees.
--
-- * words: a tsvector GIN index over the text with ASCII punctuation turned to spaces and
--   the `simple` configuration (lower case, no stemming, no stop words), so a text splits
--   into the runs of letters and digits SQLite's unicode61 tokenizer makes (`read-only`
--   is `read` and `only`, `/srv/app/config.yaml` is `srv app config yaml`).
-- * literal: a GIN index over each text's set of (lower-cased) trigrams; a query's
--   trigrams pick the candidates, strpos on the text keeps those that hold it as written.
--
-- What each row contributes is what SQLite's search_messages and search_events views say:
-- a message's words are its first 100,000 characters; its literal text is its first 6,000
-- and last 2,000 characters when it is longer than 8,000; an event contributes its kind
-- and message. CREATE INDEX indexes the rows already there, under the migration's
-- advisory lock, so search_backlog (read by the indexing of `vybe upgrade`) stays empty.

CREATE FUNCTION vybe_search_text(t text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT translate(t, '!"#$%&''()*+,-./:;<=>?@[\]^_`{|}~', '                                ')
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

CREATE FUNCTION vybe_trigrams(t text) RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT COALESCE(array_agg(DISTINCT substr(f, i, 3)), '{}')
    FROM lower(t) AS f, generate_series(1, length(f) - 2) AS i
$$;

-- What a literal query looks up: at most 17 of its trigrams, spread along it (a long
-- query would otherwise read a posting list per trigram); strpos checks the rest.
CREATE FUNCTION vybe_trigram_probe(t text) RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT COALESCE(array_agg(DISTINCT substr(f, i, 3)), '{}')
    FROM lower(t) AS f, generate_series(1, length(f) - 2, GREATEST(1, (length(f) - 2) / 16)) AS i
$$;

CREATE INDEX messages_search_words ON messages USING gin (vybe_search_words(content_text));
CREATE INDEX messages_search_literal ON messages
    USING gin (vybe_trigrams(vybe_search_literal(content_text)));
CREATE INDEX events_search_words ON events USING gin (vybe_search_words(kind || ' ' || message));
CREATE INDEX events_search_literal ON events USING gin (vybe_trigrams(kind || ' ' || message));

-- Read by the indexing of `vybe upgrade` and `vybe maintain`: always empty here.
CREATE TABLE search_backlog (
    source TEXT PRIMARY KEY CHECK (source IN ('messages', 'events')),
    below BIGINT NOT NULL
);
