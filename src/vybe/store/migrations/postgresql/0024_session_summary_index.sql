-- A session's summary (tokens, last activity, message count) from an index alone, as on
-- SQLite (0024_session_summary_index.sql): `vybe session list` and `vybe ui`'s sessions page.
CREATE INDEX messages_session_summary ON messages (session_id, created_at, tokens);
