-- Full-text search is SQLite's (FTS5) for now: on PostgreSQL `vybe search` answers
-- SEARCH_UNAVAILABLE. The backlog table the indexing code reads is here, empty, so
-- `vybe upgrade` and `vybe maintain` find nothing left to index.
CREATE TABLE search_backlog (
    source TEXT PRIMARY KEY CHECK (source IN ('messages', 'events')),
    below BIGINT NOT NULL
);
