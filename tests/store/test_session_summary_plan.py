"""A session's summary (tokens, last activity, message count), as `vybe session list` and
`vybe ui`'s sessions page read it for each session they show, comes from an index alone:
never every row of the session, its words and all (at 120k messages the page's p50 went
from 350 ms to 38 ms)."""

from __future__ import annotations

import sqlite3

from vybe.store import SqliteStore, sessions, viewer


def _plans(path, read) -> list[str]:
    """The query plan of every statement ``read`` runs on the store at ``path``."""
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    ran: list[str] = []
    conn.set_trace_callback(ran.append)
    read(conn)
    conn.set_trace_callback(None)
    plans = []
    for sql in ran:
        if sql.lstrip().upper().startswith(("SELECT", "WITH")):
            plans += [row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}")]
    conn.close()
    return plans


def test_the_sessions_page_and_session_list_read_no_message_row(tmp_path):
    path = tmp_path / "vybe.db"
    SqliteStore(path).close()
    for read in (
        lambda conn: viewer.session_page(conn, None, 51, {}),
        lambda conn: sessions.list_sessions(conn, 20),
    ):
        on_messages = [p for p in _plans(path, read) if p.startswith("SEARCH m ")]
        # the first typed words: one row, found by (session_id, type) in record order
        summary = [p for p in on_messages if p.endswith("(session_id=?)")]
        assert len(summary) >= 3 and all("COVERING INDEX" in p for p in summary), on_messages


def test_the_sessions_page_filtered_by_agent_or_project_walks_that_index_and_sorts_nothing(
    tmp_path,
):
    """Newest first by id within one agent's (one project's) sessions, a page at a time: the
    index on (agent_name, id) or (project_id, id) gives the order; the filters' choices are
    one probe of each index a value (migration 0025)."""
    path = tmp_path / "vybe.db"
    SqliteStore(path).close()
    for index, filters in (
        ("sessions_agent", {"agent": "claude"}),
        ("sessions_project", {"project": "/home/dev/one"}),
    ):
        plans = _plans(path, lambda conn, f=filters: viewer.session_page(conn, "claude:x", 51, f))
        on_sessions = [p for p in plans if " s " in f" {p} "]
        assert any(
            f"USING COVERING INDEX {index}" in p or f"USING INDEX {index}" in p for p in on_sessions
        ), plans
        assert not [p for p in plans if "TEMP B-TREE" in p], plans
    origins = _plans(path, lambda conn: viewer.session_origins(conn, 100))
    on_sessions = [p for p in origins if "sessions" in p]
    assert len(on_sessions) == 4, origins
    assert all(p.startswith("SEARCH sessions USING COVERING INDEX") for p in on_sessions)
