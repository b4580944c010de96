"""The SQL of session listings: one summary row per session of the record."""

from __future__ import annotations

import sqlite3
from typing import Any

# A session's summary beside its id (``s``): tokens, last activity, checkpoints and its first
# typed words; a listing and the viewer's pages select it after their own counts.
SUMMARY = (
    " (SELECT COALESCE(SUM(tokens), 0) FROM messages m WHERE m.session_id = s.id) AS tokens,"
    " (SELECT MAX(created_at) FROM messages m WHERE m.session_id = s.id) AS last_at,"
    " (SELECT COUNT(*) FROM checkpoints c WHERE c.session_id = s.id) AS checkpoints,"
    " (SELECT substr(content_text, 1, 120) FROM messages m"
    "   WHERE m.session_id = s.id AND m.type = 'user' ORDER BY context_seq LIMIT 1)"
    "   AS first_words"
)


def list_sessions(conn: sqlite3.Connection, limit: int) -> list[dict[str, Any]]:
    """Newest activity first: counts, tokens, checkpoints and the first typed words (ordered
    outside the summary, as PostgreSQL lets ORDER BY name an output column only alone)."""
    rows = conn.execute(
        "SELECT * FROM (SELECT s.id, s.created_at,"
        " (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) AS messages,"
        " (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id AND m.type = 'user')"
        "   AS user_messages,"
        f"{SUMMARY}"
        " FROM sessions s) AS listed ORDER BY COALESCE(last_at, created_at) DESC, id LIMIT ?",
        (limit,),
    ).fetchall()
    return [dict(r) for r in rows]


def exists(conn: sqlite3.Connection, session_id: str) -> bool:
    return conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone() is not None
