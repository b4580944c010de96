-- The twin of the SQLite migration that gives FTS5 prefix indexes: nothing to do here. A
-- prefix query on PostgreSQL is a `:*` lexeme of the words' GIN index, which finds the
-- matching entries in its sorted keys without a second index; a search the server cannot
-- finish inside its time bound answers QUERY_TIMEOUT.
SELECT 1;
