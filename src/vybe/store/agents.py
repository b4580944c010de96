"""Per-agent state: the event cursor and the focus, advanced with CAS on ``version``."""

from __future__ import annotations

import sqlite3

from vybe.store.rows import to_dict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.jsonio import JSONObject

NEW_VERSION = 1  # a row's version before anything moved it (the column's default)


def get(conn: sqlite3.Connection, agent: str) -> JSONObject | None:
    row = conn.execute("SELECT * FROM agent_state WHERE agent_name = ?", (agent,)).fetchone()
    return to_dict(row, ())


def ensure(conn: sqlite3.Connection, agent: str, at: str) -> JSONObject:
    conn.execute(
        "INSERT INTO agent_state (agent_name, last_active_at) VALUES (?, ?)"
        " ON CONFLICT (team, agent_name) DO NOTHING",
        (agent, at),
    )
    return get(conn, agent)  # type: ignore[return-value]


def set_focus_task(conn: sqlite3.Connection, agent: str, task_id: str | None, at: str) -> None:
    _set_focus(conn, "focus_task_id", agent, task_id, at)


def set_focus_project(
    conn: sqlite3.Connection, agent: str, project_id: str | None, at: str
) -> None:
    _set_focus(conn, "focus_project_id", agent, project_id, at)


def _set_focus(
    conn: sqlite3.Connection, column: str, agent: str, value: str | None, at: str
) -> None:
    """One statement: the row made already moved (past NEW_VERSION, so a resume planned
    before it existed is stale), or moved on."""
    conn.execute(
        f"INSERT INTO agent_state (agent_name, {column}, version, last_active_at)"
        " VALUES (?, ?, ?, ?) ON CONFLICT (team, agent_name) DO UPDATE"
        f" SET {column} = excluded.{column}, version = agent_state.version + 1,"
        " last_active_at = excluded.last_active_at",
        (agent, value, NEW_VERSION + 1, at),
    )


def advance(
    conn: sqlite3.Connection,
    agent: str,
    expected_version: int,
    cursor: int,
    focus_task_id: str | None,
    at: str,
) -> bool:
    """Move the cursor forward only, and set the focus, if nobody changed the state since."""
    updated = conn.execute(
        "UPDATE agent_state SET last_seen_event_id = MAX(last_seen_event_id, ?),"
        " focus_task_id = ?, version = version + 1, last_active_at = ?"
        " WHERE agent_name = ? AND version = ?",
        (cursor, focus_task_id, at, agent, expected_version),
    ).rowcount
    return updated == 1
