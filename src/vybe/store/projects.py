"""Projects: the one grouping level of tasks, memory and events."""

from __future__ import annotations

import sqlite3

from vybe.store.rows import strict_json, to_dict, to_dicts

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from vybe.jsonio import JSONObject


def add_missing(
    conn: sqlite3.Connection, project_id: str, name: str, at: str, metadata: Any = None
) -> None:
    """The project, made with this name when it is missing (one statement, nothing read)."""
    conn.execute(
        "INSERT INTO projects (id, name, metadata, created_at) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (id) DO NOTHING",
        (project_id, name, strict_json(metadata) if metadata is not None else None, at),
    )


def get(conn: sqlite3.Connection, project_id: str) -> JSONObject | None:
    return to_dict(conn.execute("SELECT * FROM projects WHERE id = ?", (project_id,)).fetchone())


def list_all(conn: sqlite3.Connection, limit: int) -> list[JSONObject]:
    rows = conn.execute(
        "SELECT * FROM projects ORDER BY created_at, id LIMIT ?", (limit,)
    ).fetchall()
    return to_dicts(rows)


def delete(conn: sqlite3.Connection, project_id: str) -> int:
    conn.execute(
        # A move of the row (its version): a resume planned with this focus is stale.
        "UPDATE agent_state SET focus_project_id = NULL, version = version + 1"
        " WHERE focus_project_id = ?",
        (project_id,),
    )
    return conn.execute("DELETE FROM projects WHERE id = ?", (project_id,)).rowcount
