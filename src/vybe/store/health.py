"""The SQL of `vybe status` and `vybe doctor`: does the store answer, is it intact."""

from __future__ import annotations

import sqlite3

from vybe.store import agents

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.jsonio import JSONObject


def agent_state(conn: sqlite3.Connection, agent: str) -> JSONObject | None:
    """This agent's row, once the tasks table has answered a query (status's health probe)."""
    conn.execute("SELECT COUNT(*) FROM tasks").fetchone()
    return agents.get(conn, agent)


def integrity(conn: sqlite3.Connection) -> str:
    """SQLite's own integrity check: ``"ok"`` or the first problems it found."""
    report: str = conn.execute("PRAGMA integrity_check").fetchone()[0]
    return report
