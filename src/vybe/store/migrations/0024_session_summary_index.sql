-- A session's summary (vybe.store.sessions.SUMMARY: tokens, last activity, message count),
-- which `vybe session list` and `vybe ui`'s sessions page read for each session they show,
-- from this index alone: before it, every row of every shown session was read, content and
-- all (vybe ui's sessions page on 120k messages: 350 ms p50, 38 ms with it).
CREATE INDEX messages_session_summary ON messages (session_id, created_at, tokens);
